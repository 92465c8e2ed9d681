import HTTP
import KeyManagement
import Logging
import OIDC
import Settings
import Storage

/// Every route the public listener serves, under the issuer's path.
struct Routes {
    let services: Services
    let store: Store

    var settings: Settings { services.settings }

    func responder() -> some HTTPResponder {
        var router = Router(prefix: settings.issuer.path)
        addOperational(to: &router)
        addDiscovery(to: &router)
        addStaticAssets(to: &router)
        return router
    }

    /// Health probes for load balancers and orchestrators.
    private func addOperational(to router: inout Router) {
        let health = HealthHandlers(store: store, logger: services.logger)
        router.add("GET", "healthz", execution: .inline, health.liveness)
        router.add("GET", "readyz", execution: .worker, health.readiness)
    }

    /// Discovery, keys, and the app-association files iOS and Android fetch.
    private func addDiscovery(to router: inout Router) {
        let discovery = DiscoveryDocument(issuer: settings.issuer.url).jsonBytes()
        router.add("GET", DiscoveryDocument.Path.discovery, execution: .inline) { _ in
            var response = HTTPResponse.json(discovery)
            response.headers.set("Cache-Control", "public, max-age=3600")
            CORSPolicy.applyPublic(to: &response)
            return response
        }
        let jwks = JWKSHandler(keyRing: services.keyRing, maxAge: settings.jwksMaxAge)
        router.add("GET", DiscoveryDocument.Path.jwks, execution: .inline, jwks.respond)

        let association = AppAssociationHandler(services: services)
        router.add("GET", ".well-known/apple-app-site-association", execution: .worker, association.apple)
        router.add("GET", ".well-known/assetlinks.json", execution: .worker, association.android)
    }

    /// The login pages' stylesheet and the form_post script (no third-party resources).
    private func addStaticAssets(to router: inout Router) {
        for path in StaticAssets.paths {
            router.add("GET", path, execution: .inline) { request in
                StaticAssets.response(for: path, ifNoneMatch: request.headers["If-None-Match"]) ?? HTTPResponse(status: 404)
            }
        }
    }
}
