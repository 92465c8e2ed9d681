import Testing
@testable import Crypto

@Suite struct SecretDigestTests {
    @Test func storesTheSHA256HexOfTheSecret() {
        // SHA-256("abc"), the FIPS 180-2 example.
        #expect(SecretDigest.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test(arguments: [("secret", true), ("secreT", false), ("", false), ("secret ", false)])
    func matchesOnlyTheExactSecret(candidate: String, expected: Bool) {
        #expect(SecretDigest.matches(candidate, storedHash: SecretDigest.hash("secret")) == expected)
    }

    @Test func aMalformedStoredHashNeverMatches() {
        #expect(!SecretDigest.matches("secret", storedHash: ""))
        #expect(!SecretDigest.matches("secret", storedHash: "not-hex"))
    }
}
