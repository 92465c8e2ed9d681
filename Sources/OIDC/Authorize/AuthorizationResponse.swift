/// Renders authorization responses onto the client's redirect URI (RFC 6749 §4.1.2). Values are
/// always percent-encoded, so CR, LF, quotes or angle brackets in `state` cannot split headers
/// or inject markup (A15, A17). The `form_post` and `web_message` pages are the web layer's (`FormPostPage`, `WebMessagePage`).
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
}
