/// Byte classes from RFC 9110/9112 used by the parser and the response writer.
enum ASCII {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9
    static let colon: UInt8 = 58
    static let percent: UInt8 = 37

    /// tchar: the characters allowed in methods and header names.
    static let tokenTable: [Bool] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(UInt8(byte))
        }
    }

    @inline(__always) static func isToken(_ byte: UInt8) -> Bool { tokenTable[Int(byte)] }

    /// Field-value bytes: VCHAR, obs-text, SP and HTAB; every other control byte is refused.
    @inline(__always) static func isFieldValue(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F : byte == tab
    }

    @inline(__always) static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 65 && byte <= 90 ? byte | 0x20 : byte
    }

    @inline(__always) static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 48...57: Int(byte - 48)
        case 65...70: Int(byte - 55)
        case 97...102: Int(byte - 87)
        default: nil
        }
    }

    /// Whether `bytes` equals the ASCII `text`, ignoring case.
    static func equalsIgnoringCase<C: Collection<UInt8>>(_ bytes: C, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        var index = 0
        let base = text.utf8Start
        for byte in bytes {
            if lower(byte) != lower(base[index]) { return false }
            index += 1
        }
        return true
    }

    static func isTokenString(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isToken)
    }
}
