import Crypto
import FoundationEssentials
import Model

/// Accounts people create and recover themselves (README "Accounts"): signup, email
/// verification, password reset and passwordless codes. The JSON endpoints Auth0's SDKs call and
/// the login page's steps (`AccountAuthenticators.swift`) both decide here.
///
/// None of these reveals whether an address is registered, by answer or by timing: a reset or a
/// code for an unknown address answers as for a known one, and the requests that may touch an
/// account take at least `uniformDuration`, so the send (a queue write) is not timed apart from
/// the no-op.
public struct SelfService: Sendable {
    public let users: any UserStore
    public let accounts: any AccountStore
    public let codes: OneTimeCodes
    public let limits: AbuseLimits
    /// Where messages go; nil: email delivery is not configured (no reset, no passwordless).
    public let mail: (any MailQueue)?
    public let clock: any Clock
    public let issuer: String
    public var passwords: PasswordRules
    /// The user database's name; `connection` in a signup must equal it.
    public var connection: String
    /// A reset ends the user's sessions and refresh tokens.
    public var resetRevokesAccess = true
    /// The shortest time a request that may touch an account takes; nil: no padding.
    public var uniformDuration: Duration?
    /// Waits out what is left of `uniformDuration` (the daemon sleeps the worker thread).
    public var pause: @Sendable (Duration) -> Void = { _ in }

    public init(users: any UserStore, accounts: any AccountStore, codes: OneTimeCodes, limits: AbuseLimits, mail: (any MailQueue)?,
                clock: any Clock, issuer: String, passwords: PasswordRules, connection: String) {
        self.users = users
        self.accounts = accounts
        self.codes = codes
        self.limits = limits
        self.mail = mail
        self.clock = clock
        self.issuer = issuer
        self.passwords = passwords
        self.connection = connection
    }

    public var deliversMail: Bool { mail != nil }

    /// Where a reset link and an email-verification link lead (they work in any browser, once).
    public static let resetPath = "reset-password"
    public static let verifyPath = "verify-email"

    // MARK: - signup

    /// What a signup asks for (Auth0's `/dbconnections/signup` body, or the signup page).
    public struct SignupRequest: Sendable {
        public var email: String
        public var password: String
        public var connection: String?
        public var userMetadata: [String: String]
        public var name: String?
        public var givenName: String?
        public var familyName: String?
        public var nickname: String?
        public var picture: String?

        public init(email: String, password: String, connection: String? = nil, userMetadata: [String: String] = [:],
                    name: String? = nil, givenName: String? = nil, familyName: String? = nil, nickname: String? = nil,
                    picture: String? = nil) {
            self.email = email
            self.password = password
            self.connection = connection
            self.userMetadata = userMetadata
            self.name = name
            self.givenName = givenName
            self.familyName = familyName
            self.nickname = nickname
            self.picture = picture
        }
    }

    /// Creates the user (unverified) and sends the verification code when mail is configured.
    /// An existing address is `invalid_signup` after the same work as a new one (the hash included).
    public func signup(_ request: SignupRequest, client: Client, locale: String,
                       context: inout RequestContext) throws(AccountError) -> User {
        guard client.signupEnabled else { throw .signupDisabled }
        if let requested = request.connection, requested != connection { throw .badConnection(connection) }
        let email = try Self.validEmail(request.email)
        guard !request.password.isEmpty else { throw .invalidRequest("password is required") }
        try UserMetadata.validate(request.userMetadata)
        try admit(.signup, email: email, context: &context, clientID: client.clientID)
        if let refusal = passwords.refusal(request.password, email: email) { throw refusal }
        let hash: String
        do { hash = try PasswordHash.hash(request.password) } catch { throw AccountError.internal("password hashing failed") }
        let now = clock.now
        let user = User(userID: Self.newUserID(), email: email, emailVerified: false, passwordHash: hash, name: request.name,
                        givenName: request.givenName, familyName: request.familyName, nickname: request.nickname,
                        picture: request.picture, userMetadata: request.userMetadata, createdAt: now)
        do {
            try users.create(user)
        } catch .alreadyExists {
            context.record(.signedUp, clientID: client.clientID, details: ["result": "existing_email"])
            throw .invalidSignup
        } catch {
            throw AccountError(storage: error)
        }
        context.record(.signedUp, userID: user.userID, clientID: client.clientID)
        if deliversMail { try sendVerification(to: user, client: client, locale: locale, context: &context) }
        return user
    }

    // MARK: - email verification

    /// Sends a code (and a link that works in any browser) that confirms the address.
    public func sendVerification(to user: User, client: Client, locale: String, context: inout RequestContext) throws(AccountError) {
        let issued = try call { () throws(StorageError) in try codes.issue(.verifyEmail, email: user.email, clientID: client.clientID, link: true) }
        try send(.verifyEmail, to: user.email, client: client, locale: locale, code: issued.code,
                 link: issued.linkToken.map { issuer + Self.verifyPath + "?ticket=" + $0 }, context: &context)
    }

    /// The typed code confirms the address of `user` (the one this sign-in proved a password for,
    /// or just signed up).
    public func verifyEmail(of user: User, code: String, context: inout RequestContext) throws(AccountError) -> User {
        try admit(.codeCheck, email: user.email, context: &context, clientID: nil)
        guard case .accepted = try call({ () throws(StorageError) in try codes.attempt(.verifyEmail, email: user.email, code: code) }) else {
            context.record(.codeRejected, userID: user.userID, clientID: nil, details: ["purpose": "verify_email"])
            throw .wrongCode
        }
        return try confirm(user, context: &context)
    }

    /// The verification link: confirms the address it was sent to, once.
    public func verifyEmail(linkToken: String, context: inout RequestContext) throws(AccountError) -> User {
        guard let code = try call({ () throws(StorageError) in try codes.redeemLink(linkToken) }), code.purpose == .verifyEmail,
              let user = try call({ () throws(StorageError) in try users.find(email: code.emailKey) }) else { throw .wrongCode }
        return try confirm(user, context: &context)
    }

    private func confirm(_ user: User, context: inout RequestContext) throws(AccountError) -> User {
        try call { () throws(StorageError) in try accounts.markEmailVerified(userID: user.userID, at: clock.now) }
        context.record(.emailVerified, userID: user.userID, clientID: nil)
        var verified = user
        verified.emailVerified = true
        return verified
    }

    // MARK: - password reset

    /// Sends a reset code (and, with `link`, a reset link) when the address is registered; answers
    /// the same either way.
    public func requestPasswordReset(email rawEmail: String, client: Client?, locale: String, link: Bool,
                                     context: inout RequestContext) throws(AccountError) {
        guard deliversMail else { throw .deliveryUnavailable }
        let email = try Self.validEmail(rawEmail)
        try admit(.reset, email: email, context: &context, clientID: client?.clientID)
        try uniformly { () throws(AccountError) in
            guard let user = try call({ () throws(StorageError) in try users.find(email: email) }), !user.blocked else { return }
            let issued = try call { () throws(StorageError) in
                try codes.issue(.resetPassword, email: user.email, clientID: client?.clientID, link: link)
            }
            context.record(.passwordResetRequested, userID: user.userID, clientID: client?.clientID)
            try send(.resetPassword, to: user.email, client: client, locale: locale, code: issued.code,
                     link: issued.linkToken.map { issuer + Self.resetPath + "?ticket=" + $0 }, context: &context)
        }
    }

    /// The reset page inside a sign-in: the code from the email and the new password.
    public func resetPassword(email rawEmail: String, code: String, newPassword: String,
                              context: inout RequestContext) throws(AccountError) -> User {
        let email = try Self.validEmail(rawEmail)
        try admit(.codeCheck, email: email, context: &context, clientID: nil)
        if let refusal = passwords.refusal(newPassword, email: email) { throw refusal }
        guard let user = try call({ () throws(StorageError) in try users.find(email: email) }) else { throw .wrongCode }
        try refuseRepeated(newPassword, of: user)
        guard case .accepted = try call({ () throws(StorageError) in try codes.attempt(.resetPassword, email: email, code: code) }) else {
            context.record(.codeRejected, userID: user.userID, clientID: nil, details: ["purpose": "reset_password"])
            throw .wrongCode
        }
        return try change(user, to: newPassword, context: &context)
    }

    /// The reset link's page: the address the link was sent to, while the link is live.
    public func resetLinkEmail(_ token: String) throws(AccountError) -> String? {
        guard let code = try call({ () throws(StorageError) in try codes.findLink(token) }), code.purpose == .resetPassword else { return nil }
        return code.emailKey
    }

    /// The reset link's form: consumes the link and sets the password.
    public func resetPassword(linkToken: String, newPassword: String, context: inout RequestContext) throws(AccountError) -> User {
        guard let email = try resetLinkEmail(linkToken) else { throw .wrongCode }
        if let refusal = passwords.refusal(newPassword, email: email) { throw refusal }
        guard let user = try call({ () throws(StorageError) in try users.find(email: email) }) else { throw .wrongCode }
        try refuseRepeated(newPassword, of: user)
        guard let code = try call({ () throws(StorageError) in try codes.redeemLink(linkToken) }), code.purpose == .resetPassword else {
            throw .wrongCode
        }
        return try change(user, to: newPassword, context: &context)
    }

    private func refuseRepeated(_ password: String, of user: User) throws(AccountError) {
        guard passwords.historySize > 0 else { return }
        let history = try call { () throws(StorageError) in try accounts.recent(userID: user.userID, limit: passwords.historySize) }
        if passwords.repeatsHistory(password, current: user.passwordHash, history: history) { throw .reusedPassword }
    }

    private func change(_ user: User, to password: String, context: inout RequestContext) throws(AccountError) -> User {
        let hash: String
        do { hash = try PasswordHash.hash(password) } catch { throw AccountError.internal("password hashing failed") }
        try call { () throws(StorageError) in
            try accounts.changePassword(PasswordChange(userID: user.userID, newHash: hash, time: clock.now, verifiesEmail: true,
                                                       revokesAccess: resetRevokesAccess, historySize: passwords.historySize))
        }
        context.record(.passwordReset, userID: user.userID, clientID: nil, details: ["sessions_ended": resetRevokesAccess ? "true" : "false"])
        var changed = user
        changed.passwordHash = hash
        changed.emailVerified = true
        return changed
    }

    // MARK: - passwordless

    /// `/passwordless/start` and the page's "Email me a code": a code goes to a registered address,
    /// or to a new one when the application allows signup; an unknown address on an app without
    /// signup gets the same answer and nothing is sent or created.
    public func startPasswordless(email rawEmail: String, client: Client, locale: String,
                                  context: inout RequestContext) throws(AccountError) {
        guard client.grantTypes.contains(.passwordlessOTP) else {
            throw AccountError(code: "unauthorized_client", description: "Passwordless sign-in is not enabled for this application.",
                               name: "UnauthorizedError", status: 403)
        }
        guard deliversMail else { throw .deliveryUnavailable }
        let email = try Self.validEmail(rawEmail)
        try admit(.passwordlessStart, email: email, context: &context, clientID: client.clientID)
        try uniformly { () throws(AccountError) in
            let user = try call { () throws(StorageError) in try users.find(email: email) }
            if let user, user.blocked { return }
            guard user != nil || client.signupEnabled else { return }
            let issued = try call { () throws(StorageError) in try codes.issue(.passwordless, email: email, clientID: client.clientID) }
            try send(.passwordlessCode, to: user?.email ?? email, client: client, locale: locale, code: issued.code, link: nil,
                     context: &context)
        }
    }

    /// The code from `/passwordless/start`: the user it signs in (created, verified, when new and
    /// the application allows signup).
    public func verifyPasswordless(email rawEmail: String, code: String, client: Client,
                                   context: inout RequestContext) throws(AccountError) -> User {
        let email = try Self.validEmail(rawEmail)
        try admit(.codeCheck, email: email, context: &context, clientID: client.clientID)
        guard case .accepted = try call({ () throws(StorageError) in try codes.attempt(.passwordless, email: email, code: code) }) else {
            context.record(.codeRejected, clientID: client.clientID, details: ["purpose": "passwordless"])
            throw .wrongCode
        }
        if let user = try call({ () throws(StorageError) in try users.find(email: email) }) {
            guard !user.blocked else {
                throw AccountError(code: "unauthorized", description: CredentialMessages.userBlocked, name: "UnauthorizedError", status: 401)
            }
            return user.emailVerified ? user : try confirm(user, context: &context)
        }
        guard client.signupEnabled else { throw .wrongCode }
        let user = User(userID: Self.newUserID(), email: email, emailVerified: true, createdAt: clock.now)
        do {
            try users.create(user)
        } catch .alreadyExists {
            // Created by a concurrent use of another code for the same address a moment ago.
            guard let existing = try call({ () throws(StorageError) in try users.find(email: email) }) else { throw .wrongCode }
            return existing
        } catch {
            throw AccountError(storage: error)
        }
        context.record(.signedUp, userID: user.userID, clientID: client.clientID, details: ["channel": "passwordless"])
        return user
    }

    // MARK: - helpers

    private func admit(_ kind: AbuseLimits.Kind, email: String?, context: inout RequestContext, clientID: String?) throws(AccountError) {
        if let wait = try call({ () throws(StorageError) in try limits.admit(kind, ip: context.clientIP, email: email) }) {
            context.record(.accountRequestThrottled, clientID: clientID, details: ["kind": kind.rawValue])
            throw .tooManyRequests(retryAfter: wait)
        }
    }

    /// Queues one message, unless this address had its hourly share.
    private func send(_ template: MailTemplate, to email: String, client: Client?, locale: String, code: String, link: String?,
                      context: inout RequestContext) throws(AccountError) {
        guard let mail else { return }
        guard try call({ () throws(StorageError) in try limits.admitMail(to: email) }) else {
            context.record(.accountRequestThrottled, clientID: client?.clientID, details: ["kind": "mail", "template": template.rawValue])
            return
        }
        var values = ["code": code, "app_name": client?.name ?? "", "email": email,
                      "expires_minutes": String(Int((codes.lifetime / 60).rounded()))]
        if let link { values["link"] = link }
        try call { () throws(StorageError) in try mail.enqueue(MailMessage(to: email, template: template, locale: locale, values: values), at: clock.now) }
        context.record(.codeSent, clientID: client?.clientID, details: ["template": template.rawValue])
    }

    /// Runs `body` and then waits out what is left of `uniformDuration`.
    private func uniformly(_ body: () throws(AccountError) -> Void) throws(AccountError) {
        let started = ContinuousClock.now
        defer {
            if let uniformDuration {
                let remaining = uniformDuration - (ContinuousClock.now - started)
                if remaining > .zero { pause(remaining) }
            }
        }
        try body()
    }

    private func call<T>(_ body: () throws(StorageError) -> T) throws(AccountError) -> T {
        do { return try body() } catch { throw AccountError(storage: error) }
    }

    /// A syntactically plausible address: one `@`, both sides non-empty, no spaces or controls,
    /// at most 254 bytes (RFC 5321 §4.5.3.1.3). Whether it exists is the mail's job.
    public static func validEmail(_ text: String) throws(AccountError) -> String {
        let email = text.trimmingWhitespace()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
              !parts[1].hasSuffix("."), !email.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw .invalidRequest("email is not a valid address")
        }
        return email
    }

    /// `auth0|` and 24 random hex digits: Auth0's user id shape, used as the `sub` claim.
    public static func newUserID() -> String {
        "auth0|" + Random.bytes(12).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}

extension AccountError {
    /// A storage failure: 503 with a retry for an outage, 500 otherwise.
    public init(storage error: StorageError) {
        switch error {
        case .unavailable:
            self.init(code: "temporarily_unavailable", description: "The service is temporarily unavailable. Try again shortly.",
                      name: "ServiceUnavailableError", status: 503, retryAfter: 5, detail: "\(error)")
        default:
            self.init(code: "server_error", description: "Internal error", name: "InternalServerError", status: 500, detail: "\(error)")
        }
    }

    static func `internal`(_ detail: String) -> AccountError {
        AccountError(code: "server_error", description: "Internal error", name: "InternalServerError", status: 500, detail: detail)
    }
}
