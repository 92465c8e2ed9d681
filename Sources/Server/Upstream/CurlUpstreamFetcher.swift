import FoundationEssentials
import Mail
import OIDC

/// The daemon's `UpstreamFetcher`: libcurl with the certificate verified, bounded time and size,
/// no redirects followed, and only URLs `UpstreamURLRule` accepts (https; http for loopback).
/// The libcurl calls are in `CurlUpstreamFetcher+Curl.swift`.
public struct CurlUpstreamFetcher: UpstreamFetcher {
    public struct Configuration: Sendable {
        public var connectTimeout: Duration = .seconds(5)
        /// The whole exchange, connect included.
        public var timeout: Duration = .seconds(10)
        /// A larger answer is refused: discovery documents, key sets and token responses are small.
        public var maximumBodySize = 1 << 20
        /// An extra trust anchor (PEM), for a test provider with its own certificate; nil uses the system's.
        public var caFile: String?

        public init(connectTimeout: Duration = .seconds(5), timeout: Duration = .seconds(10), maximumBodySize: Int = 1 << 20, caFile: String? = nil) {
            self.connectTimeout = connectTimeout
            self.timeout = timeout
            self.maximumBodySize = maximumBodySize
            self.caFile = caFile
        }
    }

    public let configuration: Configuration

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Opens libcurl now (it is opened on the first fetch otherwise); the error names the
    /// library and its Debian package, as every fetch's would (README "Memory and start").
    public static func loadLibrary() throws(UpstreamError) {
        do {
            try LibCurl.load()
        } catch {
            throw .unreachable(error.description)
        }
    }

    public func get(_ url: String) throws(UpstreamError) -> UpstreamResponse {
        try Self.check(url)
        return try perform(url, form: nil, headers: ["Accept: application/json"])
    }

    public func postForm(_ url: String, fields: [(String, String)], basic: (user: String, password: String)?) throws(UpstreamError) -> UpstreamResponse {
        try Self.check(url)
        var headers = ["Accept: application/json", "Content-Type: application/x-www-form-urlencoded"]
        if let basic { headers.append("Authorization: " + Self.basicCredentials(user: basic.user, password: basic.password)) }
        return try perform(url, form: Array(Self.formBody(fields).utf8), headers: headers)
    }

    static func check(_ url: String) throws(UpstreamError) {
        if let problem = UpstreamURLRule.problem(url) { throw .unreachable("\(url): \(problem)") }
    }

    /// `application/x-www-form-urlencoded` (RFC 6749 Appendix B), every reserved byte percent-encoded.
    static func formBody(_ fields: [(String, String)]) -> String {
        fields.map { AuthorizationResponse.percentEncode($0.0) + "=" + AuthorizationResponse.percentEncode($0.1) }.joined(separator: "&")
    }

    /// RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined and base64-encoded.
    static func basicCredentials(user: String, password: String) -> String {
        let pair = AuthorizationResponse.percentEncode(user) + ":" + AuthorizationResponse.percentEncode(password)
        return "Basic " + Data(pair.utf8).base64EncodedString()
    }

    /// The `max-age` of a `Cache-Control` value (RFC 9111 §5.2.2.1); `no-store`/`no-cache` mean 0.
    static func maxAge(cacheControl: String) -> Int? {
        var result: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace().lowercased() }
            switch parts.first {
            case "no-store", "no-cache": return 0
            case "max-age":
                guard parts.count == 2 else { continue }
                let digits = parts[1].hasPrefix("\"") && parts[1].hasSuffix("\"") && parts[1].count >= 2 ? String(parts[1].dropFirst().dropLast()) : parts[1]
                if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { result = Int(digits.prefix(9)) }
            default: continue
            }
        }
        return result
    }
}
