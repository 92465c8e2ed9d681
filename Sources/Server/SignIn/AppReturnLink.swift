import Model
import OIDC

/// Where the "back to the app" button of `AppReturnPage` points, for a bundle or package that some
/// application registered (`Client.bundleID`, `Client.androidPackage`); nil for any other.
///
/// The app's own custom-scheme callback for that path when it registered one (Auth0's
/// `{bundle}://{host}/ios/{bundle}/callback` form), carrying the answer's parameters so the SDK can
/// finish (PKCE keeps a code useless to anyone without the verifier, RFC 8252 §8.1). Without one:
/// on iOS the bundle's scheme without any parameter (it only opens the app); on Android an
/// `intent:` URL naming the package, which only that app can receive.
enum AppReturnLink {
    enum Platform: String {
        case ios, android
    }

    /// The OAuth response parameters passed on; anything else in the query is dropped.
    static let forwarded: Set<String> = ["code", "state", "error", "error_description", "iss"]

    /// - Parameters:
    ///   - identifier: the bundle id or package from the path, exactly as registered.
    ///   - authority: the issuer's `host[:port]`; `path`: the request path (`/…/ios/{bundle}/callback`).
    static func link(platform: Platform, identifier: String, clients: [Client], authority: String, path: String,
                     query: [(String, String)]) -> (appName: String, url: String)? {
        let owners = clients.filter { platform == .ios ? $0.bundleID == identifier : $0.androidPackage == identifier }
        guard let owner = owners.first, isIdentifier(identifier) else { return nil }
        let suffix = "/\(platform.rawValue)/\(identifier)/callback"
        let parameters = query.filter { forwarded.contains($0.0) }
            .map { AuthorizationResponse.percentEncode($0.0) + "=" + AuthorizationResponse.percentEncode($0.1) }
            .joined(separator: "&")
        let withQuery = parameters.isEmpty ? "" : "?" + parameters
        let registered = owners.lazy.flatMap(\.callbacks).first { callback in
            let scheme = callback.prefix { $0 != ":" }.lowercased()
            return scheme != "http" && scheme != "https" && callback.contains("://") && callback.hasSuffix(suffix)
        }
        if let registered { return (owner.name, registered + withQuery) }
        switch platform {
        case .ios:
            return (owner.name, identifier.lowercased() + "://" + authority + path)
        case .android:
            return (owner.name, "intent://" + authority + path + withQuery + "#Intent;scheme=https;package=" + identifier + ";end")
        }
    }

    /// Bundle ids and packages: letters, digits, `.`, `-`, `_` (so they are safe in a scheme and a path).
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 122) || byte == 46 || byte == 45 || byte == 95
        }
    }
}
