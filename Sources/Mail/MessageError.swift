/// Why a message could not be composed or rendered; nothing was sent.
public enum MessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a plain `local@domain` address.
    case invalidAddress(String)
    /// A header value held CR, LF or another control character (header injection, RFC 5322 §2.2).
    case invalidHeaderValue(name: String)
    /// A template used `{{name}}` without a value for it.
    case missingValue(template: String, name: String)
    /// No template of that name exists, in any locale.
    case unknownTemplate(String)
    /// A template file is malformed (an unclosed block).
    case malformedTemplate(String, reason: String)

    public var description: String {
        switch self {
        case .invalidAddress(let text): "not a valid email address: \"\(text)\""
        case .invalidHeaderValue(let name): "the \(name) header may not contain line breaks or control characters"
        case .missingValue(let template, let name): "template \(template) uses {{\(name)}} but no value was given"
        case .unknownTemplate(let name): "no email template named \(name)"
        case .malformedTemplate(let file, let reason): "email template \(file): \(reason)"
        }
    }
}
