import FoundationEssentials
import Model

/// How long rows that no rule needs any more are kept before `Purger` deletes them (README
/// "Maintenance and retention"). Every period counts from the moment a row stopped mattering,
/// never from its creation, so nothing that can still be used is ever deleted.
public struct RetentionPolicy: Sendable, Equatable {
    /// A redeemed authorization code is kept this long past its expiry, so a replay arriving
    /// late still finds it and revokes the grant it issued (RFC 6749 §4.1.2). A legitimate client
    /// redeems within the code's lifetime (60 s), so 10 minutes covers retries and clock skew.
    /// Unredeemed codes go as soon as they expire: there is nothing for a replay to revoke.
    public var redeemedCodeMargin: TimeInterval = 600

    /// A token family (a grant and its refresh tokens) is kept this long after it died: after
    /// its revocation, or once its newest token can no longer be exchanged (absolute or idle
    /// lifetime over) and the last access token minted from it has expired. While a family is
    /// alive every rotated token's digest stays, so a reused old token is still recognised and
    /// revokes the family (RFC 9700 §4.14.2).
    public var familyGrace: TimeInterval = 86_400

    /// An ended or expired session is kept this long, so `idp-admin sessions list` still shows a
    /// week of recent sign-ins, and as long as any grant refers to it (deleting it would clear the
    /// grant's `session_id`, and with it the "refresh does not survive logout" check).
    public var sessionGrace: TimeInterval = 7 * 86_400

    /// The longest login-throttle window (`LoginThrottle.window`, 12 h for email+IP pairs); a row
    /// goes once its window and its lock are both over, so no counter is forgotten early.
    public var throttleWindow: TimeInterval = 12 * 3600

    /// Audit events older than this go (`audit_retention`).
    public var auditRetention: TimeInterval = 30 * 86_400

    /// Sent and failed mail (its recipient, status and error; the values are gone already) is kept
    /// this long, so `idp-admin email queue` shows the recent past.
    public var mailRetention: TimeInterval = 7 * 86_400

    /// The longest authorization-code lifetime a grant's code may have had (RFC 6749 §4.1.2
    /// recommends at most 10 minutes). A grant younger than this plus `redeemedCodeMargin` is
    /// never deleted, so a code row that names it never outlives it.
    public static let maximumCodeLifetime: TimeInterval = 600

    /// Access tokens a retried refresh mints without storing a token (inside the overlap
    /// window) live this much longer than the newest stored token suggests.
    static var retryMargin: TimeInterval { TimeInterval(RefreshRotation.maximumReuseInterval) }

    /// Client-credentials grants whose API is gone: the longest access-token lifetime allowed.
    static let maximumAccessTokenLifetime: TimeInterval = 30 * 86_400

    public init() {}

    public init(auditRetention: TimeInterval) {
        self.auditRetention = auditRetention
    }
}
