import HTTP
import Settings

/// Names and attributes of Gatehouse's two cookies, decided by the issuer's scheme (never by the request:
/// nginx may speak plain http to us while the browser sees https).
///
/// https issuer: `__Host-` names, `Secure; Path=/` and no `Domain` (RFC 6265bis §4.1.3.2), so a sibling
/// subdomain cannot plant or overwrite them. http issuer (development): plain names, no `Secure`.
/// Always `HttpOnly`; `SameSite=Lax`, except the upstream sign-in's cookie, which must come back
/// with Apple's cross-site form_post: `SameSite=None` on https (on an http issuer, where browsers
/// refuse `None` without `Secure`, it stays `Lax`: Apple only calls https callbacks anyway).
struct CookieSpec: Sendable, Equatable {
    enum Kind: Sendable, CaseIterable {
        /// The signed-in browser session.
        case session
        /// The sealed pre-login transaction (negative-tests G11: the session cookie is fresh at login).
        case transaction
        /// The rest of a sealed transaction too long for one cookie.
        case transactionContinued
        /// The pending upstream sign-in (`UpstreamStateSeal`), while the browser is at the provider.
        case upstream
    }

    let isSecure: Bool

    init(issuer: Issuer) {
        isSecure = issuer.isHTTPS
    }

    init(secure: Bool) {
        isSecure = secure
    }

    func name(_ kind: Kind) -> String {
        let base = switch kind {
        case .session: "gatehouse_session"
        case .transaction: "gatehouse_tx"
        case .transactionContinued: "gatehouse_tx2"
        case .upstream: "gatehouse_upstream"
        }
        return isSecure ? "__Host-" + base : base
    }

    var sessionName: String { name(.session) }
    var transactionName: String { name(.transaction) }

    /// A `Set-Cookie` value. `value` must be cookie-octets (our tokens are base64url); anything else is a bug and traps.
    func set(_ kind: Kind, value: String, maxAge: Int) -> String {
        precondition(value.utf8.allSatisfy(CookieJar.isCookieOctet), "cookie values must be cookie-octets")
        return "\(name(kind))=\(value); Max-Age=\(max(0, maxAge)); \(attributes(kind))"
    }

    /// A `Set-Cookie` value that makes the browser drop the cookie at once.
    func delete(_ kind: Kind) -> String {
        "\(name(kind))=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; \(attributes(kind))"
    }

    /// The cookie's value in a request, read only under this issuer's name (an unprefixed twin is ignored).
    func value(_ kind: Kind, in headers: HTTPHeaders) -> String? {
        guard let value = CookieJar.parse(headers)[name(kind)], !value.isEmpty else { return nil }
        return value
    }

    private func attributes(_ kind: Kind) -> String {
        guard isSecure else { return "Path=/; HttpOnly; SameSite=Lax" }
        return kind == .upstream ? "Path=/; Secure; HttpOnly; SameSite=None" : "Path=/; Secure; HttpOnly; SameSite=Lax"
    }

    /// A browser keeps a cookie of about 4 KB, name and attributes included: a longer sealed
    /// transaction goes into two.
    static let transactionPartLength = 3_800

    /// The `Set-Cookie` values for a sealed transaction: one cookie, or two for a long one (a stale
    /// second part is dropped).
    func setTransaction(_ sealed: String, maxAge: Int) -> [String] {
        let bytes = Array(sealed.utf8)
        guard bytes.count > Self.transactionPartLength else { return [set(.transaction, value: sealed, maxAge: maxAge), delete(.transactionContinued)] }
        return [set(.transaction, value: String(decoding: bytes[..<Self.transactionPartLength], as: UTF8.self), maxAge: maxAge),
                set(.transactionContinued, value: String(decoding: bytes[Self.transactionPartLength...], as: UTF8.self), maxAge: maxAge)]
    }

    /// The sealed transaction a request carries, reassembled from its one or two cookies.
    func transaction(in headers: HTTPHeaders) -> String? {
        guard let first = value(.transaction, in: headers) else { return nil }
        return first + (value(.transactionContinued, in: headers) ?? "")
    }

    func deleteTransaction() -> [String] { [delete(.transaction), delete(.transactionContinued)] }
}
