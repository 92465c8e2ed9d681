import HTTP
import Model

/// `GET {issuer}ios/{bundle}/callback` and `{issuer}android/{package}/callback`: the universal-link
/// callback reached the browser instead of the app. A registered bundle or package gets
/// `AppReturnPage`; every other path under `ios/` and `android/` keeps the JSON 404.
struct AppReturnEndpoint: Sendable {
    let services: Services

    /// What the router answers for any unknown path.
    static let notFound = HTTPResponse.json(Array(#"{"error":"not_found"}"#.utf8), status: 404)

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let base = services.issuer.path.hasSuffix("/") ? services.issuer.path : services.issuer.path + "/"
        guard request.path.hasPrefix(base) else { return Self.notFound }
        let parts = request.path.dropFirst(base.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "callback", let platform = AppReturnLink.Platform(rawValue: String(parts[0])) else {
            return Self.notFound
        }
        let clients: [Client]
        do {
            clients = try services.clients.list()
        } catch {
            services.logger.error("app_return_failed", ["request_id": .string(request.requestID), "error": .string(error.description)])
            return UserFacingError.serviceFailed(temporarily: true, activity: .signIn)
                .response(issuer: services.issuer, language: services.language(request), requestID: request.requestID)
        }
        guard let (appName, link) = AppReturnLink.link(platform: platform, identifier: String(parts[1]), clients: clients,
                                                       authority: services.issuer.authority, path: request.path,
                                                       query: request.queryItems ?? []) else {
            return Self.notFound
        }
        return AppReturnPage.render(issuer: services.issuer, appName: appName, link: link, language: services.language(request))
    }
}
