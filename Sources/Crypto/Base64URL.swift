/// Unpadded base64url (RFC 4648 §5) as used throughout JOSE and OAuth.
///
/// Decoding is deliberately strict so that every byte string has exactly one
/// accepted encoding: padding, whitespace, the standard-alphabet `+` and `/`,
/// impossible lengths and non-zero trailing bits are all rejected. Lenient
/// decoders let attackers mint many spellings of one token, which breaks
/// anything that compares or caches encoded values.
public enum Base64URL {
    /// Why a string was refused.
    public enum DecodingError: Error, Sendable, Equatable {
        /// A byte outside `A-Z a-z 0-9 - _` (includes `=`, `+`, `/`, whitespace, non-ASCII).
        case invalidCharacter(offset: Int)
        /// A length of 4k+1 characters cannot encode whole bytes.
        case invalidLength
        /// The last character carries bits beyond the encoded bytes.
        case nonZeroTrailingBits
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Maps an ASCII byte to its 6-bit value, or 0xFF for bytes outside the alphabet.
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes `bytes` without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return encoded }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    /// Writes straight into the string's storage: the JWS and token paths encode about a
    /// kilobyte per response, where appending byte by byte to an array showed in profiles.
    private static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        let length = (input.count * 4 + 2) / 3
        return alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: length) { out in
                var index = 0, cursor = 0
                func put(_ chunk: UInt32, _ shift: UInt32) {
                    out[cursor] = alphabet[Int(chunk >> shift & 63)]
                    cursor += 1
                }
                while index + 3 <= input.count {
                    let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    put(chunk, 18); put(chunk, 12); put(chunk, 6); put(chunk, 0)
                    index += 3
                }
                switch input.count - index {
                case 1:
                    let chunk = UInt32(input[index]) << 16
                    put(chunk, 18); put(chunk, 12)
                case 2:
                    let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                    put(chunk, 18); put(chunk, 12); put(chunk, 6)
                default:
                    break
                }
                return cursor
            }
        }
    }

    /// Decodes unpadded base64url, rejecting every non-canonical spelling.
    public static func decode(_ text: some StringProtocol) throws -> [UInt8] {
        let utf8 = text.utf8
        if let decoded = try utf8.withContiguousStorageIfAvailable({ try decode(buffer: $0) }) { return decoded }
        return try Array(utf8).withUnsafeBufferPointer { try decode(buffer: $0) }
    }

    /// Four characters at a time into the array's storage: every opaque access token and refresh
    /// token is decoded on its way in, where a byte-at-a-time loop took a tenth of `/userinfo`.
    /// Errors come in the order a reader meets them: the first bad character, then the length,
    /// then the trailing bits.
    private static func decode(buffer input: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        try reverse.withUnsafeBufferPointer { table in
            func value(_ offset: Int) throws -> UInt32 {
                let value = table[Int(input[offset])]
                if value == 0xFF { throw DecodingError.invalidCharacter(offset: offset) }
                return UInt32(value)
            }
            return try [UInt8](unsafeUninitializedCapacity: input.count * 3 / 4) { out, initialized in
                var index = 0, cursor = 0
                while index + 4 <= input.count {
                    let chunk = try value(index) << 18 | value(index + 1) << 12 | value(index + 2) << 6 | value(index + 3)
                    out[cursor] = UInt8(truncatingIfNeeded: chunk >> 16)
                    out[cursor + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    out[cursor + 2] = UInt8(truncatingIfNeeded: chunk)
                    cursor += 3
                    index += 4
                }
                switch input.count - index {
                case 1:
                    // 4k+1 characters leave 6 bits: not a whole byte, so no encoder emits it.
                    _ = try value(index)
                    throw DecodingError.invalidLength
                case 2:
                    let chunk = try value(index) << 18 | value(index + 1) << 12
                    // Leftover bits must be zero, or two strings would decode alike.
                    guard chunk >> 12 & 0xF == 0 else { throw DecodingError.nonZeroTrailingBits }
                    out[cursor] = UInt8(truncatingIfNeeded: chunk >> 16)
                    cursor += 1
                case 3:
                    let chunk = try value(index) << 18 | value(index + 1) << 12 | value(index + 2) << 6
                    guard chunk >> 6 & 0x3 == 0 else { throw DecodingError.nonZeroTrailingBits }
                    out[cursor] = UInt8(truncatingIfNeeded: chunk >> 16)
                    out[cursor + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    cursor += 2
                default:
                    break
                }
                initialized = cursor
            }
        }
    }
}
