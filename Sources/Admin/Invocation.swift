import Foundation
import Model
import Settings
import Storage

/// Everything a command may use: its arguments, the settings, standard input, who runs it.
public final class Invocation: @unchecked Sendable {
    public let arguments: Arguments
    public let environment: [String: String]
    private let readInput: @Sendable () -> String
    let terminal: Terminal?
    let systemConfigPath: String?
    private var loadedSettings: SettingsLoader.Loaded?
    private var openedStore: (any GatehouseStorage)?
    /// Warnings to print on standard error (or in the JSON result) after the command's output.
    var warnings: [String] = []
    /// The database a change was written to (set by `audit`), named in the human output.
    private(set) var changedDatabase: String?

    init(arguments: Arguments, environment: [String: String], readInput: @escaping @Sendable () -> String,
         terminal: Terminal? = nil, systemConfigPath: String? = SettingsLoader.systemConfigPath) {
        self.arguments = arguments
        self.environment = environment
        self.readInput = readInput
        self.terminal = terminal
        self.systemConfigPath = systemConfigPath
    }

    /// The same settings the daemon would use (`--config`, `IDP_CONFIG`, the system file, `IDP_*`).
    public func settings() throws -> Settings { try loaded().settings }

    /// The settings with where each came from.
    public func loaded() throws -> SettingsLoader.Loaded {
        if let loadedSettings { return loadedSettings }
        do {
            let loaded = try SettingsLoader.load(configPath: arguments.value("--config"), environment: environment,
                                                 systemConfigPath: systemConfigPath)
            loadedSettings = loaded
            return loaded
        } catch let error as ConfigurationError {
            throw AdminError.configuration(error.description)
        }
    }

    /// The daemon's database, opened (and migrated) on first use; safe beside a running daemon.
    /// A missing SQLite file is refused: only `idp` and `idp-admin db init` create one. A
    /// PostgreSQL database is opened through the same `StorageBackend` as the daemon's (its
    /// schema is created or migrated on first use, as the daemon would).
    public func store() throws -> any GatehouseStorage {
        if let openedStore { return openedStore }
        let settings = try settings()
        try requireDatabase()
        do {
            // No waiting for a server that is not up: an operator wants the error now.
            let store = try StorageBackend.open(settings: settings, startupWait: .zero)
            openedStore = store
            return store
        } catch {
            throw AdminError.failed("cannot use the database \(absolute(settings.database)): \(error)")
        }
    }

    /// Throws `noDatabase` naming the path, the setting it came from and the fixes, when the file is missing.
    func requireDatabase() throws {
        let loaded = try loaded()
        let path = loaded.settings.database
        guard !loaded.settings.isPostgreSQL else { return }
        guard !FileManager.default.fileExists(atPath: path) else { return }
        throw AdminError.noDatabase(DatabaseLocation.missingMessage(path: path, loaded: loaded))
    }

    /// Records an admin change in the audit log with the operator's OS user name.
    public func audit(_ event: String, clientID: String? = nil, userID: String? = nil, details: [String: String] = [:]) throws {
        do {
            try AuditStore(store: store()).append(AuditEvent(time: Date(), event: event, userID: userID, clientID: clientID,
                                                             actor: operatorName, details: details))
            changedDatabase = absolute(try settings().database)
        } catch let error as StorageError {
            throw AdminError.failed("the change was made but its audit event could not be written: \(error)")
        }
    }

    /// Asks before a change that cannot be undone, when a person is at a terminal and `--yes` was not given.
    /// Scripts (no terminal) are never asked.
    func confirm(_ question: String) throws {
        guard let terminal, !arguments.has("--yes") else { return }
        let answer = terminal.ask("\(question) [y/N] ")?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else { throw AdminError.notConfirmed("not confirmed; nothing was changed (--yes skips the question)") }
    }

    /// A progress line for a long command, drawn only on a terminal.
    func progress(_ label: String, total: Int?) -> Progress { Progress(label, total: total, terminal: terminal) }

    func warn(_ message: String) { warnings.append(message) }

    func close() { openedStore?.close() }

    /// All of standard input (secrets are read from here, never from argv).
    public func standardInput() -> String { readInput() }

    /// The operator's OS user name, recorded as the actor of audit events.
    public var operatorName: String {
        if let sudoUser = environment["SUDO_USER"], !sudoUser.isEmpty { return sudoUser }
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return environment["USER"] ?? "uid:\(geteuid())"
    }
}

/// A path as the operator should read it: absolute, so a relative `database` says where it really is.
func absolute(_ path: String) -> String {
    path.hasPrefix("/") || path.hasPrefix("postgresql://") || path.hasPrefix("postgres://")
        ? path : FileManager.default.currentDirectoryPath + "/" + path
}

/// Where the database setting came from, phrased for the "no database" message.
enum DatabaseLocation {
    static func missingMessage(path: String, loaded: SettingsLoader.Loaded) -> String {
        let origin: String
        switch loaded.sources["database"] {
        case .file(let file, let line)?: origin = "set by `database` in \(file):\(line)"
        case .environment(let name)?: origin = "set by \(name)"
        case .commandLine(let flag)?: origin = "set by \(flag)"
        case .defaultValue?, nil:
            let file = loaded.configFile.map { " (\($0) does not set it)" } ?? " (no config file was read)"
            origin = "the default `database = \(path)`\(file)"
        }
        let relative = path.hasPrefix("/") ? "" : ", relative to the working directory \(FileManager.default.currentDirectoryPath)"
        return """
            no database at \(absolute(path)): \(origin)\(relative). idp-admin never creates one implicitly. \
            Point it at the daemon's database with --config FILE (the daemon's config) or IDP_DATABASE=PATH, \
            or run `idp-admin db init` to create a new, empty one there.
            """
    }
}
