import FoundationEssentials

/// What an upstream provider answered over HTTP.
public struct UpstreamResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// `Cache-Control: max-age`, when given.
    public var maxAge: Int?

    public init(status: Int, body: [UInt8], maxAge: Int? = nil) {
        self.status = status
        self.body = body
        self.maxAge = maxAge
    }
}

/// HTTP towards upstream providers (discovery, JWKS, token endpoint). The daemon's is libcurl over
/// HTTPS (`Server/Upstream`); `UpstreamURLRule` decides which URLs it may reach.
public protocol UpstreamFetcher: Sendable {
    func get(_ url: String) throws(UpstreamError) -> UpstreamResponse
    /// An `application/x-www-form-urlencoded` POST; `basic` adds `Authorization: Basic` (RFC 6749 §2.3.1).
    func postForm(_ url: String, fields: [(String, String)], basic: (user: String, password: String)?) throws(UpstreamError) -> UpstreamResponse
}

/// Why an upstream sign-in failed. `description` is for operators (logs, audit); users see a
/// generic message, so nothing here reaches a browser.
public enum UpstreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider could not be reached or answered unusably (status, body).
    case unreachable(String)
    /// The ID token was refused; the reason names the check.
    case invalidIDToken(String)
    /// The callback does not belong to a pending sign-in of this browser, or says the provider refused.
    case invalidCallback(String)
    /// The connection is unknown, unusable or not enabled for the application.
    case connection(String)
    /// The provider's token endpoint refused the code (`invalid_grant`: used, expired, another client's).
    case codeRefused(String)
    /// The provider answered with an error (`error=access_denied`: the user cancelled there).
    case declined(String)
    /// The request to Gatehouse lacks something (a token exchange without its nonce).
    case request(String)
    /// Gatehouse's own database failed.
    case storage(String)

    public var description: String {
        switch self {
        case .unreachable(let why): "upstream unreachable: \(why)"
        case .invalidIDToken(let why): "invalid upstream ID token: \(why)"
        case .invalidCallback(let why): "invalid upstream callback: \(why)"
        case .connection(let why): why
        case .codeRefused(let why): "the provider refused the code: \(why)"
        case .declined(let error): "the provider answered \(error)"
        case .request(let why): why
        case .storage(let why): "storage: \(why)"
        }
    }
}
