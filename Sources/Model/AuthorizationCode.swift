import FoundationEssentials

/// An issued authorization code, stored by the digest of its value.
public struct AuthorizationCode: Sendable, Equatable {
    public var codeHash: String
    public var clientID: String
    public var userID: String
    public var sessionID: String?
    /// Exactly as sent to /authorize; the token request must repeat it byte for byte.
    public var redirectURI: String
    public var scope: String
    public var audience: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var authTime: Date
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    /// The family issued from this code, revoked if the code is replayed.
    public var grantID: String?

    public init(codeHash: String, clientID: String, userID: String, sessionID: String?, redirectURI: String, scope: String,
                audience: String? = nil, nonce: String? = nil, codeChallenge: String? = nil, codeChallengeMethod: String? = nil,
                authTime: Date, createdAt: Date, expiresAt: Date, usedAt: Date? = nil, grantID: String? = nil) {
        self.codeHash = codeHash
        self.clientID = clientID
        self.userID = userID
        self.sessionID = sessionID
        self.redirectURI = redirectURI
        self.scope = scope
        self.audience = audience
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.authTime = authTime
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.grantID = grantID
    }
}
