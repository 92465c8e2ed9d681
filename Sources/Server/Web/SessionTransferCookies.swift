import HTTP
import OIDC
import Settings

/// The cookies `/authorize` changes for a session transfer (`SessionTransferRedeemer`): the session
/// cookie it starts or ends, and the app's `auth0_session_transfer_token`, dropped once read so a
/// spent token is not presented again. That cookie is the app's own (Auth0.swift's docs set it on
/// the issuer's domain with `Path=/`): it is read under its plain name, and dropped both host-only and
/// for the issuer's host as a domain cookie, whichever way the web view stored it.
enum SessionTransferCookies {
    static func value(in headers: HTTPHeaders) -> String? {
        guard let value = CookieJar.parse(headers)[SessionTransferRedeemer.cookieName], !value.isEmpty, value.utf8.count <= 256 else {
            return nil
        }
        return value
    }

    /// The `Set-Cookie` values for `outcome`.
    static func setCookies(_ outcome: SessionTransferRedeemer.Outcome, cookies: CookieSpec, issuer: Issuer) -> [String] {
        var lines: [String] = []
        if let session = outcome.newSession {
            lines.append(cookies.set(.session, value: session.cookie, maxAge: session.maxAge))
        } else if outcome.endedSession {
            lines.append(cookies.delete(.session))
        }
        if outcome.dropTransferCookie {
            let expired = "\(SessionTransferRedeemer.cookieName)=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/"
                + (issuer.isHTTPS ? "; Secure" : "")
            lines.append(expired)
            let host = issuer.authority.hasPrefix("[") ? "" : String(issuer.authority.prefix { $0 != ":" })
            // A Domain attribute on an IP address is refused by browsers (RFC 6265 §5.3 step 6 does not apply to them).
            if !host.isEmpty, !host.allSatisfy({ $0.isNumber || $0 == "." }) { lines.append(expired + "; Domain=" + host) }
        }
        return lines
    }
}

extension HTTPResponse {
    /// The response with `Set-Cookie` lines added.
    func adding(cookies lines: [String]) -> HTTPResponse {
        var response = self
        for line in lines { response.headers.add("Set-Cookie", line) }
        return response
    }
}
