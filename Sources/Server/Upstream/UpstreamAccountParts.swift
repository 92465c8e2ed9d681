import FoundationEssentials
import KeyManagement
import Logging
import Model
import OIDC
import Settings
import Storage

/// Apple's side of upstream sign-in, built by the composition root (README "Account deletion",
/// "Sign in with Apple"): the sealed upstream refresh tokens, the client-secret maker, the revocation
/// queue and its background sender, account deletion and Apple's notifications. The browser flow and
/// the token exchange store Apple's refresh token through `upstreamTokens` and sign their token
/// requests with `appleSecrets`.
struct UpstreamAccountParts: Sendable {
    let connections: SQLiteConnectionStore
    let identities: SQLiteIdentityStore
    /// Where an Apple code redemption keeps the refresh token (`setRefreshToken`).
    let upstreamTokens: SQLiteUpstreamTokenStore
    let revocations: SQLiteUpstreamRevocationQueue
    /// One per daemon, so a secret is reused across requests until near its expiry.
    let appleSecrets: AppleClientSecret
    let keyCache: UpstreamKeyCache
    let fetcher: any UpstreamFetcher
    let deletion: AccountDeletionAPI
    let notifications: AppleNotifications
    /// `GatehouseServer` starts and stops it.
    let revocationSender: UpstreamRevocationSender

    init(settings: Settings, store: any GatehouseStorage, keyRing: KeyRing, users: SQLiteUserStore, grants: any GrantStore,
         clients: any ClientStore, opaque: OpaqueAccessTokens, holders: any GrantHolderReader, clock: any Clock, logger: Logger,
         fetcher: any UpstreamFetcher = CurlUpstreamFetcher()) {
        let issuer = settings.issuer.url
        let tokenKey = keyRing.derivedKey(purpose: UpstreamTokenKey.purpose)
        connections = SQLiteConnectionStore(store: store, key: keyRing.derivedKey(purpose: ConnectionSecretKey.purpose))
        identities = SQLiteIdentityStore(store: store)
        upstreamTokens = SQLiteUpstreamTokenStore(store: store, key: tokenKey)
        revocations = SQLiteUpstreamRevocationQueue(store: store, key: tokenKey)
        appleSecrets = AppleClientSecret(clock: clock)
        keyCache = UpstreamKeyCache(fetcher: fetcher)
        self.fetcher = fetcher
        revocationSender = UpstreamRevocationSender(queue: revocations, connections: connections, fetcher: fetcher, secrets: appleSecrets,
                                                    logger: logger, clock: clock)
        let deleter = SQLiteAccountDeletion(store: store, tokenKey: tokenKey, pseudonymKey: keyRing.derivedKey(purpose: AuditPseudonymKey.purpose))
        deletion = AccountDeletionAPI(
            issuer: issuer, clock: clock, maxAge: TimeInterval(settings.accountDeletionMaxAge.components.seconds), deleter: deleter,
            validateUser: { bearer, audience throws(OAuthError) in
                try AccessTokenValidator.validate(bearer: bearer, keys: keyRing.current.verificationKey, opaque: opaque, issuer: issuer,
                                                  grants: grants, users: users, clock: clock, holders: holders, audience: audience)
            },
            validateMachine: { bearer, audience throws(OAuthError) in
                try AccessTokenValidator.validateMachine(bearer: bearer, keys: keyRing.current.verificationKey, issuer: issuer,
                                                         audience: audience, grants: grants, clients: clients, clock: clock)
            })
        notifications = AppleNotifications(connections: connections, identities: identities, tokens: upstreamTokens, keys: keyCache,
                                           clock: clock) { userID, reason throws(StorageError) in
            _ = try users.revokeAccess(userID: userID, at: clock.now, reason: reason)
        }
    }
}
