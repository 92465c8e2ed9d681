import Crypto
import FoundationEssentials
import Model

/// Native-to-web session transfer, issuing side (README "Native to web"): Auth0.swift's
/// `ssoExchange(withRefreshToken:)` sends `grant_type=refresh_token` with
/// `audience=urn:{issuer host}:session_transfer`, and gets a one-time token its web view hands to
/// `/authorize` (`SessionTransferRedeemer`).
///
/// The refresh token is checked and rotated exactly as by a plain refresh (`refreshTokenGrant`:
/// client binding, revocation, reuse detection, lifetimes), so the answer carries the successor
/// `refresh_token`, as Auth0 rotates; the app must store it (Auth0.swift's credentials manager does).
public struct SessionTransfers: Sendable {
    public let store: any SessionTransferStore
    /// How long a token may wait for its `/authorize` (Auth0's is about a minute).
    public var lifetime: TimeInterval = 60

    /// The `issued_token_type` Auth0.swift's `SSOCredentials` reads.
    public static let issuedTokenType = "urn:auth0:params:oauth:token-type:session_transfer_token"
    /// RFC 8693 §2.2.1: the issued token is no access token.
    public static let tokenType = "N_A"

    public init(store: any SessionTransferStore) { self.store = store }

    /// `urn:{host}:session_transfer` for the issuer's host without its port, as Auth0.swift builds it
    /// from `url.host` (an IPv6 literal without its brackets).
    public static func audience(issuer: String) -> String {
        let authority = issuer.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? ""
        let host: Substring
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return "urn:\(host.lowercased()):session_transfer"
    }

    /// Whether `audience` asks for a session transfer token here (the host compared without case).
    public static func isTransferAudience(_ audience: String?, issuer: String) -> Bool {
        guard let audience else { return false }
        return audience.lowercased() == Self.audience(issuer: issuer)
    }

    /// A fresh value: 32 random bytes (256 bits), base64url; only its SHA-256 is stored.
    public static func newToken(random: any RandomSource = SystemRandom()) -> String { random.token(bytes: 32) }
    public static func hash(_ token: String) -> String { SecretDigest.hash(token) }
}

/// The session transfer token a refresh asked for, carried to minting.
public struct SessionTransferIssuance: Sendable, Equatable {
    public let token: String
    public let expiresIn: Int
}

extension TokenEndpoint {
    /// The `refresh_token` grant, or — for the session-transfer audience — the session transfer.
    func refreshOrSessionTransfer(_ request: TokenRequest, client: AuthenticatedClient,
                                  context: inout RequestContext) throws(OAuthError) -> GrantDraft {
        guard SessionTransfers.isTransferAudience(request["audience"], issuer: issuer) else {
            return try refreshTokenGrant(request, client: client, context: &context)
        }
        return try sessionTransferGrant(request, client: client, context: &context)
    }

    /// Checks, in order, before anything is consumed: transfers configured, the application allowed
    /// to issue them (`unauthorized_client`); then the refresh grant's own checks and reuse detection;
    /// then that the family's session was not itself created by a transfer (one hop only, so the
    /// cascade of migration 0014 reaches everything). The token is stored after the rotation.
    func sessionTransferGrant(_ request: TokenRequest, client authenticated: AuthenticatedClient,
                              context: inout RequestContext) throws(OAuthError) -> GrantDraft {
        guard let sessionTransfers, let refreshTokens else {
            throw OAuthError(.invalidRequest, "session transfer is not available", detail: "no session transfer store configured")
        }
        let client = authenticated.client
        guard client.sessionTransfer.allowIssue else {
            throw OAuthError(.unauthorizedClient, "the application is not allowed to create session transfer tokens",
                             detail: "\(client.clientID) has --allow-session-transfer off")
        }
        let family = request["refresh_token"].flatMap { value in
            // The session is needed: one created by a transfer cannot be handed over again.
            try? loadFamily(value, refreshTokens: refreshTokens, includingSession: true)
        }
        // The audience names the transfer, not an API: the refresh itself keeps the family's audience.
        let refresh = try refreshTokenGrant(try request.removing("audience"), client: authenticated, context: &context)
        let ip = context.clientIP
        let now = clock.now
        var reported = refresh.reportedOnSuccess
        reported.append(SignInEvent(.sessionTransferIssued, userID: family?.token.userID, clientID: client.clientID,
                                    details: ["grant_id": family?.token.grantID ?? "", "binding": client.sessionTransfer.binding.rawValue]))
        return GrantDraft(rule: refresh.rule, reportedOnSuccess: reported) { decision throws(OAuthError) in
            if let session = family?.session, session.parentGrantID != nil {
                throw OAuthError(.invalidGrant, "a session created by a session transfer cannot be handed over again",
                                 detail: "session \(session.sessionID) came from grant \(session.parentGrantID ?? "")")
            }
            var issuance = try refresh.finish(decision)
            let value = SessionTransfers.newToken()
            let token = SessionTransferToken(tokenHash: SessionTransfers.hash(value), userID: issuance.user.userID,
                                             clientID: client.clientID, grantID: issuance.grant.grantID,
                                             ip: client.sessionTransfer.binding == .ip ? ip : nil, issuedAt: now,
                                             expiresAt: now.addingTimeInterval(sessionTransfers.lifetime))
            try storage { () throws(StorageError) in try sessionTransfers.store.insert(token) }
            issuance.sessionTransfer = SessionTransferIssuance(token: value, expiresIn: Int(sessionTransfers.lifetime))
            return issuance
        }
    }
}

extension TokenMinter {
    /// The session transfer answer Auth0.swift's `SSOCredentials` decodes: `access_token` (the
    /// transfer token), `issued_token_type`, `expires_in`, `id_token` (always: the SDK requires it),
    /// and the rotated `refresh_token`.
    func sessionTransferResponse(for issuance: TokenIssuance, transfer: SessionTransferIssuance) throws(OAuthError) -> TokenResponse {
        let idToken = try self.idToken(for: issuance, now: clock.now)
        var response = TokenResponse(accessToken: transfer.token, idToken: idToken, tokenType: SessionTransfers.tokenType,
                                     expiresIn: transfer.expiresIn, scope: issuance.scopes.joined(separator: " "),
                                     refreshToken: issuance.refreshToken)
        response.issuedTokenType = SessionTransfers.issuedTokenType
        return response
    }
}

extension TokenRequest {
    /// The same request without `name`.
    func removing(_ name: String) throws(OAuthError) -> TokenRequest {
        try TokenRequest(pairs: parameters.filter { $0.key != name }.map { ($0.key, $0.value) }, authorization: authorization)
    }
}
