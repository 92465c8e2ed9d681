import FoundationEssentials
import Logging

/// Parsers for setting values; each returns the value or a message saying what was expected.
enum ValueParsers {
    /// A whole number of decimal digits (no sign, no `+`), within `range`.
    static func integer(_ text: String, in range: ClosedRange<Int>) -> Result<Int, ParseFailure> {
        guard let value = digits(text) else { return .failure("expected a whole number, found \"\(text)\"") }
        guard range.contains(value) else {
            return .failure("expected a number from \(range.lowerBound) to \(range.upperBound), found \(value)")
        }
        return .success(value)
    }

    /// A size such as `16384`, `16KiB`, `1MiB` (binary units; `K`/`M` accepted as the same).
    static func byteSize(_ text: String, in range: ClosedRange<Int>) -> Result<Int, ParseFailure> {
        let units: [(String, Int)] = [("KiB", 1024), ("MiB", 1 << 20), ("GiB", 1 << 30), ("K", 1024), ("M", 1 << 20), ("G", 1 << 30), ("B", 1)]
        var number = text
        var multiplier = 1
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = String(text.dropLast(suffix.count)).trimmingCharactersSpaces()
            multiplier = factor
            break
        }
        guard let base = digits(number) else {
            return .failure("expected a size such as 16384, 16KiB or 1MiB, found \"\(text)\"")
        }
        let (bytes, overflow) = base.multipliedReportingOverflow(by: multiplier)
        guard !overflow, range.contains(bytes) else {
            return .failure("expected a size from \(range.lowerBound) to \(range.upperBound) bytes, found \"\(text)\"")
        }
        return .success(bytes)
    }

    /// A duration such as `500ms`, `10s`, `5m`, `1h`; a bare number means seconds.
    static func duration(_ text: String, in range: ClosedRange<Duration>) -> Result<Duration, ParseFailure> {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        var number = text
        var millisPerUnit: Int64 = 1000
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = String(text.dropLast(suffix.count)).trimmingCharactersSpaces()
            millisPerUnit = factor
            break
        }
        guard let count = digits(number) else {
            return .failure("expected a duration such as 500ms, 10s, 5m or 1h, found \"\(text)\"")
        }
        let (millis, overflow) = Int64(count).multipliedReportingOverflow(by: millisPerUnit)
        let value = Duration.milliseconds(millis)
        guard !overflow, range.contains(value) else {
            return .failure("expected a duration from \(describe(range.lowerBound)) to \(describe(range.upperBound)), found \"\(text)\"")
        }
        return .success(value)
    }

    static func logLevel(_ text: String) -> Result<LogLevel, ParseFailure> {
        guard let level = LogLevel(rawValue: text) else {
            return .failure("expected one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(text)\"")
        }
        return .success(level)
    }

    static func listen(_ text: String) -> Result<ListenTarget, ParseFailure> {
        ListenTarget.parse(text)
    }

    /// `off` (or empty) disables the admin listener; otherwise a listen address.
    static func adminListen(_ text: String) -> Result<ListenTarget?, ParseFailure> {
        if text.isEmpty || text == "off" { return .success(nil) }
        return ListenTarget.parse(text).map(Optional.some)
    }

    static func issuer(_ text: String) -> Result<Issuer, ParseFailure> {
        Issuer.parse(text)
    }

    static func path(_ text: String) -> Result<String, ParseFailure> {
        guard !text.isEmpty, !text.utf8.contains(0) else { return .failure("expected a file path") }
        return .success(text)
    }

    static func isPostgresURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// A file path, or a PostgreSQL URL with no password in it: a URL is printed in logs and
    /// status output, so the password must come from `database_password_file` or the environment.
    static func database(_ text: String) -> Result<String, ParseFailure> {
        guard isPostgresURL(text) else { return path(text) }
        let rest = text.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") {
            return .failure("the URL must not contain a password: put it in database_password_file or IDP_DATABASE_PASSWORD")
        }
        if text.unicodeScalars.contains(where: { $0.value < 0x21 }) {
            return .failure("expected a URL without spaces or control characters")
        }
        return .success(text)
    }

    static func nonEmpty(_ text: String) -> Result<String, ParseFailure> {
        guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            return .failure("expected a value without control characters")
        }
        return .success(text)
    }

    /// Standard base64 (with padding) of exactly 32 bytes.
    static func keyEncryptionKey(_ text: String) -> Result<String?, ParseFailure> {
        guard let bytes = Data(base64Encoded: text), bytes.count == 32 else {
            return .failure("expected the base64 encoding of 32 random bytes (e.g. from `openssl rand -base64 32`)")
        }
        return .success(text)
    }

    /// 1–128 characters of letters, digits, `-` and `_` (Auth0's connection-name rules).
    static func connectionName(_ text: String) -> Result<String, ParseFailure> {
        guard (1...128).contains(text.utf8.count),
              text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || $0 == 45 || $0 == 95 }) else {
            return .failure("expected 1 to 128 letters, digits, - or _, found \"\(text)\"")
        }
        return .success(text)
    }

    /// One of a fixed list of words, compared exactly.
    static func oneOf(_ text: String, _ choices: [String]) -> Result<String, ParseFailure> {
        guard choices.contains(text) else {
            return .failure("expected one of \(choices.joined(separator: ", ")), found \"\(text)\"")
        }
        return .success(text)
    }

    /// `on`/`off` (also `true`/`false`, `yes`/`no`, `1`/`0`).
    static func flag(_ text: String) -> Result<Bool, ParseFailure> {
        switch text.lowercased() {
        case "on", "true", "yes", "1": .success(true)
        case "off", "false", "no", "0": .success(false)
        default: .failure("expected on or off, found \"\(text)\"")
        }
    }

    static func rsaKeyBits(_ text: String) -> Result<Int, ParseFailure> {
        guard let bits = digits(text), [2048, 3072, 4096].contains(bits) else {
            return .failure("expected 2048, 3072 or 4096, found \"\(text)\"")
        }
        return .success(bits)
    }

    /// Parses ASCII digits only: Swift's `Int("+5")` accepts a sign, which config values must not.
    static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }

    static func describe(_ duration: Duration) -> String {
        let millis = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if millis % 1000 != 0 { return "\(millis)ms" }
        return "\(millis / 1000)s"
    }
}

/// A parse failure message (a typed wrapper so `Result` can carry it).
public struct ParseFailure: Error, Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    public let message: String
    public init(_ message: String) { self.message = message }
    public init(stringLiteral value: String) { message = value }
}

extension String {
    func trimmingCharactersSpaces() -> String { String(trimmingSpaces()) }
}
