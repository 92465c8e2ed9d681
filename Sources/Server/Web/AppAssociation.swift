import HTTP
import Model

/// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`, built from native clients.
///
/// Only native clients with complete platform fields are listed; output order is stable (sorted by app
/// ID / package name) so the documents, and any cache validators built on them, do not churn.
enum AppAssociation {
    /// Universal links (`{issuerPath}ios/{bundle}/callback`) and shared web credentials for each iOS app.
    static func appleAppSiteAssociation(clients: [Client], issuerPath: String = "/") -> [UInt8] {
        var apps: [(appID: String, bundleID: String)] = []
        for client in clients where client.type == .native {
            guard let team = client.appleTeamID, !team.isEmpty, let bundle = client.bundleID, !bundle.isEmpty else { continue }
            let appID = team + "." + bundle
            if !apps.contains(where: { $0.appID == appID }) { apps.append((appID, bundle)) }
        }
        apps.sort { $0.appID < $1.appID }
        let prefix = issuerPath.hasSuffix("/") ? issuerPath : issuerPath + "/"
        let details = apps.map { app in
            let path = prefix + "ios/" + app.bundleID + "/callback"
            return "{\"appIDs\":" + JSONText.array([JSONText.quote(app.appID)])
                + ",\"components\":[{\"/\":" + JSONText.quote(path) + "}]}"
        }
        let json = "{\"applinks\":{\"details\":" + JSONText.array(details) + "},"
            + "\"webcredentials\":{\"apps\":" + JSONText.array(apps.map { JSONText.quote($0.appID) }) + "}}"
        return Array(json.utf8)
    }

    /// Digital Asset Links statements letting each Android app handle its https callback links.
    static func assetLinks(clients: [Client]) -> [UInt8] {
        var statements: [(package: String, json: String)] = []
        for client in clients where client.type == .native {
            guard let package = client.androidPackage, !package.isEmpty, !client.androidSHA256.isEmpty,
                  !statements.contains(where: { $0.package == package }) else { continue }
            let json = "{\"relation\":[\"delegate_permission/common.handle_all_urls\"],"
                + "\"target\":{\"namespace\":\"android_app\",\"package_name\":" + JSONText.quote(package)
                + ",\"sha256_cert_fingerprints\":" + JSONText.array(client.androidSHA256.map(JSONText.quote)) + "}}"
            statements.append((package, json))
        }
        statements.sort { $0.package < $1.package }
        return Array(JSONText.array(statements.map(\.json)).utf8)
    }

    /// Serves either document: `application/json`, briefly cacheable (apps' CDNs re-fetch it).
    static func response(_ body: [UInt8]) -> HTTPResponse {
        var response = HTTPResponse.json(body)
        response.headers.set("Cache-Control", "public, max-age=3600")
        return response
    }
}
