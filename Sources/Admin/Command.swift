/// One `idp-admin` command: its words, help text, flags and the function that runs it.
public struct Command: Sendable {
    /// The words that name it, e.g. `["keys", "rotate"]`.
    public let path: [String]
    /// One line for the command list.
    public let summary: String
    /// The usage line after `idp-admin`, e.g. `keys rotate [--alg RS256|ES256] [--json]`.
    public let usage: String
    /// Further explanation for `idp-admin help COMMAND`.
    public let details: String
    public let valueFlags: [String]
    public let switchFlags: [String]
    /// How many positional arguments it takes.
    public let positionals: ClosedRange<Int>
    let run: @Sendable (Invocation) throws -> Output

    public var name: String { path.joined(separator: " ") }

    init(_ path: [String], summary: String, usage: String, details: String = "",
         valueFlags: [String] = [], switchFlags: [String] = [], positionals: ClosedRange<Int> = 0...0,
         run: @escaping @Sendable (Invocation) throws -> Output) {
        self.path = path
        self.summary = summary
        self.usage = usage
        self.details = details
        // Every command reads the same configuration and can print JSON.
        self.valueFlags = valueFlags + ["--config"]
        self.switchFlags = switchFlags + ["--json", "--yes", "--help", "-h"]
        self.positionals = positionals
        self.run = run
    }

    var helpText: String {
        var text = "Usage: idp-admin \(usage)\n\n\(summary)\n"
        if !details.isEmpty { text += "\n\(details)\n" }
        text += "\nCommon flags (also accepted before the command):\n"
        text += "  --config PATH   settings file, as for idp (default: $IDP_CONFIG, else /etc/gatehouse/idp.conf if present)\n"
        text += "  --json          results as JSON on stdout, errors as one JSON object on stderr\n"
        text += "  --yes           do not ask for confirmation on a terminal\n  -h, --help      print this help\n"
        return text
    }
}
