import Crypto
import Foundation
import Model
import OIDC
import Storage

/// `idp-admin apps list | show | create | update | delete | rotate-secret`.
enum AppCommands {
    static let all = [list, show, create, update, delete, rotateSecret]

    /// The flags that set an application's settings, shared by `create` and `update`.
    static let settingFlags = [
        "--name", "--callbacks", "--logout-urls", "--web-origins", "--auth-method", "--grants", "--id-token-alg",
        "--access-token-lifetime", "--id-token-lifetime", "--refresh-absolute-lifetime", "--refresh-idle-lifetime",
        "--refresh-reuse-interval", "--refresh-survives-logout", "--introspection", "--signup", "--require-email-verification",
        "--apple-team-id", "--bundle-id", "--android-package", "--android-sha256", "--updated-at-format",
        "--logo-url", "--accent-color", "--allow-session-transfer", "--accept-session-transfer", "--session-transfer-binding",
    ]

    static let settingsUsage = "[--callbacks URL,…] [--logout-urls URL,…] [--web-origins ORIGIN,…] [--auth-method none|post|basic] [--grants G,…] [--id-token-alg RS256|ES256] [--access-token-lifetime SECONDS] [--id-token-lifetime SECONDS] [--refresh-absolute-lifetime SECONDS] [--refresh-idle-lifetime SECONDS] [--refresh-reuse-interval SECONDS] [--refresh-survives-logout true|false] [--introspection true|false] [--signup on|off] [--require-email-verification on|off] [--apple-team-id ID] [--bundle-id ID] [--android-package NAME] [--android-sha256 FP,…] [--updated-at-format iso|number] [--logo-url URL] [--accent-color '#RRGGBB'] [--allow-session-transfer on|off] [--accept-session-transfer cookie,query|cookie|query|off] [--session-transfer-binding ip|none] [--json]"

    static let settingsDetails = """
        Settings (create and update):
          --callbacks, --logout-urls, --web-origins   comma-separated allow-lists; every entry is checked against
              the allow-list rules: https only (plain http only for loopback hosts), custom schemes only for native
              apps (a scheme without a dot, e.g. myapp:, is accepted with a warning citing RFC 8252 §7.1), no
              fragments, no javascript:/data:/file:, a * wildcard only in the left-most host label with at least two
              labels after it. Every bad entry of every list is reported at once.
          --auth-method none|post|basic   none for public apps (native, spa); basic or post for confidential ones.
          --grants G,…                    Auth0 grant_types: authorization_code, refresh_token, client_credentials, …
          --id-token-alg RS256|ES256      RS256 is what Auth0.swift and Auth0.Android accept: ES256 on a native
                                          app gets a warning.
          --updated-at-format iso|number  the updated_at claim: iso (Auth0's ISO 8601 string, default) or number
                                          (OpenID Connect Core §5.1 seconds, for strict OpenID libraries).
          --access-token-lifetime SECONDS      1 to 2592000 (30 days), default 86400.
          --id-token-lifetime SECONDS          1 to 2592000, default 36000.
          --refresh-absolute-lifetime SECONDS  1 to 31557600 (a year), default 2592000.
          --refresh-idle-lifetime SECONDS      1 to 31557600, at most the absolute lifetime, default 1296000.
          --refresh-reuse-interval SECONDS     0 to 60, default 10: how long a rotated refresh token may be reused.
          --refresh-survives-logout true|false default true.
          --introspection true|false           allow token introspection, default false.
          --signup on|off                      people may create their own account (login page, /dbconnections/signup), default off.
          --require-email-verification on|off  a new address must be confirmed with an emailed code first, default off.
          --apple-team-id ID, --bundle-id ID   for apple-app-site-association (10 upper-case letters/digits).
          --android-package NAME, --android-sha256 FP,…   for assetlinks.json (SHA-256 fingerprints AA:BB:…, 32 bytes).
          --logo-url URL                       login-page logo: an https image URL (http only for loopback hosts),
                                               shown above the app's name; give it empty on update to remove it.
          --accent-color '#RRGGBB'             login-page button colour; its text is white when that reaches WCAG AA
                                               contrast (4.5:1), else black (a warning says so). Empty on update removes it.
          Native to web (README "Native to web"), Auth0's Native to Web SSO:
          --allow-session-transfer on|off      issuing side (the app): a refresh with audience urn:{issuer host}:session_transfer
                                               returns a one-time session transfer token for its web view, default off.
          --accept-session-transfer cookie,query|cookie|query|off
                                               receiving side (the web app): /authorize honours such a token from the
                                               session_transfer_token query parameter and/or the auth0_session_transfer_token
                                               cookie, and signs its user in without a login page, default off.
          --session-transfer-binding ip|none   issuing side: the token works only from the client address that asked for it
                                               (ip, default) or from any (none).
        Warnings (the change is still made): a name or bundle id another application already has, a native or SPA
        application without a callback, a native application signing ID tokens with ES256, a dotless custom scheme, an accent colour that needs black text.
        """

    static let create = Command(
        ["apps", "create"],
        summary: "Register an application; a confidential one gets a client secret, shown once.",
        usage: "apps create --name NAME --type native|spa|regular|m2m " + settingsUsage,
        details: """
            Types: native (iOS/Android app) and spa are public clients (no secret, PKCE); regular (server-side
            web app) and m2m (machine to machine) are confidential and get a client secret. The secret is printed
            once and stored only as a SHA-256 digest: keep it now, it cannot be shown again (rotate it with
            `idp-admin apps rotate-secret`).
            Defaults by type: public clients use --auth-method none and grants authorization_code,refresh_token;
            confidential clients accept client_secret_basic and client_secret_post (narrow with --auth-method
            basic|post) and m2m gets client_credentials.
            With --json prints {"client_id": …, "client_secret": …} (the secret only for confidential apps).

            """ + settingsDetails,
        valueFlags: ["--type"] + settingFlags,
        run: { invocation in
            let arguments = invocation.arguments
            guard let name = arguments.value("--name")?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
                throw AdminError.usage("--name is required")
            }
            guard let typeName = arguments.value("--type") else { throw AdminError.usage("--type is required (native, spa, regular or m2m)") }
            guard let type = Client.ApplicationType(rawValue: typeName) else {
                throw AdminError.usage("--type must be native, spa, regular or m2m, not \(typeName)")
            }
            let secret = type.isPublic ? nil : Random.token(bytes: 32)
            let now = wholeSeconds(Date())
            // A 256-bit random secret needs no slow hash; its SHA-256 keeps token requests fast.
            var client = Client(clientID: newClientID(), name: name, type: type, secretHash: secret.map(SecretDigest.hash), createdAt: now)
            _ = try AppSettings.apply(arguments, to: &client, creating: true, warnings: &invocation.warnings)
            let store = try invocation.store()
            invocation.warnings += try AppSettings.conflicts(client, among: SQLiteClientStore(store: store))
            try storageFailures { () throws(StorageError) in try SQLiteClientStore(store: store).create(client) }
            try invocation.audit("apps.created", clientID: client.clientID, details: ["name": client.name, "type": client.type.rawValue])

            var json: [String: Any] = ["client_id": client.clientID]
            var text = "created \(client.type.rawValue) application \"\(client.name)\"\nclient_id:      \(client.clientID)"
            if let secret {
                json["client_secret"] = secret
                text += "\nclient_secret:  \(secret)\n\nwarning: the client secret is shown only once; store it now (Gatehouse keeps only a digest)."
            }
            return Output(json: json, text: text)
        })

    static let update = Command(
        ["apps", "update"],
        summary: "Change some settings of an application; the daemon uses them at once.",
        usage: "apps update CLIENT_ID [--name NAME] [--connections NAME,…] " + settingsUsage,
        details: """
            Only the settings given change. A list flag replaces the whole list (--callbacks "" clears it); an
            empty --apple-team-id, --bundle-id or --android-package removes the value. The result is validated as
            for `apps create`, against the application's type (which cannot change). The type and the secret are
            never changed here: see `apps rotate-secret`. With --json prints the application as `apps show` does.
            --connections NAME,… sets the upstream connections its login page offers, in that order
            (--connections "" offers none; see `idp-admin connections`).

            """ + settingsDetails,
        valueFlags: settingFlags + ["--connections"],
        positionals: 1...1,
        run: { invocation in
            let clientID = invocation.arguments.positionals[0]
            let store = try invocation.store()
            let clients = SQLiteClientStore(store: store)
            var client = try existingClient(clientID, in: clients)
            var changed = try AppSettings.apply(invocation.arguments, to: &client, creating: false, warnings: &invocation.warnings)
            var enabled: [String]?
            if let names = invocation.arguments.value("--connections") {
                let list = ConnectionCommands.commaList(names)
                let connections = try ConnectionCommands.store(invocation, store)
                do {
                    try connections.setEnabled(list, clientID: clientID)
                } catch StorageError.notFound(let what) {
                    throw AdminError.failed("\(what) does not exist (see `idp-admin connections list`)")
                } catch {
                    throw AdminError.failed("\(error)")
                }
                enabled = list
                changed.append("connections")
            }
            guard !changed.isEmpty else { throw AdminError.usage("nothing to change: give at least one setting flag") }
            invocation.warnings += try AppSettings.conflicts(client, among: clients)
            client.updatedAt = wholeSeconds(Date())
            try storageFailures { () throws(StorageError) in try clients.update(client) }
            try invocation.audit("apps.updated", clientID: clientID, details: ["changed": changed.joined(separator: ",")])
            var json = settings(client)
            if let enabled { json["connections"] = enabled }
            return Output(json: json, text: "updated \(changed.joined(separator: ", ")) of \(clientID)\n\n" + describe(json))
        })

    static let delete = Command(
        ["apps", "delete"],
        summary: "Delete an application with its codes, grants and tokens.",
        usage: "apps delete CLIENT_ID [--yes] [--json]",
        details: """
            Removes the application, its pending authorization codes and sign-ins, its grants and refresh tokens
            (so its access tokens are no longer accepted by /userinfo) and its API grants. Cannot be undone.
            """,
        positionals: 1...1,
        run: { invocation in
            let clientID = invocation.arguments.positionals[0]
            let clients = SQLiteClientStore(store: try invocation.store())
            let client = try existingClient(clientID, in: clients)
            try invocation.confirm("Delete the application \"\(client.name)\" (\(clientID)) with its grants and tokens? This cannot be undone.")
            do {
                try clients.delete(clientID: clientID)
            } catch StorageError.notFound {
                throw AdminError.failed("no application with client_id \(clientID)")
            } catch {
                throw AdminError.failed("\(error)")
            }
            try invocation.audit("apps.deleted", clientID: clientID, details: ["name": client.name, "type": client.type.rawValue])
            return Output(json: ["client_id": clientID, "deleted": true], text: "deleted application \"\(client.name)\" (\(clientID))")
        })

    static let rotateSecret = Command(
        ["apps", "rotate-secret"],
        summary: "Give a confidential application a new client secret, shown once; the old one stops working.",
        usage: "apps rotate-secret CLIENT_ID [--yes] [--json]",
        details: """
            The new secret is printed once and stored only as a SHA-256 digest; the old secret is refused from
            now on, by the running daemon too. Public applications (native, spa) have no secret: exit status 1.
            With --json prints {"client_id": …, "client_secret": …}.
            """,
        positionals: 1...1,
        run: { invocation in
            let clientID = invocation.arguments.positionals[0]
            let clients = SQLiteClientStore(store: try invocation.store())
            var client = try existingClient(clientID, in: clients)
            guard client.isConfidential else {
                throw AdminError.failed("\(clientID) is a public (\(client.type.rawValue)) application; it has no client secret to rotate")
            }
            try invocation.confirm("Rotate the secret of \"\(client.name)\"? The current secret stops working at once.")
            let secret = Random.token(bytes: 32)
            client.secretHash = SecretDigest.hash(secret)
            client.updatedAt = wholeSeconds(Date())
            try storageFailures { () throws(StorageError) in try clients.update(client) }
            try invocation.audit("apps.secret_rotated", clientID: clientID, details: ["name": client.name])
            return Output(json: ["client_id": clientID, "client_secret": secret],
                          text: "client_id:      \(clientID)\nclient_secret:  \(secret)\n\nwarning: the new client secret is shown only once; store it now. The old secret no longer works.")
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
            let client = try existingClient(clientID, in: SQLiteClientStore(store: try invocation.store()))
            let json = settings(client)
            return Output(json: json, text: describe(json))
        })

    static func existingClient(_ clientID: String, in clients: SQLiteClientStore) throws -> Client {
        guard let client = try storageFailures({ () throws(StorageError) in try clients.find(clientID: clientID) }) else {
            throw AdminError.failed("no application with client_id \(clientID)")
        }
        return client
    }

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
            "signup_enabled": client.signupEnabled, "require_email_verification": client.requireEmailVerification,
            "callbacks": client.callbacks, "logout_urls": client.logoutURLs, "web_origins": client.webOrigins,
            "android_sha256": client.androidSHA256, "updated_at_format": client.updatedAtFormat.rawValue,
            "allow_session_transfer": client.sessionTransfer.allowIssue, "accept_session_transfer": client.sessionTransfer.acceptText,
            "session_transfer_binding": client.sessionTransfer.binding.rawValue,
            "created_at": timestamp(client.createdAt), "updated_at": timestamp(client.updatedAt),
        ]
        if let value = client.appleTeamID { object["apple_team_id"] = value }
        if let value = client.bundleID { object["bundle_id"] = value }
        if let value = client.androidPackage { object["android_package"] = value }
        if let value = client.logoURL { object["logo_url"] = value }
        if let value = client.accentColor { object["accent_color"] = value }
        return object
    }

    static func describe(_ json: [String: Any]) -> String {
        json.keys.sorted().map { key in "\(key): \(display(json[key]!))" }.joined(separator: "\n")
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
}

/// Dates are stored in whole seconds.
func wholeSeconds(_ date: Date) -> Date {
    Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
}

/// The setting flags of `apps create` and `apps update`, applied to a client and validated:
/// usage errors (exit 2) for malformed values, failures (exit 1) for values that contradict the
/// application type or the allow-list rules. Allow-list entries go through the real
/// `RedirectURIPolicy.registrationProblems`, the same rules as /authorize's.
enum AppSettings {
    static let maximumTokenLifetime = 2_592_000
    static let maximumRefreshLifetime = 31_557_600

    /// Applies the flags present in `arguments`; returns the names of the settings given.
    static func apply(_ arguments: Arguments, to client: inout Client, creating: Bool, warnings: inout [String]) throws -> [String] {
        var changed: [String] = []
        func given(_ flag: String) -> String? {
            guard let value = arguments.value(flag) else { return nil }
            changed.append(String(flag.dropFirst(2)))
            return value
        }
        let type = client.type
        let isNative = type == .native

        if !creating, let name = given("--name") {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { throw AdminError.usage("--name needs a value") }
            client.name = trimmed
        }
        if let value = given("--auth-method") { client.authMethods = try authMethods(value, type: type) }
        if let value = given("--grants") { client.grantTypes = try grantTypes(value, type: type) }
        if let value = given("--id-token-alg") {
            guard ["RS256", "ES256"].contains(value) else { throw AdminError.usage("--id-token-alg must be RS256 or ES256, not \(value)") }
            client.idTokenAlgorithm = value
        }
        if let value = given("--updated-at-format") {
            guard let format = Client.UpdatedAtFormat(rawValue: value) else {
                throw AdminError.usage("--updated-at-format must be iso or number, not \(value)")
            }
            client.updatedAtFormat = format
        }
        // Every bad entry of every list at once, as the config loader reports every problem.
        var urlProblems: [String] = []
        if let value = given("--callbacks") {
            client.callbacks = urls(value, "--callbacks", kind: .callback, isNative: isNative, problems: &urlProblems, warnings: &warnings)
        }
        if let value = given("--logout-urls") {
            client.logoutURLs = urls(value, "--logout-urls", kind: .logout, isNative: isNative, problems: &urlProblems, warnings: &warnings)
        }
        if let value = given("--web-origins") {
            client.webOrigins = urls(value, "--web-origins", kind: .webOrigin, isNative: isNative, problems: &urlProblems, warnings: &warnings)
        }
        if !urlProblems.isEmpty {
            throw AdminError.failed(urlProblems.count == 1 ? urlProblems[0]
                                    : "\(urlProblems.count) URLs refused:\n  " + urlProblems.joined(separator: "\n  "))
        }

        if let value = given("--access-token-lifetime") {
            client.accessTokenLifetime = try seconds(value, "--access-token-lifetime", 1...maximumTokenLifetime)
        }
        if let value = given("--id-token-lifetime") {
            client.idTokenLifetime = try seconds(value, "--id-token-lifetime", 1...maximumTokenLifetime)
        }
        if let value = given("--refresh-absolute-lifetime") {
            client.refreshAbsoluteLifetime = try seconds(value, "--refresh-absolute-lifetime", 1...maximumRefreshLifetime)
        }
        if let value = given("--refresh-idle-lifetime") {
            client.refreshIdleLifetime = try seconds(value, "--refresh-idle-lifetime", 1...maximumRefreshLifetime)
        }
        if let value = given("--refresh-reuse-interval") {
            client.refreshReuseInterval = try seconds(value, "--refresh-reuse-interval", 0...60)
        }
        if let value = given("--refresh-survives-logout") { client.refreshSurvivesLogout = try flag(value, "--refresh-survives-logout") }
        if let value = given("--introspection") { client.introspectionEnabled = try flag(value, "--introspection") }
        if let value = given("--signup") { client.signupEnabled = try flag(value, "--signup") }
        if let value = given("--require-email-verification") {
            client.requireEmailVerification = try flag(value, "--require-email-verification")
        }

        if let value = given("--apple-team-id") {
            client.appleTeamID = try optionalValue(value, "--apple-team-id", creating: creating).map { id in
                guard id.count == 10, id.allSatisfy({ ($0.isASCII && $0.isUppercase) || ("0"..."9").contains($0) }) else {
                    throw AdminError.failed("--apple-team-id \(id): an Apple team ID is 10 upper-case letters and digits")
                }
                return id
            }
        }
        if let value = given("--bundle-id") { client.bundleID = try optionalValue(value, "--bundle-id", creating: creating) }
        if let value = given("--android-package") { client.androidPackage = try optionalValue(value, "--android-package", creating: creating) }
        if let value = given("--android-sha256") {
            client.androidSHA256 = try list(value).map { fingerprint in
                let bytes = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
                guard bytes.count == 32, bytes.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
                    throw AdminError.failed("--android-sha256 \(fingerprint): expected a SHA-256 fingerprint, 32 hex bytes separated by colons")
                }
                return fingerprint.uppercased()
            }
        }

        if let value = given("--logo-url") {
            client.logoURL = try optionalValue(value, "--logo-url", creating: creating).map { url throws in try logoURL(url) }
        }
        if let value = given("--accent-color") {
            client.accentColor = try optionalValue(value, "--accent-color", creating: creating).map { text throws in
                guard let color = BrandColor(text) else {
                    throw AdminError.usage("--accent-color \(text): expected a colour as #RRGGBB, e.g. #0b57d0")
                }
                if !color.readsWithWhiteText {
                    let ratio = (color.contrast(with: BrandColor("#ffffff")!) * 100).rounded() / 100
                    warnings.append("--accent-color \(color.hex): white text on it has a contrast of \(ratio):1, under WCAG AA's 4.5:1, "
                                    + "so the login page writes its button text in black")
                }
                return color.hex
            }
        }

        if let value = given("--allow-session-transfer") {
            client.sessionTransfer.allowIssue = try flag(value, "--allow-session-transfer")
        }
        if let value = given("--accept-session-transfer") {
            guard let channels = SessionTransferPolicy.channels(value) else {
                throw AdminError.usage("--accept-session-transfer must be cookie,query, cookie, query or off, not \(value)")
            }
            client.sessionTransfer.accept = channels
        }
        if let value = given("--session-transfer-binding") {
            guard let binding = SessionTransferPolicy.Binding(rawValue: value) else {
                throw AdminError.usage("--session-transfer-binding must be ip or none, not \(value)")
            }
            client.sessionTransfer.binding = binding
        }
        if client.sessionTransfer.allowIssue, !client.grantTypes.contains(.refreshToken), creating || changed.contains("allow-session-transfer") {
            warnings.append("--allow-session-transfer on: the application has no refresh_token grant, and a session transfer token is asked for with a refresh token")
        }

        if client.refreshIdleLifetime > client.refreshAbsoluteLifetime {
            throw AdminError.failed("--refresh-idle-lifetime \(client.refreshIdleLifetime) is longer than --refresh-absolute-lifetime \(client.refreshAbsoluteLifetime)")
        }
        if isNative, client.idTokenAlgorithm == "ES256", creating || changed.contains("id-token-alg") {
            warnings.append("--id-token-alg ES256 on a native application: Auth0.swift and Auth0.Android verify RS256 ID tokens only "
                            + "(\"Signature algorithm of \"ES256\" is not supported\"); apps built on them cannot sign in")
        }
        if type.isPublic, client.callbacks.isEmpty, creating || changed.contains("callbacks") {
            warnings.append("a \(type.rawValue) application without callback URLs cannot sign anyone in; add them with --callbacks")
        }
        return changed
    }

    /// Warnings for what another application already uses: its name (people pick apps by name) or its
    /// bundle id (the association files would then list two apps for one bundle).
    static func conflicts(_ client: Client, among clients: SQLiteClientStore) throws -> [String] {
        let others = try storageFailures { () throws(StorageError) in try clients.list() }.filter { $0.clientID != client.clientID }
        var warnings: [String] = []
        if let same = others.first(where: { $0.name.lowercased() == client.name.lowercased() }) {
            warnings.append("another application is named \"\(same.name)\" (\(same.clientID))")
        }
        if let bundleID = client.bundleID, let same = others.first(where: { $0.bundleID == bundleID }) {
            warnings.append("another application has the bundle id \(bundleID) (\(same.name), \(same.clientID))")
        }
        return warnings
    }

    static func authMethods(_ value: String, type: Client.ApplicationType) throws -> [Client.AuthMethod] {
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

    static func grantTypes(_ value: String, type: Client.ApplicationType) throws -> [Client.GrantType] {
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

    /// The list's entries, deduplicated; refused entries go to `problems`, risky ones to `warnings`.
    static func urls(_ value: String, _ flag: String, kind: RedirectURIPolicy.ListKind, isNative: Bool,
                     problems: inout [String], warnings: inout [String]) -> [String] {
        let entries = list(value)
        for entry in entries {
            let refused = RedirectURIPolicy.registrationProblems(entry, kind: kind, isNative: isNative)
            if !refused.isEmpty { problems.append("\(flag) \(entry): \(refused.joined(separator: "; "))") }
            for warning in RedirectURIPolicy.registrationWarnings(entry, kind: kind, isNative: isNative) {
                warnings.append("\(flag) \(entry): \(warning)")
            }
        }
        var unique: [String] = []
        for entry in entries where !unique.contains(entry) { unique.append(entry) }
        return unique
    }

    static func seconds(_ value: String, _ flag: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw AdminError.usage("\(flag) must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
        return number
    }

    static func flag(_ value: String, _ flag: String) throws -> Bool {
        switch value {
        case "true", "on": true
        case "false", "off": false
        default: throw AdminError.usage("\(flag) must be on or off (true or false), not \(value)")
        }
    }

    /// A value that may be removed on update by giving it empty.
    private static func optionalValue(_ value: String, _ flag: String, creating: Bool) throws -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty {
            if creating { throw AdminError.usage("\(flag) needs a value") }
            return nil
        }
        return trimmed
    }

    /// A logo the login page can load: an absolute https URL (http only on a loopback host, for
    /// development), no credentials, no fragment, at most 2048 bytes. The page allows its origin in `img-src`.
    static func logoURL(_ url: String) throws -> String {
        let scheme = url.prefix { $0 != ":" }.lowercased()
        guard url.utf8.count <= 2048, !url.contains("#"), url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
              let origin = WebOrigin.normalize(url, allowPath: true) else {
            throw AdminError.failed("--logo-url \(url): expected an absolute https URL of an image (no spaces, credentials or fragment)")
        }
        let authority = origin.split(separator: "/").last ?? ""
        let host = authority.hasPrefix("[") ? authority.prefix { $0 != "]" } + "]" : authority.prefix { $0 != ":" }
        let loopback = host == "127.0.0.1" || host == "localhost" || host == "[::1]"
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw AdminError.failed("--logo-url \(url): use https (plain http only for loopback hosts)")
        }
        return url
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
        throw AdminError.failed("\(error)")
    }
}
