import Model
@testable import OIDC
import Testing

/// The positioned refresh-token shape is parsed strictly: anything else is looked up by digest alone.
@Suite struct RefreshTokenValueTests {
    static let secret = String(repeating: "A", count: 43)

    @Test(arguments: [
        ("rt1.grantAB-_9.0.\(secret)", "grantAB-_9", 0),
        ("rt1.g.17.\(secret)", "g", 17),
        ("rt1.g.9999999999.\(secret)", "g", 9_999_999_999),
    ])
    func positionsAreRead(value: String, grantID: String, generation: Int) {
        #expect(RefreshTokenValue.position(in: value) == RefreshTokenKey.Position(grantID: grantID, generation: generation))
    }

    @Test(arguments: [
        secret,                                   // the earlier shape: random, no place
        "rt1..0.\(secret)",                       // no grant
        "rt1.g..\(secret)",                       // no generation
        "rt1.g.01.\(secret)",                     // a leading zero: one place, one spelling
        "rt1.g.-1.\(secret)",
        "rt1.g.1e3.\(secret)",
        "rt1.g.12345678901.\(secret)",            // too many digits
        "rt1.g.0.",                               // no secret
        "rt1.g.0.\(secret).x",                    // a fourth field
        "rt1.g/x.0.\(secret)",                    // not base64url
        "rt2.g.0.\(secret)",
    ])
    func otherShapesNameNoPlace(value: String) {
        #expect(RefreshTokenValue.position(in: value) == nil)
    }

    @Test func theKeyAlwaysCarriesTheWholeValuesDigest() {
        let value = RefreshTokenValue.first(grantID: "grant")
        let key = RefreshTokenValue.key(for: value)
        #expect(key.tokenHash == RefreshTokens.hash(value) && key.position == .init(grantID: "grant", generation: 0))
    }
}
