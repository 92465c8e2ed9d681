import FoundationEssentials
import Glibc
import Logging
import Server
import Settings

// Signals are blocked before any thread exists, so only `ShutdownSignals.wait()` receives them.
ShutdownSignals.block()
ProcessSetup.ignoreBrokenPipes()
ProcessSetup.restrictFileCreation()

func fail(_ message: String, status: Int32) -> Never {
    LogSink(descriptor: 2).write(line: message)
    exit(status)
}

let options: Options
switch Options.parse(CommandLine.arguments.dropFirst()) {
case .run(let parsed): options = parsed
case .exit(let message, let status):
    if status == 0 { print(message) } else { fail(message, status: status) }
    exit(0)
}

let loaded: SettingsLoader.Loaded
do {
    loaded = try SettingsLoader.load(configPath: options.configPath, environment: ProcessInfo.processInfo.environment)
} catch let error as ConfigurationError {
    fail("idp: \(error)", status: ConfigurationError.exitCode)
} catch {
    fail("idp: configuration error: \(error)", status: ConfigurationError.exitCode)
}
let settings = loaded.settings
// log_file: append there instead of stderr; SIGHUP reopens it (logrotate).
let logFile: LogFile?
do {
    logFile = try settings.logFile.map { try LogFile(path: $0) }
} catch {
    fail("idp: \(error)", status: 1)
}
let logger = Logger(level: settings.logLevel, sink: logFile?.sink ?? LogSink())
for warning in loaded.warnings {
    logger.warning("config_warning", ["message": .string(warning)])
}

let wantedFiles = settings.maxConnections + 64
let openFiles = ProcessSetup.raiseOpenFileLimit(to: wantedFiles)
if openFiles < wantedFiles {
    logger.warning("open_file_limit_low", ["limit": .int(openFiles), "wanted": .int(wantedFiles),
                                           "hint": "raise LimitNOFILE or ulimit -n, or lower max_connections"])
}

let server: GatehouseServer
do {
    server = try GatehouseServer(settings: settings, logger: logger, version: Version.current)
    let bound = try server.start()
    let addresses = bound.map { address -> String in
        switch address {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
    logger.info("started", ["listen": .string(addresses.joined(separator: ",")), "issuer": .string(settings.issuer.url),
                            "database": .string(settings.database), "version": .string(Version.current)])
    var banner = "Gatehouse \(Version.current) listening on \(addresses.joined(separator: ", ")) — issuer \(settings.issuer.url)"
    if !server.adminBound.isEmpty { banner += " — admin \(server.adminBound.map(\.description).joined(separator: ", "))" }
    LogSink(descriptor: 1).write(line: banner)  // Unbuffered: supervisors and tests wait for this line.
    SystemdNotify.ready(status: "serving \(settings.issuer.url)")
} catch {
    fail("idp: \(error)", status: 1)
}

var signalName = ShutdownSignals.wait()
while signalName == "SIGHUP" {
    Reload.run(server: server, logFile: logFile, configPath: options.configPath, logger: logger)
    signalName = ShutdownSignals.wait()
}
SystemdNotify.stopping()
logger.info("stopping", ["signal": .string(signalName), "drain_timeout_ms": .int(Int(settings.drainTimeout.components.seconds * 1000))])
server.shutdown()
logger.info("stopped")
exit(0)
