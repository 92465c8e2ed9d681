import Foundation
import Model
import OIDC
import SQLite
import Storage
import Testing
import TestSupport

/// Reuse detection must outlive maintenance: a live family keeps every rotated digest, so an old
/// token presented after a purge is still recognised as reuse; once the family is dead it goes whole.
@Suite struct PurgeFamilyTests {
    static let start = Date(timeIntervalSince1970: TimeInterval(PurgeFixture.now))

    /// r0 → r1 → r2 through the real store, a day apart, in a family that lives 30 days.
    private func rotatedFamily(_ fixture: PurgeFixture) throws -> SQLiteRefreshTokenStore {
        let grants = SQLiteGrantStore(store: fixture.storage)
        try grants.create(Grant(grantID: "family", clientID: fixture.clientID, userID: fixture.userID, sessionID: nil,
                                scope: "openid offline_access", authTime: Self.start, createdAt: Self.start))
        let tokens = SQLiteRefreshTokenStore(store: fixture.storage)
        func token(_ index: Int, at time: Date) -> RefreshToken {
            RefreshToken(tokenHash: "r\(index)", grantID: "family", clientID: fixture.clientID, userID: fixture.userID,
                         scope: "openid offline_access", issuedAt: time, expiresAt: Self.start + 30 * 86_400)
        }
        try tokens.insert(token(0, at: Self.start))
        for index in 1...2 {
            let time = Self.start + TimeInterval(index) * 86_400
            guard case .rotated = try tokens.rotate(tokenHash: "r\(index - 1)", successor: token(index, at: time), judge: RefreshReuseRule(window: 0), at: time) else {
                throw StorageError.internal("rotation \(index) failed")
            }
        }
        return tokens
    }

    private func purge(_ fixture: PurgeFixture, at date: Date) throws -> PurgeReport {
        try fixture.purge(at: Int64(date.timeIntervalSince1970))
    }

    @Test(arguments: TestBackend.available) func rotatedDigestsSurviveWhileTheFamilyLivesAndReuseIsStillDetected(_ backend: TestBackend) throws {
        let fixture = try PurgeFixture(backend)
        let tokens = try rotatedFamily(fixture)
        // Ten days in: the family is live (its newest token is 8 days old, idle limit 15).
        let later = Self.start + 10 * 86_400
        let report = try purge(fixture, at: later)
        #expect(report.deleted[.refreshTokens] == nil && report.deleted[.grants] == nil)
        for hash in ["r0", "r1", "r2"] { #expect(try tokens.find(tokenHash: hash) != nil, "\(hash) was purged from a live family") }
        let successor = RefreshToken(tokenHash: "r9", grantID: "family", clientID: fixture.clientID, userID: fixture.userID,
                                     scope: "openid offline_access", issuedAt: later, expiresAt: Self.start + 30 * 86_400)
        guard case .reused(let token) = try tokens.rotate(tokenHash: "r0", successor: successor, judge: RefreshReuseRule(window: 0), at: later) else {
            Issue.record("presenting r0 after a maintenance run was not detected as reuse")
            return
        }
        #expect(token.tokenHash == "r0")
    }

    @Test(arguments: TestBackend.available) func aRevokedFamilyGoesWholeAfterTheGracePeriod(_ backend: TestBackend) throws {
        let fixture = try PurgeFixture(backend)
        let tokens = try rotatedFamily(fixture)
        let revokedAt = Self.start + 3 * 86_400
        try SQLiteGrantStore(store: fixture.storage).revoke(grantID: "family", at: revokedAt, reason: "test")
        // Within the day of grace the family stays (an operator can still look at it); only the
        // note that its access tokens are revoked goes, once the last of them (an hour) has expired.
        let early = try purge(fixture, at: revokedAt + 86_399)
        #expect(early.deleted == [.revokedGrants: 1])
        #expect(try fixture.count("refresh_tokens") == 3 && fixture.count("grants") == 1)
        let report = try purge(fixture, at: revokedAt + 86_400)
        #expect(report.deleted[.refreshTokens] == 3 && report.deleted[.grants] == 1)
        #expect(try fixture.count("refresh_tokens") == 0 && fixture.count("grants") == 0)
        // A token of the purged family is simply unknown now.
        #expect(try tokens.find(tokenHash: "r0") == nil)
    }

    @Test(arguments: TestBackend.available) func anExpiredFamilyGoesWholeAfterTheGracePeriod(_ backend: TestBackend) throws {
        let fixture = try PurgeFixture(backend, idleLifetime: 60 * 86_400)
        _ = try rotatedFamily(fixture)
        let expiry = Self.start + 30 * 86_400
        #expect(try purge(fixture, at: expiry + 86_399).total == 0)
        let report = try purge(fixture, at: expiry + 86_400)
        #expect(report.deleted[.refreshTokens] == 3 && report.deleted[.grants] == 1)
    }

    /// One family "big" of `generations` tokens, expired two days ago.
    private func bigExpiredFamily(_ backend: TestBackend, generations: Int) throws -> PurgeFixture {
        let fixture = try PurgeFixture(backend)
        try fixture.family("big", created: PurgeFixture.now - 40 * PurgeFixture.day, generations: generations, step: 60,
                           expires: PurgeFixture.now - 2 * PurgeFixture.day)
        return fixture
    }

    /// A family larger than a batch is deleted over several transactions, oldest tokens first, and
    /// each transaction stays within the batch size.
    @Test(arguments: TestBackend.available) func aLargeFamilySpansSeveralBatches(_ backend: TestBackend) throws {
        let fixture = try bigExpiredFamily(backend, generations: 1234)
        var purger = Purger(store: fixture.storage)
        purger.pause = .zero
        purger.batchSize = 500
        // Only the size bounds a batch here: the 2 ms time bound (PurgeBatchTests) split one more
        // batch off on a loaded machine.
        purger.batchTime = .seconds(60)
        let report = try purger.purge(RetentionPolicy(), at: Self.start)
        #expect(report.deleted[.refreshTokens] == 1234 && report.deleted[.grants] == 1)
        #expect(report.writeBatches == 3)
        #expect(try fixture.count("refresh_tokens") == 0)
    }

    /// Stopping mid-run (daemon shutdown) leaves a consistent database; the next run finishes.
    @Test(arguments: TestBackend.available) func anInterruptedRunResumesNextTime(_ backend: TestBackend) throws {
        let fixture = try bigExpiredFamily(backend, generations: 1200)
        var purger = Purger(store: fixture.storage)
        purger.pause = .zero
        var steps = 0
        let first = try purger.purge(RetentionPolicy(), at: Self.start) {
            steps += 1
            return steps < 9  // five expiry-index rules, two windows of the grant scan, one family batch
        }
        #expect(first.interrupted)
        let left = try fixture.count("refresh_tokens")
        #expect(left > 0 && left < 1200)
        #expect(try fixture.exists("grants", "grant_id", .text("big")))
        #expect(try fixture.isIntact())
        let second = try purger.purge(RetentionPolicy(), at: Self.start)
        #expect(!second.interrupted && second.deleted[.refreshTokens] == left && second.deleted[.grants] == 1)
    }

    /// One-row families: the row decides (its last rotation for the idle lifetime and the last
    /// access token, its absolute expiry, its grant's revocation); a dead one goes with its grant
    /// and the older tokens rotated into it, a live one stays whole.
    @Test(arguments: [
        // (name, rotated days after `start`, absolute expiry in days, revoked day, purge day, purged)
        ("live: rotated a day ago", 9.0, 30.0, nil, 10.0, false),
        ("idle: not rotated for 16 days, plus the day of grace", 1.0, 30.0, nil, 17.5, true),
        ("idle but inside the day of grace", 1.0, 30.0, nil, 16.5, false),
        ("past its absolute expiry, plus grace", 9.0, 10.0, nil, 11.5, true),
        ("revoked, plus grace", 9.0, 30.0, 9.5, 10.6, true),
        ("revoked, inside the grace", 9.0, 30.0, 9.5, 10.0, false),
    ] as [(String, Double, Double, Double?, Double, Bool)])
    func oneRowFamiliesDieByTheirRow(_ name: String, rotated: Double, expires: Double, revoked: Double?, purgeDay: Double,
                                    purged: Bool) throws {
        let fixture = try PurgeFixture()
        let day = Double(PurgeFixture.day)
        let start = PurgeFixture.now
        try fixture.oneRowFamily("f", created: start, rotated: start + Int64(rotated * day), expires: start + Int64(expires * day),
                                 grantRevoked: revoked.map { start + Int64($0 * day) }, olderTokens: 3)
        let report = try fixture.purge(at: start + Int64(purgeDay * day))
        #expect(try fixture.exists("grants", "grant_id", .text("f")) == !purged, "\(name)")
        #expect(try fixture.count("grants WHERE refresh_salt IS NOT NULL") == (purged ? 0 : 1), "\(name)")
        #expect(try fixture.count("refresh_tokens") == (purged ? 0 : 3), "\(name)")
        if purged { #expect(report.deleted[.refreshTokens] == 4 && report.deleted[.grants] == 1, "\(name)") }
        let counts = try Purger(store: fixture.store).dueCounts(RetentionPolicy(), at: Date(timeIntervalSince1970: TimeInterval(start)))
        #expect(counts[.refreshTokens] == 0)
    }
}
