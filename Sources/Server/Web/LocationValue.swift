/// A URL made safe for a `Location` header: bytes RFC 3986 §2 does not allow in a URI (space,
/// quotes, angle brackets, non-ASCII, controls…) are percent-encoded; everything else, `%`
/// escapes included, is kept, so an already valid URL is unchanged.
enum LocationValue {
    static func encode(_ url: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(url.utf8.count)
        for byte in url.utf8 {
            if isAllowed(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Unreserved, reserved (gen-delims and sub-delims) and `%`.
    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(byte)
        }
    }
}
