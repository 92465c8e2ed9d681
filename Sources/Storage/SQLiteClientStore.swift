import FoundationEssentials
import Model
import SQLite

/// Applications in SQLite: one `clients` row plus their allow-lists in `client_allowed_urls`,
/// written together in one transaction so a reader never sees a half-updated client.
public struct SQLiteClientStore: ClientStore {
    let database: any SQLDatabase
    let cache: ClientCache

    public init(store: some SQLStorage) {
        database = store.records.sql
        cache = store.records.clientCache
    }

    public func create(_ client: Client) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                _ = try connection.run(
                    """
                    INSERT INTO clients (client_id, name, app_type, secret_hash, auth_methods, grant_types, id_token_alg,
                        access_token_lifetime, id_token_lifetime, refresh_absolute_lifetime, refresh_idle_lifetime,
                        refresh_reuse_interval, refresh_survives_logout, introspection_enabled, apple_team_id, bundle_id,
                        android_package, android_sha256, created_at, updated_at, updated_at_format, signup_enabled,
                        require_email_verification, logo_url, accent_color, session_transfer_allow, session_transfer_accept,
                        session_transfer_binding)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,
                        ?24, ?25, ?26, ?27, ?28)
                    """, Self.columns(client))
                try ClientAllowedURLs.replace(for: client, in: connection)
            }
        }
    }

    /// From the cache while no application changed since it was loaded (one single-row read), else from the tables.
    public func find(clientID: String) throws(StorageError) -> Client? {
        try mapStorageErrors {
            let counter = try database.withReader { try Self.changeCounter($0) }
            if let cached = cache.client(clientID, counter: counter) { return cached }
            return try database.read { connection in
                guard let row = try connection.queryOne("SELECT * FROM clients WHERE client_id = ?", [.text(clientID)]) else {
                    return nil
                }
                let lists = try ClientAllowedURLs.load(clientID: clientID, from: connection)
                let client = try Self.client(row, lists: lists[clientID] ?? ClientAllowedURLs.Lists())
                cache.store(client, counter: try Self.changeCounter(connection))
                return client
            }
        }
    }

    /// Bumped by triggers on every change to `clients` or `client_allowed_urls` (migration 0004).
    private static func changeCounter(_ connection: any SQLConnection) throws -> Int64 {
        try connection.queryOne("SELECT value FROM change_counters WHERE name = 'clients'")?.get(0, as: Int64.self) ?? 0
    }

    /// Every client, oldest first.
    public func list() throws(StorageError) -> [Client] {
        try mapStorageErrors {
            try database.read { connection in
                let rows = try connection.query("SELECT * FROM clients ORDER BY created_at, client_id")
                let lists = try ClientAllowedURLs.load(clientID: nil, from: connection)
                return try rows.map { row in
                    try Self.client(row, lists: lists[try row.string("client_id")] ?? ClientAllowedURLs.Lists())
                }
            }
        }
    }

    public func update(_ client: Client) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                let changed = try connection.run(
                    """
                    UPDATE clients SET name = ?2, app_type = ?3, secret_hash = ?4, auth_methods = ?5, grant_types = ?6,
                        id_token_alg = ?7, access_token_lifetime = ?8, id_token_lifetime = ?9, refresh_absolute_lifetime = ?10,
                        refresh_idle_lifetime = ?11, refresh_reuse_interval = ?12, refresh_survives_logout = ?13,
                        introspection_enabled = ?14, apple_team_id = ?15, bundle_id = ?16, android_package = ?17,
                        android_sha256 = ?18, created_at = ?19, updated_at = ?20, updated_at_format = ?21, signup_enabled = ?22,
                        require_email_verification = ?23, logo_url = ?24, accent_color = ?25, session_transfer_allow = ?26,
                        session_transfer_accept = ?27, session_transfer_binding = ?28
                    WHERE client_id = ?1
                    """, Self.columns(client))
                guard changed == 1 else { throw StorageError.notFound("client \(client.clientID)") }
                try ClientAllowedURLs.replace(for: client, in: connection)
            }
        }
    }

    /// Foreign keys cascade to allow-lists, codes, grants (and through them refresh tokens),
    /// login transactions and client grants.
    public func delete(clientID: String) throws(StorageError) {
        try mapStorageErrors {
            try database.write { connection in
                guard try connection.run("DELETE FROM clients WHERE client_id = ?", [.text(clientID)]) == 1 else {
                    throw StorageError.notFound("client \(clientID)")
                }
                // refresh_tokens.client_id has no foreign key to clients; tokens of grants are
                // gone through grants' cascade, so nothing else refers to the client.
            }
        }
    }

    /// Values for ?1…?28 in the order of the INSERT and UPDATE statements.
    private static func columns(_ client: Client) -> [SQLValue] {
        [.text(client.clientID), .text(client.name), .text(client.type.rawValue), SQLValue(optional: client.secretHash),
         .text(client.authMethods.map(\.rawValue).joined(separator: " ")),
         .text(client.grantTypes.map(\.rawValue).joined(separator: " ")),
         .text(client.idTokenAlgorithm), .integer(Int64(client.accessTokenLifetime)), .integer(Int64(client.idTokenLifetime)),
         .integer(Int64(client.refreshAbsoluteLifetime)), .integer(Int64(client.refreshIdleLifetime)),
         .integer(Int64(client.refreshReuseInterval)), SQLValue(flag: client.refreshSurvivesLogout),
         SQLValue(flag: client.introspectionEnabled), SQLValue(optional: client.appleTeamID), SQLValue(optional: client.bundleID),
         SQLValue(optional: client.androidPackage),
         client.androidSHA256.isEmpty ? .null : .text(client.androidSHA256.joined(separator: ",")),
         SQLValue(date: client.createdAt), SQLValue(date: client.updatedAt), .text(client.updatedAtFormat.rawValue),
         SQLValue(flag: client.signupEnabled), SQLValue(flag: client.requireEmailVerification),
         SQLValue(optional: client.logoURL), SQLValue(optional: client.accentColor)] + sessionTransferColumns(client.sessionTransfer)
    }

    /// ?26…?28: the session transfer policy (migration 0014); `accept` as space-separated channel names.
    private static func sessionTransferColumns(_ policy: SessionTransferPolicy) -> [SQLValue] {
        var accept: [String] = []
        if policy.accept.contains(.cookie) { accept.append("cookie") }
        if policy.accept.contains(.query) { accept.append("query") }
        return [SQLValue(flag: policy.allowIssue), .text(accept.joined(separator: " ")), .text(policy.binding.rawValue)]
    }

    private static func sessionTransfer(_ row: Row) throws -> SessionTransferPolicy {
        var accept: SessionTransferPolicy.Channels = []
        for name in try words(row, "session_transfer_accept") {
            if name == "cookie" { accept.insert(.cookie) }
            if name == "query" { accept.insert(.query) }
        }
        return SessionTransferPolicy(allowIssue: try row.flag("session_transfer_allow"), accept: accept,
                                     binding: SessionTransferPolicy.Binding(rawValue: try row.string("session_transfer_binding")) ?? .ip)
    }

    private static func client(_ row: Row, lists: ClientAllowedURLs.Lists) throws -> Client {
        let clientID = try row.string("client_id")
        guard let type = Client.ApplicationType(rawValue: try row.string("app_type")) else {
            throw StorageError.internal("client \(clientID) has an unknown app_type")
        }
        let authMethods = try words(row, "auth_methods").map { name in
            guard let method = Client.AuthMethod(rawValue: name) else {
                throw StorageError.internal("client \(clientID) has an unknown auth method")
            }
            return method
        }
        let grantTypes = try words(row, "grant_types").map { name in
            guard let grant = Client.GrantType(rawValue: name) else {
                throw StorageError.internal("client \(clientID) has an unknown grant type")
            }
            return grant
        }
        let fingerprints = try row.optionalString("android_sha256")?.split(separator: ",").map(String.init) ?? []
        return Client(
            clientID: clientID, name: try row.string("name"), type: type, secretHash: try row.optionalString("secret_hash"),
            authMethods: authMethods, grantTypes: grantTypes, idTokenAlgorithm: try row.string("id_token_alg"),
            accessTokenLifetime: try row.int("access_token_lifetime"), idTokenLifetime: try row.int("id_token_lifetime"),
            refreshAbsoluteLifetime: try row.int("refresh_absolute_lifetime"),
            refreshIdleLifetime: try row.int("refresh_idle_lifetime"), refreshReuseInterval: try row.int("refresh_reuse_interval"),
            refreshSurvivesLogout: try row.flag("refresh_survives_logout"),
            introspectionEnabled: try row.flag("introspection_enabled"),
            callbacks: lists.callbacks, logoutURLs: lists.logoutURLs, webOrigins: lists.webOrigins,
            appleTeamID: try row.optionalString("apple_team_id"), bundleID: try row.optionalString("bundle_id"),
            androidPackage: try row.optionalString("android_package"), androidSHA256: fingerprints,
            signupEnabled: try row.flag("signup_enabled"), requireEmailVerification: try row.flag("require_email_verification"),
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"),
            updatedAtFormat: Client.UpdatedAtFormat(rawValue: try row.string("updated_at_format")) ?? .iso,
            logoURL: try row.optionalString("logo_url"), accentColor: try row.optionalString("accent_color"),
            sessionTransfer: try sessionTransfer(row))
    }

    private static func words(_ row: Row, _ column: String) throws -> [String] {
        try row.string(column).split(separator: " ").map(String.init)
    }
}
