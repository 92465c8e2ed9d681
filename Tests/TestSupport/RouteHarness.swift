import Foundation
import HTTP
import Logging
import Model
import Server
import Settings
import SQLite
import Storage

/// The daemon's routes over a temporary SQLite database, called in-process — no daemon, no
/// sockets — with a cookie-keeping client that never follows redirects, so tests see each hop of
/// the login, resume and error pages. The clock is the test's.
public final class RouteHarness: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public let store: Store
    public let routes: InProcessRoutes
    public let issuer: String
    /// The settings the routes run with (the database, its key-encryption key file, …).
    public let settings: Settings
    private let lock = NSLock()
    private var jar: [String: String] = [:]
    private var requests = 0

    /// - Parameter issuer: an `http://` issuer gets plain cookie names, an `https://` one `__Host-` names.
    /// - Parameters:
    ///   - mail: where account messages go; nil: email delivery not configured.
    ///   - configure: changes to the default settings (password policy, code lifetime, …).
    public init(issuer: String = "https://id.example.com/", clock: any Clock = SystemClock(), mail: (any MailQueue)? = nil,
                configure: (inout Settings) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory("routes")
        var settings = Settings()
        guard case .success(let parsed) = Issuer.parse(issuer) else { throw HarnessError("bad issuer \(issuer)") }
        settings.issuer = parsed
        settings.database = directory.file("idp.sqlite3")
        configure(&settings)
        self.settings = settings
        store = try Store(path: settings.database)
        routes = try InProcessRoutes(settings: settings, store: store, logger: Logger(level: .error, sink: .memory()), clock: clock,
                                     mail: mail)
        self.issuer = issuer
    }

    deinit { store.close() }

    public struct HarnessError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// A response, with its body as text.
    public struct Response: Sendable {
        public let status: Int
        public let headers: HTTPHeaders
        public let text: String
        public var location: String? { headers["Location"] }
        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// The cookies the client holds, by name.
    public var cookies: [String: String] {
        lock.lock()
        defer { lock.unlock() }
        return jar
    }

    /// Puts a cookie into the client's jar, as an app does into its web view's store.
    public func setCookie(_ name: String, _ value: String) {
        lock.lock()
        jar[name] = value
        lock.unlock()
    }

    public func clearCookies() {
        lock.lock()
        jar = [:]
        lock.unlock()
    }

    /// `GET` of a path under the issuer, or of a full URL on it.
    public func get(_ pathOrURL: String, headers: [(String, String)] = [], from ip: String = "198.51.100.7") -> Response {
        send("GET", pathOrURL, headers: headers, body: [], from: ip)
    }

    /// `POST` of a JSON body, as Auth0.swift and Auth0.Android send every request.
    public func postJSON(_ pathOrURL: String, _ object: [String: Any], headers: [(String, String)] = [],
                         from ip: String = "198.51.100.7") -> Response {
        let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return send("POST", pathOrURL, headers: [("Content-Type", "application/json")] + headers, body: Array(body), from: ip)
    }

    /// `POST` of an `application/x-www-form-urlencoded` body.
    public func post(_ pathOrURL: String, form: [(String, String)], headers: [(String, String)] = [],
                     from ip: String = "198.51.100.7") -> Response {
        let body = form.map { Self.encode($0.0) + "=" + Self.encode($0.1) }.joined(separator: "&")
        return send("POST", pathOrURL, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers, body: Array(body.utf8), from: ip)
    }

    public func send(_ method: String, _ pathOrURL: String, headers: [(String, String)], body: [UInt8], from ip: String) -> Response {
        let target = pathOrURL.hasPrefix(issuer) ? "/" + pathOrURL.dropFirst(issuer.count) : pathOrURL
        var fields = HTTPHeaders(headers)
        fields.set("Host", "id.example.com")
        let cookieHeader = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        if !cookieHeader.isEmpty { fields.set("Cookie", cookieHeader) }
        let id: Int = {
            lock.lock()
            defer { lock.unlock() }
            requests += 1
            return requests
        }()
        let request = HTTPRequest(method: method, target: target, headers: fields, body: body,
                                  peer: .ip(ip, port: 40_000), requestID: "req-\(id)", clientAddress: ip)
        let response = routes.respond(to: request)
        remember(response.headers.values("Set-Cookie"))
        return Response(status: response.status, headers: response.headers, text: String(decoding: response.body, as: UTF8.self))
    }

    /// Keeps `name=value` of each `Set-Cookie`; `Max-Age=0` drops the cookie.
    private func remember(_ setCookies: [String]) {
        lock.lock()
        defer { lock.unlock() }
        for line in setCookies {
            let first = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let equals = first.firstIndex(of: "=") else { continue }
            let name = String(first[..<equals])
            let value = String(first[first.index(after: equals)...])
            if line.contains("Max-Age=0") || value.isEmpty { jar[name] = nil } else { jar[name] = value }
        }
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
