import Crypto
import Foundation
import Model
import Storage
import Testing
import TestSupport

/// Auth0's account endpoints through the daemon's real routes, in-process, with the exact bodies
/// Auth0.swift and Auth0.Android send (`../shared/docs/auth0-compat.md` §1) and the codes the SDKs
/// test for. The mail queue is the test's, so the code a message carries can be used.
@Suite("Account endpoints in-process")
struct AccountEndpointTests {
    static let connection = "Username-Password-Authentication"
    static let strong = "Tr0ubadour-horse"
    let harness: RouteHarness
    let mail = MemoryMailQueue()

    init() throws {
        harness = try RouteHarness(mail: mail)
        let clients = SQLiteClientStore(store: harness.store)
        try clients.create(Client(clientID: "open", name: "Open App", type: .native,
                                  grantTypes: [.authorizationCode, .refreshToken, .passwordRealm, .passwordlessOTP],
                                  callbacks: ["com.example.open://cb"], signupEnabled: true, createdAt: Date()))
        try clients.create(Client(clientID: "closed", name: "Invite Only", type: .native,
                                  grantTypes: [.authorizationCode, .refreshToken, .passwordRealm, .passwordlessOTP],
                                  callbacks: ["com.example.closed://cb"], createdAt: Date()))
        try clients.create(Client(clientID: "verified", name: "Checked", type: .native,
                                  grantTypes: [.authorizationCode, .refreshToken, .passwordRealm],
                                  callbacks: ["com.example.checked://cb"], signupEnabled: true, requireEmailVerification: true,
                                  createdAt: Date()))
        try SQLiteUserStore(store: harness.store).create(User(
            userID: "auth0|alice", email: "alice@example.com", emailVerified: true, passwordHash: try PasswordHash.hash(Self.strong),
            createdAt: Date()))
    }

    func signup(_ email: String, password: String = AccountEndpointTests.strong, client: String = "open",
                extra: [String: Any] = [:], from ip: String = "198.51.100.7") -> RouteHarness.Response {
        var body: [String: Any] = ["email": email, "password": password, "connection": Self.connection, "client_id": client]
        body.merge(extra) { _, new in new }
        return harness.postJSON("/dbconnections/signup", body, from: ip)
    }

    func passwordRealm(_ email: String, password: String, client: String, extra: [String: String] = [:]) -> RouteHarness.Response {
        var body = ["grant_type": "http://auth0.com/oauth/grant-type/password-realm", "username": email, "password": password,
                    "realm": Self.connection, "client_id": client, "scope": "openid profile email offline_access"]
        body.merge(extra) { _, new in new }
        return harness.postJSON("/oauth/token", body)
    }

    func otp(_ email: String, _ code: String, client: String = "open") -> RouteHarness.Response {
        harness.postJSON("/oauth/token", ["grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "realm": "email",
                                          "username": email, "otp": code, "client_id": client, "scope": "openid profile email offline_access"])
    }

    // MARK: - signup

    @Test func signupCreatesAnUnverifiedUserWithItsMetadataAndSendsACode() throws {
        let response = signup("New.Person@Example.com", extra: ["user_metadata": ["plan": "free", "referrer": "ad"], "username": "newbie"])
        #expect(response.status == 200, "\(response.text)")
        let body = response.json
        #expect(body["email"] as? String == "New.Person@Example.com")
        #expect(body["email_verified"] as? Bool == false)
        #expect(body["username"] as? String == "newbie")
        let id = try #require(body["_id"] as? String)
        #expect(id.count == 24)
        let user = try #require(try SQLiteUserStore(store: harness.store).find(email: "new.person@example.com"))
        #expect(user.userID == "auth0|" + id)
        #expect(user.userMetadata == ["plan": "free", "referrer": "ad"])
        #expect(!user.emailVerified)
        let message = try #require(mail.last(to: "New.Person@Example.com"))
        #expect(message.template == .verifyEmail)
        #expect(message.values["code"]?.count == 6 && message.values["app_name"] == "Open App")
        #expect(message.values["link"]?.hasPrefix(harness.issuer + "verify-email?ticket=") == true)
    }

    @Test func aFormBodySignsUpToo() {
        let response = harness.post("/dbconnections/signup", form: [("email", "form@example.com"), ("password", Self.strong),
                                                                    ("connection", Self.connection), ("client_id", "open")])
        #expect(response.status == 200, "\(response.text)")
    }

    struct SignupRefusal: Sendable, CustomTestStringConvertible {
        let name: String
        var email = "someone@example.com"
        var password = AccountEndpointTests.strong
        var client = "open"
        var extra: [String: String] = [:]
        let status: Int
        let code: String
        var errorName: String?
        var testDescription: String { name }
    }

    static let refusals: [SignupRefusal] = [
        .init(name: "too short", password: "Ab1", status: 400, code: "invalid_password", errorName: "PasswordStrengthError"),
        .init(name: "no digit or capital", password: "lowercase only", status: 400, code: "invalid_password", errorName: "PasswordStrengthError"),
        .init(name: "a known leaked password", password: "Password123", status: 400, code: "password_leaked"),
        .init(name: "the email as password", email: "Mixed1case@example.com", password: "Mixed1case@example.com", status: 400,
              code: "password_leaked"),
        .init(name: "an existing email, any case", email: "ALICE@example.com", status: 400, code: "invalid_signup"),
        .init(name: "another connection", extra: ["connection": "google-oauth2"], status: 400, code: "bad.connection"),
        .init(name: "signup off", client: "closed", status: 403, code: "unauthorized"),
        .init(name: "an unknown application", client: "nope", status: 401, code: "invalid_client"),
        .init(name: "not an address", email: "not-an-email", status: 400, code: "invalid_request"),
        .init(name: "a space in the address", email: "a b@example.com", status: 400, code: "invalid_request"),
    ]

    @Test(arguments: refusals)
    func signupRefusals(_ row: SignupRefusal) throws {
        let response = signup(row.email, password: row.password, client: row.client, extra: row.extra)
        #expect(response.status == row.status, "\(response.text)")
        #expect(response.json["code"] as? String == row.code, "\(response.text)")
        #expect(response.json["description"] is String)
        if let name = row.errorName { #expect(response.json["name"] as? String == name) }
        if row.code == "invalid_password" {
            let description = response.json["description"] as? String ?? ""
            #expect(description.hasPrefix("Password is too weak. It needs ") && description.contains(row.password.count < 8 ? "at least 8" : "upper-case"))
        }
        // Nothing created, nothing sent.
        if row.code != "invalid_signup" { #expect(try SQLiteUserStore(store: harness.store).find(email: row.email) == nil) }
        #expect(mail.messages.isEmpty)
    }

    @Test func metadataThatIsNotAFlatObjectOfStringsIsRefused() {
        for bad: Any in [["nested": ["a": "b"]], ["n": 1], "not json", Dictionary(uniqueKeysWithValues: (0..<17).map { ("k\($0)", "v") })] {
            let response = signup("meta@example.com", extra: ["user_metadata": bad])
            #expect(response.status == 400 && response.json["code"] as? String == "invalid_request", "\(bad): \(response.text)")
        }
    }

    @Test func signupIsRateLimitedPerAddress() {
        var statuses: [Int] = []
        for index in 0..<31 { statuses.append(signup("flood\(index)@example.com", password: "short", from: "203.0.113.9").status) }
        #expect(statuses.prefix(30).allSatisfy { $0 == 400 })
        #expect(statuses.last == 429)
        // Another address is not affected.
        #expect(signup("other@example.com", from: "203.0.113.10").status == 200)
    }

    // MARK: - verification and the password grants

    @Test func aPasswordGrantBeforeVerificationIsRequiresVerification() throws {
        #expect(signup("check@example.com", client: "verified").status == 200)
        let refused = passwordRealm("check@example.com", password: Self.strong, client: "verified")
        #expect(refused.status == 400)
        #expect(refused.json["error"] as? String == "requires_verification")
        // The emailed link confirms the address in any browser, once.
        let link = try #require(mail.last(to: "check@example.com")?.values["link"])
        let ticket = String(link.split(separator: "=", maxSplits: 1)[1])
        harness.clearCookies()
        #expect(harness.get(link).status == 200)  // opening the link changes nothing
        #expect(passwordRealm("check@example.com", password: Self.strong, client: "verified").status == 400)
        #expect(harness.post("/verify-email", form: [("ticket", ticket)]).status == 200)
        #expect(harness.post("/verify-email", form: [("ticket", ticket)]).status == 410)
        let granted = passwordRealm("check@example.com", password: Self.strong, client: "verified")
        #expect(granted.status == 200, "\(granted.text) \(granted.headers)")
    }

    // MARK: - change_password

    @Test func changePasswordAnswersTheSameForEveryAddress() throws {
        for email in ["alice@example.com", "nobody@example.com"] {
            let response = harness.postJSON("/dbconnections/change_password",
                                            ["email": email, "connection": Self.connection, "client_id": "closed"])
            #expect(response.status == 200)
            #expect(response.text == "We've just sent you an email to reset your password.")
        }
        #expect(mail.messages.map(\.to) == ["alice@example.com"])
        let message = try #require(mail.last(to: "alice@example.com"))
        #expect(message.template == .resetPassword && message.values["code"]?.count == 6)
        #expect(message.values["link"]?.hasPrefix(harness.issuer + "reset-password?ticket=") == true)
    }

    @Test func theResetLinkWorksOnceInAnyBrowserAndEndsEverything() throws {
        let before = passwordRealm("alice@example.com", password: Self.strong, client: "open")
        let oldRefresh = try #require(before.json["refresh_token"] as? String)
        _ = harness.postJSON("/dbconnections/change_password", ["email": "alice@example.com", "connection": Self.connection, "client_id": "open"])
        let link = try #require(mail.last(to: "alice@example.com")?.values["link"])
        let ticket = String(link.split(separator: "=", maxSplits: 1)[1])
        harness.clearCookies()
        let form = harness.get(link)
        #expect(form.status == 200 && form.text.contains("autocomplete=\"new-password\""))
        let weak = harness.post("/reset-password", form: [("ticket", ticket), ("password", "weak")])
        #expect(weak.status == 400 && weak.text.contains("at least 8 characters"))
        let done = harness.post("/reset-password", form: [("ticket", ticket), ("password", "N3w-password-here")])
        #expect(done.status == 200, "\(done.text)")
        #expect(harness.post("/reset-password", form: [("ticket", ticket), ("password", "An0ther-password")]).status == 410)
        #expect(passwordRealm("alice@example.com", password: Self.strong, client: "open").status == 400)
        #expect(passwordRealm("alice@example.com", password: "N3w-password-here", client: "open").status == 200)
        let refresh = harness.postJSON("/oauth/token", ["grant_type": "refresh_token", "refresh_token": oldRefresh, "client_id": "open"])
        #expect(refresh.status == 400 && refresh.json["error"] as? String == "invalid_grant")
    }

    @Test func oneAddressGetsAtMostFiveMessagesAnHour() {
        for _ in 0..<7 {
            let response = harness.postJSON("/dbconnections/change_password",
                                            ["email": "alice@example.com", "connection": Self.connection, "client_id": "open"])
            #expect(response.status == 200)
        }
        #expect(mail.messages.count == 5)
    }

    @Test func resetRequestsForOneEmailAreLimitedWhateverTheAddress() {
        var statuses: [Int] = []
        for index in 0..<11 {
            statuses.append(harness.postJSON("/dbconnections/change_password",
                                             ["email": "target@example.com", "connection": Self.connection, "client_id": "open"],
                                             from: "192.0.2.\(index + 1)").status)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 200 } && statuses.last == 429)
    }

    /// Known and unknown addresses both take the padded time, so timing tells nothing.
    @Test func resetAndPasswordlessTakeAtLeastTheUniformTime() {
        for email in ["alice@example.com", "nobody@example.com"] {
            let clock = ContinuousClock()
            let reset = clock.measure {
                _ = harness.postJSON("/dbconnections/change_password", ["email": email, "connection": Self.connection, "client_id": "closed"])
            }
            let start = clock.measure {
                _ = harness.postJSON("/passwordless/start", ["email": email, "connection": "email", "send": "code", "client_id": "closed"])
            }
            #expect(reset >= .milliseconds(60) && start >= .milliseconds(60), "\(email): \(reset) \(start)")
        }
    }

    // MARK: - passwordless

    @Test func aPasswordlessCodeSignsInAKnownUser() throws {
        let start = harness.postJSON("/passwordless/start", ["email": "alice@example.com", "connection": "email", "send": "code",
                                                             "client_id": "closed"])
        #expect(start.status == 200, "\(start.text)")
        let code = try #require(mail.last(to: "alice@example.com")?.values["code"])
        let tokens = otp("alice@example.com", code, client: "closed")
        #expect(tokens.status == 200, "\(tokens.text)")
        #expect(tokens.json["id_token"] is String && tokens.json["refresh_token"] is String)
        // A code works once.
        #expect(otp("alice@example.com", code, client: "closed").json["error_description"] as? String == "Wrong email or verification code.")
    }

    @Test func anUnknownAddressWithoutSignupGetsTheSameAnswerAndNothingHappens() throws {
        let known = harness.postJSON("/passwordless/start", ["email": "alice@example.com", "connection": "email", "send": "link",
                                                             "client_id": "closed"])
        let unknown = harness.postJSON("/passwordless/start", ["email": "stranger@example.com", "connection": "email", "send": "link",
                                                               "client_id": "closed"])
        #expect(known.status == 200 && unknown.status == 200)
        #expect(known.text.replacingOccurrences(of: "alice", with: "x") == unknown.text.replacingOccurrences(of: "stranger", with: "x"))
        #expect(mail.messages.map(\.to) == ["alice@example.com"])
        #expect(try SQLiteUserStore(store: harness.store).find(email: "stranger@example.com") == nil)
    }

    @Test func passwordlessSignupCreatesAVerifiedUserWhereSignupIsOn() throws {
        #expect(harness.postJSON("/passwordless/start", ["email": "fresh@example.com", "connection": "email", "send": "code",
                                                         "client_id": "open"]).status == 200)
        let code = try #require(mail.last(to: "fresh@example.com")?.values["code"])
        #expect(otp("fresh@example.com", code).status == 200)
        let user = try #require(try SQLiteUserStore(store: harness.store).find(email: "fresh@example.com"))
        #expect(user.emailVerified && user.passwordHash == nil && user.userID.hasPrefix("auth0|"))
    }

    @Test func wrongCodesCountAndTheFifthKillsTheCode() throws {
        _ = harness.postJSON("/passwordless/start", ["email": "alice@example.com", "connection": "email", "send": "code", "client_id": "open"])
        let code = try #require(mail.last(to: "alice@example.com")?.values["code"])
        let wrong = code == "000000" ? "111111" : "000000"
        for _ in 0..<5 {
            let response = otp("alice@example.com", wrong)
            #expect(response.status == 400)
            #expect(response.json["error"] as? String == "invalid_grant")
            #expect(response.json["error_description"] as? String == "Wrong email or verification code.")
        }
        #expect(otp("alice@example.com", code).json["error"] as? String == "invalid_grant")
    }

    struct StartRefusal: Sendable, CustomTestStringConvertible {
        let name: String
        let body: [String: String]
        let status: Int
        let error: String
        var testDescription: String { name }
    }

    static let startRefusals: [StartRefusal] = [
        .init(name: "sms", body: ["phone_number": "+81900000000", "connection": "sms", "send": "code", "client_id": "open"],
              status: 400, error: "bad.connection"),
        .init(name: "an unknown send", body: ["email": "a@example.com", "connection": "email", "send": "carrier-pigeon", "client_id": "open"],
              status: 400, error: "invalid_request"),
        .init(name: "no grant", body: ["email": "a@example.com", "connection": "email", "send": "code", "client_id": "verified"],
              status: 403, error: "unauthorized_client"),
        .init(name: "no email", body: ["connection": "email", "send": "code", "client_id": "open"], status: 400, error: "invalid_request"),
        .init(name: "unknown client", body: ["email": "a@example.com", "connection": "email", "client_id": "ghost"], status: 401,
              error: "invalid_client"),
    ]

    @Test(arguments: startRefusals)
    func passwordlessStartRefusals(_ row: StartRefusal) {
        let response = harness.postJSON("/passwordless/start", row.body)
        #expect(response.status == row.status, "\(response.text)")
        #expect(response.json["error"] as? String == row.error, "\(response.text)")
        #expect(mail.messages.isEmpty)
    }

    @Test func theOTPGrantNeedsTheGrantAndRealmEmail() {
        #expect(otp("alice@example.com", "123456", client: "verified").json["error"] as? String == "unauthorized_client")
        let sms = harness.postJSON("/oauth/token", ["grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "realm": "sms",
                                                    "username": "+8190", "otp": "123456", "client_id": "open"])
        #expect(sms.json["error"] as? String == "invalid_request")
    }

    // MARK: - the current user's profile (Management API path)

    func managementToken(scope: String) throws -> String {
        let response = passwordRealm("alice@example.com", password: Self.strong, client: "open",
                                     extra: ["audience": harness.issuer + "api/v2/", "scope": "openid " + scope])
        #expect(response.status == 200, "\(response.text)")
        return try #require(response.json["access_token"] as? String)
    }

    @Test func theCurrentUserReadsAndPatchesTheirOwnMetadata() throws {
        let token = try managementToken(scope: "read:current_user update:current_user_metadata read:users")
        let auth = [("Authorization", "Bearer " + token)]
        let read = harness.get("/api/v2/users/auth0%7Calice", headers: auth)
        #expect(read.status == 200, "\(read.text) \(token)")
        #expect(read.json["user_id"] as? String == "auth0|alice" && read.json["email"] as? String == "alice@example.com")
        let patched = harness.send("PATCH", "/api/v2/users/auth0%7Calice", headers: auth + [("Content-Type", "application/json")],
                                   body: Array(#"{"user_metadata":{"theme":"dark","lang":"ja"}}"#.utf8), from: "198.51.100.7")
        #expect(patched.status == 200, "\(patched.text)")
        let merged = harness.send("PATCH", "/api/v2/users/auth0%7Calice", headers: auth + [("Content-Type", "application/json")],
                                  body: Array(#"{"user_metadata":{"theme":null,"tz":"Asia/Tokyo"}}"#.utf8), from: "198.51.100.7")
        #expect((merged.json["user_metadata"] as? [String: String]) == ["lang": "ja", "tz": "Asia/Tokyo"])
        // The scope outside the current-user set was never granted.
        #expect(try SQLiteUserStore(store: harness.store).find(userID: "auth0|alice")?.userMetadata == ["lang": "ja", "tz": "Asia/Tokyo"])
    }

    @Test func theManagementPathRefusesEverythingElse() throws {
        let readOnly = try managementToken(scope: "read:current_user")
        let userinfoToken = try #require(passwordRealm("alice@example.com", password: Self.strong, client: "open").json["access_token"] as? String)
        let cases: [(String, String, [(String, String)], String, Int, String)] = [
            ("no token", "GET", [], "", 401, "invalid_token"),
            ("a userinfo token", "GET", [("Authorization", "Bearer " + userinfoToken)], "", 401, "invalid_token"),
            ("another user", "GET", [("Authorization", "Bearer " + readOnly)], "", 403, "insufficient_scope"),
            ("patch without the scope", "PATCH", [("Authorization", "Bearer " + readOnly), ("Content-Type", "application/json")],
             #"{"user_metadata":{}}"#, 403, "insufficient_scope"),
        ]
        for (name, method, headers, body, status, code) in cases {
            let path = name == "another user" ? "/api/v2/users/auth0%7Cbob" : "/api/v2/users/auth0%7Calice"
            let response = harness.send(method, path, headers: headers, body: Array(body.utf8), from: "198.51.100.7")
            #expect(response.status == status, "\(name): \(response.text)")
            #expect(response.json["errorCode"] as? String == code, "\(name): \(response.text)")
            #expect(response.json["statusCode"] as? Int == status)
        }
        let writer = try managementToken(scope: "update:current_user_metadata")
        for body in [#"{"email":"x@example.com"}"#, #"{"user_metadata":{"n":1}}"#, #"{"user_metadata":"x"}"#, "not json"] {
            let response = harness.send("PATCH", "/api/v2/users/auth0%7Calice",
                                        headers: [("Authorization", "Bearer " + writer), ("Content-Type", "application/json")],
                                        body: Array(body.utf8), from: "198.51.100.7")
            #expect(response.status == 400 && response.json["errorCode"] as? String == "invalid_body", "\(body): \(response.text)")
        }
    }
}
