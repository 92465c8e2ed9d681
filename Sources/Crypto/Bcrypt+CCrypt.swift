import CCrypt
import COpenSSL

/// Verification of imported bcrypt hashes through libxcrypt's `crypt_r`.
enum Bcrypt {
    /// Costs above this are refused: each step doubles verification time.
    static let maximumCost = 18
    private static let alphabet = Set("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// True for a well-formed `$2a$`, `$2b$` or `$2y$` hash (60 characters).
    static func isBcrypt(_ encoded: String) -> Bool {
        let bytes = Array(encoded.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
              [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]),
              bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$") else { return false }
        let costDigits = bytes[4...5]
        guard costDigits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return false }
        let cost = Int(costDigits.first! - UInt8(ascii: "0")) * 10 + Int(costDigits.last! - UInt8(ascii: "0"))
        return (4...maximumCost).contains(cost) && bytes[7...].allSatisfy { alphabet.contains($0) }
    }

    static func verify(_ password: String, against encoded: String) -> Bool {
        // C strings stop at NUL; a password containing one would be truncated.
        guard isBcrypt(encoded), !password.utf8.contains(0) else { return false }
        // struct crypt_data is ~32 KiB: too large for a task's stack, so heap-allocate it.
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        defer {
            OPENSSL_cleanse(data, size)
            data.deallocate()
        }
        let typed = data.bindMemory(to: crypt_data.self, capacity: 1)
        guard let output = crypt_r(password, encoded, typed) else { return false }
        // On failure libxcrypt returns a short "*0"/"*1" token, which cannot match.
        let computed = Array(UnsafeRawBufferPointer(start: output, count: strlen(output)))
        return ConstantTime.equals(computed, Array(encoded.utf8))
    }
}
