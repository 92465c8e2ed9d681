import Foundation
import Settings

/// `idp-admin`: finds the command named by argv, runs it, renders its output.
public enum AdminCLI {
    public struct Result: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
    }

    /// Runs one command line (without the program name) and returns what to print and the exit status.
    ///
    /// - Parameters:
    ///   - terminal: how to talk to a person at a terminal (confirmations, progress); nil when stdin or
    ///     stderr is not a terminal, as in scripts, which then never get a prompt.
    ///   - systemConfigPath: the config file read when no other is named (tests point it elsewhere).
    public static func run(_ words: [String], environment: [String: String],
                           readInput: @escaping @Sendable () -> String = { "" },
                           terminal: Terminal? = nil,
                           systemConfigPath: String? = SettingsLoader.systemConfigPath) -> Result {
        let commands = CommandCatalog.all
        let global: GlobalFlags
        do {
            global = try GlobalFlags.split(words)
        } catch let error as AdminError {
            return failure(error, command: nil, json: words.contains("--json"))
        } catch {
            return failure(.usage("\(error)"), command: nil, json: words.contains("--json"))
        }
        let words = global.rest
        if global.version || words == ["version"] {
            let text = "idp-admin \(GatehouseVersion.current)\n"
            return Result(status: 0, standardOutput: global.json ? "{\"version\": \"\(GatehouseVersion.current)\"}\n" : text, standardError: "")
        }
        if global.help || words.isEmpty || ["help", "--help", "-h"].contains(words[0]) {
            let topic = words.first.map { ["help", "--help", "-h"].contains($0) } == true ? Array(words.dropFirst()) : words
            return help(topic: topic.filter { !$0.hasPrefix("-") }, commands: commands, json: global.json)
        }
        guard let command = match(words, in: commands) else {
            // A noun alone (`idp-admin apps`) is a request for that noun's commands.
            if words.count == 1, commands.contains(where: { $0.path.first == words[0] }) {
                return help(topic: words, commands: commands, json: global.json)
            }
            return failure(.usage("\(unknownCommandMessage(words, commands: commands))\nRun `idp-admin help` for the list of commands."),
                           command: nil, json: global.json)
        }
        let rest = global.asArguments + Array(words.dropFirst(command.path.count))
        let json = global.json || rest.prefix { $0 != "--" }.contains("--json")
        do {
            let arguments = try Arguments.parse(rest, valueFlags: command.valueFlags, switchFlags: command.switchFlags)
            if arguments.has("--help") || arguments.has("-h") {
                return Result(status: 0, standardOutput: command.helpText, standardError: "")
            }
            guard command.positionals.contains(arguments.positionals.count) else {
                throw AdminError.usage("expected \(describe(command.positionals)), got \(arguments.positionals.count)\nUsage: idp-admin \(command.usage)")
            }
            let invocation = Invocation(arguments: arguments, environment: environment, readInput: readInput,
                                        terminal: terminal, systemConfigPath: systemConfigPath)
            defer { invocation.close() }
            var output = try command.run(invocation)
            output.warnings = invocation.warnings + output.warnings
            if let changed = invocation.changedDatabase { output.changedDatabase = changed }
            let text = output.rendered(asJSON: json)
            return Result(status: output.status, standardOutput: text.isEmpty || text.hasSuffix("\n") ? text : text + "\n",
                          standardError: output.renderedWarnings(asJSON: json))
        } catch let error as AdminError {
            return failure(error, command: command, json: json)
        } catch {
            return failure(.failed("\(error)"), command: command, json: json)
        }
    }

    /// An error as text (`idp-admin COMMAND: message`) or, for `--json`, one JSON object on stderr.
    static func failure(_ error: AdminError, command: Command?, json: Bool) -> Result {
        if json {
            let object: [String: Any] = ["error": error.code, "message": error.description]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return Result(status: error.exitCode, standardOutput: "", standardError: String(decoding: data, as: UTF8.self) + "\n")
        }
        var message = "idp-admin\(command.map { " \($0.name)" } ?? ""): \(error)\n"
        if let command, case .usage = error, !error.description.contains("Usage:") { message += "Usage: idp-admin \(command.usage)\n" }
        return Result(status: error.exitCode, standardOutput: "", standardError: message)
    }

    /// The command whose path is the longest prefix of the words.
    static func match(_ words: [String], in commands: [Command]) -> Command? {
        commands.filter { words.starts(with: $0.path) }.max { $0.path.count < $1.path.count }
    }

    /// Commands grouped by their first word, groups in catalog order, so a noun's verbs stay together.
    static func grouped(_ commands: [Command]) -> [Command] {
        var nouns: [String] = []
        for command in commands where !nouns.contains(command.path[0]) { nouns.append(command.path[0]) }
        return nouns.flatMap { noun in commands.filter { $0.path[0] == noun } }
    }

    static func help(topic: [String], commands: [Command], json: Bool = false) -> Result {
        if topic.isEmpty {
            let ordered = grouped(commands)
            let width = ordered.map(\.name.count).max() ?? 0
            var text = "Usage: idp-admin [--config PATH] [--json] COMMAND [FLAGS]\n\nAdminister a Gatehouse installation. Commands:\n"
            var noun = ""
            for command in ordered {
                if command.path[0] != noun { noun = command.path[0]; text += "\n" }
                text += "  \(command.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(command.summary)\n"
            }
            text += """

                  \("version".padding(toLength: width, withPad: " ", startingAt: 0))  Print the version (also --version).

                Global flags, before or after the command: --config PATH, --json, --yes, -h/--help.
                Settings are read as idp reads them: --config PATH, else $IDP_CONFIG, else /etc/gatehouse/idp.conf
                when it exists, else the embedded defaults; IDP_* variables override the file.
                No command but `db init` creates a database: the others refuse a missing one and say where they looked.
                Every command is safe to run while idp runs. Secrets are read from standard input, never from arguments.
                --json: results as JSON on stdout; errors as one object {"error": …, "message": …} on stderr.
                Destructive commands ask for confirmation on a terminal (--yes skips the question).
                Exit status: 0 ok, 1 operation failed, 2 usage error, 78 configuration error.
                Run `idp-admin help COMMAND` (or `idp-admin NOUN`) for a command's flags.

                """
            return Result(status: 0, standardOutput: text, standardError: "")
        }
        if let command = commands.first(where: { $0.path == topic }) {
            return Result(status: 0, standardOutput: command.helpText, standardError: "")
        }
        let group = commands.filter { $0.path.starts(with: topic) }
        if !group.isEmpty {
            let text = "Usage: idp-admin \(topic.joined(separator: " ")) VERB [FLAGS]\n\n"
                + group.map { "  idp-admin \($0.usage)\n      \($0.summary)" }.joined(separator: "\n") + "\n"
            return Result(status: 0, standardOutput: text, standardError: "")
        }
        return failure(.usage(unknownCommandMessage(topic, commands: commands)), command: nil, json: json)
    }

    static func unknownCommandMessage(_ words: [String], commands: [Command]) -> String {
        let typed = words.prefix { !$0.hasPrefix("-") }.prefix(2).joined(separator: " ")
        var message = "unknown command \"\(typed)\""
        if let nearest = CommandSuggestions.nearest(to: words, among: commands), nearest != typed { message += " (did you mean \"\(nearest)\"?)" }
        return message
    }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        if range.lowerBound == range.upperBound {
            return range.lowerBound == 0 ? "no arguments" : "\(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
        }
        return "\(range.lowerBound) to \(range.upperBound) arguments"
    }
}

/// The flags every command takes, accepted before the command's words too (`idp-admin --config X apps list`),
/// as kubectl and the Auth0 CLI do.
struct GlobalFlags {
    var config: String?
    var json = false
    var yes = false
    var help = false
    var version = false
    /// The command words and everything after them, untouched.
    var rest: [String] = []

    /// Takes the global flags that come before the first command word.
    static func split(_ words: [String]) throws -> GlobalFlags {
        var flags = GlobalFlags()
        var index = 0
        while index < words.count, words[index].hasPrefix("-") {
            let word = words[index]
            index += 1
            switch word {
            case "--json": flags.json = true
            case "--yes": flags.yes = true
            case "--help", "-h": flags.help = true
            case "--version": flags.version = true
            case "--config":
                guard index < words.count else { throw AdminError.usage("--config needs a value") }
                flags.config = words[index]
                index += 1
            case let flag where flag.hasPrefix("--config="):
                flags.config = String(flag.dropFirst("--config=".count))
            default:
                var message = "unknown global flag \(word) (global flags: --config PATH, --json, --yes, --help, --version)"
                if let nearest = Suggest.nearest(to: word, among: ["--config", "--json", "--yes", "--help", "--version"]) {
                    message = "unknown global flag \(word) (did you mean \(nearest)?)"
                }
                throw AdminError.usage(message)
            }
        }
        flags.rest = Array(words[index...])
        return flags
    }

    /// The global flags again, to be parsed with the command's own.
    var asArguments: [String] {
        var words: [String] = []
        if let config { words += ["--config", config] }
        if json { words.append("--json") }
        if yes { words.append("--yes") }
        if help { words.append("--help") }
        return words
    }
}
