import Crypto
import JOSE
import OIDC

/// The SDK telemetry in `Auth0-Client` / `auth0Client`: base64url JSON `{"name":…,"version":…,…}`.
///
/// Informational only (a device label for sessions); malformed values give nil and are never rejected.
struct ClientInfo: Sendable, Equatable {
    let name: String
    let version: String?

    /// "Auth0.swift 3.1.0", or just the name when there is no version.
    var label: String { version.map { "\(name) \($0)" } ?? name }

    /// Decodes the header or parameter value; nil for anything unexpected.
    static func decode(_ value: String?) -> ClientInfo? {
        guard let value, !value.isEmpty, value.utf8.count <= 4096 else { return nil }
        // Tolerate padding and the standard alphabet: the value is informational.
        var text = value
        while text.hasSuffix("=") { text.removeLast() }
        text = text.replacing("+", with: "-").replacing("/", with: "_")
        guard let bytes = try? Base64URL.decode(text),
              case .object(let object)? = try? JSONValue(parsing: bytes),
              let rawName = object["name"]?.stringValue, let name = clean(rawName, limit: 64) else { return nil }
        let version = object["version"]?.stringValue.flatMap { clean($0, limit: 32) }
        return ClientInfo(name: name, version: version)
    }

    /// The label for a value, or nil.
    static func label(_ value: String?) -> String? { decode(value)?.label }

    /// Printable text only, trimmed and length-capped; nil when nothing is left.
    private static func clean(_ text: String, limit: Int) -> String? {
        var printable = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value)
            && scalar.properties.generalCategory != .lineSeparator && scalar.properties.generalCategory != .paragraphSeparator {
            printable.append(scalar)
        }
        let trimmed = String(printable).trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        return String(trimmed.prefix(limit))
    }
}
