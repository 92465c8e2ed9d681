import Foundation

/// A cookie-keeping client over the `curl` CLI that never follows redirects, so tests see each hop.
public final class Browser: @unchecked Sendable {
    public let jar: String

    public init(directory: TemporaryDirectory) {
        jar = directory.file("cookies-\(UUID().uuidString).txt")
    }

    public func get(_ url: String, headers: [String] = []) throws -> Curl.Response {
        try Curl.get(url, ["-b", jar, "-c", jar] + headers.flatMap { ["-H", $0] })
    }

    /// POSTs an `application/x-www-form-urlencoded` body built from `fields` (each value encoded).
    public func post(_ url: String, form fields: [(String, String)], headers: [String] = []) throws -> Curl.Response {
        let data = fields.flatMap { ["--data-urlencode", "\($0.0)=\($0.1)"] }
        return try Curl.get(url, ["-b", jar, "-c", jar] + headers.flatMap { ["-H", $0] } + data)
    }

    /// POSTs a JSON body, as Auth0.swift does.
    public func post(_ url: String, json object: [String: Any], headers: [String] = []) throws -> Curl.Response {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        return try Curl.get(url, ["-b", jar, "-c", jar, "-H", "Content-Type: application/json", "--data-binary", body]
                                + headers.flatMap { ["-H", $0] })
    }

    /// The cookies the browser holds, by name (read from curl's Netscape jar format).
    public var cookies: [String: String] {
        guard let text = try? String(contentsOfFile: jar, encoding: .utf8) else { return [:] }
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            var line = Substring(line)
            if line.hasPrefix("#HttpOnly_") { line = line.dropFirst("#HttpOnly_".count) } else if line.hasPrefix("#") { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count >= 7 { result[String(fields[5])] = String(fields[6]) }
        }
        return result
    }
}

/// Reads hidden inputs and the like out of a page.
public enum HTMLForm {
    /// The `value` of the input named `name`.
    public static func value(of name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// The query parameters of a URL (percent-decoded).
public func queryParameters(of url: String) -> [String: String] {
    guard let components = URLComponents(string: url) else { return [:] }
    return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
}
