/// The pieces of a PHC-format hash string (`$id$param=value,…$salt$hash`) that the parsers share.
enum PHCString {
    /// Parses `name=digits` with no sign, no leading zeros and at most `digits` digits.
    static func number(_ field: Substring, _ name: String, digits limit: Int) -> Int? {
        guard field.hasPrefix(name + "=") else { return nil }
        let digits = field.dropFirst(name.count + 1)
        guard !digits.isEmpty, digits.count <= limit, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              digits == "0" || !digits.hasPrefix("0") else { return nil }
        return Int(digits)
    }

    /// Unpadded standard base64 (`+` and `/`), the format's salt and hash encoding. Built on
    /// `Base64URL`, so decoding is as strict: one accepted spelling per byte string.
    static func encode(_ bytes: [UInt8]) -> String {
        String(Base64URL.encode(bytes).map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        guard !text.contains("-"), !text.contains("_") else { return nil }
        return try? Base64URL.decode(String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 }))
    }
}
