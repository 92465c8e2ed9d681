/// Why a JSON text was refused, and the byte offset where parsing stopped.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public let offset: Int
    public let reason: String

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON text, strictly as RFC 8259 says: UTF-8, no trailing commas, comments,
    /// NaN, leading zeros, lone surrogates or unescaped control characters, nothing after the value.
    ///
    /// Unlike RFC 8259, an object that repeats a member name is refused (after unescaping, so
    /// `"alg"` and `"\u0061lg"` clash): parsers disagree on which copy wins, and JOSE headers
    /// and claims must not mean different things to different readers (RFC 7515 §4).
    ///
    /// Numbers become `.integer` when written without fraction or exponent and within `Int64`,
    /// or when their value is a whole number below 9e15 (so `1.0` and `1e3` are integers, as
    /// before with JSONSerialization); every other number is `.number`.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        var parser = JSONParser(bytes)
        self = try parser.parseDocument()
    }
}

/// The recursive-descent parser behind `JSONValue(parsing:)`.
struct JSONParser {
    /// Deep enough for any token or request body, shallow enough that hostile nesting cannot
    /// exhaust a worker thread's stack.
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected data after the value") }
        return value
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1  // {
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let nameOffset = index
            let name = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw failure("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: name) == nil else {
                throw JSONParseError(offset: nameOffset, reason: "repeated member name")
            }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) deep") }
    }

    /// A string starting at the opening quote. Runs without escapes are copied as they are;
    /// the result is checked to be valid UTF-8 once, at the end.
    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // "
        let start = index
        var decoded: [UInt8]? = nil  // only allocated once an escape shows up
        var runStart = start
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw failure("unescaped control character in a string") }
            if byte == UInt8(ascii: "\\") {
                if decoded == nil { decoded = [] }
                decoded!.append(contentsOf: bytes[runStart..<index])
                try parseEscape(into: &decoded!)
                runStart = index
            } else {
                index += 1
            }
        }
        let text: String?
        if var decoded {
            decoded.append(contentsOf: bytes[runStart..<index])
            text = String(validating: decoded, as: UTF8.self)
        } else {
            text = String(validating: bytes[start..<index], as: UTF8.self)
        }
        guard let text else { throw JSONParseError(offset: start, reason: "string is not valid UTF-8") }
        index += 1  // "
        return text
    }

    /// One escape sequence starting at the backslash, appended as UTF-8.
    private mutating func parseEscape(into out: inout [UInt8]) throws(JSONParseError) {
        index += 1  // backslash
        guard index < bytes.count else { throw failure("unterminated string") }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one; together they are one scalar.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("high surrogate without a low surrogate")
                }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw failure("high surrogate without a low surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw failure("low surrogate without a high surrogate")
            }
            out.append(contentsOf: String(Unicode.Scalar(scalar)!).utf8)
        default:
            throw failure("invalid escape")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid hex digit in a \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`, validated here because
    /// `Int64(_:)` and `Double(_:)` accept forms JSON does not (`+1`, `.5`, `inf`, hex).
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw failure("expected a digit") }
        index += 1
        if first == UInt8(ascii: "0"), let next = peek(), isDigit(next) { throw failure("leading zero in a number") }
        skipDigits()
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let digit = peek(), isDigit(digit) else { throw failure("expected a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), isDigit(digit) else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        if isInteger, index - start <= 18 {
            // Up to 18 characters cannot overflow Int64, so skip the text round trip (exp, iat, ...).
            var magnitude: Int64 = 0
            for byte in bytes[start..<index] where byte != UInt8(ascii: "-") { magnitude = magnitude * 10 + Int64(byte - UInt8(ascii: "0")) }
            return .integer(bytes[start] == UInt8(ascii: "-") ? -magnitude : magnitude)
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        if double.rounded() == double, abs(double) < 9.0e15 { return .integer(Int64(double)) }
        return .number(double)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let matches = index + count <= bytes.count && literal.withUTF8Buffer { bytes[index..<index + count].elementsEqual($0) }
        guard matches else { throw failure("invalid literal") }
        index += count
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func failure(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }
}
