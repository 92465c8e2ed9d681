import Dispatch
import FoundationEssentials
import HTTP
import KeyManagement
import Logging
import Mail
import OIDC
import Settings
import Storage
import Synchronization

/// The daemon's composition root: opens the store, builds the routes, runs the HTTP server.
public final class GatehouseServer: Sendable {
    public let settings: Settings
    private let logger: Logger
    private let store: any GatehouseStorage
    private let keyRing: KeyRing
    private let keyRefresher = PeriodicTask()
    private let audit: AuditRecorder
    private let maintenance: MaintenanceTask
    private let mailSender: MailSender?
    private let revocationSender: UpstreamRevocationSender
    private let http: HTTPServer
    /// Parsed after the start (`finishStartInBackground`), not before the first `200`.
    private let passwordBlocklist: PasswordBlocklist
    /// Proxy trust, metrics, the admin listener and reloads (see Production/).
    public let production: ProductionServices
    public var metrics: GatehouseMetrics { production.metrics }

    /// Opens (and migrates) the database; throws `StartupError` naming the cause.
    public init(settings: Settings, logger: Logger, version: String = "unknown") throws {
        self.settings = settings
        self.logger = logger
        do {
            store = try StorageBackend.open(settings: settings, logger: logger)
            try store.sqlite?.startBackgroundCheckpoints()
        } catch {
            throw StartupError.database(path: settings.database, reason: String(describing: error))
        }
        do {
            let keys = try KeyManager.open(store: store, settings: settings)
            keyRing = try KeyRing(manager: keys, logger: logger)
        } catch {
            store.close()
            throw StartupError.keys(error.description)
        }
        production = ProductionServices(settings: settings, logger: logger, store: store, version: version)
        let parts = Composition(settings: settings, store: store, keyRing: keyRing, logger: logger, metrics: production.metrics)
        audit = parts.services.auditRecorder
        passwordBlocklist = parts.selfService.passwords.blocklist
        mailSender = parts.mailSender
        revocationSender = parts.upstream.revocationSender
        if let delivery = settings.emailDelivery {
            // Caught now rather than at the first message: an unreadable password file.
            do {
                _ = try MailSetup.transport(for: delivery)
                _ = try MailSetup.sender(for: delivery)
                // libcurl is opened on first use; with SMTP configured, a missing one stops the start.
                if case .smtp = delivery.transport { try LibCurl.load() }
            } catch {
                store.close()
                throw StartupError.mail(String(describing: error))
            }
        }
        Self.openUpstreamLibrary(connections: parts.upstream.connections, logger: logger)
        let routes = Routes(parts: parts, store: store)
        production.metrics.setActiveSessions(parts.liveSessionCount)
        // PostgreSQL has no files of ours to size: the gauges stay at 0 there.
        if let sqlite = store.sqlite { production.metrics.setDatabaseFiles { sqlite.fileSizes() } }
        maintenance = MaintenanceTask(store: store, settings: settings, throttleWindow: parts.throttleWindow,
                                      logger: logger, metrics: production.metrics)
        var configuration = HTTPServerConfiguration(settings)
        production.install(into: &configuration)
        http = HTTPServer(configuration: configuration, responder: routes.responder(), logger: logger)
    }

    /// With upstream connections configured, libcurl is opened now rather than at a user's first
    /// sign-in through one, so a missing library is logged at start. The daemon still starts:
    /// password sign-in works without it, and each fetch reports the same error.
    private static func openUpstreamLibrary(connections: SQLiteConnectionStore, logger: Logger) {
        guard let configured = try? connections.list(), !configured.isEmpty else { return }
        do {
            try CurlUpstreamFetcher.loadLibrary()
        } catch {
            logger.error("upstream_library_unavailable", ["error": .string(error.description),
                                                          "connections": .int(configured.count)])
        }
    }

    /// Binds the listeners and starts serving; returns the bound addresses.
    @discardableResult
    public func start() throws -> [BoundAddress] {
        do {
            let bound = try http.start()
            finishStartInBackground()
            keyRefresher.start(name: "gatehouse-keyring", every: .seconds(2)) { [keyRing] in keyRing.refresh() }
            audit.start()
            let admin = try startAdmin()
            adminAddresses.withLock { $0 = admin }
            maintenance.start()
            mailSender?.start()
            revocationSender.start()
            return bound
        } catch let error as StartupError {
            throw error
        } catch {
            store.close()
            throw StartupError.listen(settings.listen.description, reason: String(describing: error))
        }
    }

    /// The start's one-off work that serving need not wait for, on a background thread once the
    /// listeners are bound: the dummy password hash and the blocklist's parsing (a request that
    /// needs either first waits for it). Then what the start allocated and freed goes back to the
    /// kernel, so an idle daemon's memory is what it goes on using (README "Memory and start").
    private func finishStartInBackground() {
        DispatchQueue.global(qos: .utility).async { [passwordBlocklist] in
            CredentialCheck.prepare()
            passwordBlocklist.prepare()
            ProcessMemory.returnFreedPages()
        }
    }

    /// What the admin listener bound (empty when `admin_listen` is off); set by `start()`.
    public var adminBound: [BoundAddress] { adminAddresses.withLock { $0 } }
    private let adminAddresses = Mutex<[BoundAddress]>([])

    private func startAdmin() throws -> [BoundAddress] {
        do {
            return try production.startAdmin()
        } catch {
            http.shutdown()
            keyRefresher.stop()
            store.close()
            throw StartupError.listen(settings.adminListen?.description ?? "admin_listen", reason: String(describing: error))
        }
    }

    /// Stops accepting, drains in-flight requests (bounded by `drain_timeout`), closes the database.
    public func shutdown() {
        http.shutdown()
        production.stopAdmin()
        keyRefresher.stop()
        maintenance.stop()  // Ends after its current batch.
        mailSender?.stop()  // Aborts a delivery in progress; it is retried after the next start.
        revocationSender.stop()  // A revocation in flight is retried after the next start.
        audit.stop()  // Writes the events of the last requests before the database closes.
        store.close()
    }

    public func waitUntilStopped() { http.waitUntilStopped() }
}

/// Why the daemon could not start; `idp` prints it and exits 1.
public enum StartupError: Error, CustomStringConvertible {
    case database(path: String, reason: String)
    case listen(String, reason: String)
    case keys(String)
    case mail(String)

    public var description: String {
        switch self {
        case .database(let path, let reason): "cannot use the database \(path): \(reason)"
        case .listen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .keys(let reason): "cannot load the signing keys: \(reason)"
        case .mail(let reason): "cannot set up email delivery: \(reason)"
        }
    }
}
