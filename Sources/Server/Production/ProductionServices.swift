import FoundationEssentials
import HTTP
import JOSE
import Logging
import Settings
import Storage
import Synchronization

/// What running behind a proxy in production adds to the daemon: proxy trust and its self-check,
/// metrics, the admin listener, and SIGHUP reloads. Built by `GatehouseServer`.
public final class ProductionServices: Sendable {
    public let metrics: GatehouseMetrics
    public let proxyTrust: ProxyTrust
    public let selfCheck: ProxySelfCheck
    private let logger: Logger
    private let store: any GatehouseStorage
    private let admin: HTTPServer?
    /// The settings in force (the reloadable keys updated by `reload`).
    private let running: Mutex<Settings>

    /// Keys `reload` applies without a restart.
    public static let reloadableKeys: Set<String> = ["log_level", "trusted_proxies"]

    init(settings: Settings, logger: Logger, store: any GatehouseStorage, version: String) {
        self.logger = logger
        self.store = store
        running = Mutex(settings)
        metrics = GatehouseMetrics(version: version)
        proxyTrust = ProxyTrust(settings.trustedProxies)
        selfCheck = ProxySelfCheck(issuer: settings.issuer, logger: logger)
        if let target = settings.adminListen {
            var configuration = HTTPServerConfiguration(listen: [Self.listenAddress(target)])
            configuration.loopThreads = 1
            configuration.workerThreads = 1
            configuration.maxConnections = 64
            configuration.drainTimeout = .seconds(1)
            configuration.maxBodyBytes = 1024
            admin = HTTPServer(configuration: configuration,
                               responder: AdminEndpoints(metrics: metrics, store: store, selfCheck: selfCheck, logger: logger).router(),
                               logger: logger)
        } else {
            admin = nil
        }
    }

    static func listenAddress(_ target: ListenTarget) -> ListenAddress {
        switch target {
        case .tcp(let host, let port): .tcp(host: host, port: port)
        case .unix(let path): .unix(path: path)
        }
    }

    /// Installs the request-identity and metrics hooks on the public listener's configuration.
    func install(into configuration: inout HTTPServerConfiguration) {
        configuration.requestIdentity = proxyTrust.identityHook(selfCheck: selfCheck)
        let metrics = self.metrics
        configuration.onResponse = { request, route, status, _, duration in
            metrics.observeResponse(route: route, method: request.method, status: status, duration: duration)
        }
    }

    /// Starts the admin listener, if configured; returns what it bound.
    func startAdmin() throws -> [BoundAddress] {
        guard let admin else { return [] }
        let bound = try admin.start()
        logger.info("admin_listening", ["address": .string(bound.map(\.description).joined(separator: " "))])
        return bound
    }

    func stopAdmin() { admin?.shutdown() }

    /// Applies a freshly loaded configuration: `log_level` and `trusted_proxies` take effect now; any other
    /// changed key is logged as needing a restart. Returns the keys applied and those needing a restart.
    @discardableResult
    public func reload(_ fresh: Settings) -> (applied: [String], needRestart: [String]) {
        let old = running.withLock { $0 }
        let before = EffectiveSettings.describe(old)
        let after = EffectiveSettings.describe(fresh)
        var applied: [String] = []
        var needRestart: [String] = []
        for key in SettingKey.all where before[key.name] != after[key.name] {
            if Self.reloadableKeys.contains(key.name) { applied.append(key.name) } else { needRestart.append(key.name) }
        }
        if fresh.logLevel != old.logLevel { logger.changeLevel(to: fresh.logLevel) }
        if fresh.trustedProxies != old.trustedProxies { proxyTrust.replace(with: fresh.trustedProxies) }
        running.withLock {
            $0.logLevel = fresh.logLevel
            $0.trustedProxies = fresh.trustedProxies
        }
        for key in needRestart {
            let setting = SettingKey.named(key)
            let shown = setting?.isSecret == true ? "********" : (after[key] ?? "")
            logger.warning("setting_needs_restart", ["key": .string(key), "value": .string(shown),
                                                     "hint": .string("only log_level and trusted_proxies are applied on SIGHUP; restart to apply \(key)")])
        }
        logger.info("reloaded",
                   ["applied": .string(applied.joined(separator: ",")), "needs_restart": .string(needRestart.joined(separator: ","))])
        return (applied, needRestart)
    }
}

/// The admin listener: `/metrics`, `/healthz`, `/readyz`, and `/proxyz` (the proxy self-check record).
struct AdminEndpoints: Sendable {
    let metrics: GatehouseMetrics
    let store: any GatehouseStorage
    let selfCheck: ProxySelfCheck
    let logger: Logger

    func router() -> Router {
        var router = Router(prefix: "/")
        let metrics = self.metrics
        router.add("GET", "metrics", execution: .worker) { _ in
            var response = HTTPResponse(status: 200, body: Array(metrics.registry.render().utf8))
            response.headers.set("Content-Type", MetricsRegistry.contentType)
            response.headers.set("Cache-Control", "no-store")
            return response
        }
        router.add("GET", "healthz", execution: .inline) { _ in
            var response = HTTPResponse.json(Array(#"{"status":"ok"}"#.utf8))
            response.headers.set("Cache-Control", "no-store")
            return response
        }
        router.add("GET", "readyz", execution: .worker, HealthHandlers(store: store, logger: logger, metrics: metrics).readiness)
        let selfCheck = self.selfCheck
        router.add("GET", "proxyz", execution: .inline) { _ in
            let report = selfCheck.report
            func strings(_ map: [String: String]) -> JSONValue { .object(map.mapValues(JSONValue.string)) }
            var object: [String: JSONValue] = [:]
            if let value = report.firstTrusted { object["first_trusted"] = strings(value) }
            if let value = report.mismatch { object["mismatch"] = strings(value) }
            if let value = report.untrustedPeer { object["untrusted_peer"] = .string(value) }
            if let value = report.untrustedHeaders { object["untrusted_headers"] = strings(value) }
            // Only strings inside, so encoding cannot fail.
            var response = HTTPResponse.json((try? JSONValue.object(object).jsonBytes()) ?? Array("{}".utf8))
            response.headers.set("Cache-Control", "no-store")
            return response
        }
        return router
    }
}
