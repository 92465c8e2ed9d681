import FoundationEssentials

/// How an upstream connection speaks OpenID Connect (README "Upstream connections").
public enum ConnectionStrategy: String, Sendable, CaseIterable {
    case apple, google, oidc

    /// The prefix of the user ids this connection creates, in Auth0's shapes (`google-oauth2|…`).
    public var userIDPrefix: String {
        switch self {
        case .apple: "apple"
        case .google: "google-oauth2"
        case .oidc: "oidc"
        }
    }
}

/// An upstream identity provider users may sign in through. Secrets are held in memory in clear
/// only; the store seals them at rest.
public struct UpstreamConnection: Sendable, Equatable {
    /// Lower-case letters, digits and `-`: it appears in URLs (`connection=`) and user ids.
    public var name: String
    public var strategy: ConnectionStrategy
    public var clientID: String
    public var clientSecret: String?
    /// Apple's `.p8` signing key (PEM), for the client-secret JWT.
    public var privateKey: String?
    public var teamID: String?
    public var keyID: String?
    /// `…/.well-known/openid-configuration`; explicit URLs below override what it says.
    public var discoveryURL: String?
    public var authorizeURL: String?
    public var tokenURL: String?
    public var jwksURL: String?
    public var revokeURL: String?
    public var issuer: String?
    /// Google's `hd` restriction.
    public var hostedDomain: String?
    public var scopes: [String]
    /// The client ids a natively obtained ID token may be for (`aud`).
    public var nativeAudiences: [String]
    /// A first login may join an existing user with the same verified email.
    public var linkByVerifiedEmail: Bool
    public var createdAt: Date
    public var updatedAt: Date

    public init(name: String, strategy: ConnectionStrategy, clientID: String, clientSecret: String? = nil, privateKey: String? = nil,
                teamID: String? = nil, keyID: String? = nil, discoveryURL: String? = nil, authorizeURL: String? = nil,
                tokenURL: String? = nil, jwksURL: String? = nil, revokeURL: String? = nil, issuer: String? = nil,
                hostedDomain: String? = nil, scopes: [String] = ["openid", "profile", "email"], nativeAudiences: [String] = [],
                linkByVerifiedEmail: Bool = false, createdAt: Date, updatedAt: Date? = nil) {
        self.name = name
        self.strategy = strategy
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.privateKey = privateKey
        self.teamID = teamID
        self.keyID = keyID
        self.discoveryURL = discoveryURL
        self.authorizeURL = authorizeURL
        self.tokenURL = tokenURL
        self.jwksURL = jwksURL
        self.revokeURL = revokeURL
        self.issuer = issuer
        self.hostedDomain = hostedDomain
        self.scopes = scopes
        self.nativeAudiences = nativeAudiences
        self.linkByVerifiedEmail = linkByVerifiedEmail
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }

    /// Whether `name` is a usable connection name.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
        } && name != User.databaseConnectionMarker
    }
}

/// A user's account at an upstream connection: the upstream `sub`, linked to one Gatehouse user.
public struct Identity: Sendable, Equatable {
    public var connection: String
    /// The upstream `sub`.
    public var subject: String
    public var userID: String
    /// The verified ID token's claims of the latest login, as a JSON object.
    public var profile: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(connection: String, subject: String, userID: String, profile: String = "{}", createdAt: Date, updatedAt: Date? = nil) {
        self.connection = connection
        self.subject = subject
        self.userID = userID
        self.profile = profile
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }
}

/// Connections, which applications offer them, and the identities linked to users.
public protocol ConnectionStore: Sendable {
    /// Throws `.alreadyExists` for a taken name.
    func create(_ connection: UpstreamConnection) throws(StorageError)
    func find(name: String) throws(StorageError) -> UpstreamConnection?
    /// By name.
    func list() throws(StorageError) -> [UpstreamConnection]
    /// Replaces every field; throws `.notFound`.
    func update(_ connection: UpstreamConnection) throws(StorageError)
    /// Throws `.notFound`, or `.conflict` while users of the connection exist.
    func delete(name: String) throws(StorageError)
    /// The connections an application offers, in order.
    func enabled(clientID: String) throws(StorageError) -> [String]
    /// The same with each one's strategy, and no secret opened: what its login page shows.
    func enabledStrategies(clientID: String) throws(StorageError) -> [(name: String, strategy: ConnectionStrategy)]
    /// Replaces them; throws `.notFound` for an unknown application or connection.
    func setEnabled(_ names: [String], clientID: String) throws(StorageError)
}

public protocol IdentityStore: Sendable {
    func find(connection: String, subject: String) throws(StorageError) -> Identity?
    /// Oldest first.
    func list(userID: String) throws(StorageError) -> [Identity]
    /// Users whose email is `email` (case-insensitively), in any connection, oldest first: the candidates of a link.
    func users(email: String) throws(StorageError) -> [User]
    /// Links an identity to an existing user; throws `.alreadyExists` when it is linked already.
    func link(_ identity: Identity) throws(StorageError)
    /// A new user of the identity's connection and its identity, in one transaction.
    func create(_ user: User, with identity: Identity) throws(StorageError)
    /// The latest login's claims.
    func updateProfile(connection: String, subject: String, profile: String, at time: Date) throws(StorageError)
}
