/// A mail template: text with `{{name}}` placeholders and `{{#name}}…{{/name}}` blocks that
/// appear only when `name` has a non-empty value (the reset link is optional). In the HTML part
/// every value is HTML-escaped. A block tag alone on its line takes its line break with it, so
/// an absent block leaves no empty line behind.
struct Template: Sendable {
    enum Node: Sendable {
        case text(String)
        case value(String)
        case block(String, [Node])
    }

    let name: String
    let nodes: [Node]

    init(parsing source: String, name: String) throws(MessageError) {
        self.name = name
        var index = source.startIndex
        nodes = try Self.parse(source, &index, closing: nil, file: name)
    }

    func render(_ values: [String: String], escapeHTML: Bool) throws(MessageError) -> String {
        var out = ""
        try Self.render(nodes, values, escapeHTML: escapeHTML, template: name, into: &out)
        return out
    }

    private static func render(_ nodes: [Node], _ values: [String: String], escapeHTML: Bool, template: String,
                               into out: inout String) throws(MessageError) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .value(let name):
                guard let value = values[name] else { throw .missingValue(template: template, name: name) }
                out += escapeHTML ? HTMLEscape.escape(value) : value
            case .block(let name, let children):
                if let value = values[name], !value.isEmpty {
                    try render(children, values, escapeHTML: escapeHTML, template: template, into: &out)
                }
            }
        }
    }

    private static func parse(_ source: String, _ index: inout String.Index, closing: String?, file: String) throws(MessageError) -> [Node] {
        var nodes: [Node] = []
        var text = ""
        while index < source.endIndex {
            guard source[index...].hasPrefix("{{"), let end = source[index...].firstRange(of: "}}") else {
                text.append(source[index])
                index = source.index(after: index)
                continue
            }
            let tag = source[source.index(index, offsetBy: 2)..<end.lowerBound].trimmingSpaces()
            let atLineStart = index == source.startIndex || source[source.index(before: index)] == "\n"
            index = end.upperBound
            let isBlockTag = tag.hasPrefix("#") || tag.hasPrefix("/")
            // Standalone block tag: its line break goes too (and the text before it ended a line).
            if isBlockTag, atLineStart, index < source.endIndex, source[index] == "\n" { index = source.index(after: index) }
            if !text.isEmpty { nodes.append(.text(text)); text = "" }
            if tag.hasPrefix("#") {
                let name = String(tag.dropFirst())
                try checkName(name, file: file)
                nodes.append(.block(name, try parse(source, &index, closing: name, file: file)))
            } else if tag.hasPrefix("/") {
                guard String(tag.dropFirst()) == closing else {
                    throw .malformedTemplate(file, reason: "{{\(tag)}} closes no open block")
                }
                return nodes
            } else {
                try checkName(tag, file: file)
                nodes.append(.value(tag))
            }
        }
        if let closing { throw .malformedTemplate(file, reason: "{{#\(closing)}} is never closed") }
        if !text.isEmpty { nodes.append(.text(text)) }
        return nodes
    }

    private static func checkName(_ name: String, file: String) throws(MessageError) {
        guard !name.isEmpty, name.utf8.allSatisfy({ ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }) else {
            throw .malformedTemplate(file, reason: "\"{{\(name)}}\" is not a placeholder name (letters, digits, _)")
        }
    }
}

enum HTMLEscape {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
