/// Where a setting came from: a file line, an environment variable, or the command line.
public enum SettingSource: Sendable, Equatable, CustomStringConvertible {
    case file(String, line: Int)
    case environment(String)
    case commandLine(String)
    case defaultValue

    public var description: String {
        switch self {
        case .file(let path, let line): "\(path):\(line)"
        case .environment(let name): "environment variable \(name)"
        case .commandLine(let flag): "command line \(flag)"
        case .defaultValue: "default"
        }
    }
}

/// One thing wrong with the configuration, phrased for the operator.
public struct ConfigProblem: Sendable, Equatable, CustomStringConvertible {
    public let source: SettingSource
    public let key: String?
    public let message: String

    public init(source: SettingSource, key: String?, message: String) {
        self.source = source
        self.key = key
        self.message = message
    }

    public var description: String {
        if let key { return "\(source): \(key): \(message)" }
        return "\(source): \(message)"
    }
}

/// The configuration cannot be used; `problems` lists every reason at once.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let problems: [ConfigProblem]

    public init(problems: [ConfigProblem]) { self.problems = problems }

    /// Exit status for configuration errors (EX_CONFIG from sysexits.h).
    public static let exitCode: Int32 = 78

    public var description: String {
        (["configuration error:"] + problems.map { "  \($0)" }).joined(separator: "\n")
    }
}
