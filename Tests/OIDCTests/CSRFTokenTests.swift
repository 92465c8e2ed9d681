import Testing
@testable import OIDC

/// G01: the login form's token must match the hash stored in the transaction.
@Suite struct CSRFTokenTests {
    @Test func freshTokenMatchesItsHash() {
        let made = CSRFToken.make()
        #expect(made.token.count == 43)
        #expect(made.hash.count == 64)
        #expect(made.hash != made.token)
        #expect(CSRFToken.matches(made.token, hash: made.hash))
    }

    @Test func tokensAreUnique() {
        #expect(CSRFToken.make().token != CSRFToken.make().token)
    }

    @Test func mismatchMissingAndEmptyAreRefused() {
        let made = CSRFToken.make()
        let foreign = CSRFToken.make()
        #expect(!CSRFToken.matches(foreign.token, hash: made.hash))
        #expect(!CSRFToken.matches(nil, hash: made.hash))
        #expect(!CSRFToken.matches("", hash: made.hash))
        #expect(!CSRFToken.matches(made.token, hash: ""))
        #expect(!CSRFToken.matches(made.hash, hash: made.hash))  // The stored hash is not itself a token.
        #expect(!CSRFToken.matches(made.token + "x", hash: made.hash))
        #expect(!CSRFToken.matches(String(repeating: "a", count: 10_000), hash: made.hash))
    }

    @Test func hashIsLowerHexSHA256() {
        #expect(CSRFToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
