import FoundationEssentials
import Logging
import Settings

/// SIGHUP: reopen `log_file`, re-read the config file and environment as at startup, apply what can change
/// safely (`ProductionServices.reloadableKeys`: log_level, trusted_proxies), log the rest as needing a restart.
/// An invalid configuration keeps the running settings and logs every problem.
public enum Reload {
    public static func run(server: GatehouseServer, logFile: LogFile?, configPath: String?, logger: Logger,
                           environment: [String: String] = ProcessInfo.processInfo.environment) {
        SystemdNotify.reloading()
        defer { SystemdNotify.ready(status: "reloaded") }
        if let logFile {
            do {
                try logFile.reopen()
            } catch {
                logger.error("log_reopen_failed", ["error": .string(String(describing: error))])
            }
        }
        do {
            let loaded = try SettingsLoader.load(configPath: configPath, environment: environment)
            for warning in loaded.warnings { logger.warning("config_warning", ["message": .string(warning)]) }
            server.production.reload(loaded.settings)
        } catch let error as ConfigurationError {
            logger.error("reload_failed", ["problems": .string(error.problems.map(\.description).joined(separator: "; ")),
                                           "hint": "the running settings are kept; fix the configuration and send SIGHUP again"])
        } catch {
            logger.error("reload_failed", ["error": .string(String(describing: error))])
        }
    }
}
