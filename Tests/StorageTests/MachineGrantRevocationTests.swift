import Foundation
import Model
import Storage
import Testing
import TestSupport

/// A `client_credentials` grant has no row: its revocation alone is stored, in `revoked_grants`
/// until the token's `exp`, on SQLite and PostgreSQL alike (`GrantStore.revokeMachineGrant`).
@Suite("Machine grants are remembered only when revoked")
struct MachineGrantRevocationTests {
    @Test(arguments: TestBackend.available)
    func aRevocationIsRememberedOnceUntilTheTokensExpiry(_ backend: TestBackend) throws {
        let (store, _, keep) = try RevokedGrantsTests.open(backend)
        defer { store.close(); _ = keep }
        let grants = SQLiteGrantStore(store: store)
        let expiry = Sample.now + 900
        #expect(try !grants.isMachineGrantRevoked(grantID: "m2m-1"))
        #expect(try grants.revokeMachineGrant(grantID: "m2m-1", until: expiry))
        #expect(try !grants.revokeMachineGrant(grantID: "m2m-1", until: expiry + 60), "a second revocation changes nothing")
        #expect(try grants.isMachineGrantRevoked(grantID: "m2m-1"))
        #expect(try !grants.isMachineGrantRevoked(grantID: "m2m-2"))
        #expect(try RevokedGrantsTests.remembered(store) == ["m2m-1": Int64(expiry.timeIntervalSince1970)])
        #expect(try grants.find(grantID: "m2m-1") == nil, "still no grant row")
    }

    @Test(arguments: TestBackend.available)
    func thePurgeDropsTheRevocationOnceTheTokenHasExpired(_ backend: TestBackend) throws {
        let (store, _, keep) = try RevokedGrantsTests.open(backend)
        defer { store.close(); _ = keep }
        let grants = SQLiteGrantStore(store: store)
        #expect(try grants.revokeMachineGrant(grantID: "m2m-due", until: Sample.now + 60))
        #expect(try grants.revokeMachineGrant(grantID: "m2m-live", until: Sample.now + 3_600))
        _ = try Purger(store: store).purge(RetentionPolicy(), at: Sample.now + 120)
        #expect(try !grants.isMachineGrantRevoked(grantID: "m2m-due"))
        #expect(try grants.isMachineGrantRevoked(grantID: "m2m-live"))
    }
}
