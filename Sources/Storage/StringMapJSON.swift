import FoundationEssentials

/// The JSON text of the `[String: String]` columns (audit details, login transaction parameters).
///
/// Keys sorted and slashes unescaped, as JSONSerialization wrote them before, so stored rows
/// stay comparable. Codable is quick enough for objects of a few short strings.
enum StringMapJSON {
    static func encode(_ map: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(map), as: UTF8.self)
    }

    /// nil unless `text` is a JSON object whose values are all strings.
    static func decode(_ text: String) -> [String: String]? {
        try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
    }
}
