import HTTP
import KeyManagement
import Logging
import Settings
import Storage

/// The daemon's composition root: opens the store, builds the routes, runs the HTTP server.
public final class GatehouseServer: Sendable {
    public let settings: Settings
    private let logger: Logger
    private let store: Store
    private let keyRing: KeyRing
    private let http: HTTPServer

    /// Opens (and migrates) the database; throws `StartupError` naming the cause.
    public init(settings: Settings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        do {
            store = try Store(path: settings.database)
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
        let services = Services(settings: settings, store: store, keyRing: keyRing, logger: logger)
        let routes = Routes(services: services, store: store)
        http = HTTPServer(configuration: HTTPServerConfiguration(settings), responder: routes.responder(), logger: logger)
    }

    /// Binds the listeners and starts serving; returns the bound addresses.
    @discardableResult
    public func start() throws -> [BoundAddress] {
        do {
            let bound = try http.start()
            keyRing.startRefreshing(every: .seconds(2))
            return bound
        } catch {
            store.close()
            throw StartupError.listen(settings.listen.description, reason: String(describing: error))
        }
    }

    /// Stops accepting, drains in-flight requests (bounded by `drain_timeout`), closes the database.
    public func shutdown() {
        http.shutdown()
        keyRing.stop()
        store.close()
    }

    public func waitUntilStopped() { http.waitUntilStopped() }
}

/// Why the daemon could not start; `idp` prints it and exits 1.
public enum StartupError: Error, CustomStringConvertible {
    case database(path: String, reason: String)
    case listen(String, reason: String)
    case keys(String)

    public var description: String {
        switch self {
        case .database(let path, let reason): "cannot use the database \(path): \(reason)"
        case .listen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .keys(let reason): "cannot load the signing keys: \(reason)"
        }
    }
}
