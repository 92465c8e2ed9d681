import HTTP
import Model

/// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`, built from the
/// native applications' Apple team/bundle ids and Android packages, so universal-link and
/// App Link callbacks (`https://{domain}/ios/{bundle}/callback`) work.
struct AppAssociationHandler: Sendable {
    let services: Services

    func apple(_ request: HTTPRequest) -> HTTPResponse {
        respond(request) { clients in
            AppAssociation.appleAppSiteAssociation(clients: clients, issuerPath: services.issuer.path)
        }
    }

    func android(_ request: HTTPRequest) -> HTTPResponse {
        respond(request) { clients in AppAssociation.assetLinks(clients: clients) }
    }

    private func respond(_ request: HTTPRequest, _ render: ([Model.Client]) -> [UInt8]) -> HTTPResponse {
        do {
            return AppAssociation.response(render(try services.clients.list()))
        } catch {
            services.logger.error("app_association_failed", ["request_id": .string(request.requestID), "error": .string(error.description)])
            return HTTPResponse.json(Array(#"{"error":"temporarily_unavailable"}"#.utf8), status: 503)
        }
    }
}
