import FoundationEssentials

/// One token family: everything issued from one authorization. Revoking it kills its
/// refresh tokens and, through the `grant_id` claim, its access tokens.
public struct Grant: Sendable, Equatable {
    public var grantID: String
    public var clientID: String
    /// nil for client_credentials.
    public var userID: String?
    public var sessionID: String?
    /// Space-separated granted scopes.
    public var scope: String
    public var audience: String?
    public var authTime: Date?
    public var createdAt: Date
    public var revokedAt: Date?
    public var revokeReason: String?

    public init(grantID: String, clientID: String, userID: String?, sessionID: String?, scope: String, audience: String? = nil,
                authTime: Date?, createdAt: Date, revokedAt: Date? = nil, revokeReason: String? = nil) {
        self.grantID = grantID
        self.clientID = clientID
        self.userID = userID
        self.sessionID = sessionID
        self.scope = scope
        self.audience = audience
        self.authTime = authTime
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.revokeReason = revokeReason
    }
}
