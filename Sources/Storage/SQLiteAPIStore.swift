import FoundationEssentials
import Model
import SQLite

/// APIs (resource servers) and client grants in SQLite (tables `apis`, `client_grants`).
/// Scopes are stored space-separated; deleting an API or a client cascades to its grants.
public struct SQLiteAPIStore: APIStore {
    let database: any SQLDatabase

    public init(store: some SQLStorage) { database = store.records.sql }

    public func create(_ api: API) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run(
                    """
                    INSERT INTO apis (api_id, identifier, name, scopes, token_lifetime, signing_alg, created_at, updated_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                    """, Self.columns(api))
            }
        }
    }

    public func find(apiID: String) throws(StorageError) -> API? {
        try mapStorageErrors {
            try database.lookups { try $0.queryOne("SELECT * FROM apis WHERE api_id = ?", [.text(apiID)]).map(Self.api) }
        }
    }

    public func find(identifier: String) throws(StorageError) -> API? {
        try mapStorageErrors {
            try database.lookups { try $0.queryOne("SELECT * FROM apis WHERE identifier = ?", [.text(identifier)]).map(Self.api) }
        }
    }

    public func list() throws(StorageError) -> [API] {
        try mapStorageErrors {
            try database.read { try $0.query("SELECT * FROM apis ORDER BY created_at, api_id").map(Self.api) }
        }
    }

    public func update(_ api: API) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                let changed = try connection.run(
                    """
                    UPDATE apis SET identifier = ?2, name = ?3, scopes = ?4, token_lifetime = ?5, signing_alg = ?6,
                        created_at = ?7, updated_at = ?8
                    WHERE api_id = ?1
                    """, Self.columns(api))
                guard changed > 0 else { throw StorageError.notFound("api \(api.apiID)") }
            }
        }
    }

    public func delete(apiID: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                guard try connection.run("DELETE FROM apis WHERE api_id = ?", [.text(apiID)]) > 0 else {
                    throw StorageError.notFound("api \(apiID)")
                }
            }
        }
    }

    public func grant(_ grant: ClientGrant) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                guard try connection.queryOne("SELECT 1 FROM clients WHERE client_id = ?", [.text(grant.clientID)]) != nil else {
                    throw StorageError.notFound("client \(grant.clientID)")
                }
                guard try connection.queryOne("SELECT 1 FROM apis WHERE api_id = ?", [.text(grant.apiID)]) != nil else {
                    throw StorageError.notFound("api \(grant.apiID)")
                }
                _ = try connection.run(
                    """
                    INSERT INTO client_grants (client_id, api_id, scopes, created_at) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (client_id, api_id) DO UPDATE SET scopes = excluded.scopes
                    """,
                    [.text(grant.clientID), .text(grant.apiID), .text(grant.scopes.joined(separator: " ")), SQLValue(date: grant.createdAt)])
            }
        }
    }

    public func clientGrant(clientID: String, apiID: String) throws(StorageError) -> ClientGrant? {
        try mapStorageErrors {
            try database.lookups { connection in
                try connection.queryOne("SELECT * FROM client_grants WHERE client_id = ? AND api_id = ?", [.text(clientID), .text(apiID)])
                    .map(Self.clientGrant)
            }
        }
    }

    public func clientGrants(clientID: String) throws(StorageError) -> [ClientGrant] {
        try mapStorageErrors {
            try database.read { connection in
                try connection.query("SELECT * FROM client_grants WHERE client_id = ? ORDER BY created_at, api_id", [.text(clientID)])
                    .map(Self.clientGrant)
            }
        }
    }

    private static func columns(_ api: API) -> [SQLValue] {
        [.text(api.apiID), .text(api.identifier), .text(api.name), .text(api.scopes.joined(separator: " ")),
         .integer(Int64(api.tokenLifetime)), .text(api.signingAlgorithm), SQLValue(date: api.createdAt), SQLValue(date: api.updatedAt)]
    }

    static func words(_ text: String) -> [String] {
        text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    private static func api(_ row: Row) throws -> API {
        API(apiID: try row.string("api_id"), identifier: try row.string("identifier"), name: try row.string("name"),
            scopes: words(try row.string("scopes")), tokenLifetime: try row.int("token_lifetime"),
            signingAlgorithm: try row.string("signing_alg"), createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }

    private static func clientGrant(_ row: Row) throws -> ClientGrant {
        ClientGrant(clientID: try row.string("client_id"), apiID: try row.string("api_id"), scopes: words(try row.string("scopes")),
                    createdAt: try row.date("created_at"))
    }
}
