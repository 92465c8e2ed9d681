import FoundationEssentials
import Model
import SQLite

/// Signing keys in SQLite. Every change keeps at least one active key per algorithm:
/// rotation inserts the successor and retires the predecessor in one transaction.
public struct SigningKeyStore: Sendable {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    /// Every key, oldest first.
    public func all() throws(StorageError) -> [SigningKeyRecord] {
        try mapStorageErrors {
            try database.read { connection in
                try connection.query("SELECT * FROM signing_keys ORDER BY created_at, kid").map(Self.record)
            }
        }
    }

    public func find(kid: String) throws(StorageError) -> SigningKeyRecord? {
        try mapStorageErrors {
            try database.read { connection in
                try connection.queryOne("SELECT * FROM signing_keys WHERE kid = ?", [.text(kid)]).map(Self.record)
            }
        }
    }

    /// A cheap value that changes whenever any key is added, retired or deleted,
    /// so a running daemon can notice `idp-admin keys rotate` without reloading every time.
    public func fingerprint() throws(StorageError) -> String {
        try mapStorageErrors {
            try database.read { connection in
                let row = try connection.queryOne(
                    "SELECT count(*) AS n, coalesce(group_concat(kid || ':' || status, ','), '') AS keys FROM (SELECT kid, status FROM signing_keys ORDER BY kid) AS ordered")
                return "\(try row?.int("n") ?? 0)|\(try row?.string("keys") ?? "")"
            }
        }
    }

    /// Makes `key` the active key of its algorithm and retires the previous active ones, atomically.
    public func activate(_ key: SigningKeyRecord, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run(
                    "UPDATE signing_keys SET status = 'retired', retired_at = ? WHERE alg = ? AND status = 'active'",
                    [.integer(Int64(time.timeIntervalSince1970)), .text(key.algorithm)])
                try Self.insert(key, status: .active, into: connection)
            }
        }
    }

    /// Stores `key` as the active key of its algorithm only if that algorithm has none yet, and says
    /// whether it did. Nodes started together on an empty database each generate a key; this way
    /// exactly one per algorithm becomes active and every node loads that one. On PostgreSQL a
    /// transaction-scoped advisory lock makes the check-then-insert atomic (READ COMMITTED would
    /// let both inserts through); SQLite's single writer already serialises it.
    public func activateIfNone(_ key: SigningKeyRecord) throws(StorageError) -> Bool {
        try mapStorageErrors {
            try database.write { connection in
                if connection.dialect == .postgresql {
                    _ = try connection.queryOne("SELECT pg_advisory_xact_lock(hashtext('gatehouse signing keys'))")
                }
                let active = try connection.queryOne("SELECT 1 FROM signing_keys WHERE alg = ? AND status = 'active'", [.text(key.algorithm)])
                guard active == nil else { return false }
                try Self.insert(key, status: .active, into: connection)
                return true
            }
        }
    }

    /// Stops a key from signing while keeping it published. Refuses to retire the last
    /// active key of an algorithm: rotate instead, so signing never stops.
    public func retire(kid: String, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                guard let row = try connection.queryOne("SELECT alg, status FROM signing_keys WHERE kid = ?", [.text(kid)]) else {
                    throw StorageError.notFound("signing key \(kid)")
                }
                guard try row.string("status") == SigningKeyRecord.Status.active.rawValue else {
                    throw StorageError.conflict("signing key \(kid) is already retired")
                }
                let alg = try row.string("alg")
                let others = try connection.queryOne(
                    "SELECT count(*) AS n FROM signing_keys WHERE alg = ? AND status = 'active' AND kid <> ?", [.text(alg), .text(kid)])
                guard try (others?.int("n") ?? 0) > 0 else {
                    throw StorageError.conflict("signing key \(kid) is the only active \(alg) key; rotate it instead (idp-admin keys rotate --alg \(alg))")
                }
                _ = try connection.run("UPDATE signing_keys SET status = 'retired', retired_at = ? WHERE kid = ?",
                                       [.integer(Int64(time.timeIntervalSince1970)), .text(kid)])
            }
        }
    }

    /// Deletes a retired key; refuses an active one.
    public func delete(kid: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                guard let row = try connection.queryOne("SELECT status FROM signing_keys WHERE kid = ?", [.text(kid)]) else {
                    throw StorageError.notFound("signing key \(kid)")
                }
                guard try row.string("status") == SigningKeyRecord.Status.retired.rawValue else {
                    throw StorageError.conflict("signing key \(kid) is active; rotate or retire it before deleting it")
                }
                _ = try connection.run("DELETE FROM signing_keys WHERE kid = ?", [.text(kid)])
            }
        }
    }

    private static func insert(_ key: SigningKeyRecord, status: SigningKeyRecord.Status, into connection: any SQLConnection) throws {
        _ = try connection.run(
            """
            INSERT INTO signing_keys (kid, alg, status, private_key_encrypted, public_jwk, created_at, retired_at)
            VALUES (?, ?, ?, ?, ?, ?, NULL)
            """,
            [.text(key.kid), .text(key.algorithm), .text(status.rawValue), .blob(key.encryptedPrivateKey),
             .text(key.publicJWK), .integer(Int64(key.createdAt.timeIntervalSince1970))])
    }

    private static func record(_ row: Row) throws -> SigningKeyRecord {
        guard let status = SigningKeyRecord.Status(rawValue: try row.string("status")) else {
            throw StorageError.internal("signing key has unknown status")
        }
        let retired: Date? = try row.isNull("retired_at") ? nil : Date(timeIntervalSince1970: TimeInterval(try row.int64("retired_at")))
        return SigningKeyRecord(kid: try row.string("kid"), algorithm: try row.string("alg"), status: status,
                                encryptedPrivateKey: try row.blob("private_key_encrypted"), publicJWK: try row.string("public_jwk"),
                                createdAt: Date(timeIntervalSince1970: TimeInterval(try row.int64("created_at"))), retiredAt: retired)
    }
}
