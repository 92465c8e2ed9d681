/// The public base URL of the provider, e.g. `https://id.example.com/auth/`.
///
/// Every URL Gatehouse emits is built from it, never from a request's `Host`.
/// It must be absolute, `http` or `https`, with no query, fragment or userinfo,
/// and end in `/` (Auth0 SDKs compare `iss` with the trailing slash).
public struct Issuer: Sendable, Equatable, CustomStringConvertible {
    /// The whole issuer URL, ending in `/`.
    public let url: String
    public let scheme: String
    /// Host and optional port, as written (`id.example.com`, `127.0.0.1:8080`, `[::1]:8080`).
    public let authority: String
    /// The path prefix routes are served under; always starts and ends with `/`.
    public let path: String

    public var isHTTPS: Bool { scheme == "https" }
    public var description: String { url }

    /// The absolute URL of a route below the issuer, e.g. `endpoint("oauth/token")`.
    public func endpoint(_ relative: String) -> String { url + relative }

    public static func parse(_ text: String) -> Result<Issuer, ParseFailure> {
        let expected = "expected an absolute http or https URL ending in /, such as https://id.example.com/"
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else {
            return .failure(ParseFailure("\(expected), found \"\(text)\""))
        }
        guard text.hasPrefix(scheme + "://") else { return .failure("\(expected); write the scheme in lower case, found \"\(text)\"") }
        let rest = text.dropFirst(scheme.count + 3)
        guard let slash = rest.firstIndex(of: "/") else { return .failure("\(expected), found \"\(text)\"") }
        let authority = String(rest[..<slash])
        let path = String(rest[slash...])
        guard !authority.isEmpty, !authority.contains("@") else {
            return .failure(ParseFailure("\(expected); the host is missing or has userinfo, found \"\(text)\""))
        }
        guard !text.contains("?"), !text.contains("#") else {
            return .failure(ParseFailure("\(expected); an issuer has no query or fragment, found \"\(text)\""))
        }
        guard path.hasSuffix("/") else { return .failure("\(expected); add the trailing slash, found \"\(text)\"") }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(ParseFailure("\(expected); spaces and non-ASCII characters are not allowed, found \"\(text)\""))
        }
        return .success(Issuer(url: text, scheme: scheme, authority: authority, path: path))
    }
}
