import Crypto
import FoundationEssentials
import HTTP
import Model

/// Reads the browser's SSO session for the sign-out pages. Only the cookie's SHA-256 is stored;
/// sessions start in the sign-in flow (`SignInFlow.submit`).
struct SessionManager: Sendable {
    let sessions: any SessionStore
    let cookies: CookieSpec
    let clock: any Clock

    /// The live session the request's cookie names, if any.
    func current(_ request: HTTPRequest) throws(StorageError) -> Session? {
        guard let value = cookies.value(.session, in: request.headers), !value.isEmpty, value.utf8.count <= 256 else { return nil }
        guard let session = try sessions.find(cookieHash: SecretDigest.hash(value)), session.isLive(at: clock.now) else { return nil }
        return session
    }
}
