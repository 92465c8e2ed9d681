import Foundation
import JOSE
import Model
import OIDC
import Testing

/// Who a first upstream login becomes, and the upstream authorization request's secrets.
@Suite struct UpstreamLinkingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let existing = User(userID: "auth0|1", email: "Ada@Example.com", emailVerified: true, createdAt: now)
    static let unverifiedExisting = User(userID: "auth0|2", email: "ada@example.com", emailVerified: false, createdAt: now)

    static func connection(link: Bool) -> UpstreamConnection {
        UpstreamConnection(name: "corp", strategy: .oidc, clientID: "c", linkByVerifiedEmail: link, createdAt: now)
    }

    static func claims(verified: JSONValue?) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["sub": .string("u-42"), "email": .string("ada@example.com"), "name": .string("Ada")]
        claims["email_verified"] = verified
        return claims
    }

    enum Expected: Equatable { case existing, link(String), create }

    @Test(arguments: [
        ("returning identity", true, JSONValue.bool(true), "auth0|1", [existing], Expected.existing),
        ("verified email, linking on", true, .bool(true), nil, [existing], .link("auth0|1")),
        ("Apple's string boolean", true, .string("true"), nil, [existing], .link("auth0|1")),
        ("verified email, linking off: Auth0's default", false, .bool(true), nil, [existing], .create),
        ("unverified email trying to link", true, .bool(false), nil, [existing], .create),
        ("string false", true, .string("false"), nil, [existing], .create),
        ("no email_verified claim", true, nil, nil, [existing], .create),
        ("the existing user's own email is unverified", true, .bool(true), nil, [unverifiedExisting], .create),
        ("two candidates: ambiguous", true, .bool(true), nil,
         [existing, User(userID: "oidc|other|9", email: "ada@example.com", emailVerified: true, createdAt: now, connection: "other")], .create),
    ] as [(String, Bool, JSONValue?, String?, [User], Expected)])
    func decision(label: String, link: Bool, verified: JSONValue?, linked: String?, candidates: [User], expected: Expected) {
        let decision = UpstreamLinking.decide(connection: Self.connection(link: link), claims: Self.claims(verified: verified),
                                              linked: linked, candidates: candidates, now: Self.now)
        switch (decision, expected) {
        case (.existing(let id), .existing): #expect(id == linked, "\(label)")
        case (.link(let id), .link(let want)): #expect(id == want, "\(label)")
        case (.create(let user), .create):
            #expect(user.userID == "oidc|corp|u-42" && user.connection == "corp" && user.email == "ada@example.com", "\(label)")
            #expect(user.name == "Ada" && user.passwordHash == nil)
        default: Issue.record("\(label): \(decision)")
        }
    }

    struct Counter: RandomSource {
        func token(bytes: Int) -> String { String(repeating: "A", count: (bytes * 4 + 2) / 3) }
    }

    @Test func theUpstreamRequestCarriesStateNonceAndS256() throws {
        var connection = Self.connection(link: false)
        connection.scopes = ["email"]
        connection.hostedDomain = "example.com"
        let request = UpstreamAuthorizationRequest(connection: connection, authorizeURL: "https://sso.example/authorize",
                                                   callback: "https://id.example/login/callback", random: SystemRandom())
        let query = try #require(URLComponents(string: request.url)?.queryItems)
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        #expect(value("response_type") == "code" && value("client_id") == "c")
        #expect(value("redirect_uri") == "https://id.example/login/callback")
        #expect(value("scope") == "openid email" && value("hd") == "example.com")
        #expect(value("state") == request.state && value("nonce") == request.nonce && request.state != request.nonce)
        #expect(value("code_challenge_method") == "S256")
        #expect(value("code_challenge") == UpstreamAuthorizationRequest.challenge(request.codeVerifier))
        #expect(request.codeVerifier.count == 43 && query.first { $0.name == "code_verifier" } == nil)
        // RFC 7636 Appendix B's example.
        #expect(UpstreamAuthorizationRequest.challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }
}
