import Foundation
import Model
import Settings
import Storage

/// Everything a command may use: its arguments, the settings, standard input, who runs it.
public final class Invocation: @unchecked Sendable {
    public let arguments: Arguments
    public let environment: [String: String]
    private let readInput: @Sendable () -> String
    private var loadedSettings: Settings?
    private var openedStore: Store?

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

    /// The daemon's database, opened (and migrated) on first use; safe beside a running daemon.
    public func store() throws -> Store {
        if let openedStore { return openedStore }
        let settings = try settings()
        do {
            let store = try Store(path: settings.database)
            openedStore = store
            return store
        } catch {
            throw AdminError.failed("cannot use the database \(settings.database): \(error)")
        }
    }

    /// Records an admin change in the audit log with the operator's OS user name.
    public func audit(_ event: String, clientID: String? = nil, userID: String? = nil, details: [String: String] = [:]) throws {
        do {
            try AuditStore(store: store()).append(AuditEvent(time: Date(), event: event, userID: userID, clientID: clientID,
                                                             actor: operatorName, details: details))
        } catch let error as StorageError {
            throw AdminError.failed("the change was made but its audit event could not be written: \(error)")
        }
    }

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
