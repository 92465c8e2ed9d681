/// One `key = value` line of a config file, with where it came from.
public struct ConfigEntry: Sendable, Equatable {
    public let key: String
    public let value: String
    public let line: Int
}

/// Parses `postgresql.conf`-style files: `key = value`, `#` comments, blank lines.
///
/// A value may be wrapped in double quotes (to keep `#` or surrounding spaces);
/// unquoted values end at a ` #` trailing comment. Every malformed line is reported,
/// not just the first, so one run shows everything to fix.
public enum ConfigFile {
    public static func parse(_ text: String, file: String) -> (entries: [ConfigEntry], problems: [ConfigProblem]) {
        var entries: [ConfigEntry] = []
        var problems: [ConfigProblem] = []
        var seen: [String: Int] = [:]
        // Lines end at the byte LF (a CR before it is dropped): "\r\n" is one Character, so splitting
        // on Characters would read a CRLF file as one line.
        for (index, rawLine) in Array(text.utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            var bytes = rawLine
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            let line = Substring(String(decoding: bytes, as: UTF8.self))
            let trimmed = line.trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                problems.append(ConfigProblem(source: .file(file, line: lineNumber), key: nil,
                                              message: "expected `key = value`, found \(quoted(trimmed))"))
                continue
            }
            let key = String(trimmed[..<equals].trimmingSpaces())
            guard isValidKey(key) else {
                problems.append(ConfigProblem(source: .file(file, line: lineNumber), key: nil,
                                              message: "\(quoted(key)) is not a valid key (lower-case letters, digits and _)"))
                continue
            }
            let valueResult = parseValue(trimmed[trimmed.index(after: equals)...])
            switch valueResult {
            case .failure(let message):
                problems.append(ConfigProblem(source: .file(file, line: lineNumber), key: key, message: message))
            case .success(let value):
                if let first = seen[key] {
                    problems.append(ConfigProblem(source: .file(file, line: lineNumber), key: key,
                                                  message: "set twice (first on line \(first))"))
                    continue
                }
                seen[key] = lineNumber
                entries.append(ConfigEntry(key: key, value: value, line: lineNumber))
            }
        }
        return (entries, problems)
    }

    private enum ValueResult { case success(String), failure(String) }

    private static func parseValue(_ raw: Substring) -> ValueResult {
        let text = raw.trimmingSpaces()
        if text.hasPrefix("\"") {
            let body = text.dropFirst()
            guard let close = body.firstIndex(of: "\"") else { return .failure("unterminated quoted value") }
            let rest = body[body.index(after: close)...].trimmingSpaces()
            guard rest.isEmpty || rest.hasPrefix("#") else {
                return .failure("unexpected text after the closing quote: \(quoted(rest))")
            }
            return .success(String(body[..<close]))
        }
        // A `#` starts a trailing comment only after white space, so values like `a#b` survive.
        var value = text
        if let hash = text.indices.first(where: { text[$0] == "#" && $0 > text.startIndex && text[text.index(before: $0)] == " " }) {
            value = text[..<hash].trimmingSpaces()
        }
        return .success(String(value))
    }

    static func isValidKey(_ key: String) -> Bool {
        guard let first = key.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return key.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }

    private static func quoted(_ text: some StringProtocol) -> String { "\"\(text)\"" }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> SubSequence {
        var start = startIndex
        var end = endIndex
        while start < end, self[start] == " " || self[start] == "\t" { start = index(after: start) }
        while end > start, self[index(before: end)] == " " || self[index(before: end)] == "\t" { end = index(before: end) }
        return self[start..<end]
    }
}
