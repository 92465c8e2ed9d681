/// Renders authorization responses onto the client's redirect URI (RFC 6749 §4.1.2, OAuth 2.0
/// Form Post Response Mode). Values are always percent-encoded, so CR, LF, quotes or angle
/// brackets in `state` cannot split headers or inject markup (A15, A17).
public enum AuthorizationResponse {
    /// The `Location` for `response_mode=query`: parameters appended to the redirect URI's
    /// query (an existing query is kept and extended with `&`).
    public static func redirectURL(for target: RedirectTarget, parameters: [(String, String)]) -> String {
        let encoded = parameters.map { percentEncode($0.0) + "=" + percentEncode($0.1) }.joined(separator: "&")
        var url = target.redirectURI
        guard !encoded.isEmpty else { return url }
        if let question = url.utf8.firstIndex(of: UInt8(ascii: "?")) {
            let hasQuery = url.utf8.index(after: question) != url.utf8.endIndex
            if hasQuery, url.utf8.last != UInt8(ascii: "&") { url += "&" }
        } else {
            url += "?"
        }
        return url + encoded
    }

    /// The fields of the auto-submitting form for `response_mode=form_post` (raw values; see `formPostPage`).
    public static func formPostFields(for target: RedirectTarget, parameters: [(String, String)]) -> [(name: String, value: String)] {
        parameters.map { (name: $0.0, value: $0.1) }
    }

    /// A complete HTML page that POSTs the parameters to the redirect URI; every value HTML-escaped.
    /// The script is inline, so serve it with a CSP that allows it (e.g. a hash or nonce).
    public static func formPostPage(for target: RedirectTarget, parameters: [(String, String)]) -> String {
        var html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Submit</title></head>"
        html += "<body onload=\"document.forms[0].submit()\"><form method=\"post\" action=\"\(htmlEscape(target.redirectURI))\">"
        for field in formPostFields(for: target, parameters: parameters) {
            html += "<input type=\"hidden\" name=\"\(htmlEscape(field.name))\" value=\"\(htmlEscape(field.value))\">"
        }
        html += "<noscript><button type=\"submit\">Continue</button></noscript></form></body></html>\n"
        return html
    }

    /// Percent-encodes every byte outside RFC 3986 unreserved characters.
    public static func percentEncode(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if ASCII.isLetter(byte) || ASCII.isDigit(byte) || "-._~".utf8.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Escapes `& < > " '` for HTML text and attribute values.
    public static func htmlEscape(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
