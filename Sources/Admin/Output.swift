import Foundation

/// What a command produced: JSON for `--json`, and text for people.
public struct Output: Sendable {
    /// A JSON value (object or array) made of Foundation property-list types.
    public let json: JSONBox
    public let text: String
    /// The exit status to report with this output: a command that partly failed (`users import`,
    /// `doctor` finding a failure) still prints its report, with status 1.
    public var status: Int32 = 0
    /// The command already wrote its output as it went (`audit tail --follow`); nothing more to print.
    public var streamed = false
    /// Said on standard error (text) or as `warnings` in a JSON object result.
    public var warnings: [String] = []
    /// The database a mutating command changed; the human output ends by naming it.
    var changedDatabase: String?

    public init(json: Any, text: String) {
        self.json = JSONBox(json)
        self.text = text
    }

    /// A table with a header row; column widths fit the widest cell.
    public static func table(_ header: [String], _ rows: [[String]], json: Any) -> Output {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        let lines = all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        let text = rows.isEmpty ? "(none)" : lines.joined(separator: "\n")
        return Output(json: json, text: text)
    }

    func rendered(asJSON: Bool) -> String {
        if streamed { return "" }
        guard asJSON else {
            guard let changedDatabase else { return text }
            return text + (text.hasSuffix("\n") ? "" : "\n") + "database: \(changedDatabase)"
        }
        var value = json.value
        if !warnings.isEmpty, var object = value as? [String: Any] {
            object["warnings"] = warnings
            value = object
        }
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Warnings for standard error: lines for people; for `--json` only when the result cannot carry them.
    func renderedWarnings(asJSON: Bool) -> String {
        guard !warnings.isEmpty else { return "" }
        if asJSON, json.value is [String: Any] { return "" }
        return warnings.map { "warning: \($0)\n" }.joined()
    }
}

/// Carries a JSON-compatible value across concurrency domains; it is only read once built.
public struct JSONBox: @unchecked Sendable {
    public let value: Any
    init(_ value: Any) { self.value = value }
}
