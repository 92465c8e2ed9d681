import Crypto
import Foundation
import Model
import Storage

/// `idp-admin apis list | show | create | update | delete` and `idp-admin apps grant`.
enum APICommands {
    static let all = [list, show, create, update, delete, grant]

    static let lifetimes = 60...2_592_000

    static let list = Command(
        ["apis", "list"],
        summary: "List APIs (resource servers) that access tokens can be issued for.",
        usage: "apis list [--json]",
        run: { invocation in
            let store = SQLiteAPIStore(store: try invocation.store())
            let apis = try apiStorage { () throws(StorageError) in try store.list() }
            return Output.table(["API_ID", "IDENTIFIER", "NAME", "SCOPES"],
                                apis.map { [$0.apiID, $0.identifier, $0.name, $0.scopes.joined(separator: ",")] },
                                json: apis.map(json))
        })

    static let show = Command(
        ["apis", "show"],
        summary: "Show an API by its id or identifier.",
        usage: "apis show ID|IDENTIFIER [--json]",
        positionals: 1...1,
        run: { invocation in
            let api = try find(invocation.arguments.positionals[0], invocation)
            let object = json(api)
            return Output(json: object, text: object.keys.sorted().map { "\($0): \(display(object[$0]!))" }.joined(separator: "\n"))
        })

    static let create = Command(
        ["apis", "create"],
        summary: "Register an API: its identifier is the audience of the access tokens issued for it.",
        usage: "apis create --identifier URL --name NAME [--scopes a,b] [--token-lifetime SECONDS] [--signing-alg RS256|ES256] [--json]",
        details: """
            The identifier (e.g. https://api.example.com/) is the `audience` applications ask for and the `aud`
            of the tokens; it cannot be changed later. Scopes are the permissions the API defines; applications
            get them with `apps grant`. Defaults: --token-lifetime 86400 (60…2592000), --signing-alg RS256.
            """,
        valueFlags: ["--identifier", "--name", "--scopes", "--token-lifetime", "--signing-alg"],
        run: { invocation in
            let arguments = invocation.arguments
            guard let identifier = arguments.value("--identifier") else { throw AdminError.usage("--identifier is required") }
            guard identifier.utf8.count <= 600, !identifier.isEmpty, !identifier.contains(where: \.isWhitespace) else {
                throw AdminError.failed("--identifier must be non-empty, at most 600 bytes, without spaces")
            }
            guard let name = arguments.value("--name"), !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw AdminError.usage("--name is required")
            }
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let api = API(apiID: "api_" + Random.token(bytes: 16), identifier: identifier, name: name,
                          scopes: try scopes(arguments.value("--scopes")) ?? [],
                          tokenLifetime: try lifetime(arguments.value("--token-lifetime")) ?? 86_400,
                          signingAlgorithm: try algorithm(arguments.value("--signing-alg")) ?? "RS256", createdAt: now)
            let store = SQLiteAPIStore(store: try invocation.store())
            do throws(StorageError) {
                try store.create(api)
            } catch {
                if case .alreadyExists = error { throw AdminError.failed("an API with identifier \(identifier) already exists") }
                throw AdminError.failed(error.description)
            }
            try invocation.audit("apis.created", details: ["api_id": api.apiID, "identifier": identifier])
            return Output(json: json(api), text: "created API \"\(name)\"\napi_id:      \(api.apiID)\nidentifier:  \(identifier)")
        })

    static let update = Command(
        ["apis", "update"],
        summary: "Change an API's name, scopes, token lifetime or signing algorithm.",
        usage: "apis update ID|IDENTIFIER [--name NAME] [--scopes a,b] [--token-lifetime SECONDS] [--signing-alg RS256|ES256] [--json]",
        details: "--scopes replaces the whole list. Scopes removed from the API are removed from every application's grant.",
        valueFlags: ["--name", "--scopes", "--token-lifetime", "--signing-alg"],
        positionals: 1...1,
        run: { invocation in
            let arguments = invocation.arguments
            var api = try find(arguments.positionals[0], invocation)
            var changed: [String] = []
            if let name = arguments.value("--name") {
                guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw AdminError.usage("--name needs a value") }
                api.name = name
                changed.append("name")
            }
            if let list = try scopes(arguments.value("--scopes")) { api.scopes = list; changed.append("scopes") }
            if let seconds = try lifetime(arguments.value("--token-lifetime")) { api.tokenLifetime = seconds; changed.append("token_lifetime") }
            if let alg = try algorithm(arguments.value("--signing-alg")) { api.signingAlgorithm = alg; changed.append("signing_alg") }
            guard !changed.isEmpty else { throw AdminError.usage("nothing to change: give --name, --scopes, --token-lifetime or --signing-alg") }
            api.updatedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let store = SQLiteAPIStore(store: try invocation.store())
            let updated = api
            try apiStorage { () throws(StorageError) in
                try store.update(updated)
                if changed.contains("scopes") {
                    // Keep every client grant within the API's scopes.
                    for client in try SQLiteClientStore(store: invocation.storeUnchecked()).list() {
                        guard var clientGrant = try store.clientGrant(clientID: client.clientID, apiID: updated.apiID) else { continue }
                        clientGrant.scopes = clientGrant.scopes.filter(updated.scopes.contains)
                        try store.grant(clientGrant)
                    }
                }
            }
            try invocation.audit("apis.updated", details: ["api_id": api.apiID, "changed": changed.joined(separator: ",")])
            return Output(json: json(api), text: "updated \(api.identifier): \(changed.joined(separator: ", "))")
        })

    static let delete = Command(
        ["apis", "delete"],
        summary: "Delete an API and every application's grant for it; issued tokens stay valid until they expire.",
        usage: "apis delete ID|IDENTIFIER [--json]",
        positionals: 1...1,
        run: { invocation in
            let api = try find(invocation.arguments.positionals[0], invocation)
            try apiStorage { () throws(StorageError) in try SQLiteAPIStore(store: invocation.storeUnchecked()).delete(apiID: api.apiID) }
            try invocation.audit("apis.deleted", details: ["api_id": api.apiID, "identifier": api.identifier])
            return Output(json: ["api_id": api.apiID, "identifier": api.identifier, "deleted": true], text: "deleted \(api.identifier)")
        })

    static let grant = Command(
        ["apps", "grant"],
        summary: "Allow a confidential application to get tokens for an API with client_credentials.",
        usage: "apps grant CLIENT_ID --api ID|IDENTIFIER --scopes a,b [--json]",
        details: """
            Replaces the application's grant for that API. Every scope must be defined by the API (apis show);
            an empty --scopes "" grants the API without scopes. The application also needs the
            client_credentials grant type (m2m applications have it by default).
            """,
        valueFlags: ["--api", "--scopes"],
        positionals: 1...1,
        run: { invocation in
            let clientID = invocation.arguments.positionals[0]
            guard let apiName = invocation.arguments.value("--api") else { throw AdminError.usage("--api is required") }
            guard let scopeList = try scopes(invocation.arguments.value("--scopes")) else { throw AdminError.usage("--scopes is required") }
            let api = try find(apiName, invocation)
            let store = try invocation.store()
            guard let client = try apiStorage({ () throws(StorageError) in try SQLiteClientStore(store: store).find(clientID: clientID) }) else {
                throw AdminError.failed("no application with client_id \(clientID)")
            }
            guard client.isConfidential else {
                throw AdminError.failed("\(clientID) is a public (\(client.type.rawValue)) application; client grants are for confidential ones")
            }
            let unknown = scopeList.filter { !api.scopes.contains($0) }
            guard unknown.isEmpty else {
                throw AdminError.failed("scopes not defined by \(api.identifier): \(unknown.joined(separator: ", "))")
            }
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let record = ClientGrant(clientID: clientID, apiID: api.apiID, scopes: scopeList, createdAt: now)
            try apiStorage { () throws(StorageError) in try SQLiteAPIStore(store: store).grant(record) }
            try invocation.audit("apps.granted", clientID: clientID,
                                 details: ["api_id": api.apiID, "identifier": api.identifier, "scopes": scopeList.joined(separator: " ")])
            var text = "granted \(api.identifier) to \(clientID): \(scopeList.isEmpty ? "(no scopes)" : scopeList.joined(separator: ", "))"
            if !client.grantTypes.contains(.clientCredentials) {
                text += "\nwarning: \(clientID) is not allowed the client_credentials grant"
            }
            return Output(json: ["client_id": clientID, "api_id": api.apiID, "audience": api.identifier, "scopes": scopeList] as [String: Any],
                          text: text)
        })

    // MARK: - Helpers

    /// By api id, else by identifier.
    static func find(_ name: String, _ invocation: Invocation) throws -> API {
        let store = SQLiteAPIStore(store: try invocation.store())
        let found = try apiStorage { () throws(StorageError) -> API? in
            if let byID = try store.find(apiID: name) { return byID }
            return try store.find(identifier: name)
        }
        guard let found else { throw AdminError.failed("no API with id or identifier \(name)") }
        return found
    }

    /// A comma-separated scope list, trimmed, deduplicated; nil when the flag is absent.
    static func scopes(_ value: String?) throws -> [String]? {
        guard let value else { return nil }
        var result: [String] = []
        for item in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            guard !item.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "\\" }), item.allSatisfy(\.isASCII) else {
                throw AdminError.failed("scope \(item.debugDescription) must be printable ASCII without spaces or quotes")
            }
            if !result.contains(item) { result.append(item) }
        }
        return result
    }

    static func lifetime(_ value: String?) throws -> Int? {
        guard let value else { return nil }
        guard let seconds = Int(value), lifetimes.contains(seconds) else {
            throw AdminError.usage("--token-lifetime must be a whole number of seconds in \(lifetimes.lowerBound)…\(lifetimes.upperBound)")
        }
        return seconds
    }

    static func algorithm(_ value: String?) throws -> String? {
        guard let value else { return nil }
        guard SigningKey.Algorithm(rawValue: value) != nil else { throw AdminError.usage("--signing-alg must be RS256 or ES256, not \(value)") }
        return value
    }

    static func json(_ api: API) -> [String: Any] {
        ["api_id": api.apiID, "identifier": api.identifier, "name": api.name, "scopes": api.scopes,
         "token_lifetime": api.tokenLifetime, "signing_alg": api.signingAlgorithm,
         "created_at": timestamp(api.createdAt), "updated_at": timestamp(api.updatedAt)]
    }

    private static func display(_ value: Any) -> String {
        switch value {
        case let list as [String]: list.isEmpty ? "(none)" : list.joined(separator: ", ")
        default: "\(value)"
        }
    }
}

/// Storage failures as exit-1 failures (kept here so this file stands on its own).
private func apiStorage<T>(_ body: () throws(StorageError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw AdminError.failed(error.description)
    }
}

private extension Invocation {
    /// The store inside a `throws(StorageError)` closure: opened before (commands call `find` first).
    func storeUnchecked() throws(StorageError) -> any GatehouseStorage {
        do {
            return try store()
        } catch {
            throw StorageError.unavailable("\(error)")
        }
    }
}
