import HTTP
import KeyManagement
import Logging
import OIDC
import Settings
import Storage

/// Every route the public listener serves, under the issuer's path.
struct Routes {
    let settings: Settings
    let store: Store
    let keyRing: KeyRing
    let logger: Logger

    func responder() -> some HTTPResponder {
        var router = Router(prefix: settings.issuer.path)
        let health = HealthHandlers(store: store, logger: logger)
        router.add("GET", "healthz", execution: .inline, health.liveness)
        router.add("GET", "readyz", execution: .worker, health.readiness)

        let discovery = DiscoveryDocument(issuer: settings.issuer.url).jsonBytes()
        router.add("GET", DiscoveryDocument.Path.discovery, execution: .inline) { _ in
            var response = HTTPResponse.json(discovery)
            response.headers.set("Cache-Control", "public, max-age=3600")
            response.headers.set("Access-Control-Allow-Origin", "*")
            return response
        }

        let jwks = JWKSHandler(keyRing: keyRing, maxAge: settings.jwksMaxAge)
        router.add("GET", DiscoveryDocument.Path.jwks, execution: .inline, jwks.respond)
        return router
    }
}
