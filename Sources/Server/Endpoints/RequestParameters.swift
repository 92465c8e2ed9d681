import HTTP
import JOSE
import OIDC

/// OAuth parameters from a request: the query for GET, the body for POST.
///
/// POST bodies may be `application/x-www-form-urlencoded` (RFC 6749) or `application/json`
/// (what Auth0.swift and Auth0.Android send). JSON members are flattened to strings;
/// numbers and booleans become their text, nested objects and arrays are refused.
/// Duplicates are kept so the protocol core can refuse them (RFC 6749 §3.1).
enum RequestParameters {
    static func parse(_ request: HTTPRequest) throws(OAuthError) -> [(String, String)] {
        if request.method == "GET" || request.method == "HEAD" {
            guard let items = request.queryItems else { throw OAuthError(.invalidRequest, "The query string is not validly encoded.") }
            return items
        }
        return try body(of: request)
    }

    /// Parameters from the body only; a query string is refused (credentials must not travel in URLs).
    static func bodyOnly(_ request: HTTPRequest) throws(OAuthError) -> [(String, String)] {
        guard request.query.isEmpty else {
            throw OAuthError(.invalidRequest, "Parameters must be sent in the request body, not the query string.")
        }
        return try body(of: request)
    }

    /// A token, revocation or introspection request: body parameters plus the `Authorization` header.
    static func tokenRequest(_ request: HTTPRequest) throws(OAuthError) -> TokenRequest {
        try TokenRequest(pairs: try bodyOnly(request), authorization: request.headers["Authorization"])
    }

    private static func body(of request: HTTPRequest) throws(OAuthError) -> [(String, String)] {
        switch mediaType(request.headers["Content-Type"]) {
        case "application/x-www-form-urlencoded":
            guard let text = String(validating: request.body, as: UTF8.self), let pairs = try? FormCodec.decode(text) else {
                throw OAuthError(.invalidRequest, "The form body is not validly encoded.")
            }
            return pairs
        case "application/json":
            return try json(request.body)
        case "" where request.body.isEmpty:
            return []
        default:
            throw OAuthError(.invalidRequest, "Send parameters as application/x-www-form-urlencoded or application/json.")
        }
    }

    /// The media type of a `Content-Type` value: before any parameters, without spaces, lower-cased.
    static func mediaType(_ value: String?) -> String {
        guard let value else { return "" }
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let type = value.utf8.prefix { $0 != UInt8(ascii: ";") }.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return String(decoding: type.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    static func json(_ body: [UInt8]) throws(OAuthError) -> [(String, String)] {
        // The parser refuses repeated member names, so a JSON body never smuggles in a second value.
        guard case .object(let object)? = try? JSONValue(parsing: body) else {
            throw OAuthError(.invalidRequest, "The JSON body must be an object.")
        }
        var pairs: [(String, String)] = []
        for key in object.keys.sorted() {
            switch object[key]! {
            case .string(let text): pairs.append((key, text))
            case .integer(let number): pairs.append((key, String(number)))
            case .number(let number): pairs.append((key, String(number)))
            case .bool(let flag): pairs.append((key, flag ? "true" : "false"))
            case .null: continue
            case .array, .object: throw OAuthError(.invalidRequest, "The parameter \(key) must be a string.")
            }
        }
        return pairs
    }
}
