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
        let input = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (offset, byte) in input.enumerated() {
            let value = reverse[Int(byte)]
            if value == 0xFF { throw DecodingError.invalidCharacter(offset: offset) }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // 4k+1 characters leave 6 bits: not a whole byte, so no encoder emits it.
        if input.count % 4 == 1 { throw DecodingError.invalidLength }
        // Leftover bits (2 or 4) must be zero, or two strings would decode alike.
        if accumulator != 0 { throw DecodingError.nonZeroTrailingBits }
        return out
    }
}
