/// Password hashing for end-user credentials.
///
/// New hashes use Argon2id (RFC 9106) in the PHC string format that libargon2 and other
/// implementations read and write:
///
///     $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>
///
/// where `<salt>` (16 bytes) and `<hash>` (32 bytes) are unpadded standard base64, e.g.
/// `$argon2id$v=19$m=7168,t=5,p=1$q3Jz…$Xk9…`. Storing the parameters lets the defaults rise
/// later: `needsRehash` flags older hashes so the caller can re-hash on the next successful login.
/// Passwords are hashed as their UTF-8 bytes, without Unicode normalisation.
///
/// `verify` also accepts the `$scrypt$…` hashes of earlier releases (`ScryptHash`) and imported
/// bcrypt hashes (`$2a$`, `$2b$`, `$2y$`); both always report `needsRehash`.
public enum PasswordHash {
    static let saltBytes = 16
    static let hashBytes = 32
    /// Ceiling on memory a stored hash may ask for when verified, so a
    /// corrupted or hostile row cannot make one login allocate gigabytes.
    static let maximumMemory: UInt64 = 256 << 20

    /// Hashes `password` with Argon2id and fresh random salt.
    public static func hash(_ password: String, parameters: Argon2Parameters = .default) throws -> String {
        guard parameters.isInRange else { throw CryptoError(.invalidInput, detail: "Argon2 parameters out of range") }
        return try hash(password, parameters: parameters, salt: Random.bytes(saltBytes))
    }

    /// Argon2id with a given salt, for known-answer tests against other implementations.
    static func hash(_ password: String, parameters: Argon2Parameters, salt: [UInt8]) throws -> String {
        let derived = try PasswordHashingCPU.measure {
            try Argon2id.derive(password: Array(password.utf8), salt: salt, parameters: parameters, length: hashBytes)
        }
        return Argon2Hash(parameters: parameters, salt: salt, hash: derived).encoded
    }

    /// A `$scrypt$…` hash as earlier releases stored them: for tests of the upgrade at sign-in.
    public static func hash(_ password: String, parameters: ScryptParameters) throws -> String {
        guard parameters.isInRange else { throw CryptoError(.invalidInput, detail: "scrypt parameters out of range") }
        let salt = Random.bytes(saltBytes)
        let derived = try PasswordHashingCPU.measure {
            try Scrypt.derive(password: Array(password.utf8), salt: salt, parameters: parameters, length: hashBytes)
        }
        return ScryptHash(parameters: parameters, salt: salt, hash: derived).encoded
    }

    /// True when `password` matches `encoded`. Malformed or unsupported
    /// encodings yield false; the comparison is constant-time.
    public static func verify(_ password: String, against encoded: String) -> Bool {
        PasswordHashingCPU.measure { verifyUncounted(password, against: encoded) }
    }

    private static func verifyUncounted(_ password: String, against encoded: String) -> Bool {
        if let parsed = Argon2Hash(parsing: encoded) {
            guard let derived = try? Argon2id.derive(password: Array(password.utf8), salt: parsed.salt,
                                                     parameters: parsed.parameters, length: parsed.hash.count)
            else { return false }
            return ConstantTime.equals(derived, parsed.hash)
        }
        if let parsed = ScryptHash(parsing: encoded) {
            guard let derived = try? Scrypt.derive(password: Array(password.utf8), salt: parsed.salt,
                                                   parameters: parsed.parameters, length: parsed.hash.count)
            else { return false }
            return ConstantTime.equals(derived, parsed.hash)
        }
        if Bcrypt.isBcrypt(encoded) {
            return Bcrypt.verify(password, against: encoded)
        }
        return false
    }

    /// True when `encoded` should be replaced by a fresh `hash` after the next successful login:
    /// anything but Argon2id with at least today's memory, passes and lengths (scrypt, bcrypt, a
    /// weaker Argon2id, or anything unparseable).
    public static func needsRehash(_ encoded: String) -> Bool {
        guard let parsed = Argon2Hash(parsing: encoded) else { return true }
        let current = Argon2Parameters.default
        return parsed.parameters.memoryKiB < current.memoryKiB
            || parsed.parameters.iterations < current.iterations
            || parsed.salt.count < saltBytes
            || parsed.hash.count < hashBytes
    }
}
