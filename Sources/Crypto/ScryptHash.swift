/// Cost parameters for scrypt (RFC 7914), the password hash of earlier releases.
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

    /// Bytes of memory scrypt needs: 128·r·(N + 2) for V plus 128·r·p for B.
    var requiredMemory: UInt64 {
        let r = UInt64(self.r), p = UInt64(self.p), n = UInt64(1) << UInt64(logN)
        return 128 * r * (n + 2) + 128 * r * p
    }

    var isInRange: Bool {
        (1...22).contains(logN) && (1...32).contains(r) && (1...16).contains(p)
            && requiredMemory <= PasswordHash.maximumMemory
    }
}

/// A `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>` string (salt and hash unpadded base64url), as
/// earlier releases stored passwords: still verified, and replaced by Argon2id at the next sign-in.
struct ScryptHash {
    let parameters: ScryptParameters
    let salt: [UInt8]
    let hash: [UInt8]
}

/// The string form, both ways.
extension ScryptHash {
    init?(parsing encoded: String) {
        // "", "scrypt", "ln=..,r=..,p=..", salt, hash
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt" else { return nil }
        let settings = fields[2].split(separator: ",", omittingEmptySubsequences: false)
        guard settings.count == 3,
              let logN = PHCString.number(settings[0], "ln", digits: 3),
              let r = PHCString.number(settings[1], "r", digits: 3),
              let p = PHCString.number(settings[2], "p", digits: 3) else { return nil }
        let parameters = ScryptParameters(logN: logN, r: r, p: p)
        guard parameters.isInRange,
              let salt = try? Base64URL.decode(fields[3]), (8...64).contains(salt.count),
              let hash = try? Base64URL.decode(fields[4]), (16...64).contains(hash.count) else { return nil }
        self.init(parameters: parameters, salt: salt, hash: hash)
    }

    var encoded: String {
        "$scrypt$ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)$"
            + Base64URL.encode(salt) + "$" + Base64URL.encode(hash)
    }
}
