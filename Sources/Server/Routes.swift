import FoundationEssentials
import HTTP
import KeyManagement
import Logging
import OIDC
import Settings
import Storage

/// Every route the public listener serves, under the issuer's path, over the pieces the
/// composition root built.
struct Routes {
    let parts: Composition
    let store: any GatehouseStorage

    var services: Services { parts.services }
    var settings: Settings { services.settings }

    func responder() -> some HTTPResponder {
        var router = Router(prefix: settings.issuer.path)
        addOperational(to: &router)
        addDiscovery(to: &router)
        addStaticAssets(to: &router)
        addSignIn(to: &router)
        addLifecycle(to: &router)
        addAccounts(to: &router)
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
        let jwks = JWKSHandler(keyRing: parts.keyRing, maxAge: settings.jwksMaxAge)
        router.add("GET", DiscoveryDocument.Path.jwks, execution: .inline, jwks.respond)

        let association = AppAssociationHandler(services: services)
        router.add("GET", ".well-known/apple-app-site-association", execution: .worker, association.apple)
        router.add("GET", ".well-known/assetlinks.json", execution: .worker, association.android)
        // The universal-link / App Link callbacks those files name, when the browser got them instead of the app.
        let appReturn = AppReturnEndpoint(services: services)
        router.add("GET", under: "ios/", execution: .worker, appReturn.handle)
        router.add("GET", under: "android/", execution: .worker, appReturn.handle)
    }

    /// Sign-in: /authorize, the login form, the continuation, the token endpoint and userinfo.
    private func addSignIn(to router: inout Router) {
        var authorize = AuthorizeEndpoint(services: services, flow: parts.flow)
        authorize.transfer = parts.transfer
        router.add("GET", DiscoveryDocument.Path.authorize, execution: .worker, authorize.handle)
        router.add("POST", DiscoveryDocument.Path.authorize, execution: .worker, authorize.handle)
        router.add("POST", "login", execution: .worker, LoginEndpoint(services: services, flow: parts.flow).handle)
        router.add("GET", SignInFlow.resumePath, execution: .worker, ResumeEndpoint(services: services, flow: parts.flow).handle)
        // An upstream provider's answer: a redirect (GET) or Apple's form_post (POST).
        let callback = UpstreamCallbackEndpoint(services: services, flow: parts.flow)
        router.add("GET", UpstreamAuthenticator.callbackPath, execution: .worker, callback.handle)
        router.add("POST", UpstreamAuthenticator.callbackPath, execution: .worker, callback.handle)
        router.add("POST", DiscoveryDocument.Path.token, execution: .worker, TokenHTTPEndpoint(services: services, endpoint: parts.tokens).handle)
        let userinfo = UserinfoEndpoint(services: services, keyRing: parts.keyRing, opaqueTokens: parts.opaqueTokens, grants: parts.grants, users: parts.users,
                                        holders: parts.grantHolders)
        router.add("GET", DiscoveryDocument.Path.userinfo, execution: .worker, userinfo.handle)
        router.add("POST", DiscoveryDocument.Path.userinfo, execution: .worker, userinfo.handle)
        for path in [DiscoveryDocument.Path.token, DiscoveryDocument.Path.userinfo] {
            router.add("OPTIONS", path, execution: .worker, preflight)
        }
    }

    /// A preflight names no client, so any application's web origin may be asked about.
    private func preflight(_ request: HTTPRequest) -> HTTPResponse {
        let origins = (try? services.clients.list().flatMap(\.webOrigins)) ?? []
        return CORSPolicy.preflight(request: request, allowedOrigins: origins)
    }

    /// The login pages' stylesheet and the form_post script (no third-party resources).
    private func addStaticAssets(to router: inout Router) {
        for path in StaticAssets.paths {
            router.add("GET", path, execution: .inline) { request in
                StaticAssets.response(for: path, ifNoneMatch: request.headers["If-None-Match"]) ?? HTTPResponse(status: 404)
            }
        }
    }

    /// Auth0's account endpoints, the current-user API and the pages emailed links open (README "Accounts").
    private func addAccounts(to router: inout Router) {
        let selfService = parts.selfService
        router.add("POST", "dbconnections/signup", execution: .worker, SignupEndpoint(services: services, selfService: selfService).handle)
        router.add("POST", "dbconnections/change_password", execution: .worker,
                   ChangePasswordEndpoint(services: services, selfService: selfService).handle)
        router.add("POST", "passwordless/start", execution: .worker, PasswordlessStartEndpoint(services: services, selfService: selfService).handle)
        for path in ["dbconnections/signup", "dbconnections/change_password", "passwordless/start"] {
            router.add("OPTIONS", path, execution: .worker, preflight)
        }
        let currentUser = CurrentUserEndpoint(services: services, api: parts.currentUser)
        for method in ["GET", "PATCH", "OPTIONS"] {
            router.add(method, under: CurrentUserEndpoint.pathPrefix, execution: .worker, method == "OPTIONS" ? preflight : currentUser.handle)
        }
        let sender = parts.upstream.revocationSender
        router.add("DELETE", under: CurrentUserEndpoint.pathPrefix, execution: .worker,
                   AccountDeletionEndpoint(services: services, api: parts.upstream.deletion, queued: { sender.wake() }).handle)
        // Apple's server-to-server notifications (cross-site, unauthenticated: the signed payload decides).
        router.add("POST", AppleNotificationsEndpoint.path, execution: .worker,
                   AppleNotificationsEndpoint(services: services, notifications: parts.upstream.notifications).handle)
        let links = AccountLinkPages(services: services, selfService: selfService)
        router.add("GET", SelfService.resetPath, execution: .worker, links.resetForm)
        router.add("POST", SelfService.resetPath, execution: .worker, links.resetSubmit)
        router.add("GET", SelfService.verifyPath, execution: .worker, links.verifyForm)
        router.add("POST", SelfService.verifyPath, execution: .worker, links.verifySubmit)
    }

    /// Revocation, introspection, logout (Auth0 /v2/logout and the OIDC end_session_endpoint).
    private func addLifecycle(to router: inout Router) {
        router.add("POST", DiscoveryDocument.Path.revoke, execution: .worker,
                   RevocationEndpoint(services: services, revoker: parts.revoker).handle)
        router.add("POST", DiscoveryDocument.Path.introspect, execution: .worker,
                   IntrospectionEndpoint(services: services, introspector: parts.introspector).handle)
        router.add("OPTIONS", DiscoveryDocument.Path.revoke, execution: .worker, preflight)

        let logout = LogoutEndpoint(services: services, policy: parts.logoutPolicy, sessions: parts.sessions, grants: parts.grants,
                                    lifecycle: parts.lifecycle)
        router.add("GET", "v2/logout", execution: .worker, logout.auth0)
        router.add("GET", DiscoveryDocument.Path.endSession, execution: .worker, logout.oidc)
        router.add("POST", DiscoveryDocument.Path.endSession, execution: .worker, logout.oidc)
    }
}
