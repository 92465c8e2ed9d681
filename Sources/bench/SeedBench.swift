import Crypto
import Foundation
import Model
import OIDC
import SQLite
import Storage

/// `bench seed --users N --refresh-tokens M --sessions S --audit A --out FILE [--families F] [--seed X]
/// [--pool K --pool-out DIR] [--now UNIX]`: writes a migrated Gatehouse database of realistic shape
/// directly, for the scale benchmarks (README "Performance"). The schema is the daemon's own (the
/// embedded migrations, applied by `Store`); the rows go in through prepared statements in large
/// transactions with the journal off, then the file is switched back to WAL.
///
/// Shapes: every user shares ONE precomputed Argon2id hash of `SeedBench.password` (hashing a million
/// passwords would take a day); sessions are 70% live; audit events are spread over the last 30
/// days. Refresh tokens (`--token-format family`, the default, migration 0017): M families, one
/// grant each, its family in the grant's row, spread over the users' sessions (devices), at a
/// generation of 0 to 59 (rotated that often) and live (70%), revoked (15%) or past its absolute
/// lifetime (15%); plus `--legacy L` (default M/100) families stored the earlier way, 1 to 9 rows
/// each, as a database upgraded from migration 0015 still holds. `positioned` or `digest`: every
/// family the earlier way, M rows in F families (`--families`, default M/10). Dead rows died within
/// the last day, so the purge finds nothing due yet (a steady state, not a backlog).
///
/// The family format also writes `<FILE>.kek`, the key-encryption key the daemon reads beside its
/// database by default: the pool's `rt2` values carry MACs under keys derived from it.
/// Every identifier and token comes from a generator seeded by `--seed`, so two runs with the same
/// arguments and `--now` write the same rows.
///
/// With `--pool-out`, writes K live refresh tokens per application (`refresh_RS256.txt`,
/// `refresh_ES256.txt`) and `env.sh` (client ids, a seeded user's email and the shared password).
enum SeedBench: BenchCommand {
    static let name = "seed"
    static let usage = "seed --users N --refresh-tokens M --sessions S --audit A --out FILE [--families F] [--legacy L] [--seed X] [--pool K --pool-out DIR] [--token-format family|positioned|digest]"
    /// The password of every seeded user (meets the default policy).
    static let password = "Seeded password 123"
    static let callback = "http://127.0.0.1:9/callback"
    static let rowsPerTransaction = 200_000

    struct Plan {
        var users = 1000, refreshTokens = 10_000, sessions = 1000, audit = 1000, families = 1000
        var seed: UInt64 = 1
        var now = Int64(Date().timeIntervalSince1970)
        var pool = 0
        /// Tokens whose value names their family and generation (`rt1.…`, found by position, migration
        /// 0015), or the earlier random values found by digest (for the earlier formats).
        var positioned = true
        /// One-row families (`rt2.…`, migration 0017); `legacy` more families the earlier way.
        var oneRowFamilies = true
        var legacy = 0
        /// The refresh-token MAC's server key (`RefreshTokens.successorKeyPurpose` from the seed's KEK).
        var familyMAC: RefreshFamilyMAC?
    }

    static func run(arguments: [String]) throws {
        let options = try BenchSupport.options(arguments, allowed: ["--users", "--refresh-tokens", "--sessions", "--audit", "--out",
                                                                   "--families", "--seed", "--pool", "--pool-out", "--now",
                                                                   "--token-format", "--legacy"])
        func count(_ flag: String, _ fallback: Int) throws -> Int {
            guard let text = options[flag] else { return fallback }
            guard let value = Int(text), value >= 0 else { throw BenchUsageError(description: "bad \(flag) \(text)") }
            return value
        }
        guard let out = options["--out"] else { throw BenchUsageError(description: "--out FILE is required") }
        var plan = Plan()
        plan.users = max(1, try count("--users", 1000))
        plan.refreshTokens = try count("--refresh-tokens", plan.users * 10)
        plan.sessions = try count("--sessions", plan.users)
        plan.audit = try count("--audit", plan.users)
        plan.families = max(1, min(plan.refreshTokens, try count("--families", max(1, plan.refreshTokens / 10))))
        plan.seed = UInt64(try count("--seed", 1))
        plan.now = Int64(try count("--now", Int(plan.now)))
        plan.pool = try count("--pool", 0)
        switch options["--token-format"] ?? "family" {
        case "family": plan.oneRowFamilies = true
        case "positioned": (plan.oneRowFamilies, plan.positioned) = (false, true)
        case "digest": (plan.oneRowFamilies, plan.positioned) = (false, false)
        case let other: throw BenchUsageError(description: "--token-format is family, positioned or digest, not \(other)")
        }
        if plan.oneRowFamilies {
            plan.families = max(1, plan.refreshTokens)
            plan.legacy = try count("--legacy", plan.refreshTokens / 100)
        }
        guard !FileManager.default.fileExists(atPath: out) else { throw BenchUsageError(description: "\(out) exists") }
        if plan.oneRowFamilies {
            // The daemon's default key_encryption_key_file is "<database>.kek": copied beside the database, it is read there.
            let kek = Random.bytes(32)
            try (Data(kek).base64EncodedString() + "\n").write(toFile: out + ".kek", atomically: true, encoding: .utf8)
            chmod(out + ".kek", 0o600)
            plan.familyMAC = RefreshFamilyMAC(successorKey: HMAC.sha256(key: kek, data: Array(RefreshTokens.successorKeyPurpose.utf8)))
        }

        let started = BenchSupport.now(.wall)
        let clients = try createSchemaAndClients(at: out, now: plan.now)
        let connection = try Connection(path: out)
        // Seeding only: no journal, no syncs, a large page cache (the random keys of a big table).
        try connection.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF; PRAGMA cache_size = -2000000;")
        var writer = SeedWriter(connection: connection, plan: plan, clients: clients)
        let counts = try writer.writeAll()
        try connection.execute("PRAGMA journal_mode = WAL")
        connection.close()
        let seconds = BenchSupport.now(.wall) - started
        if let directory = options["--pool-out"] { try writer.writePool(to: directory) }
        let rows = counts.values.reduce(0, +)
        var status = stat()
        let size = stat(out, &status) == 0 ? Int64(status.st_size) : 0
        let tables = counts.sorted { $0.key < $1.key }.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",")
        print(String(format: #"{"name":"seed","seconds":%.1f,"rows":%d,"rows_per_sec":%.0f,"file_bytes":%lld,"tables":{%@}}"#,
                     seconds, rows, Double(rows) / seconds, size, tables))
    }

    /// The schema by the daemon's own migrations, and the two bench applications through the
    /// client store (so their rows are exactly what `idp-admin apps create` writes).
    static func createSchemaAndClients(at path: String, now: Int64) throws -> [(clientID: String, algorithm: String)] {
        let store = try Store(path: path, readers: 1)
        defer { store.close() }
        let clients = [("seed-rs256-app", "RS256"), ("seed-es256-app", "ES256")]
        for (clientID, algorithm) in clients {
            // No overlap window: the bench's refresh chains never present a token twice.
            try SQLiteClientStore(store: store).create(Client(
                clientID: clientID, name: "seeded \(algorithm)", type: .native, grantTypes: [.authorizationCode, .refreshToken],
                idTokenAlgorithm: algorithm, refreshReuseInterval: 0, callbacks: [callback],
                createdAt: Date(timeIntervalSince1970: TimeInterval(now - 400 * 86_400))))
        }
        return clients.map { (clientID: $0.0, algorithm: $0.1) }
    }
}

/// SplitMix64: small, fast and reproducible from one seed (not for secrets: these are test rows).
struct SeedRandom {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count + 8)
        while result.count < count { withUnsafeBytes(of: next()) { result.append(contentsOf: $0) } }
        return Array(result.prefix(count))
    }

    mutating func token(_ count: Int) -> String { Base64URL.encode(bytes(count)) }

    mutating func hex(_ count: Int) -> String {
        bytes(count).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}

/// Writes the rows of one `SeedBench.Plan` on one connection, and remembers the live tokens it
/// picked for the pool.
struct SeedWriter {
    let connection: Connection
    let plan: SeedBench.Plan
    let clients: [(clientID: String, algorithm: String)]
    var random: SeedRandom
    var userIDs: [String] = []
    var sessions: [(id: String, user: Int)] = []
    /// Live refresh tokens by signing algorithm, and a seeded user's email.
    var pool: [String: [String]] = [:]
    var sampleEmail = ""
    private var pending = 0
    static let day: Int64 = 86_400

    init(connection: Connection, plan: SeedBench.Plan, clients: [(clientID: String, algorithm: String)]) {
        self.connection = connection
        self.plan = plan
        self.clients = clients
        random = SeedRandom(state: plan.seed)
    }

    mutating func writeAll() throws -> [String: Int] {
        try connection.execute("BEGIN")
        var counts: [String: Int] = [:]
        counts["users"] = try writeUsers()
        counts["sessions"] = try writeSessions()
        if plan.oneRowFamilies {
            counts["grants"] = try writeOneRowFamilies()
            var legacy = plan
            legacy.refreshTokens = plan.legacy * 5
            legacy.families = plan.legacy
            legacy.positioned = true
            if plan.legacy > 0 {
                let (grants, tokens) = try writeFamilies(legacy, pooled: false)
                counts["grants", default: 0] += grants
                counts["refresh_tokens"] = tokens
            }
        } else {
            (counts["grants"], counts["refresh_tokens"]) = try writeFamilies(plan, pooled: true)
        }
        counts["audit_events"] = try writeAudit()
        counts["revoked_grants"] = try writeRevokedGrants()
        try connection.execute("COMMIT")
        return counts
    }

    /// The revoked users' grants, as the trigger of migration 0020 remembers them when the daemon
    /// revokes one (the seed writes its grants revoked already, which no trigger sees).
    private func writeRevokedGrants() throws -> Int {
        try connection.run(
            """
            INSERT INTO revoked_grants (grant_id, expires_at)
            SELECT g.grant_id, g.revoked_at + c.longest_access_token_lifetime
            FROM grants g JOIN clients c ON c.client_id = g.client_id
            WHERE g.revoked_at IS NOT NULL AND g.user_id IS NOT NULL
            """)
    }

    /// Commits every `rowsPerTransaction` rows, so no transaction grows without bound.
    private mutating func row() throws {
        pending += 1
        if pending >= SeedBench.rowsPerTransaction {
            try connection.execute("COMMIT; BEGIN")
            pending = 0
        }
    }

    private mutating func writeUsers() throws -> Int {
        // One hash, computed once, shared by every user: the login bench signs in as any of them.
        let hash = try PasswordHash.hash(SeedBench.password)
        userIDs.reserveCapacity(plan.users)
        for index in 0..<plan.users {
            let userID = "auth0|" + random.hex(12)
            let email = "user\(index)@seed.example"
            let created = plan.now - Int64(random.below(365)) * Self.day - Int64(random.below(Int(Self.day)))
            _ = try connection.run(
                """
                INSERT INTO users (user_id, email, email_key, email_lookup, email_verified, password_hash, name, nickname,
                    logins_count, last_login_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(userID), .text(email), .text(email), .text(email), .integer(random.chance(80) ? 1 : 0), .text(hash),
                 .text("Seeded User \(index)"), .text("user\(index)"), .integer(Int64(random.below(200))),
                 .integer(plan.now - Int64(random.below(30)) * Self.day), .integer(created), .integer(created)])
            userIDs.append(userID)
            try row()
        }
        sampleEmail = "user\(plan.users / 2)@seed.example"
        return plan.users
    }

    private mutating func writeSessions() throws -> Int {
        sessions.reserveCapacity(plan.sessions)
        for _ in 0..<plan.sessions {
            let sessionID = random.token(16)
            let user = random.below(userIDs.count)
            let created = plan.now - Int64(random.below(30 * Int(Self.day)))
            // Ended within the last day: the purge's grace has not passed (a database it keeps up with).
            let ended: SQLValue = random.chance(30) ? .integer(max(created, plan.now - Int64(random.below(Int(Self.day))))) : .null
            _ = try connection.run(
                """
                INSERT INTO sessions (session_id, cookie_hash, user_id, auth_time, created_at, last_seen_at, expires_at, ended_at,
                    device_name, ip)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(sessionID), .text(random.hex(32)), .text(userIDs[user]), .integer(created), .integer(created),
                 .integer(min(plan.now, created + Int64(random.below(Int(Self.day))))), .integer(created + 30 * Self.day), ended,
                 .text("Notes/2.\(random.below(9)) (iPhone; iOS 18.\(random.below(5)))"), .text("198.51.\(random.below(256)).\(random.below(256))")])
            sessions.append((sessionID, user))
            try row()
        }
        return plan.sessions
    }

    /// Grants with one-row families (migration 0017, in the grant's row since 0019): each at a
    /// generation of 0…59, its times those of its last rotation; live, revoked with its grant, or
    /// past the family's absolute lifetime.
    private mutating func writeOneRowFamilies() throws -> Int {
        let scope = "openid profile email offline_access"
        let lifetime = 30 * Self.day
        let poolChance = plan.pool == 0 ? 0 : min(1.0, 3.0 * Double(plan.pool * clients.count) / Double(plan.families))
        for family in 0..<plan.families {
            let grantID = random.token(16)
            let client = clients[family % clients.count]
            let (sessionID, user): (SQLValue, Int) = sessions.isEmpty
                ? (.null, random.below(userIDs.count))
                : { let session = sessions[random.below(sessions.count)]; return (.text(session.id), session.user) }()
            let state = random.below(100)  // < 15 expired, < 30 revoked, else live
            let first = state < 15 ? plan.now - lifetime - Int64(random.below(Int(Self.day)))
                                   : plan.now - Int64(random.below(14 * Int(Self.day))) - 3600
            let revokedAt: SQLValue = (15..<30).contains(state) ? .integer(plan.now - Int64(random.below(Int(Self.day)))) : .null
            let generation = random.below(60)
            let span = max(1, min(plan.now, first + lifetime) - first)
            // The last rotation: recent for a live family (inside the inactivity lifetime), any time for the others.
            let rotated: Int64? = generation == 0 ? nil : state >= 30 ? plan.now - Int64(random.below(Int(min(span, 10 * Self.day))))
                                                                      : first + Int64(random.below(Int(span)))
            let salt = random.bytes(16)
            _ = try connection.run(
                """
                INSERT INTO grants (grant_id, client_id, user_id, session_id, scope, auth_time, created_at, revoked_at, revoke_reason,
                    refresh_generation, refresh_salt, refresh_issued_at, refresh_expires_at, refresh_rotated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(grantID), .text(client.clientID), .text(userIDs[user]), sessionID, .text(scope), .integer(first), .integer(first),
                 revokedAt, revokedAt == .null ? .null : .text("seeded revocation"),
                 .integer(Int64(generation)), .blob(salt), .integer(first), .integer(first + lifetime), rotated.map { .integer($0) } ?? .null])
            try row()
            if state >= 30, plan.now - (rotated ?? first) < 10 * Self.day, pool[client.algorithm, default: []].count < plan.pool,
               Double(random.below(1_000_000)) / 1_000_000 < poolChance, let mac = plan.familyMAC,
               let value = mac.value(of: RefreshToken(tokenHash: "", grantID: grantID, clientID: client.clientID, userID: userIDs[user],
                                                      scope: scope, issuedAt: Date(), expiresAt: Date(), generation: generation,
                                                      familySalt: salt)) {
                pool[client.algorithm, default: []].append(value)
            }
        }
        return plan.families
    }

    /// Grants and their refresh-token families the earlier way (`refresh_tokens`): generations 0…k-1,
    /// every one but the newest rotated to its successor; the newest live, revoked with its grant,
    /// or past the family's absolute lifetime. `pooled`: its live tokens may go into the pool.
    private mutating func writeFamilies(_ plan: SeedBench.Plan, pooled: Bool) throws -> (Int, Int) {
        let scope = "openid profile email offline_access"
        let lifetime = 30 * Self.day
        let average = max(1, plan.refreshTokens / plan.families)
        let poolChance = plan.pool == 0 ? 0 : min(1.0, 3.0 * Double(plan.pool * clients.count) / Double(plan.families))
        var tokens = 0
        var families = 0
        while tokens < plan.refreshTokens {
            let remaining = plan.refreshTokens - tokens
            let generations = families == plan.families - 1 ? remaining : min(remaining, 1 + random.below(2 * average - 1))
            let grantID = random.token(16)
            let client = clients[families % clients.count]
            let (sessionID, user): (SQLValue, Int) = sessions.isEmpty
                ? (.null, random.below(userIDs.count))
                : { let session = sessions[families % sessions.count]; return (.text(session.id), session.user) }()
            let state = random.below(100)  // < 15 expired, < 30 revoked, else live
            // Dead families died within the last day and live ones were used within their inactivity
            // lifetime: nothing is due for the purge yet, as in a database whose maintenance keeps up.
            let first = state < 15 ? plan.now - lifetime - Int64(random.below(Int(Self.day)))
                                   : plan.now - Int64(random.below(14 * Int(Self.day))) - 3600
            let revokedAt: SQLValue = (15..<30).contains(state) ? .integer(plan.now - Int64(random.below(Int(Self.day)))) : .null
            _ = try connection.run(
                """
                INSERT INTO grants (grant_id, client_id, user_id, session_id, scope, auth_time, created_at, revoked_at, revoke_reason)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(grantID), .text(client.clientID), .text(userIDs[user]), sessionID, .text(scope), .integer(first), .integer(first),
                 revokedAt, revokedAt == .null ? .null : .text("seeded revocation")])
            try row()
            let values = (0..<generations).map { generation in
                plan.positioned ? "rt1.\(grantID).\(generation).\(random.token(32))" : random.token(32)
            }
            let span = max(1, min(plan.now, first + lifetime) - first)
            for generation in 0..<generations {
                let issued = first + span * Int64(generation) / Int64(generations)
                let newest = generation == generations - 1
                let next = newest ? nil : first + span * Int64(generation + 1) / Int64(generations)
                _ = try connection.run(
                    """
                    INSERT INTO refresh_tokens (grant_id, generation, token_hash, client_id, user_id, scope, issued_at, expires_at,
                        last_used_at, rotated_at, successor_hash, revoked_at, found_by_hash)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.text(grantID), .integer(Int64(generation)), .text(Digest.sha256Hex(Array(values[generation].utf8))),
                     .text(client.clientID), .text(userIDs[user]), .text(scope), .integer(issued), .integer(first + lifetime),
                     .integer(next ?? issued), next.map { .integer($0) } ?? .null,
                     newest ? .null : .text(Digest.sha256Hex(Array(values[generation + 1].utf8))), revokedAt,
                     .integer(plan.positioned ? 0 : 1)])
                try row()
            }
            // Live, recently used (inside the inactivity lifetime), not yet in a full pool.
            let newestIssued = first + span * Int64(generations - 1) / Int64(generations)
            if pooled, state >= 30, plan.now - newestIssued < 10 * Self.day, pool[client.algorithm, default: []].count < plan.pool,
               Double(random.below(1_000_000)) / 1_000_000 < poolChance {
                pool[client.algorithm, default: []].append(values[generations - 1])
            }
            tokens += generations
            families += 1
        }
        return (families, tokens)
    }

    private mutating func writeAudit() throws -> Int {
        let events = ["login.succeeded", "login.succeeded", "login.succeeded", "login.failed", "logout", "refresh_token.reused",
                      "user.updated", "password.changed"]
        let start = plan.now - 30 * Self.day + 3600  // inside the audit retention
        for index in 0..<plan.audit {
            let user = userIDs[random.below(userIDs.count)]
            _ = try connection.run(
                "INSERT INTO audit_events (time, event, user_id, client_id, ip, actor, details) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [.integer(start + 30 * Self.day * Int64(index) / Int64(max(1, plan.audit))), .text(events[random.below(events.count)]),
                 .text(user), .text(clients[random.below(clients.count)].clientID),
                 .text("203.0.113.\(random.below(256))"), .text("user"), .text("{}")])
            try row()
        }
        return plan.audit
    }

    /// One token per line per application, and the ids the bench scripts need.
    func writePool(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for client in clients {
            let tokens = pool[client.algorithm] ?? []
            try (tokens.joined(separator: "\n") + "\n").write(toFile: directory + "/refresh_\(client.algorithm).txt", atomically: true,
                                                              encoding: .utf8)
        }
        let environment = clients.map { "\($0.algorithm)_CLIENT=\($0.clientID)\n" }.joined()
            + "SEED_EMAIL=\(sampleEmail)\nSEED_PASSWORD='\(SeedBench.password)'\nSEED_USERS=\(plan.users)\n"
        try environment.write(toFile: directory + "/env.sh", atomically: true, encoding: .utf8)
    }
}
