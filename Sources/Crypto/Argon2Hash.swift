/// Cost parameters for Argon2id (RFC 9106 §3.1).
public struct Argon2Parameters: Sendable, Equatable {
    /// Memory in KiB (m).
    public var memoryKiB: Int
    /// Passes over the memory (t).
    public var iterations: Int
    /// Lanes (p).
    public var parallelism: Int

    public init(memoryKiB: Int, iterations: Int, parallelism: Int) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// m = 7 MiB, t = 5, p = 1: one of the equivalent minimum settings of the usual guidance for
    /// Argon2id, and Keycloak's default. Tens of milliseconds of one core and 7 MiB per hash; a
    /// sign-in burst holds one such buffer per two cores (`PasswordHashingGate`, README "Passwords").
    public static let `default` = Argon2Parameters(memoryKiB: 7 * 1024, iterations: 5, parallelism: 1)

    /// What a stored hash may ask for: RFC 9106 §3.1's floor of 8 KiB per lane, and ceilings so a
    /// corrupted or hostile row cannot make one sign-in take gigabytes or minutes.
    var isInRange: Bool {
        (1...16).contains(parallelism) && (1...16).contains(iterations)
            && memoryKiB >= 8 * parallelism && UInt64(memoryKiB) * 1024 <= PasswordHash.maximumMemory
    }
}

/// A `$argon2id$v=19$m=…,t=…,p=…$salt$hash` string (the PHC string format, version 0x13 only).
struct Argon2Hash {
    let parameters: Argon2Parameters
    let salt: [UInt8]
    let hash: [UInt8]
}

/// The string form, both ways.
extension Argon2Hash {
    init?(parsing encoded: String) {
        // "", "argon2id", "v=19", "m=..,t=..,p=..", salt, hash
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id", fields[2] == "v=19" else { return nil }
        let settings = fields[3].split(separator: ",", omittingEmptySubsequences: false)
        guard settings.count == 3,
              let memory = PHCString.number(settings[0], "m", digits: 6),
              let iterations = PHCString.number(settings[1], "t", digits: 2),
              let parallelism = PHCString.number(settings[2], "p", digits: 2) else { return nil }
        let parameters = Argon2Parameters(memoryKiB: memory, iterations: iterations, parallelism: parallelism)
        guard parameters.isInRange,
              let salt = PHCString.decode(fields[4]), (8...64).contains(salt.count),
              let hash = PHCString.decode(fields[5]), (16...64).contains(hash.count) else { return nil }
        self.init(parameters: parameters, salt: salt, hash: hash)
    }

    var encoded: String {
        "$argon2id$v=19$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism)$"
            + PHCString.encode(salt) + "$" + PHCString.encode(hash)
    }
}
