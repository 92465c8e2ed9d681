import FoundationEssentials
import HTTP
import Logging
import Settings
import Synchronization

/// Compares what a trusted proxy forwards with the configured issuer, and notices forwarded headers from
/// peers that are not trusted. Each finding is logged loudly once per process; everything is kept for
/// `/proxyz` on the admin listener (which `idp-admin doctor` can read).
///
/// The forwarded scheme/host/port/prefix are used for nothing else: the issuer and every URL Gatehouse
/// emits come from configuration only.
public final class ProxySelfCheck: Sendable {
    public struct Report: Sendable, Equatable {
        /// Forwarded headers from the first request through a trusted proxy (name → value).
        public var firstTrusted: [String: String]?
        /// The first mismatch found, as logged.
        public var mismatch: [String: String]?
        /// The first untrusted peer that sent forwarded headers, and which.
        public var untrustedPeer: String?
        public var untrustedHeaders: [String: String]?
    }

    static let forwardedNames = ["X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Port",
                                 "X-Forwarded-Prefix", "Forwarded", "X-Real-IP"]

    private let issuer: Issuer
    private let logger: Logger
    private let state = Mutex(Report())
    /// Fast-path flags so steady-state requests cost two atomic loads.
    private let mismatchLogged = Atomic<Bool>(false)
    private let untrustedLogged = Atomic<Bool>(false)

    public init(issuer: Issuer, logger: Logger) {
        self.issuer = issuer
        self.logger = logger
    }

    public var report: Report { state.withLock { $0 } }

    public func observe(peer: PeerAddress, headers: HTTPHeaders, trusted: Bool) {
        if trusted {
            guard !mismatchLogged.load(ordering: .relaxed) else { return }
            checkTrusted(headers)
        } else {
            guard !untrustedLogged.load(ordering: .relaxed) else { return }
            var seen: [String: String] = [:]
            for name in Self.forwardedNames { if let value = headers[name] { seen[name] = value } }
            guard !seen.isEmpty else { return }
            guard untrustedLogged.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
            state.withLock {
                $0.untrustedPeer = peer.description
                $0.untrustedHeaders = seen
            }
            var fields: [String: LogValue] = ["peer": .string(peer.description),
                                              "headers": .string(seen.keys.sorted().joined(separator: ",")),
                                              "setting": "trusted_proxies"]
            fields["hint"] = .string("forwarded headers from \(peer.description) are ignored because it is not in trusted_proxies "
                                     + "(IDP_TRUSTED_PROXIES). If it is your reverse proxy, add it (\(peer.description == "unix" ? "unix" : peer.description)); "
                                     + "otherwise a client is forging them, which is harmless")
            logger.warning("forwarded_headers_from_untrusted_peer", fields)
        }
    }

    private func checkTrusted(_ headers: HTTPHeaders) {
        let view = ForwardedView(headers)
        // No forwarded header at all: a local client (health check, curl on the host) talking to us directly.
        guard !view.seen.isEmpty else { return }
        state.withLock { report in
            if report.firstTrusted == nil { report.firstTrusted = view.seen }
        }
        guard let problem = mismatch(view) else { return }
        guard mismatchLogged.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        var record = view.seen
        record["problem"] = problem.what
        record["fix"] = problem.fix
        state.withLock { $0.mismatch = record }
        var fields: [String: LogValue] = ["problem": .string(problem.what), "fix": .string(problem.fix),
                                          "issuer": .string(issuer.url)]
        for (name, value) in view.seen { fields[name.lowercased().replacing("-", with: "_")] = .string(value) }
        logger.warning("proxy_mismatch", fields)
    }

    /// What the proxy reports, from `X-Forwarded-*` or else the last `Forwarded` element.
    struct ForwardedView {
        var proto: String?
        var host: String?
        var port: String?
        var prefix: String?
        var seen: [String: String] = [:]

        init(_ headers: HTTPHeaders) {
            for name in ProxySelfCheck.forwardedNames { if let value = headers[name] { seen[name] = value } }
            proto = Self.last(headers["X-Forwarded-Proto"])
            host = Self.last(headers["X-Forwarded-Host"])
            port = Self.last(headers["X-Forwarded-Port"])
            prefix = Self.last(headers["X-Forwarded-Prefix"])
            if proto == nil || host == nil, let element = ForwardedHeader.elements(headers).last {
                proto = proto ?? element["proto"]
                host = host ?? element["host"]
            }
        }

        /// Proxies append to these lists; the value nearest us is the last.
        private static func last(_ value: String?) -> String? {
            guard let value else { return nil }
            let item = value.split(separator: ",").last.map { String(Substring($0).trimmingSpacesAndQuotes()) } ?? ""
            return item.isEmpty ? nil : item
        }
    }

    func mismatch(_ view: ForwardedView) -> (what: String, fix: String)? {
        let (issuerHost, issuerPort) = Self.split(authority: issuer.authority, scheme: issuer.scheme)
        guard let proto = view.proto else {
            return ("the trusted proxy sent no X-Forwarded-Proto (issuer is \(issuer.scheme))",
                    "add `proxy_set_header X-Forwarded-Proto $scheme;` (a location with its own proxy_set_header drops the inherited ones)")
        }
        if proto.lowercased() != issuer.scheme {
            return ("nginx sends X-Forwarded-Proto \(proto) but issuer is \(issuer.scheme)",
                    "add `proxy_set_header X-Forwarded-Proto $scheme;` and terminate TLS at the proxy, or correct issuer")
        }
        if let host = view.host {
            let (forwardedHost, forwardedPort) = Self.split(authority: host, scheme: issuer.scheme)
            if forwardedHost.lowercased() != issuerHost.lowercased() {
                return ("the proxy forwards host \(host) but the issuer host is \(issuerHost)",
                        "use `proxy_set_header X-Forwarded-Host $host;` with server_name \(issuerHost), or correct issuer")
            }
            if host.contains("]:") || (!host.hasPrefix("[") && host.contains(":")), forwardedPort != issuerPort {
                return ("the proxy forwards host \(host) but the issuer port is \(issuerPort)",
                        "make the public port match issuer (\(issuer.url))")
            }
        }
        if let port = view.port, port != String(issuerPort) {
            return ("the proxy forwards port \(port) but the issuer port is \(issuerPort)",
                    "clients reach the proxy on another port than issuer says: fix `listen` in nginx or issuer (\(issuer.url))")
        }
        if let prefix = view.prefix {
            let normalized = (prefix.hasPrefix("/") ? prefix : "/" + prefix) + (prefix.hasSuffix("/") ? "" : "/")
            if normalized != issuer.path {
                return ("the proxy forwards path prefix \(prefix) but the issuer path is \(issuer.path)",
                        "serve Gatehouse at \(issuer.path) without rewriting (`location \(issuer.path) { proxy_pass ...; }`), or correct issuer")
            }
        }
        return nil
    }

    /// `host[:port]` or `[v6][:port]` → host and port (default from the scheme).
    static func split(authority: String, scheme: String) -> (String, Int) {
        let defaultPort = scheme == "https" ? 443 : 80
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort)
        }
        if let colon = authority.lastIndex(of: ":"), !authority[..<colon].contains(":") {
            return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]) ?? defaultPort)
        }
        return (authority, defaultPort)
    }
}
