/// Minimal JSON text rendering for log lines, into bytes (faster than JSONSerialization,
/// and key order is ours). Log lines are on every request's path, so this avoids
/// per-character String appends. `appendQuoted` also serves other hot JSON text (audit details).
public enum JSONText {
    static func append(_ value: LogValue, to out: inout [UInt8]) {
        switch value {
        case .string(let text): appendQuoted(text, to: &out)
        case .int(let number): out.append(contentsOf: String(number).utf8)
        case .double(let number): out.append(contentsOf: (number.isFinite ? String(number) : "null").utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        }
    }

    /// `text` as a JSON string literal, escaped per RFC 8259.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Fast path: most values need no escaping at all.
            if !bytes.contains(where: needsEscape) {
                out.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                case UInt8(ascii: "\n"): out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case UInt8(ascii: "\t"): out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The quoted form as a String (tests and callers outside the hot path).
    static func quote(_ text: String) -> String {
        var out: [UInt8] = []
        appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func render(_ value: LogValue) -> String {
        var out: [UInt8] = []
        append(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
