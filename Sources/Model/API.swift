import FoundationEssentials

/// A resource server (Auth0's "API"): the audience machine-to-machine and user access tokens are minted for.
public struct API: Sendable, Equatable {
    /// Gatehouse's own id for the API (admin commands address it by this or by `identifier`).
    public var apiID: String
    /// The audience, e.g. `https://api.example.com/`; unique, compared byte for byte.
    public var identifier: String
    public var name: String
    /// The scopes the API defines, in the operator's order.
    public var scopes: [String]
    /// Seconds an access token for this API lives.
    public var tokenLifetime: Int
    /// `RS256` (default) or `ES256`.
    public var signingAlgorithm: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(apiID: String, identifier: String, name: String, scopes: [String] = [], tokenLifetime: Int = 86_400,
                signingAlgorithm: String = "RS256", createdAt: Date, updatedAt: Date? = nil) {
        self.apiID = apiID
        self.identifier = identifier
        self.name = name
        self.scopes = scopes
        self.tokenLifetime = tokenLifetime
        self.signingAlgorithm = signingAlgorithm
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }
}

/// Auth0's "client grant": which scopes of an API an application may obtain with client_credentials.
public struct ClientGrant: Sendable, Equatable {
    public var clientID: String
    public var apiID: String
    /// Granted scopes, in the operator's order.
    public var scopes: [String]
    public var createdAt: Date

    public init(clientID: String, apiID: String, scopes: [String], createdAt: Date) {
        self.clientID = clientID
        self.apiID = apiID
        self.scopes = scopes
        self.createdAt = createdAt
    }
}

/// APIs and their client grants (tables `apis`, `client_grants`).
public protocol APIStore: Sendable {
    /// Throws `.alreadyExists` for a taken id or identifier.
    func create(_ api: API) throws(StorageError)
    func find(apiID: String) throws(StorageError) -> API?
    /// Exact (byte-for-byte) identifier.
    func find(identifier: String) throws(StorageError) -> API?
    /// Oldest first.
    func list() throws(StorageError) -> [API]
    /// Replaces every field; throws `.notFound`, or `.alreadyExists` when the new identifier is taken.
    func update(_ api: API) throws(StorageError)
    /// Deletes the API with its client grants; throws `.notFound`.
    func delete(apiID: String) throws(StorageError)
    /// Creates or replaces the grant of `clientID` for `apiID`; `.notFound` when either is unknown.
    func grant(_ grant: ClientGrant) throws(StorageError)
    func clientGrant(clientID: String, apiID: String) throws(StorageError) -> ClientGrant?
    /// The client's grants, oldest first.
    func clientGrants(clientID: String) throws(StorageError) -> [ClientGrant]
}
