import FoundationEssentials

/// Header values as RFC 5322 wants them: ASCII, lines under 78 characters, and anything else
/// as RFC 2047 encoded-words (`=?UTF-8?B?…?=`), so a Japanese subject arrives intact.
enum HeaderEncoding {
    /// Refuses what could end the header or start another (RFC 5322 §2.2: CR and LF end a field).
    static func checked(_ value: String, name: String) throws(MessageError) -> String {
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalidHeaderValue(name: name)
        }
        return value
    }

    static func isPlainASCII(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && !value.contains("=?")
    }

    /// Unstructured text (Subject): as is when printable ASCII, else encoded-words.
    static func unstructured(_ value: String) -> String {
        isPlainASCII(value) ? value : encodedWords(value)
    }

    /// A display name (RFC 5322 §3.2.5 phrase): a quoted string when ASCII, else encoded-words
    /// (RFC 2047 §5 (3) allows them in a phrase).
    static func phrase(_ value: String) -> String {
        guard isPlainASCII(value) else { return encodedWords(value) }
        var quoted = "\""
        for character in value {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// Base64 encoded-words, each at most 75 characters (RFC 2047 §2), split only between
    /// characters so no word holds half a UTF-8 sequence (§5: each word must be decodable
    /// alone), joined by CRLF SP so every header line stays short (folding, RFC 5322 §2.2.3).
    static func encodedWords(_ value: String) -> String {
        let prefix = "=?UTF-8?B?", suffix = "?="
        // 36 bytes of UTF-8 are 48 of base64, 60 with the framing: short enough for "Subject: " too.
        let maxBytes = 36
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in value {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > maxBytes, !chunk.isEmpty {
                words.append(prefix + Data(chunk).base64EncodedString() + suffix)
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(prefix + Data(chunk).base64EncodedString() + suffix) }
        return words.joined(separator: "\r\n ")
    }
}
