/// application/x-www-form-urlencoded decoding and encoding.
public enum FormCodec {
    /// Why a form body or query string was refused.
    public enum DecodeError: Error, Equatable, Sendable {
        /// A `%` not followed by two hex digits.
        case badEscape
        /// Decoded bytes that are not valid UTF-8 (never replaced with U+FFFD).
        case invalidUTF8
    }

    /// Decodes `a=1&b=x+y`; `+` is space, `%XX` is decoded once, empty pieces are skipped.
    public static func decode(_ text: Substring) throws(DecodeError) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for piece in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { piece[piece.startIndex..<$0] } ?? piece[...]
            let rawValue = equals.map { piece[piece.index(after: $0)...] } ?? piece[piece.endIndex...]
            pairs.append((try component(rawName), try component(rawValue)))
        }
        return pairs
    }

    public static func decode(_ text: String) throws(DecodeError) -> [(String, String)] {
        try decode(text[...])
    }

    /// Encodes pairs, escaping everything but unreserved characters; space becomes `+`.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    private static func component(_ bytes: Substring.UTF8View.SubSequence) throws(DecodeError) -> String {
        do {
            return try PercentDecoding.decode(bytes, plusIsSpace: true)
        } catch .invalidUTF8 {
            throw .invalidUTF8
        } catch {
            throw .badEscape
        }
    }

    private static func escape(_ text: String) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                out.append(byte)
            case ASCII.space:
                out.append(UInt8(ascii: "+"))
            default:
                out.append(ASCII.percent)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
