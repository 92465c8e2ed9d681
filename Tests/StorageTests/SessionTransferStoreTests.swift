import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// Session transfer tokens and the sessions they start, in SQLite (migration 0014): single use,
/// the parent grant checked when the session starts, and the grants trigger that ends transferred
/// sessions — and revokes what was issued under them — whichever path revokes the parent.
@Suite("Session transfer store")
struct SessionTransferStoreTests {
    let store: Store
    let directory: TemporaryDirectory
    let user = Sample.user()
    let native = Sample.client("native-1")
    let web = Sample.client("web-1", type: .spa)

    init() throws {
        (store, directory) = try makeTestStore()
        try SQLiteClientStore(store: store).create(native)
        try SQLiteClientStore(store: store).create(web)
        try SQLiteUserStore(store: store).create(user)
        try SQLiteGrantStore(store: store).create(Sample.grant("parent", client: native, user: user))
        try SQLiteRefreshTokenStore(store: store).insert(token("parent-rt", grant: "parent", client: native))
    }

    var transfers: SQLiteSessionTransferStore { SQLiteSessionTransferStore(store: store) }

    func token(_ hash: String, grant: String, client: Client) -> RefreshToken {
        RefreshToken(tokenHash: hash, grantID: grant, clientID: client.clientID, userID: user.userID, scope: "openid offline_access",
                     issuedAt: Sample.now, expiresAt: Sample.now + 86_400)
    }

    func transferToken(_ hash: String = "stt-1", expiresAt: Date = Sample.now + 60) -> SessionTransferToken {
        SessionTransferToken(tokenHash: hash, userID: user.userID, clientID: native.clientID, grantID: "parent", ip: "192.0.2.1",
                             issuedAt: Sample.now, expiresAt: expiresAt)
    }

    /// A transferred session with a web app's grant and refresh token under it.
    func transferredSession() throws -> Session {
        var session = Sample.session("sid-web", user: user, cookieHash: "cookie-web")
        session.parentGrantID = "parent"
        #expect(try transfers.startSession(session))
        var webGrant = Sample.grant("web-grant", client: web, user: user)
        webGrant.sessionID = session.sessionID
        try SQLiteGrantStore(store: store).create(webGrant)
        try SQLiteRefreshTokenStore(store: store).insert(token("web-rt", grant: "web-grant", client: web))
        return session
    }

    @Test func aTokenIsRedeemedOnceThenReusedAndAnUnknownOneIsUnknown() throws {
        try transfers.insert(transferToken())
        guard case .redeemed(let token) = try transfers.redeem(tokenHash: "stt-1", at: Sample.now + 5) else { Issue.record("not redeemed"); return }
        #expect(token.ip == "192.0.2.1" && token.grantID == "parent" && token.userID == user.userID && token.consumedAt == Sample.now + 5)
        guard case .reused(let again) = try transfers.redeem(tokenHash: "stt-1", at: Sample.now + 6) else { Issue.record("not reused"); return }
        #expect(again.consumedAt == Sample.now + 5)
        #expect(try transfers.redeem(tokenHash: "stt-2", at: Sample.now) == .unknown)
    }

    @Test func anExpiredTokenIsExpiredAtItsExpiryAndSpent() throws {
        try transfers.insert(transferToken(expiresAt: Sample.now + 60))
        guard case .expired = try transfers.redeem(tokenHash: "stt-1", at: Sample.now + 60) else { Issue.record("not expired"); return }
        guard case .reused = try transfers.redeem(tokenHash: "stt-1", at: Sample.now + 1) else { Issue.record("counted twice"); return }
    }

    @Test func ofTwentyConcurrentPresentationsExactlyOneWins() throws {
        try transfers.insert(transferToken())
        let outcomes = Collected<[SessionTransferRedemption]>([])
        let transfers = self.transfers
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            if let outcome = try? transfers.redeem(tokenHash: "stt-1", at: Sample.now + 1) { outcomes.withLock { $0.append(outcome) } }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.count == 20)
        #expect(all.filter { if case .redeemed = $0 { true } else { false } }.count == 1)
        #expect(all.filter { if case .reused = $0 { true } else { false } }.count == 19)
    }

    @Test func noSessionStartsUnderARevokedParent() throws {
        try SQLiteGrantStore(store: store).revoke(grantID: "parent", at: Sample.now, reason: "test")
        var session = Sample.session("sid-late", user: user, cookieHash: "cookie-late")
        session.parentGrantID = "parent"
        #expect(try transfers.startSession(session) == false)
        #expect(try SQLiteSessionStore(store: store).find(sessionID: "sid-late") == nil)
    }

    @Test func revokingTheParentEndsTheSessionAndRevokesWhatItIssued() throws {
        let session = try transferredSession()
        let bystander = Sample.session("sid-other", user: user, cookieHash: "cookie-other")
        try SQLiteSessionStore(store: store).create(bystander)
        try SQLiteGrantStore(store: store).revoke(grantID: "parent", at: Sample.now + 30, reason: "revoked by the client")

        let ended = try #require(try SQLiteSessionStore(store: store).find(sessionID: session.sessionID))
        #expect(ended.endedAt == Sample.now + 30 && ended.parentGrantID == "parent")
        let webGrant = try #require(try SQLiteGrantStore(store: store).find(grantID: "web-grant"))
        #expect(webGrant.revokedAt == Sample.now + 30 && webGrant.revokeReason == "parent grant of a session transfer revoked")
        #expect(try SQLiteRefreshTokenStore(store: store).find(tokenHash: "web-rt")?.revokedAt == Sample.now + 30)
        // A session that did not come from that grant is untouched.
        #expect(try SQLiteSessionStore(store: store).find(sessionID: "sid-other")?.endedAt == nil)
    }

    /// The other revocation paths: a user's grants of one app (idp-admin tokens revoke), and refresh-token reuse.
    @Test func everyRevocationPathEndsIt() throws {
        _ = try transferredSession()
        try SessionRevocation(store: store).revokeGrants(userID: user.userID, clientID: native.clientID, at: Sample.now + 1, reason: "admin")
        #expect(try SQLiteSessionStore(store: store).find(sessionID: "sid-web")?.endedAt == Sample.now + 1)

        let (reuseStore, reuseDirectory) = try makeTestStore()
        defer { _ = reuseDirectory }
        try SQLiteClientStore(store: reuseStore).create(native)
        try SQLiteUserStore(store: reuseStore).create(user)
        try SQLiteGrantStore(store: reuseStore).create(Sample.grant("parent", client: native, user: user))
        let tokens = SQLiteRefreshTokenStore(store: reuseStore)
        try tokens.insert(token("rt-0", grant: "parent", client: native))
        var session = Sample.session("sid-web", user: user, cookieHash: "cookie-web")
        session.parentGrantID = "parent"
        #expect(try SQLiteSessionTransferStore(store: reuseStore).startSession(session))
        let judge = RefreshReuseRule(window: 0)
        _ = try tokens.rotate(tokenHash: "rt-0", successor: token("rt-1", grant: "parent", client: native), judge: judge, at: Sample.now + 1)
        let reuse = try tokens.rotate(tokenHash: "rt-0", successor: token("rt-1", grant: "parent", client: native), judge: judge, at: Sample.now + 2)
        guard case .reused = reuse else { Issue.record("expected reuse, got \(reuse)"); return }
        #expect(try SQLiteSessionStore(store: reuseStore).find(sessionID: "sid-web")?.endedAt == Sample.now + 2)
        reuseStore.close()
    }

    @Test func theMaintenancePurgeDropsExpiredTokens() throws {
        try transfers.insert(transferToken("stt-old", expiresAt: Sample.now + 60))
        try transfers.insert(transferToken("stt-new", expiresAt: Sample.now + 600))
        let report = try Purger(store: store).purge(RetentionPolicy(), at: Sample.now + 60)
        #expect(report.deleted[.sessionTransferTokens] == 1)
        #expect(try transfers.redeem(tokenHash: "stt-old", at: Sample.now + 61) == .unknown)
        guard case .redeemed = try transfers.redeem(tokenHash: "stt-new", at: Sample.now + 61) else { Issue.record("purged too early"); return }
    }

    @Test func applicationsKeepTheirPolicy() throws {
        var client = Sample.client("policy-1")
        client.sessionTransfer = SessionTransferPolicy(allowIssue: true, accept: [.cookie, .query], binding: .none)
        let clients = SQLiteClientStore(store: store)
        try clients.create(client)
        #expect(try clients.find(clientID: "policy-1")?.sessionTransfer == client.sessionTransfer)
        client.sessionTransfer = SessionTransferPolicy(accept: .query)
        try clients.update(client)
        #expect(try clients.find(clientID: "policy-1")?.sessionTransfer == SessionTransferPolicy(allowIssue: false, accept: .query, binding: .ip))
        #expect(try clients.find(clientID: "native-1")?.sessionTransfer == SessionTransferPolicy())
    }
}
