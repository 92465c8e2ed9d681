import Logging
@testable import Server
import Settings
import Testing
import TestSupport

/// What `ProductionServices.reload` applies and what it reports as needing a restart.
@Suite struct ReloadTests {
    @Test func onlyLogLevelAndTrustedProxiesApply() throws {
        let (store, directory) = try makeTestStore()
        defer { store.close(); _ = directory }
        let sink = LogSink.memory()
        let logger = Logger(level: .info, sink: sink)
        var settings = Settings()
        let services = ProductionServices(settings: settings, logger: logger, store: store, version: "test")

        settings.logLevel = .warning
        settings.trustedProxies = try TrustedProxyList.parse("unix").get()
        settings.listen = .tcp(host: "127.0.0.1", port: 9999)
        settings.maxBodyBytes = 2048
        settings.keyEncryptionKey = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let result = services.reload(settings)
        #expect(result.applied == ["log_level", "trusted_proxies"])
        #expect(result.needRestart == ["listen", "max_body_bytes", "key_encryption_key"])
        #expect(!logger.isEnabled(.info))
        #expect(services.proxyTrust.current.unixSockets)
        let warnings = sink.lines.filter { $0.contains("setting_needs_restart") }
        #expect(warnings.count == 3)
        #expect(warnings.contains { $0.contains("\"key\":\"listen\"") })
        #expect(!sink.lines.joined().contains("AAAAAAAA"))  // Secrets are masked.

        // The same file again: nothing new applies, the restart keys are reported again.
        let again = services.reload(settings)
        #expect(again.applied.isEmpty)
        #expect(again.needRestart.count == 3)
    }

    @Test func changeLevelReachesEveryCopyOfALogger() {
        let sink = LogSink.memory()
        let logger = Logger(level: .info, sink: sink)
        let copy = logger
        var independent = logger
        independent.level = .error
        logger.changeLevel(to: .warning)
        copy.info("dropped")
        copy.warning("kept")
        #expect(sink.lines.count == 1)
        #expect(independent.level == .error)
        #expect(copy.level == .warning)
    }
}
