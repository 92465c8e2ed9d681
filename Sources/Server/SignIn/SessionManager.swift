import Crypto
import FoundationEssentials
import HTTP
import Model

/// Server-side SSO sessions behind an opaque cookie. Only the cookie's SHA-256 is stored,
/// and a login always issues a fresh cookie (no session fixation, negative-tests G11).
struct SessionManager: Sendable {
    let sessions: any SessionStore
    let cookies: CookieSpec
    let clock: any Clock
    let lifetime: TimeInterval

    /// The live session the request's cookie names, if any.
    func current(_ request: HTTPRequest) throws(StorageError) -> Session? {
        guard let value = cookies.value(.session, in: request.headers), !value.isEmpty, value.utf8.count <= 256 else { return nil }
        guard let session = try sessions.find(cookieHash: SecretDigest.hash(value)), session.isLive(at: clock.now) else { return nil }
        return session
    }

    /// Starts a session for a user who just authenticated; returns it with its `Set-Cookie` value.
    func start(userID: String, deviceName: String?, ip: String?) throws(StorageError) -> (Session, setCookie: String) {
        let now = clock.now
        let cookie = Random.token(bytes: 32)
        let session = Session(sessionID: Random.token(bytes: 16), cookieHash: SecretDigest.hash(cookie), userID: userID,
                              authTime: now, createdAt: now, lastSeenAt: now, expiresAt: now.addingTimeInterval(lifetime),
                              deviceName: deviceName, ip: ip)
        try sessions.create(session)
        return (session, cookies.set(.session, value: cookie, maxAge: Int(lifetime)))
    }
}
