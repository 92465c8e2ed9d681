import FoundationEssentials
import JOSE

/// Compact JSON with sorted keys and unescaped slashes, for response bodies.
enum JSONBody {
    static func encode(_ object: [String: JSONValue]) -> [UInt8] {
        // JSONValue always encodes here (non-finite numbers are never produced in responses).
        (try? JSONValue.object(object).jsonBytes()) ?? Array("{}".utf8)
    }
}
