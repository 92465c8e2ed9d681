import Foundation
import JOSE

/// Compact JSON with sorted keys and unescaped slashes, for response bodies.
enum JSONBody {
    static func encode(_ object: [String: JSONValue]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSONValue always encodes (non-finite doubles are never produced here).
        return Array((try? encoder.encode(object)) ?? Data("{}".utf8))
    }
}
