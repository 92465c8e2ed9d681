/// Quoted-printable (RFC 2045 §6.7) for UTF-8 text parts: English stays readable in the raw
/// message, any other byte becomes `=XX`, and no line exceeds 76 characters.
enum QuotedPrintable {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Encodes `text` with its line breaks (LF or CRLF) as CRLF hard breaks (rule 4).
    static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        let lines = text.replacingCRLF().split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if index > 0 { out += [13, 10] }
            var width = 0
            let bytes = Array(line.utf8)
            for (position, byte) in bytes.enumerated() {
                let isLast = position == bytes.count - 1
                // Rule 3: a space or tab ending a line is encoded, or transports may strip it.
                let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || ((byte == 32 || byte == 9) && !isLast)
                let piece: [UInt8] = literal ? [byte] : [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                // Rule 5: soft line break ("=" CRLF) so encoded lines stay at most 76 characters.
                if width + piece.count > 75 {
                    out += [UInt8(ascii: "="), 13, 10]
                    width = 0
                }
                out += piece
                width += piece.count
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// LF line breaks only (CRLF and lone CR become LF).
    func replacingCRLF() -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                out.append("\n")
                previousCR = true
                continue
            }
            if scalar == "\n", previousCR {
                previousCR = false
                continue
            }
            previousCR = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
