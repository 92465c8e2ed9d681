import Crypto
import Foundation
import Model
import Testing
import TestSupport
@testable import OIDC

/// `rt2` family tokens at the token endpoint (memory stores): values that are no token of ours,
/// reuse and the overlap window at each generation, and older tokens rotating into a family.
@Suite("Refresh-token families")
struct RefreshFamilyGrantTests {
    /// Swaps one part of a genuine value; none of them is a token, and presenting one changes nothing.
    @Test(arguments: [
        ("a wrong MAC", 3, String(repeating: "A", count: 43)),
        ("a future generation", 2, "2"),
        ("a past generation never issued with this MAC", 2, "0"),
        ("the generation overflowing", 2, "99999999999"),
        ("an unknown grant", 1, "nosuchgrant"),
        ("a bad prefix", 0, "rt9"),
        ("bad base64url", 3, "!" + String(repeating: "A", count: 42)),
    ])
    func valuesThatAreNoTokenOfOursAreInvalidGrant(_ why: String, part: Int, replacement: String) throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        let r1 = try #require(try harness.refresh(r0).refreshToken)
        var parts = r1.split(separator: ".").map(String.init)
        parts[part] = replacement
        let forged = parts.joined(separator: ".")
        expectDeadToken { () throws(OAuthError) in try harness.refresh(forged) }
        // Nothing was revoked or rotated by the forgery: the genuine token still rotates.
        #expect(try harness.refresh(r1).refreshToken?.hasPrefix("rt2.") == true, "\(why)")
    }

    /// At every generation, the token before the current one retries inside the window (same
    /// successor), and any older one is reuse that revokes the family.
    @Test(arguments: [1, 2, 5])
    func reuseAndOverlapAtEachGeneration(generations: Int) throws {
        let harness = RefreshHarness()
        var chain = [try #require(try harness.signIn().refreshToken)]
        for _ in 0..<generations {
            harness.clock.advance(by: 20)   // outside the 10 s window of the previous rotation
            chain.append(try #require(try harness.refresh(chain.last!).refreshToken))
        }
        #expect(chain.last!.hasPrefix(try #require(chain.first?.split(separator: ".").prefix(2).joined(separator: "."))))
        #expect(chain.last!.split(separator: ".")[2] == Substring(String(generations)))
        // The previous token, inside the window after its rotation: the same successor, twice.
        let previous = chain[chain.count - 2]
        harness.clock.advance(by: 4)
        #expect(try harness.refresh(previous).refreshToken == chain.last)
        #expect(try harness.refresh(previous).refreshToken == chain.last)
        if generations >= 2 {
            // Any older one is reuse even inside the window (its successor was used): the family dies.
            expectDeadToken { () throws(OAuthError) in try harness.refresh(chain[chain.count - 3]) }
        } else {
            // The previous one just past the window is reuse.
            harness.clock.advance(by: 7)
            expectDeadToken { () throws(OAuthError) in try harness.refresh(previous) }
        }
        expectDeadToken { () throws(OAuthError) in try harness.refresh(chain.last!) }
        let grantID = try #require(try harness.stored(chain.last!)).grantID
        #expect(try harness.grants.find(grantID: grantID)?.revokeReason == "refresh token reused")
    }

    /// A token stored before migration 0017 (an `rt1` value, or a digest-only one) rotates into
    /// a family: its successor is `rt2` at the next generation, a retry gets that same successor,
    /// and the older token's reuse still revokes the family.
    @Test(arguments: [true, false])
    func olderTokensRotateIntoAFamily(positioned: Bool) throws {
        let harness = RefreshHarness()
        let signedIn = try #require(try harness.signIn().refreshToken)
        let grantID = try #require(try harness.stored(signedIn)).grantID
        try harness.grants.revoke(grantID: grantID, at: harness.clock.now, reason: "test: only the older token's family matters")
        let grant = Grant(grantID: "older-grant", clientID: Fixture.native.clientID, userID: Fixture.alice.userID, sessionID: nil,
                          scope: "openid offline_access", authTime: harness.clock.now, createdAt: harness.clock.now)
        try harness.grants.create(grant)
        let older = positioned ? RefreshTokenValue.compose(grantID: grant.grantID, generation: 4, secret: Random.token(bytes: 32))
                               : Random.token(bytes: 32)
        try harness.store.insert(RefreshToken(tokenHash: RefreshTokens.hash(older), grantID: grant.grantID, clientID: grant.clientID,
                                              userID: Fixture.alice.userID, scope: grant.scope, issuedAt: harness.clock.now,
                                              expiresAt: harness.clock.now + 86_400, generation: positioned ? 4 : nil))
        let next = try #require(try harness.refresh(older).refreshToken)
        let generation = positioned ? 5 : 1
        #expect(next.hasPrefix("rt2.older-grant.\(generation)."))
        #expect(try harness.stored(older)?.successorHash == "rt2.older-grant.\(generation)")
        #expect(try harness.refresh(older).refreshToken == next, "a retry inside the window: the family's successor")
        let after = try #require(try harness.refresh(next).refreshToken)
        #expect(after.hasPrefix("rt2.older-grant.\(generation + 1)."))
        harness.clock.advance(by: 30)
        expectDeadToken { () throws(OAuthError) in try harness.refresh(older) }
        expectDeadToken { () throws(OAuthError) in try harness.refresh(after) }
    }

    /// An older token rotated to an older-style successor (before the upgrade) keeps that successor
    /// for a retry inside the window instead of being taken for reuse.
    @Test func anOlderRetryAcrossTheUpgradeGetsItsOlderSuccessor() throws {
        let harness = RefreshHarness()
        let grant = Grant(grantID: "older-grant", clientID: Fixture.native.clientID, userID: Fixture.alice.userID, sessionID: nil,
                          scope: "openid offline_access", authTime: harness.clock.now, createdAt: harness.clock.now)
        try harness.grants.create(grant)
        let older = RefreshTokenValue.compose(grantID: grant.grantID, generation: 0, secret: Random.token(bytes: 32))
        let olderNext = harness.refreshTokens.successor(of: older, presented: RefreshToken(
            tokenHash: "", grantID: grant.grantID, clientID: "", userID: "", scope: "", issuedAt: harness.clock.now,
            expiresAt: harness.clock.now, generation: 0))
        let base = RefreshToken(tokenHash: RefreshTokens.hash(older), grantID: grant.grantID, clientID: grant.clientID,
                                userID: Fixture.alice.userID, scope: grant.scope, issuedAt: harness.clock.now,
                                expiresAt: harness.clock.now + 86_400, rotatedAt: harness.clock.now,
                                successorHash: RefreshTokens.hash(olderNext), generation: 0)
        try harness.store.insert(base)
        var successor = base
        successor.tokenHash = RefreshTokens.hash(olderNext)
        successor.rotatedAt = nil
        successor.successorHash = nil
        successor.generation = 1
        try harness.store.insert(successor)
        harness.clock.advance(by: 3)
        #expect(try harness.refresh(older).refreshToken == olderNext)
        #expect(try harness.refresh(olderNext).refreshToken?.hasPrefix("rt2.older-grant.2.") == true)
    }

    /// Revocation and introspection know family tokens by their MAC alone.
    @Test func aForgedMACIsNeitherRevokedNorIntrospected() throws {
        let harness = RefreshHarness()
        let r0 = try #require(try harness.signIn().refreshToken)
        let parts = r0.split(separator: ".")
        let forged = [parts[0], parts[1], parts[2], Substring(String(repeating: "A", count: 43))].joined(separator: ".")
        let key = RefreshTokenValue.key(for: forged)
        let found = try harness.store.find(key)
        #expect(found != nil, "the row is found by its name")
        #expect(harness.refreshTokens.familyMAC.checked(forged, key: key, found: found) == nil)
        #expect(harness.refreshTokens.familyMAC.checked(r0, key: RefreshTokenValue.key(for: r0), found: found) != nil)
    }
}
