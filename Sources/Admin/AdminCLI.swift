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
    public static func run(_ words: [String], environment: [String: String],
                           readInput: @escaping @Sendable () -> String = { "" }) -> Result {
        let commands = CommandCatalog.all
        if words.isEmpty || ["help", "--help", "-h"].contains(words[0]) {
            let topic = words.dropFirst().filter { !$0.hasPrefix("-") }
            return help(topic: Array(topic), commands: commands)
        }
        guard let command = match(words, in: commands) else {
            return Result(status: 2, standardOutput: "", standardError: "idp-admin: \(unknownCommandMessage(words, commands: commands))\nRun `idp-admin help` for the list of commands.\n")
        }
        let rest = Array(words.dropFirst(command.path.count))
        do {
            let arguments = try Arguments.parse(rest, valueFlags: command.valueFlags, switchFlags: command.switchFlags)
            if arguments.has("--help") || arguments.has("-h") {
                return Result(status: 0, standardOutput: command.helpText, standardError: "")
            }
            guard command.positionals.contains(arguments.positionals.count) else {
                throw AdminError.usage("expected \(describe(command.positionals)), got \(arguments.positionals.count)\nUsage: idp-admin \(command.usage)")
            }
            let invocation = Invocation(arguments: arguments, environment: environment, readInput: readInput)
            defer { invocation.close() }
            let output = try command.run(invocation)
            let text = output.rendered(asJSON: arguments.has("--json"))
            return Result(status: output.status, standardOutput: text.isEmpty || text.hasSuffix("\n") ? text : text + "\n", standardError: "")
        } catch let error as AdminError {
            var message = "idp-admin \(command.name): \(error)\n"
            if case .usage = error, !error.description.contains("Usage:") { message += "Usage: idp-admin \(command.usage)\n" }
            return Result(status: error.exitCode, standardOutput: "", standardError: message)
        } catch {
            return Result(status: 1, standardOutput: "", standardError: "idp-admin \(command.name): \(error)\n")
        }
    }

    /// The command whose path is the longest prefix of the words.
    static func match(_ words: [String], in commands: [Command]) -> Command? {
        commands.filter { words.starts(with: $0.path) }.max { $0.path.count < $1.path.count }
    }

    static func help(topic: [String], commands: [Command]) -> Result {
        if topic.isEmpty {
            let width = commands.map(\.name.count).max() ?? 0
            var text = "Usage: idp-admin COMMAND [FLAGS]\n\nAdminister a Gatehouse installation. Commands:\n\n"
            for command in commands {
                text += "  \(command.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(command.summary)\n"
            }
            text += """

                Every command reads the daemon's settings (--config PATH, IDP_CONFIG, IDP_*), accepts --json,
                and is safe to run while idp runs. Secrets are read from standard input, never from arguments.
                Exit status: 0 ok, 1 operation failed, 2 usage error, 78 configuration error.
                Run `idp-admin help COMMAND` for a command's flags.

                """
            return Result(status: 0, standardOutput: text, standardError: "")
        }
        if let command = commands.first(where: { $0.path == topic }) {
            return Result(status: 0, standardOutput: command.helpText, standardError: "")
        }
        let group = commands.filter { $0.path.starts(with: topic) }
        if !group.isEmpty {
            let text = group.map { "  idp-admin \($0.usage)\n      \($0.summary)" }.joined(separator: "\n") + "\n"
            return Result(status: 0, standardOutput: text, standardError: "")
        }
        return Result(status: 2, standardOutput: "", standardError: "idp-admin: \(unknownCommandMessage(topic, commands: commands))\n")
    }

    static func unknownCommandMessage(_ words: [String], commands: [Command]) -> String {
        let typed = words.prefix { !$0.hasPrefix("-") }.prefix(2).joined(separator: " ")
        var message = "unknown command \"\(typed)\""
        if let nearest = CommandSuggestions.nearest(to: words, among: commands) { message += " (did you mean \"\(nearest)\"?)" }
        return message
    }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        if range.lowerBound == range.upperBound {
            return range.lowerBound == 0 ? "no arguments" : "\(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
        }
        return "\(range.lowerBound) to \(range.upperBound) arguments"
    }
}
