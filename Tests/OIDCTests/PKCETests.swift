import Testing
@testable import OIDC

@Suite("PKCE")
struct PKCETests {
    @Test func rfc7636AppendixB() {
        #expect(PKCE.challenge(for: Fixture.verifier) == Fixture.challenge)
        #expect(PKCE.verify(verifier: Fixture.verifier, challenge: Fixture.challenge))
    }

    /// B08 variants: padded or standard-alphabet challenges never match.
    @Test(arguments: [Fixture.challenge + "=", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw+cM", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw/cM"])
    func variantsFail(_ challenge: String) {
        #expect(!PKCE.verify(verifier: Fixture.verifier, challenge: challenge))
    }

    /// B07: verifier ABNF.
    @Test(arguments: [String(repeating: "a", count: 42), String(repeating: "a", count: 129), String(repeating: "a", count: 42) + "+",
                      String(repeating: "a", count: 42) + "=", String(repeating: "a", count: 42) + " ", String(repeating: "é", count: 43), ""])
    func malformedVerifier(_ verifier: String) {
        #expect(!PKCE.isWellFormed(verifier))
        #expect(!PKCE.verify(verifier: verifier, challenge: PKCE.challenge(for: verifier)))
    }

    @Test(arguments: [43, 128])
    func lengthBounds(_ count: Int) {
        let verifier = String(repeating: "A-._~", count: 30).prefix(count)
        #expect(PKCE.isWellFormed(String(verifier)))
        #expect(PKCE.verify(verifier: String(verifier), challenge: PKCE.challenge(for: String(verifier))))
    }

    struct ChallengeCase: Sendable, CustomTestStringConvertible {
        let challenge: String?, method: String?, isPublic: Bool, ok: Bool, note: String
        var testDescription: String { note }
    }

    /// B01, B02, B03.
    @Test(arguments: [
        ChallengeCase(challenge: Fixture.challenge, method: "S256", isPublic: true, ok: true, note: "S256 public"),
        ChallengeCase(challenge: nil, method: nil, isPublic: true, ok: false, note: "B01 public without challenge"),
        ChallengeCase(challenge: nil, method: nil, isPublic: false, ok: true, note: "confidential may omit"),
        ChallengeCase(challenge: nil, method: "S256", isPublic: false, ok: false, note: "method without challenge"),
        ChallengeCase(challenge: Fixture.challenge, method: "plain", isPublic: true, ok: false, note: "B02 plain public"),
        ChallengeCase(challenge: Fixture.challenge, method: "plain", isPublic: false, ok: false, note: "B02 plain confidential"),
        ChallengeCase(challenge: Fixture.challenge, method: nil, isPublic: true, ok: false, note: "B02 omitted method"),
        ChallengeCase(challenge: Fixture.challenge, method: "s256", isPublic: true, ok: false, note: "B02 unknown method"),
        ChallengeCase(challenge: String(repeating: "a", count: 42), method: "S256", isPublic: true, ok: false, note: "B03 42 chars"),
        ChallengeCase(challenge: String(repeating: "a", count: 129), method: "S256", isPublic: true, ok: false, note: "B03 129 chars"),
        ChallengeCase(challenge: String(repeating: "a", count: 42) + "/", method: "S256", isPublic: true, ok: false, note: "B03 bad char"),
        ChallengeCase(challenge: Fixture.challenge, method: "S256", isPublic: false, ok: true, note: "confidential S256"),
    ])
    func challenge(_ row: ChallengeCase) {
        do {
            let result = try PKCE.checkChallenge(row.challenge, method: row.method, isPublicClient: row.isPublic)
            #expect(row.ok)
            #expect(result == row.challenge)
        } catch {
            #expect(!row.ok)
            #expect(error.code == .invalidRequest)
        }
    }
}
