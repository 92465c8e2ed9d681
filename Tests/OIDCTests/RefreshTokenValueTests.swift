import Crypto
import Foundation
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
        ("rt1.\(String(repeating: "g", count: 64)).3.\(secret)", String(repeating: "g", count: 64), 3),
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
        "rt2.g.0.\(secret)",                      // the family shape is not this one
        "rt1.g.0",                                // two fields
        "rt1.g",                                  // one
        "rt1.",                                   // none
        "rt1.\(String(repeating: "g", count: 65)).0.\(secret)", // a grant id longer than any we issue
        "rt1.gé.0.\(secret)",                     // not ASCII
        "rt1.g.0\u{301}.\(secret)",               // a combining mark on the generation's digit
        "rt1.g.0.\u{301}\(secret)",               // and on the secret
        "RT1.g.0.\(secret)",                      // the prefix is case-sensitive
        " rt1.g.0.\(secret)",
    ])
    func otherShapesNameNoPlace(value: String) {
        #expect(RefreshTokenValue.position(in: value) == nil)
    }

    @Test func anOlderValueKeyCarriesTheWholeValuesDigest() {
        let value = RefreshTokenValue.compose(grantID: "grant", generation: 0, secret: Self.secret)
        let key = RefreshTokenValue.key(for: value)
        #expect(key.tokenHash == RefreshTokens.hash(value) && key.position == .init(grantID: "grant", generation: 0) && !key.inFamilyRow)
    }

    static let mac = RefreshFamilyMAC(successorKey: Array(repeating: 7, count: 32))
    static let family = RefreshToken(tokenHash: RefreshTokenKey.name(grantID: "grantAB-_9", generation: 3), grantID: "grantAB-_9",
                                     clientID: "c", userID: "u", scope: "openid", issuedAt: Date(timeIntervalSince1970: 0),
                                     expiresAt: Date(timeIntervalSince1970: 100), generation: 3, familySalt: Array(repeating: 1, count: 16))

    @Test func aFamilyValueNamesItsRowAndCarriesA256BitMAC() throws {
        let value = try #require(Self.mac.value(of: Self.family))
        let parts = value.split(separator: ".")
        #expect(parts.count == 4 && parts[0] == "rt2" && parts[1] == "grantAB-_9" && parts[2] == "3")
        #expect(try Base64URL.decode(parts[3]).count == 32)
        let key = RefreshTokenValue.key(for: value)
        #expect(key == .family(grantID: "grantAB-_9", generation: 3) && key.inFamilyRow && key.tokenHash == "rt2.grantAB-_9.3")
        #expect(key.tombstone == "family.grantAB-_9")
        #expect(Self.mac.verifies(value, token: Self.family))
    }

    /// Every malformed family value is no family value (looked up by digest, found nowhere); the
    /// well-formed ones with a wrong MAC, salt, key or generation do not verify.
    @Test(arguments: [
        ("rt3.grantAB-_9.3.", "a bad prefix"),
        ("RT2.grantAB-_9.3.", "a prefix in capitals"),
        ("rt2.grantAB-_9.3.!!", "bad base64url"),
        ("rt2.grantAB-_9.3.AAAA", "a MAC too short"),
        ("rt2.grantAB-_9.03.", "a generation with a leading zero"),
        ("rt2.grantAB-_9.-3.", "a negative generation"),
        ("rt2.grantAB-_9.99999999999.", "a generation past ten digits (overflow)"),
        ("rt2..3.", "no grant"),
        ("rt2.\(String(repeating: "g", count: 65)).3.", "a grant id too long"),
    ])
    func malformedFamilyValuesAreNoFamilyValues(prefix: String, _ why: String) throws {
        let good = try #require(Self.mac.value(of: Self.family))
        let mac = String(good.split(separator: ".")[3])
        let value = prefix.hasSuffix(".") ? prefix + mac : prefix
        #expect(RefreshTokenValue.familyParts(of: value) == nil, "\(why)")
        #expect(!RefreshTokenValue.key(for: value).inFamilyRow, "\(why)")
        #expect(!Self.mac.verifies(value, token: Self.family), "\(why)")
    }

    @Test func aMACTooLongOrWithPaddingIsRejected() throws {
        let good = try #require(Self.mac.value(of: Self.family))
        #expect(RefreshTokenValue.familyParts(of: good + "A") == nil)
        #expect(RefreshTokenValue.familyParts(of: good + "=") == nil)
    }

    @Test func wrongMACSaltKeyOrGenerationDoNotVerify() throws {
        let good = try #require(Self.mac.value(of: Self.family))
        var flipped = Array(good.utf8)
        flipped[flipped.count - 2] = flipped[flipped.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(!Self.mac.verifies(String(decoding: flipped, as: UTF8.self), token: Self.family), "a wrong MAC")
        var salted = Self.family
        salted.familySalt = Array(repeating: 2, count: 16)
        #expect(!Self.mac.verifies(good, token: salted), "another family's salt")
        #expect(!RefreshFamilyMAC(successorKey: Array(repeating: 8, count: 32)).verifies(good, token: Self.family), "another server key")
        var later = Self.family
        later.generation = 4
        #expect(!Self.mac.verifies(good, token: later), "the value names generation 3, the token read is at 4")
        let next = try #require(Self.mac.value(of: later))
        #expect(!Self.mac.verifies(next, token: Self.family), "a future generation's value does not verify at the current one")
        #expect(Self.mac.verifies(next, token: later))
    }
}
