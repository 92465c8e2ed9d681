/// `response_mode=web_message` (auth0-compat.md §11): the answer is posted with `postMessage` to
/// the window that opened or framed the page, so the target origin decides who reads the code.
///
/// As Auth0 decides it: the origin is the validated redirect URI's, and it must be one of the
/// application's Allowed Web Origins, compared exactly (RFC 6454 §6.1 serialisation, default
/// ports dropped). An allowed callback alone is not enough, and a wildcard never matches. A
/// refusal is an error page: an answer that cannot reach a known origin is never posted to `*`.
public enum WebMessageOrigin {
    public enum Refusal: Error, Equatable, Sendable {
        /// The redirect URI is not http(s) or has no host, so there is no origin to post to.
        case noOrigin
        /// The redirect URI's origin is not on the application's Allowed Web Origins.
        case notAllowed(origin: String)
    }

    /// The serialised origin to post to, or why there is none.
    public static func decide(redirectURI: String, allowedWebOrigins: [String]) -> Result<String, Refusal> {
        let scheme = redirectURI.prefix { $0 != ":" }.lowercased()
        guard scheme == "https" || scheme == "http", let origin = WebOrigin.normalize(redirectURI, allowPath: true) else {
            return .failure(.noOrigin)
        }
        let allowed = allowedWebOrigins.contains { WebOrigin.normalize($0, allowPath: true) == origin }
        return allowed ? .success(origin) : .failure(.notAllowed(origin: origin))
    }
}
