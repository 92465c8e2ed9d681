import HTTP

/// Headers every HTML page carries (negative tests H01–H03), and the no-store pair for JSON answers.
enum SecurityHeaders {
    /// Who may frame a page: nobody (every page but one), or exactly the listed origins (the
    /// `web_message` page, framed by the app for silent sign-in).
    enum Framing: Equatable, Sendable {
        case denied
        case embeddable(by: [String])
    }

    /// The Content-Security-Policy for a page; `formAction` adds CSP source expressions to `form-action`,
    /// an embeddable page lists its origins in `frame-ancestors` (`'none'` if none of them is safe).
    ///
    /// Sources that could break out of the directive (spaces, quotes, `;`, `,`) are dropped, never inserted.
    /// `images` adds sources to `img-src` (an application's logo), `styleHashes` the `'sha256-…'` of inline
    /// `<style>` blocks the page carries (its brand colour), so `style-src` never needs `'unsafe-inline'`.
    static func contentSecurityPolicy(formAction: [String] = [], framing: Framing = .denied, images: [String] = [],
                                      styleHashes: [String] = []) -> String {
        var formSources = ["'self'"]
        for source in formAction where isSafeSource(source) && !formSources.contains(source) {
            formSources.append(source)
        }
        var ancestors: [String] = []
        if case .embeddable(let origins) = framing {
            for origin in origins where isSafeSource(origin) && !ancestors.contains(origin) { ancestors.append(origin) }
        }
        var imageSources = ["'self'", "data:"]
        for source in images where isSafeSource(source) && !imageSources.contains(source) { imageSources.append(source) }
        var styleSources = ["'self'"]
        for hash in styleHashes where isSafeHash(hash) { styleSources.append("'sha256-\(hash)'") }
        return "default-src 'none'; style-src \(styleSources.joined(separator: " ")); script-src 'self'; "
            + "img-src \(imageSources.joined(separator: " ")); "
            + "form-action \(formSources.joined(separator: " ")); "
            + "frame-ancestors \(ancestors.isEmpty ? "'none'" : ancestors.joined(separator: " ")); base-uri 'none'"
    }

    /// Sets the browser hardening headers and the HTML content type on `response`.
    ///
    /// - Parameter keepsOpener: the page runs in a popup that must still reach the app that opened it
    ///   (`web_message`), so it sends no `Cross-Origin-Opener-Policy: same-origin`, which would cut
    ///   the popup off from a cross-origin opener.
    static func apply(to response: inout HTTPResponse, formAction: [String] = [], framing: Framing = .denied, keepsOpener: Bool = false,
                      images: [String] = [], styleHashes: [String] = []) {
        response.headers.set("Content-Type", "text/html; charset=utf-8")
        response.headers.set("Content-Security-Policy", contentSecurityPolicy(formAction: formAction, framing: framing, images: images,
                                                                              styleHashes: styleHashes))
        // X-Frame-Options has no way to name an origin; an embeddable page relies on frame-ancestors alone.
        if framing == .denied { response.headers.set("X-Frame-Options", "DENY") }
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "no-referrer")
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Cross-Origin-Opener-Policy", keepsOpener ? "unsafe-none" : "same-origin")
    }

    /// For token, userinfo and other JSON answers that carry secrets (RFC 6749 §5.1).
    static func noStore(_ response: inout HTTPResponse) {
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Pragma", "no-cache")
    }

    /// Standard base64 of a SHA-256 (44 characters), nothing that could end the quoted source.
    static func isSafeHash(_ hash: String) -> Bool {
        hash.utf8.count == 44 && hash.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "+/=".utf8.contains(byte)
            }
        }
    }

    /// A scheme or host source: letters, digits and `:/.-+_[]` only, and not empty.
    static func isSafeSource(_ source: String) -> Bool {
        !source.isEmpty && source.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                ":/.-+_[]".utf8.contains(byte)
            }
        }
    }
}
