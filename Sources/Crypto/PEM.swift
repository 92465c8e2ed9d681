/// PEM text (RFC 7468): one labelled block of standard base64 between `-----BEGIN …-----` and
/// `-----END …-----` lines, as Apple's `.p8` keys and OpenSSL write them.
public enum PEM {
    /// The DER bytes of the first block labelled `label`, or nil when there is none or its base64 is broken.
    public static func der(_ text: String, label: String) -> [UInt8]? {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        var inside = false
        var found = false
        var body: [UInt8] = []
        // "\r\n" is one Character in Swift: isNewline covers it, "\n" and "\r".
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if !inside {
                inside = line.hasPrefix(begin)
                continue
            }
            if line.hasPrefix(end) {
                found = true
                break
            }
            // RFC 7468 §3: standard base64 (`+`, `/`, `=` padding), possibly with spaces.
            for byte in line.utf8 {
                switch byte {
                case 0x20, 0x09, UInt8(ascii: "="): continue
                case UInt8(ascii: "+"): body.append(UInt8(ascii: "-"))
                case UInt8(ascii: "/"): body.append(UInt8(ascii: "_"))
                default: body.append(byte)
                }
            }
        }
        guard found else { return nil }
        guard !body.isEmpty, let der = try? Base64URL.decode(String(decoding: body, as: UTF8.self)) else { return nil }
        return der
    }
}

extension SigningKey {
    /// Imports an unencrypted PKCS#8 key in PEM (`-----BEGIN PRIVATE KEY-----`), such as an Apple `.p8` file.
    public convenience init(pkcs8PEM pem: String) throws {
        guard let der = PEM.der(pem, label: "PRIVATE KEY") else {
            throw CryptoError(.invalidInput, detail: "no PEM PRIVATE KEY block")
        }
        try self.init(pkcs8DER: der)
    }
}
