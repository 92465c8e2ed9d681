import Crypto
import Foundation
import Model
import OIDC
import Storage

/// `idp-admin apps create | list | show`.
enum AppCommands {
    static let all = [create, list, show]

    /// Checks one allow-list entry an operator registers; returns its problems (empty: acceptable).
    typealias URLValidator = @Sendable (_ entry: String, _ kind: RedirectURIPolicy.ListKind, _ isNative: Bool) -> [String]

    /// The allow-list policy `apps create` applies: the real `RedirectURIPolicy` unless a test binds
    /// another for its own task (`AppCommands.$urlValidator.withValue(…) { … }`).
    @TaskLocal static var urlValidator: URLValidator = { entry, kind, isNative in
        RedirectURIPolicy.registrationProblems(entry, kind: kind, isNative: isNative)
    }

    static let create = Command(
        ["apps", "create"],
        summary: "Register an application; a confidential one gets a client secret, shown once.",
        usage: "apps create --name NAME --type native|spa|regular|m2m [--callbacks URL,…] [--logout-urls URL,…] [--web-origins ORIGIN,…] [--auth-method none|post|basic] [--grants G,…] [--id-token-alg RS256|ES256] [--apple-team-id ID] [--bundle-id ID] [--android-package NAME] [--android-sha256 FP,…] [--json]",
        details: """
            Types: native (iOS/Android app) and spa are public clients (no secret, PKCE); regular (server-side
            web app) and m2m (machine to machine) are confidential and get a client secret. The secret is printed
            once and stored only as an scrypt hash: keep it now, it cannot be shown again.
            Defaults by type: public clients use --auth-method none and grants authorization_code,refresh_token;
            confidential clients accept client_secret_basic and client_secret_post (narrow with --auth-method
            basic|post) and m2m gets client_credentials. Grant names are Auth0's grant_types values.
            Every URL is checked against the allow-list rules (custom schemes and loopback http only for native).
            --android-sha256 takes SHA-256 certificate fingerprints (AA:BB:…, 32 bytes).
            With --json prints {"client_id": …, "client_secret": …} (the secret only for confidential apps).
            """,
        valueFlags: ["--name", "--type", "--callbacks", "--logout-urls", "--web-origins", "--auth-method", "--grants",
                     "--id-token-alg", "--apple-team-id", "--bundle-id", "--android-package", "--android-sha256"],
        run: { invocation in
            let request = try AppRequest(invocation.arguments)
            let clientID = AppCommands.newClientID()
            let secret = request.type.isPublic ? nil : Random.token(bytes: 32)
            // A 256-bit random secret needs no slow hash; its SHA-256 keeps token requests fast.
            let secretHash = secret.map(SecretDigest.hash)
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let client = Client(
                clientID: clientID, name: request.name, type: request.type, secretHash: secretHash,
                authMethods: request.authMethods, grantTypes: request.grantTypes, idTokenAlgorithm: request.idTokenAlgorithm,
                callbacks: request.callbacks, logoutURLs: request.logoutURLs, webOrigins: request.webOrigins,
                appleTeamID: request.appleTeamID, bundleID: request.bundleID, androidPackage: request.androidPackage,
                androidSHA256: request.androidSHA256, createdAt: now)
            let store = try invocation.store()
            try storageFailures { () throws(StorageError) in try SQLiteClientStore(store: store).create(client) }
            try invocation.audit("apps.created", clientID: clientID, details: ["name": client.name, "type": client.type.rawValue])

            var json: [String: Any] = ["client_id": clientID]
            var text = "created \(client.type.rawValue) application \"\(client.name)\"\nclient_id:      \(clientID)"
            if let secret {
                json["client_secret"] = secret
                text += "\nclient_secret:  \(secret)\n\nwarning: the client secret is shown only once; store it now (Gatehouse keeps only a hash)."
            }
            return Output(json: json, text: text)
        })

    static let list = Command(
        ["apps", "list"],
        summary: "List applications (never their secrets).",
        usage: "apps list [--json]",
        run: { invocation in
            let store = try invocation.store()
            let clients = try storageFailures { () throws(StorageError) in try SQLiteClientStore(store: store).list() }
            return Output.table(["CLIENT_ID", "NAME", "TYPE", "CALLBACKS"],
                                clients.map { [$0.clientID, $0.name, $0.type.rawValue, $0.callbacks.joined(separator: ",")] },
                                json: clients.map { ["client_id": $0.clientID, "name": $0.name, "type": $0.type.rawValue,
                                                     "callbacks": $0.callbacks] as [String: Any] })
        })

    static let show = Command(
        ["apps", "show"],
        summary: "Show every setting of an application except its secret.",
        usage: "apps show CLIENT_ID [--json]",
        details: "has_secret says whether a (hashed) client secret is stored; the secret itself cannot be shown.",
        positionals: 1...1,
        run: { invocation in
            let clientID = invocation.arguments.positionals[0]
            let store = try invocation.store()
            guard let client = try storageFailures({ () throws(StorageError) in try SQLiteClientStore(store: store).find(clientID: clientID) }) else {
                throw AdminError.failed("no application with client_id \(clientID)")
            }
            let json = settings(client)
            let text = json.keys.sorted().map { key in "\(key): \(display(json[key]!))" }.joined(separator: "\n")
            return Output(json: json, text: text)
        })

    /// Every setting of `client` but its secret hash.
    static func settings(_ client: Client) -> [String: Any] {
        var object: [String: Any] = [
            "client_id": client.clientID, "name": client.name, "type": client.type.rawValue,
            "has_secret": client.secretHash != nil,
            "auth_methods": client.authMethods.map(\.rawValue), "grant_types": client.grantTypes.map(\.rawValue),
            "id_token_alg": client.idTokenAlgorithm, "access_token_lifetime": client.accessTokenLifetime,
            "id_token_lifetime": client.idTokenLifetime, "refresh_absolute_lifetime": client.refreshAbsoluteLifetime,
            "refresh_idle_lifetime": client.refreshIdleLifetime, "refresh_reuse_interval": client.refreshReuseInterval,
            "refresh_survives_logout": client.refreshSurvivesLogout, "introspection_enabled": client.introspectionEnabled,
            "callbacks": client.callbacks, "logout_urls": client.logoutURLs, "web_origins": client.webOrigins,
            "android_sha256": client.androidSHA256,
            "created_at": timestamp(client.createdAt), "updated_at": timestamp(client.updatedAt),
        ]
        if let value = client.appleTeamID { object["apple_team_id"] = value }
        if let value = client.bundleID { object["bundle_id"] = value }
        if let value = client.androidPackage { object["android_package"] = value }
        return object
    }

    private static func display(_ value: Any) -> String {
        switch value {
        case let list as [String]: list.isEmpty ? "(none)" : list.joined(separator: ", ")
        case let flag as Bool: flag ? "true" : "false"
        default: "\(value)"
        }
    }

    /// 32 random base62 characters (about 190 bits), the Auth0 client_id shape.
    static func newClientID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var id = ""
        while id.count < 32 {
            // Rejection sampling keeps every character equally likely: 248 = 4 × 62.
            for byte in Random.bytes(48) where byte < 248 && id.count < 32 {
                id.append(alphabet[Int(byte) % 62])
            }
        }
        return id
    }

    /// The problems of one entry under the allow-list policy; the single place `apps create` calls it.
    static func urlProblems(_ entry: String, kind: RedirectURIPolicy.ListKind, isNative: Bool) -> [String] {
        urlValidator(entry, kind, isNative)
    }
}

/// `apps create`'s flags, validated: usage errors (exit 2) for unknown values, failures (exit 1) for
/// values that contradict the application type or the allow-list rules.
struct AppRequest {
    let name: String
    let type: Client.ApplicationType
    let authMethods: [Client.AuthMethod]
    let grantTypes: [Client.GrantType]
    let idTokenAlgorithm: String
    let callbacks: [String]
    let logoutURLs: [String]
    let webOrigins: [String]
    let appleTeamID: String?
    let bundleID: String?
    let androidPackage: String?
    let androidSHA256: [String]

    init(_ arguments: Arguments) throws {
        guard let name = arguments.value("--name")?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            throw AdminError.usage("--name is required")
        }
        guard let typeName = arguments.value("--type") else { throw AdminError.usage("--type is required (native, spa, regular or m2m)") }
        guard let type = Client.ApplicationType(rawValue: typeName) else {
            throw AdminError.usage("--type must be native, spa, regular or m2m, not \(typeName)")
        }
        self.name = name
        self.type = type
        authMethods = try Self.authMethods(arguments.value("--auth-method"), type: type)
        grantTypes = try Self.grantTypes(arguments.value("--grants"), type: type)

        let algorithm = arguments.value("--id-token-alg") ?? "RS256"
        guard ["RS256", "ES256"].contains(algorithm) else {
            throw AdminError.usage("--id-token-alg must be RS256 or ES256, not \(algorithm)")
        }
        idTokenAlgorithm = algorithm

        let isNative = type == .native
        callbacks = try Self.urls(arguments, "--callbacks", kind: .callback, isNative: isNative)
        logoutURLs = try Self.urls(arguments, "--logout-urls", kind: .logout, isNative: isNative)
        webOrigins = try Self.urls(arguments, "--web-origins", kind: .webOrigin, isNative: isNative)

        appleTeamID = try arguments.value("--apple-team-id").map { id in
            guard id.count == 10, id.allSatisfy({ ($0.isASCII && $0.isUppercase) || ("0"..."9").contains($0) }) else {
                throw AdminError.failed("--apple-team-id \(id): an Apple team ID is 10 upper-case letters and digits")
            }
            return id
        }
        bundleID = try Self.nonEmpty(arguments, "--bundle-id")
        androidPackage = try Self.nonEmpty(arguments, "--android-package")
        androidSHA256 = try Self.list(arguments.value("--android-sha256")).map { fingerprint in
            let bytes = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
            guard bytes.count == 32, bytes.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
                throw AdminError.failed("--android-sha256 \(fingerprint): expected a SHA-256 fingerprint, 32 hex bytes separated by colons")
            }
            return fingerprint.uppercased()
        }
    }

    private static func authMethods(_ value: String?, type: Client.ApplicationType) throws -> [Client.AuthMethod] {
        guard let value else { return Client.defaultAuthMethods(for: type) }
        let method: Client.AuthMethod
        switch value {
        case "none": method = .none
        case "post": method = .clientSecretPost
        case "basic": method = .clientSecretBasic
        default: throw AdminError.usage("--auth-method must be none, post or basic, not \(value)")
        }
        if type.isPublic && method != .none {
            throw AdminError.failed("--auth-method \(value): a \(type.rawValue) application is public and cannot keep a secret; use none")
        }
        if !type.isPublic && method == .none {
            throw AdminError.failed("--auth-method none: a \(type.rawValue) application is confidential; use basic or post")
        }
        return [method]
    }

    private static func grantTypes(_ value: String?, type: Client.ApplicationType) throws -> [Client.GrantType] {
        guard let value else { return Client.defaultGrantTypes(for: type) }
        var grants: [Client.GrantType] = []
        for name in list(value) {
            guard let grant = Client.GrantType(rawValue: name) else {
                let known = Client.GrantType.allCases.map(\.rawValue).joined(separator: ", ")
                throw AdminError.usage("--grants: unknown grant type \(name) (known: \(known))")
            }
            if !grants.contains(grant) { grants.append(grant) }
        }
        guard !grants.isEmpty else { throw AdminError.usage("--grants needs at least one grant type") }
        if type == .m2m && grants.contains(.authorizationCode) {
            throw AdminError.failed("--grants authorization_code: an m2m application has no users to sign in; use client_credentials")
        }
        if type.isPublic && grants.contains(.clientCredentials) {
            throw AdminError.failed("--grants client_credentials: a \(type.rawValue) application is public and cannot keep the secret it needs")
        }
        return grants
    }

    private static func urls(_ arguments: Arguments, _ flag: String, kind: RedirectURIPolicy.ListKind, isNative: Bool) throws -> [String] {
        let entries = list(arguments.value(flag))
        for entry in entries {
            let problems = AppCommands.urlProblems(entry, kind: kind, isNative: isNative)
            if !problems.isEmpty {
                throw AdminError.failed("\(flag) \(entry): \(problems.joined(separator: "; "))")
            }
        }
        return entries
    }

    private static func nonEmpty(_ arguments: Arguments, _ flag: String) throws -> String? {
        guard let value = arguments.value(flag) else { return nil }
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw AdminError.usage("\(flag) needs a value") }
        return value
    }

    /// A comma-separated flag value, trimmed, without empty items.
    static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// Runs a store call, turning its failure into an operation failure (exit 1).
func storageFailures<T>(_ body: () throws(StorageError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw AdminError.failed(error.description)
    }
}
