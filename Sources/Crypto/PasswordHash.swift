/// Cost parameters for scrypt password hashing.
public struct ScryptParameters: Sendable, Equatable {
    /// log2 of the CPU/memory cost N.
    public var logN: Int
    /// Block size.
    public var r: Int
    /// Parallelism.
    public var p: Int

    public init(logN: Int, r: Int, p: Int) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// N = 2^15, r = 8, p = 1: about 32 MiB and tens of milliseconds per hash.
    public static let `default` = ScryptParameters(logN: 15, r: 8, p: 1)

    /// Bytes of memory scrypt needs: 128·r·(N + 2) for V plus 128·r·p for B.
    var requiredMemory: UInt64 {
        let r = UInt64(self.r), p = UInt64(self.p), n = UInt64(1) << UInt64(logN)
        return 128 * r * (n + 2) + 128 * r * p
    }
}

/// Password hashing for end-user credentials.
///
/// New hashes use scrypt and are self-describing:
///
///     $scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>
///
/// where `<salt>` (16 bytes) and `<hash>` (32 bytes) are unpadded base64url,
/// e.g. `$scrypt$ln=15,r=8,p=1$q3Jz…$Xk9…`. Storing the parameters lets the
/// defaults rise later: `needsRehash` flags older hashes so the caller can
/// re-hash on the next successful login. Passwords are hashed as their UTF-8
/// bytes, without Unicode normalisation.
///
/// `verify` also accepts imported bcrypt hashes (`$2a$`, `$2b$`, `$2y$`);
/// those always report `needsRehash`.
public enum PasswordHash {
    static let saltBytes = 16
    static let hashBytes = 32
    /// Ceiling on memory a stored hash may ask for when verified, so a
    /// corrupted or hostile row cannot make one login allocate gigabytes.
    static let maximumMemory: UInt64 = 256 << 20

    /// Hashes `password` with fresh random salt.
    public static func hash(_ password: String, parameters: ScryptParameters = .default) throws -> String {
        guard validRange(parameters) else { throw CryptoError(.invalidInput, detail: "scrypt parameters out of range") }
        let salt = Random.bytes(saltBytes)
        let derived = try PasswordHashingCPU.measure {
            try Scrypt.derive(password: Array(password.utf8), salt: salt, parameters: parameters, length: hashBytes)
        }
        return "$scrypt$ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)$"
            + Base64URL.encode(salt) + "$" + Base64URL.encode(derived)
    }

    /// True when `password` matches `encoded`. Malformed or unsupported
    /// encodings yield false; the comparison is constant-time.
    public static func verify(_ password: String, against encoded: String) -> Bool {
        PasswordHashingCPU.measure { verifyUncounted(password, against: encoded) }
    }

    private static func verifyUncounted(_ password: String, against encoded: String) -> Bool {
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

    /// True when `encoded` should be replaced by a fresh `hash` after the
    /// next successful login: bcrypt, weaker-than-default scrypt, or anything
    /// unparseable.
    public static func needsRehash(_ encoded: String) -> Bool {
        guard let parsed = ScryptHash(parsing: encoded) else { return true }
        let current = ScryptParameters.default
        return parsed.parameters.logN < current.logN
            || parsed.parameters.r < current.r
            || parsed.parameters.p < current.p
            || parsed.salt.count < saltBytes
            || parsed.hash.count < hashBytes
    }

    static func validRange(_ parameters: ScryptParameters) -> Bool {
        (1...22).contains(parameters.logN) && (1...32).contains(parameters.r) && (1...16).contains(parameters.p)
            && parameters.requiredMemory <= maximumMemory
    }
}

/// A parsed `$scrypt$…` string.
struct ScryptHash {
    let parameters: ScryptParameters
    let salt: [UInt8]
    let hash: [UInt8]

    init?(parsing encoded: String) {
        // "", "scrypt", "ln=..,r=..,p=..", salt, hash
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt" else { return nil }
        let settings = fields[2].split(separator: ",", omittingEmptySubsequences: false)
        guard settings.count == 3,
              let logN = Self.number(settings[0], "ln"),
              let r = Self.number(settings[1], "r"),
              let p = Self.number(settings[2], "p") else { return nil }
        let parameters = ScryptParameters(logN: logN, r: r, p: p)
        guard PasswordHash.validRange(parameters),
              let salt = try? Base64URL.decode(fields[3]), (8...64).contains(salt.count),
              let hash = try? Base64URL.decode(fields[4]), (16...64).contains(hash.count) else { return nil }
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    /// Parses `name=digits` with no sign, no leading zeros and at most 3 digits.
    private static func number(_ field: Substring, _ name: String) -> Int? {
        guard field.hasPrefix(name + "=") else { return nil }
        let digits = field.dropFirst(name.count + 1)
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              digits == "0" || !digits.hasPrefix("0") else { return nil }
        return Int(digits)
    }
}
