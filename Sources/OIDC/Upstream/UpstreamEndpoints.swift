import FoundationEssentials
import JOSE
import Model
import Synchronization

/// The URLs of one connection's provider: what the connection names explicitly, else what its
/// discovery document says (OpenID Connect Discovery §4), else the strategy's well-known values
/// (Apple and Google publish fixed endpoints). README "Upstream connections".
public struct UpstreamEndpoints: Sendable, Equatable {
    public var issuer: String
    public var authorizeURL: String
    public var tokenURL: String
    public var jwksURL: String
    public var revokeURL: String?

    public init(issuer: String, authorizeURL: String, tokenURL: String, jwksURL: String, revokeURL: String? = nil) {
        self.issuer = issuer
        self.authorizeURL = authorizeURL
        self.tokenURL = tokenURL
        self.jwksURL = jwksURL
        self.revokeURL = revokeURL
    }

    /// The provider's published values for the strategies that have fixed ones.
    public static func wellKnown(_ strategy: ConnectionStrategy) -> UpstreamEndpoints? {
        switch strategy {
        case .apple:
            UpstreamEndpoints(issuer: AppleEndpoints.issuer, authorizeURL: AppleEndpoints.authorizeURL, tokenURL: AppleEndpoints.tokenURL,
                              jwksURL: AppleEndpoints.jwksURL, revokeURL: AppleEndpoints.revokeURL)
        case .google:
            UpstreamEndpoints(issuer: "https://accounts.google.com", authorizeURL: "https://accounts.google.com/o/oauth2/v2/auth",
                              tokenURL: "https://oauth2.googleapis.com/token", jwksURL: "https://www.googleapis.com/oauth2/v3/certs",
                              revokeURL: "https://oauth2.googleapis.com/revoke")
        case .oidc:
            nil
        }
    }
}

/// Resolves `UpstreamEndpoints`, fetching a connection's discovery document when it has one and
/// keeping it for `lifetime` (a sign-in never waits on a discovery fetch twice in an hour).
public final class UpstreamEndpointResolver: Sendable {
    private let fetcher: any UpstreamFetcher
    private let documents = Mutex<[String: (document: [String: JSONValue], fetchedAt: Date)]>([:])
    public let lifetime: TimeInterval = 3600

    public init(fetcher: any UpstreamFetcher) {
        self.fetcher = fetcher
    }

    public func endpoints(for connection: UpstreamConnection, now: Date) throws(UpstreamError) -> UpstreamEndpoints {
        var discovered: [String: JSONValue] = [:]
        if let url = connection.discoveryURL { discovered = try document(url, now: now) }
        let fallback = UpstreamEndpoints.wellKnown(connection.strategy)
        func pick(_ explicit: String?, _ member: String, _ known: String?) throws(UpstreamError) -> String {
            guard let value = explicit ?? discovered[member]?.stringValue ?? known else {
                throw .connection("connection \(connection.name) has no \(member): give --discovery-url or the explicit URL")
            }
            return value
        }
        let endpoints = UpstreamEndpoints(
            issuer: try pick(connection.issuer, "issuer", fallback?.issuer),
            authorizeURL: try pick(connection.authorizeURL, "authorization_endpoint", fallback?.authorizeURL),
            tokenURL: try pick(connection.tokenURL, "token_endpoint", fallback?.tokenURL),
            jwksURL: try pick(connection.jwksURL, "jwks_uri", fallback?.jwksURL),
            revokeURL: connection.revokeURL ?? discovered["revocation_endpoint"]?.stringValue ?? fallback?.revokeURL)
        for url in [endpoints.authorizeURL, endpoints.tokenURL, endpoints.jwksURL] + (endpoints.revokeURL.map { [$0] } ?? []) {
            if let problem = UpstreamURLRule.problem(url) { throw .connection("connection \(connection.name): \(url) \(problem)") }
        }
        return endpoints
    }

    private func document(_ url: String, now: Date) throws(UpstreamError) -> [String: JSONValue] {
        if let cached = documents.withLock({ $0[url] }), now.timeIntervalSince(cached.fetchedAt) < lifetime { return cached.document }
        if let problem = UpstreamURLRule.problem(url) { throw .unreachable("discovery URL \(url): \(problem)") }
        let response = try fetcher.get(url)
        guard response.status == 200 else { throw .unreachable("discovery \(url) answered \(response.status)") }
        guard case .object(let document)? = try? JSONValue(parsing: response.body) else {
            throw .unreachable("discovery \(url) is not a JSON object")
        }
        documents.withLock { $0[url] = (document, now) }
        return document
    }
}
