import FoundationEssentials
import Logging

/// The JSON text of the `[String: String]` columns (audit details, login transaction parameters).
///
/// Keys sorted (by UTF-8 bytes) and slashes unescaped, as JSONSerialization wrote them before, so
/// stored rows stay comparable. Written by hand: the audit log encodes one per token request, and
/// JSONEncoder costs more than the insert itself.
enum StringMapJSON {
    static func encode(_ map: [String: String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, member) in map.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.appendQuoted(member.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// nil unless `text` is a JSON object whose values are all strings.
    static func decode(_ text: String) -> [String: String]? {
        // Most users have no metadata, and every refresh and /userinfo reads a user: no decoder for "{}".
        if text.utf8.elementsEqual("{}".utf8) { return [:] }
        return try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }
}
