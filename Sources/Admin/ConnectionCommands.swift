import Foundation
import KeyManagement
import Model
import OIDC
import Storage

/// `idp-admin connections create | list | show | update | delete`: upstream identity providers
/// (README "Upstream connections"). Secrets come only from standard input or a file and are never printed.
enum ConnectionCommands {
    static let all = [create, list, show, update, delete, revocations]

    static let settingFlags = [
        "--client-id", "--team-id", "--key-id", "--private-key-file", "--discovery-url", "--authorize-url", "--token-url",
        "--jwks-url", "--revoke-url", "--issuer", "--hosted-domain", "--scopes", "--native-audiences",
    ]
    static let urlFlags = ["--discovery-url", "--authorize-url", "--token-url", "--jwks-url", "--revoke-url"]

    static let settingsUsage = "[--client-secret-stdin] [--team-id T --key-id K --private-key-file FILE.p8] [--discovery-url URL] [--authorize-url URL --token-url URL --jwks-url URL --revoke-url URL --issuer ISS] [--hosted-domain DOMAIN] [--scopes a,b] [--native-audiences ID,…] [--link-by-verified-email] [--json]"

    static let settingsDetails = """
        Settings:
          --client-id ID               the client id Gatehouse has at the upstream provider.
          --client-secret-stdin        read the client secret from standard input (never from argv).
          --team-id, --key-id, --private-key-file FILE.p8   Apple: the key that signs the client-secret JWT.
          --discovery-url URL          the provider's /.well-known/openid-configuration.
          --authorize-url, --token-url, --jwks-url, --revoke-url URL, --issuer ISS
                                       explicit endpoints; each overrides what discovery says.
                                       Every URL is https; plain http only for loopback hosts.
          --hosted-domain DOMAIN       Google: the `hd` claim must be this domain.
          --scopes a,b                 default openid,profile,email (openid is always asked for).
          --native-audiences ID,…      client ids a natively obtained ID token may be issued to.
          --link-by-verified-email     a first login joins an existing user with the same verified email;
                                       otherwise (the default) it creates a new user of this connection.
        The client secret and the .p8 key are stored encrypted under the key-encryption key.
        Register {issuer}login/callback as the redirect URI upstream; `connections show` prints it.
        """

    static let create = Command(
        ["connections", "create"],
        summary: "Add an upstream identity provider (Sign in with Apple, Google, or any OpenID provider).",
        usage: "connections create --name NAME --strategy apple|google|oidc --client-id ID " + settingsUsage,
        details: """
            NAME: lower-case letters, digits and -, e.g. corp-sso; it is what /authorize?connection=NAME names.
            An oidc connection needs --discovery-url, or --authorize-url, --token-url, --jwks-url and --issuer.
            Enable it for an application with `idp-admin apps update CLIENT_ID --connections NAME,…`.

            """ + settingsDetails,
        valueFlags: ["--name", "--strategy"] + settingFlags,
        switchFlags: ["--client-secret-stdin", "--link-by-verified-email"],
        run: { invocation in
            let arguments = invocation.arguments
            guard let name = arguments.value("--name") else { throw AdminError.usage("--name is required") }
            guard UpstreamConnection.isValidName(name) else {
                throw AdminError.usage("--name \(name): use lower-case letters, digits and - (at most 64), not \"\(User.databaseConnectionMarker)\"")
            }
            guard let strategyName = arguments.value("--strategy") else { throw AdminError.usage("--strategy is required (apple, google or oidc)") }
            guard let strategy = ConnectionStrategy(rawValue: strategyName) else {
                throw AdminError.usage("--strategy must be apple, google or oidc, not \(strategyName)")
            }
            guard arguments.value("--client-id") != nil else { throw AdminError.usage("--client-id is required") }
            var connection = UpstreamConnection(name: name, strategy: strategy, clientID: "", createdAt: wholeSeconds(Date()))
            _ = try apply(invocation, to: &connection)
            try validate(connection)
            let store = try invocation.store()
            let connections = try ConnectionCommands.store(invocation, store)
            do {
                try connections.create(connection)
            } catch StorageError.alreadyExists {
                throw AdminError.failed("a connection named \(name) already exists")
            } catch {
                throw AdminError.failed("\(error)")
            }
            try invocation.audit("connections.created", details: ["connection": name, "strategy": strategy.rawValue])
            let json = describe(connection, issuer: try invocation.settings().issuer.url)
            return Output(json: json, text: "created connection \(name)\n\n" + text(json))
        })

    static let list = Command(
        ["connections", "list"],
        summary: "List the upstream connections.",
        usage: "connections list [--json]",
        run: { invocation in
            let store = try invocation.store()
            let connections = try ConnectionCommands.store(invocation, store)
            let all = try storageFailures { () throws(StorageError) in try connections.list() }
            let issuer = try invocation.settings().issuer.url
            return Output.table(["NAME", "STRATEGY", "CLIENT ID", "ISSUER"],
                                all.map { [$0.name, $0.strategy.rawValue, $0.clientID, $0.issuer ?? $0.discoveryURL ?? "-"] },
                                json: all.map { describe($0, issuer: issuer) })
        })

    static let show = Command(
        ["connections", "show"],
        summary: "Show a connection and the two URLs to register upstream (never its secrets).",
        usage: "connections show NAME [--json]",
        positionals: 1...1,
        run: { invocation in
            let store = try invocation.store()
            let connection = try existing(invocation.arguments.positionals[0], in: try ConnectionCommands.store(invocation, store))
            let json = describe(connection, issuer: try invocation.settings().issuer.url)
            return Output(json: json, text: text(json))
        })

    static let update = Command(
        ["connections", "update"],
        summary: "Change some settings of a connection; the daemon uses them at its next sign-in.",
        usage: "connections update NAME [--client-id ID] " + settingsUsage.replacingOccurrences(of: "[--link-by-verified-email]", with: "[--link-by-verified-email|--no-link-by-verified-email]"),
        details: """
            Only the settings given change; an empty value removes an optional one (--hosted-domain "").
            The strategy cannot change; --no-link-by-verified-email turns linking off.

            """ + settingsDetails,
        valueFlags: settingFlags,
        switchFlags: ["--client-secret-stdin", "--link-by-verified-email", "--no-link-by-verified-email"],
        positionals: 1...1,
        run: { invocation in
            let store = try invocation.store()
            let connections = try ConnectionCommands.store(invocation, store)
            var connection = try existing(invocation.arguments.positionals[0], in: connections)
            let changed = try apply(invocation, to: &connection)
            guard !changed.isEmpty else { throw AdminError.usage("nothing to change: give at least one setting flag") }
            try validate(connection)
            connection.updatedAt = wholeSeconds(Date())
            try storageFailures { () throws(StorageError) in try connections.update(connection) }
            try invocation.audit("connections.updated", details: ["connection": connection.name, "changed": changed.joined(separator: ",")])
            let json = describe(connection, issuer: try invocation.settings().issuer.url)
            return Output(json: json, text: "updated \(changed.joined(separator: ", ")) of \(connection.name)\n\n" + text(json))
        })

    static let delete = Command(
        ["connections", "delete"],
        summary: "Delete a connection that no user belongs to; applications stop offering it.",
        usage: "connections delete NAME [--yes] [--json]",
        positionals: 1...1,
        run: { invocation in
            let store = try invocation.store()
            let connections = try ConnectionCommands.store(invocation, store)
            let connection = try existing(invocation.arguments.positionals[0], in: connections)
            try invocation.confirm("Delete the connection \(connection.name)? Applications stop offering it.")
            do {
                try connections.delete(name: connection.name)
            } catch StorageError.conflict(let why) {
                throw AdminError.failed(why)
            } catch {
                throw AdminError.failed("\(error)")
            }
            try invocation.audit("connections.deleted", details: ["connection": connection.name])
            return Output(json: ["name": connection.name, "deleted": true], text: "deleted connection \(connection.name)")
        })

    static let revocations = Command(
        ["connections", "revocations"],
        summary: "List the queue of Apple token revocations that account deletions started (never the tokens).",
        usage: "connections revocations [--limit N] [--json]",
        details: """
            Each deleted account's Apple refresh tokens are revoked at Apple by the daemon in the background,
            retried with backoff until Apple answers 200 (status done; the token is then dropped). failed:
            the connection was deleted before Apple could be told.
            """,
        valueFlags: ["--limit"],
        run: { invocation in
            let limit = try invocation.arguments.value("--limit").map { text -> Int in
                guard let number = Int(text), number > 0 else { throw AdminError.usage("--limit must be a positive number") }
                return number
            } ?? 50
            let store = try invocation.store()
            let entries = try storageFailures { () throws(StorageError) in try SQLiteUpstreamRevocationQueue.list(in: store, limit: limit) }
            func time(_ date: Date?) -> String { date.map { $0.formatted(.iso8601) } ?? "-" }
            return Output.table(["ID", "CONNECTION", "CLIENT ID", "STATUS", "ATTEMPTS", "CREATED", "NEXT ATTEMPT", "LAST ERROR"],
                                entries.map { [String($0.id), $0.connection, $0.clientID, $0.status.rawValue, String($0.attempts),
                                               time($0.createdAt), time($0.nextAttemptAt), $0.lastError ?? "-"] },
                                json: entries.map { entry -> [String: Any] in
                                    ["id": entry.id, "connection": entry.connection, "client_id": entry.clientID, "status": entry.status.rawValue,
                                     "attempts": entry.attempts, "created_at": time(entry.createdAt),
                                     "next_attempt_at": entry.nextAttemptAt.map(time) ?? NSNull(),
                                     "finished_at": entry.finishedAt.map(time) ?? NSNull(), "last_error": entry.lastError ?? NSNull()]
                                })
        })

    // MARK: - helpers

    static func store(_ invocation: Invocation, _ store: any GatehouseStorage) throws -> SQLiteConnectionStore {
        do {
            let manager = try KeyManager.open(store: store, settings: invocation.settings())
            return SQLiteConnectionStore(store: store, key: manager.derivedKey(purpose: ConnectionSecretKey.purpose))
        } catch let error as KeyError {
            throw AdminError.failed(error.description)
        }
    }

    static func existing(_ name: String, in connections: SQLiteConnectionStore) throws -> UpstreamConnection {
        guard let found = try storageFailures({ () throws(StorageError) in try connections.find(name: name) }) else {
            throw AdminError.failed("no connection named \(name)")
        }
        return found
    }

    /// Applies the flags given; returns the names of what changed.
    static func apply(_ invocation: Invocation, to connection: inout UpstreamConnection) throws -> [String] {
        let arguments = invocation.arguments
        var changed: [String] = []
        func optional(_ flag: String, _ keyPath: WritableKeyPath<UpstreamConnection, String?>) throws {
            guard let value = arguments.value(flag) else { return }
            if !value.isEmpty, urlFlags.contains(flag), let problem = UpstreamURLRule.problem(value) {
                throw AdminError.usage("\(flag) \(value): \(problem)")
            }
            connection[keyPath: keyPath] = value.isEmpty ? nil : value
            changed.append(String(flag.dropFirst(2)))
        }
        if let clientID = arguments.value("--client-id") {
            guard !clientID.isEmpty else { throw AdminError.usage("--client-id must not be empty") }
            connection.clientID = clientID
            changed.append("client-id")
        }
        try optional("--team-id", \.teamID)
        try optional("--key-id", \.keyID)
        try optional("--discovery-url", \.discoveryURL)
        try optional("--authorize-url", \.authorizeURL)
        try optional("--token-url", \.tokenURL)
        try optional("--jwks-url", \.jwksURL)
        try optional("--revoke-url", \.revokeURL)
        try optional("--issuer", \.issuer)
        try optional("--hosted-domain", \.hostedDomain)
        if let scopes = arguments.value("--scopes") {
            var list = commaList(scopes)
            if !list.contains("openid") { list.insert("openid", at: 0) }
            connection.scopes = list
            changed.append("scopes")
        }
        if let audiences = arguments.value("--native-audiences") {
            connection.nativeAudiences = commaList(audiences)
            changed.append("native-audiences")
        }
        if arguments.has("--link-by-verified-email") {
            connection.linkByVerifiedEmail = true
            changed.append("link-by-verified-email")
        } else if arguments.has("--no-link-by-verified-email") {
            connection.linkByVerifiedEmail = false
            changed.append("link-by-verified-email")
        }
        if arguments.has("--client-secret-stdin") {
            let secret = UserCommands.stripOneNewline(invocation.standardInput())
            guard !secret.isEmpty else { throw AdminError.usage("--client-secret-stdin: standard input is empty") }
            connection.clientSecret = secret
            changed.append("client-secret")
        }
        if let path = arguments.value("--private-key-file") {
            guard let data = FileManager.default.contents(atPath: path), let pem = String(data: data, encoding: .utf8),
                  pem.contains("-----BEGIN PRIVATE KEY-----") else {
                throw AdminError.failed("--private-key-file \(path): not a readable .p8 file (a PEM PRIVATE KEY)")
            }
            connection.privateKey = pem
            changed.append("private-key")
        }
        return changed
    }

    /// What a usable connection of its strategy needs.
    static func validate(_ connection: UpstreamConnection) throws {
        if connection.strategy == .oidc, connection.discoveryURL == nil,
           connection.authorizeURL == nil || connection.tokenURL == nil || connection.jwksURL == nil || connection.issuer == nil {
            throw AdminError.usage("an oidc connection needs --discovery-url, or --authorize-url, --token-url, --jwks-url and --issuer")
        }
        if connection.strategy == .apple, connection.clientSecret == nil,
           connection.privateKey == nil || connection.teamID == nil || connection.keyID == nil {
            throw AdminError.usage("an apple connection needs --team-id, --key-id and --private-key-file (or --client-secret-stdin)")
        }
        if let issuer = connection.issuer, let problem = UpstreamURLRule.problem(issuer) {
            throw AdminError.usage("--issuer \(issuer): \(problem)")
        }
    }

    /// Everything but the secrets: only whether each is set.
    static func describe(_ connection: UpstreamConnection, issuer: String) -> [String: Any] {
        var json: [String: Any] = [
            "name": connection.name, "strategy": connection.strategy.rawValue, "client_id": connection.clientID,
            "scopes": connection.scopes, "native_audiences": connection.nativeAudiences,
            "link_by_verified_email": connection.linkByVerifiedEmail,
            "client_secret_set": connection.clientSecret != nil, "private_key_set": connection.privateKey != nil,
            "callback_url": issuer + "login/callback", "apple_notifications_url": issuer + "login/apple/notifications",
        ]
        let optional: [(String, String?)] = [
            ("team_id", connection.teamID), ("key_id", connection.keyID), ("discovery_url", connection.discoveryURL),
            ("authorize_url", connection.authorizeURL), ("token_url", connection.tokenURL), ("jwks_url", connection.jwksURL),
            ("revoke_url", connection.revokeURL), ("issuer", connection.issuer), ("hosted_domain", connection.hostedDomain),
        ]
        for (key, value) in optional { json[key] = value ?? NSNull() }
        return json
    }

    static func text(_ json: [String: Any]) -> String {
        let order = ["name", "strategy", "client_id", "client_secret_set", "private_key_set", "team_id", "key_id", "discovery_url",
                     "authorize_url", "token_url", "jwks_url", "revoke_url", "issuer", "hosted_domain", "scopes", "native_audiences",
                     "link_by_verified_email", "callback_url", "apple_notifications_url"]
        return order.map { key in
            let value: String = switch json[key] {
            case let list as [String]: list.isEmpty ? "-" : list.joined(separator: ",")
            case let flag as Bool: flag ? "yes" : "no"
            case let text as String: text
            default: "-"
            }
            return "\(key): \(value)"
        }.joined(separator: "\n")
    }

    static func commaList(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
