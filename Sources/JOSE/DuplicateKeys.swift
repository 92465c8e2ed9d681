import Foundation

/// Detects repeated member names in JSON objects.
///
/// RFC 7515 §4 requires rejecting duplicate header names (or keeping the
/// last). Foundation's JSONDecoder keeps the *first* while other stacks keep
/// the last, so `{"alg":"RS256","alg":"none"}` would mean different things
/// to different parsers; rejecting duplicates removes the ambiguity.
enum DuplicateKeys {
    /// True when any object in `json` repeats a member name. Expects text
    /// that has already parsed as valid JSON.
    static func present(in json: [UInt8]) -> Bool {
        // One entry per open container: a name set for objects, nil for arrays.
        var stack: [Set<String>?] = []
        var expectingKey = false
        var index = 0
        while index < json.count {
            switch json[index] {
            case UInt8(ascii: "{"):
                stack.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                stack.append(nil)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = stack.last.map { $0 != nil } ?? false
            case UInt8(ascii: ":"):
                expectingKey = false
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < json.count, json[index] != UInt8(ascii: "\"") {
                    // Skip the escaped character so \" does not end the string.
                    index += json[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                if expectingKey, var names = stack.last ?? nil {
                    // Decode escapes so "alg" and "\u0061lg" count as the same name.
                    let token = Array(json[start...min(index, json.count - 1)])
                    guard let name = try? JSONDecoder().decode(String.self, from: Data(token)) else { return true }
                    if !names.insert(name).inserted { return true }
                    stack[stack.count - 1] = names
                    expectingKey = false
                }
            default:
                break
            }
            index += 1
        }
        return false
    }
}
