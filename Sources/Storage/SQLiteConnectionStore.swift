import Crypto
import FoundationEssentials
import Model
import SQLite

/// Upstream connections in SQLite (`connections`, `client_connections`, migration 0011).
///
/// The client secret and the `.p8` key are sealed at rest with AES-256-GCM under a key derived
/// from the key-encryption key (`ConnectionSecretKey.purpose`), bound to the connection's name and
/// to which secret it is, so a database copy reveals neither and a sealed box cannot be moved onto
/// another connection or field.
public struct SQLiteConnectionStore: ConnectionStore {
    let database: any SQLDatabase
    private let key: [UInt8]
    private static let version: UInt8 = 1

    /// - Parameter key: 32 bytes, derived under `ConnectionSecretKey.purpose`.
    public init(store: some SQLStorage, key: [UInt8]) {
        precondition(key.count == AESGCM.keySize, "the connection seal key must have 32 bytes")
        database = store.records.sql
        self.key = key
    }

    public func create(_ connection: UpstreamConnection) throws(StorageError) {
        let values = try columns(connection)
        try mapStorageErrors {
            try database.write { db in
                _ = try db.run(
                    """
                    INSERT INTO connections (name, strategy, client_id, sealed_client_secret, sealed_private_key, team_id, key_id,
                        discovery_url, authorize_url, token_url, jwks_url, revoke_url, issuer, hosted_domain, scopes,
                        native_audiences, link_by_verified_email, created_at, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
                    """, values)
            }
        }
    }

    public func find(name: String) throws(StorageError) -> UpstreamConnection? {
        let row = try mapStorageErrors {
            try database.read { try $0.queryOne("SELECT * FROM connections WHERE name = ?", [.text(name)]).map(StoredConnection.init) }
        }
        return try row.map(open)
    }

    public func list() throws(StorageError) -> [UpstreamConnection] {
        let rows = try mapStorageErrors {
            try database.read { try $0.query("SELECT * FROM connections ORDER BY name").map(StoredConnection.init) }
        }
        var connections: [UpstreamConnection] = []
        for row in rows { connections.append(try open(row)) }
        return connections
    }

    public func update(_ connection: UpstreamConnection) throws(StorageError) {
        let values = try columns(connection)
        try mapStorageErrors {
            try database.write { db in
                let changed = try db.run(
                    """
                    UPDATE connections SET strategy = ?2, client_id = ?3, sealed_client_secret = ?4, sealed_private_key = ?5,
                        team_id = ?6, key_id = ?7, discovery_url = ?8, authorize_url = ?9, token_url = ?10, jwks_url = ?11,
                        revoke_url = ?12, issuer = ?13, hosted_domain = ?14, scopes = ?15, native_audiences = ?16,
                        link_by_verified_email = ?17, created_at = ?18, updated_at = ?19
                    WHERE name = ?1
                    """, values)
                guard changed == 1 else { throw StorageError.notFound("connection \(connection.name)") }
            }
        }
    }

    public func delete(name: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { db in
                let users = try db.queryOne("SELECT count(*) FROM users WHERE connection = ?", [.text(name)])?.int(0) ?? 0
                guard users == 0 else {
                    throw StorageError.conflict("connection \(name) still has \(users) user(s): delete them first")
                }
                guard try db.run("DELETE FROM connections WHERE name = ?", [.text(name)]) == 1 else {
                    throw StorageError.notFound("connection \(name)")
                }
            }
        }
    }

    public func enabled(clientID: String) throws(StorageError) -> [String] {
        try mapStorageErrors {
            try database.read { db in
                try db.query("SELECT connection FROM client_connections WHERE client_id = ? ORDER BY position", [.text(clientID)])
                    .map { try $0.string("connection") }
            }
        }
    }

    public func enabledStrategies(clientID: String) throws(StorageError) -> [(name: String, strategy: ConnectionStrategy)] {
        try mapStorageErrors {
            try database.read { db in
                try db.query(
                    """
                    SELECT c.name, c.strategy FROM client_connections e JOIN connections c ON c.name = e.connection
                    WHERE e.client_id = ? ORDER BY e.position
                    """, [.text(clientID)]).compactMap { row in
                    let name = try row.string("name")
                    return ConnectionStrategy(rawValue: try row.string("strategy")).map { (name, $0) }
                }
            }
        }
    }

    public func setEnabled(_ names: [String], clientID: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { db in
                guard try db.queryOne("SELECT 1 FROM clients WHERE client_id = ?", [.text(clientID)]) != nil else {
                    throw StorageError.notFound("application \(clientID)")
                }
                for name in names where try db.queryOne("SELECT 1 FROM connections WHERE name = ?", [.text(name)]) == nil {
                    throw StorageError.notFound("connection \(name)")
                }
                _ = try db.run("DELETE FROM client_connections WHERE client_id = ?", [.text(clientID)])
                var seen: Set<String> = []
                for (position, name) in names.enumerated() where seen.insert(name).inserted {
                    _ = try db.run("INSERT INTO client_connections (client_id, connection, position) VALUES (?1, ?2, ?3)",
                                   [.text(clientID), .text(name), .integer(Int64(position))])
                }
            }
        }
    }

    // MARK: - rows

    /// A row as stored, secrets still sealed.
    private struct StoredConnection {
        var connection: UpstreamConnection
        var sealedSecret: [UInt8]?
        var sealedKey: [UInt8]?

        init(_ row: Row) throws {
            func text(_ column: String) throws -> String? { try row.optionalString(column) }
            func list(_ column: String) throws -> [String] { try row.string(column).split(separator: " ").map(String.init) }
            guard let strategy = ConnectionStrategy(rawValue: try row.string("strategy")) else {
                throw StorageError.internal("unknown connection strategy")
            }
            connection = UpstreamConnection(
                name: try row.string("name"), strategy: strategy, clientID: try row.string("client_id"),
                teamID: try text("team_id"), keyID: try text("key_id"), discoveryURL: try text("discovery_url"),
                authorizeURL: try text("authorize_url"), tokenURL: try text("token_url"), jwksURL: try text("jwks_url"),
                revokeURL: try text("revoke_url"), issuer: try text("issuer"), hostedDomain: try text("hosted_domain"),
                scopes: try list("scopes"), nativeAudiences: try list("native_audiences"),
                linkByVerifiedEmail: try row.flag("link_by_verified_email"), createdAt: try row.date("created_at"),
                updatedAt: try row.date("updated_at"))
            sealedSecret = try row.isNull("sealed_client_secret") ? nil : try row.blob("sealed_client_secret")
            sealedKey = try row.isNull("sealed_private_key") ? nil : try row.blob("sealed_private_key")
        }
    }

    private func open(_ stored: StoredConnection) throws(StorageError) -> UpstreamConnection {
        var connection = stored.connection
        connection.clientSecret = try stored.sealedSecret.map { sealed throws(StorageError) in
            try open(sealed, field: "client_secret", name: connection.name)
        }
        connection.privateKey = try stored.sealedKey.map { sealed throws(StorageError) in
            try open(sealed, field: "private_key", name: connection.name)
        }
        return connection
    }

    private func columns(_ connection: UpstreamConnection) throws(StorageError) -> [SQLValue] {
        let secret = try connection.clientSecret.map { value throws(StorageError) in try seal(value, field: "client_secret", name: connection.name) }
        let privateKey = try connection.privateKey.map { value throws(StorageError) in try seal(value, field: "private_key", name: connection.name) }
        return [.text(connection.name), .text(connection.strategy.rawValue), .text(connection.clientID),
                secret.map(SQLValue.blob) ?? .null, privateKey.map(SQLValue.blob) ?? .null,
                SQLValue(optional: connection.teamID), SQLValue(optional: connection.keyID), SQLValue(optional: connection.discoveryURL),
                SQLValue(optional: connection.authorizeURL), SQLValue(optional: connection.tokenURL), SQLValue(optional: connection.jwksURL),
                SQLValue(optional: connection.revokeURL), SQLValue(optional: connection.issuer), SQLValue(optional: connection.hostedDomain),
                .text(connection.scopes.joined(separator: " ")), .text(connection.nativeAudiences.joined(separator: " ")),
                SQLValue(flag: connection.linkByVerifiedEmail), SQLValue(date: connection.createdAt), SQLValue(date: connection.updatedAt)]
    }

    private func seal(_ value: String, field: String, name: String) throws(StorageError) -> [UInt8] {
        do {
            return [Self.version] + (try AESGCM.seal(Array(value.utf8), key: key, associatedData: Self.associatedData(field, name)))
        } catch {
            throw .internal("cannot seal the connection's \(field): \(error)")
        }
    }

    private func open(_ sealed: [UInt8], field: String, name: String) throws(StorageError) -> String {
        guard sealed.first == Self.version,
              let plain = try? AESGCM.open(sealed.dropFirst(), key: key, associatedData: Self.associatedData(field, name)) else {
            throw .internal("the \(field) of connection \(name) cannot be opened (another key-encryption key?)")
        }
        return String(decoding: plain, as: UTF8.self)
    }

    private static func associatedData(_ field: String, _ name: String) -> [UInt8] {
        Array("gatehouse connection \(field) v1 \(name)".utf8)
    }
}

/// The one label the daemon and `idp-admin` derive the connection secrets' seal key under.
public enum ConnectionSecretKey {
    public static let purpose = "gatehouse connection secrets v1"
}
