import FoundationEssentials
import Model
import SQLite

/// Upstream identities in SQLite (`identities`, migration 0011); a user's identities go with the user.
public struct SQLiteIdentityStore: IdentityStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func find(connection: String, subject: String) throws(StorageError) -> Identity? {
        try mapStorageErrors {
            try database.read { db in
                try db.queryOne("SELECT * FROM identities WHERE connection = ?1 AND subject = ?2", [.text(connection), .text(subject)])
                    .map(Self.identity)
            }
        }
    }

    public func list(userID: String) throws(StorageError) -> [Identity] {
        try mapStorageErrors {
            try database.read { db in
                try db.query("SELECT * FROM identities WHERE user_id = ? ORDER BY created_at, connection", [.text(userID)]).map(Self.identity)
            }
        }
    }

    public func users(email: String) throws(StorageError) -> [User] {
        try mapStorageErrors {
            try database.read { db in
                try db.query("SELECT * FROM users WHERE email_lookup = ? ORDER BY created_at, user_id", [.text(User.emailKey(email))])
                    .map(SQLiteUserStore.user)
            }
        }
    }

    public func link(_ identity: Identity) throws(StorageError) {
        try mapStorageErrors {
            try database.write { try Self.insert(identity, on: $0) }
        }
    }

    public func create(_ user: User, with identity: Identity) throws(StorageError) {
        try mapStorageErrors {
            try database.write { db in
                try SQLiteUserStore.insert(user, on: db)
                try Self.insert(identity, on: db)
            }
        }
    }

    public func updateProfile(connection: String, subject: String, profile: String, at time: Date) throws(StorageError) {
        try mapStorageErrors {
            try database.write { db in
                let changed = try db.run("UPDATE identities SET profile = ?3, updated_at = ?4 WHERE connection = ?1 AND subject = ?2",
                                         [.text(connection), .text(subject), .text(profile), SQLValue(date: time)])
                guard changed == 1 else { throw StorageError.notFound("identity \(connection)/\(subject)") }
            }
        }
    }

    private static func insert(_ identity: Identity, on db: any SQLConnection) throws {
        _ = try db.run(
            "INSERT INTO identities (connection, subject, user_id, profile, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            [.text(identity.connection), .text(identity.subject), .text(identity.userID), .text(identity.profile),
             SQLValue(date: identity.createdAt), SQLValue(date: identity.updatedAt)])
    }

    private static func identity(_ row: Row) throws -> Identity {
        Identity(connection: try row.string("connection"), subject: try row.string("subject"), userID: try row.string("user_id"),
                 profile: try row.string("profile"), createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }
}
