/// Minimal JSON text rendering for log lines (faster than JSONSerialization, and key order is ours).
enum JSONText {
    static func render(_ value: LogValue) -> String {
        switch value {
        case .string(let text): quote(text)
        case .int(let number): String(number)
        case .double(let number): number.isFinite ? String(number) : "null"
        case .bool(let flag): flag ? "true" : "false"
        }
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }
}
