import Foundation
import Settings

/// Everything a command may use: its arguments, the settings, standard input, who runs it.
public final class Invocation: @unchecked Sendable {
    public let arguments: Arguments
    public let environment: [String: String]
    private let readInput: @Sendable () -> String
    private var loadedSettings: Settings?

    init(arguments: Arguments, environment: [String: String], readInput: @escaping @Sendable () -> String) {
        self.arguments = arguments
        self.environment = environment
        self.readInput = readInput
    }

    /// The same settings the daemon would use (`--config`, `IDP_CONFIG`, `IDP_*`).
    public func settings() throws -> Settings {
        if let loadedSettings { return loadedSettings }
        do {
            let loaded = try SettingsLoader.load(configPath: arguments.value("--config"), environment: environment)
            loadedSettings = loaded.settings
            return loaded.settings
        } catch let error as ConfigurationError {
            throw AdminError.configuration(error.description)
        }
    }

    /// All of standard input (secrets are read from here, never from argv).
    public func standardInput() -> String { readInput() }

    /// The operator's OS user name, recorded as the actor of audit events.
    public var operatorName: String {
        if let sudoUser = environment["SUDO_USER"], !sudoUser.isEmpty { return sudoUser }
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return environment["USER"] ?? "uid:\(geteuid())"
    }
}
