import FoundationEssentials

/// A browser sign-in (SSO) session; one per device and login.
public struct Session: Sendable, Equatable {
    /// Public identifier, the `sid` claim.
    public var sessionID: String
    /// Digest of the cookie value; the value itself is never stored.
    public var cookieHash: String
    public var userID: String
    /// When the user really authenticated (the `auth_time` claim).
    public var authTime: Date
    public var createdAt: Date
    /// The session's last activity: its sign-in, or the latest refresh token issued or rotated
    /// under it before it ended. Stores read the refresh side from the token families (a rotation
    /// writes its family's row and nothing of the session: issue #18), so this is never older
    /// than the stored `last_seen_at`.
    public var lastSeenAt: Date
    public var expiresAt: Date
    public var endedAt: Date?
    public var deviceName: String?
    public var ip: String?
    /// For a session created by a session transfer: the refresh-token family (grant) it came from.
    /// Revoking that grant ends the session and revokes what was issued under it (migration 0014).
    public var parentGrantID: String?

    public init(sessionID: String, cookieHash: String, userID: String, authTime: Date, createdAt: Date, lastSeenAt: Date,
                expiresAt: Date, endedAt: Date? = nil, deviceName: String? = nil, ip: String? = nil,
                parentGrantID: String? = nil) {
        self.sessionID = sessionID
        self.cookieHash = cookieHash
        self.userID = userID
        self.authTime = authTime
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.endedAt = endedAt
        self.deviceName = deviceName
        self.ip = ip
        self.parentGrantID = parentGrantID
    }

    public func isLive(at time: Date) -> Bool { endedAt == nil && time < expiresAt }
}
