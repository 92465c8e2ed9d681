import FoundationEssentials
import JOSE
import Synchronization

/// The signing keys of upstream providers, by JWKS URL: fetched when first needed, kept until they
/// expire (`Cache-Control: max-age`, bounded), and refetched once when a token names an unknown
/// `kid` (a rotation upstream) — at most once per `refetchInterval` per URL, so tokens with made-up
/// key ids cannot make Gatehouse fetch on every request.
public final class UpstreamKeyCache: Sendable {
    struct Entry {
        var keys: JWKSet
        var expiresAt: Date
        var lastFetch: Date
    }

    private let fetcher: any UpstreamFetcher
    private let entries = Mutex<[String: Entry]>([:])
    /// Bounds on how long a key set is kept (an upstream max-age outside them is clamped).
    public let minimumLifetime: TimeInterval = 60
    public let maximumLifetime: TimeInterval = 24 * 3600
    public let defaultLifetime: TimeInterval = 3600
    public let refetchInterval: TimeInterval = 30

    public init(fetcher: any UpstreamFetcher) {
        self.fetcher = fetcher
    }

    /// The key for `kid` from `url`'s set.
    public func key(kid: String, url: String, now: Date) throws(UpstreamError) -> JWK? {
        let cached = entries.withLock { $0[url] }
        if let cached, now < cached.expiresAt {
            if let key = cached.keys.key(kid: kid) { return key }
            // Unknown kid: the provider may have rotated; refetch once, unless we just did.
            guard now.timeIntervalSince(cached.lastFetch) >= refetchInterval else { return nil }
        }
        return try fetch(url, now: now).key(kid: kid)
    }

    private func fetch(_ url: String, now: Date) throws(UpstreamError) -> JWKSet {
        if let problem = UpstreamURLRule.problem(url) { throw .unreachable("JWKS URL \(url): \(problem)") }
        let response = try fetcher.get(url)
        guard response.status == 200 else { throw .unreachable("JWKS \(url) answered \(response.status)") }
        guard let keys = try? JWKSet(json: response.body) else { throw .unreachable("JWKS \(url) is not a JWK set") }
        let lifetime = response.maxAge.map { min(max(TimeInterval($0), minimumLifetime), maximumLifetime) } ?? defaultLifetime
        entries.withLock { $0[url] = Entry(keys: keys, expiresAt: now.addingTimeInterval(lifetime), lastFetch: now) }
        return keys
    }
}
