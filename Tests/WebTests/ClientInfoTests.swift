import Crypto
import Testing
@testable import Server

@Suite struct ClientInfoTests {
    static func encode(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    @Test(arguments: [
        (encode(#"{"name":"Auth0.swift","version":"3.1.0","env":{"swift":"6.x","iOS":"17.4"}}"#), "Auth0.swift 3.1.0"),
        (encode(#"{"name":"auth0-spa-js","version":"2.1.3"}"#), "auth0-spa-js 2.1.3"),
        (encode(#"{"name":"Auth0.Android"}"#), "Auth0.Android"),
        (encode(#"{"name":"  Lib\n\u0007 ","version":""}"#), "Lib"),
        (encode(#"{"name":"Auth0.swift","version":"3.1.0"}"#) + "==", "Auth0.swift 3.1.0"),   // padded: tolerated
    ])
    func decodesALabel(_ value: String, _ label: String) {
        #expect(ClientInfo.label(value) == label)
    }

    @Test(arguments: [
        nil, "", "!!!", "a", encode("not json"), encode("[1,2]"), encode(#"{"version":"1.0"}"#), encode(#"{"name":42}"#),
        encode(#"{"name":""}"#), encode(#"{"name":"   "}"#), String(repeating: "A", count: 10_000),
    ] as [String?])
    func garbageGivesNil(_ value: String?) {
        #expect(ClientInfo.decode(value) == nil)
    }

    @Test func longValuesAreCapped() throws {
        let info = try #require(ClientInfo.decode(Self.encode("{\"name\":\"\(String(repeating: "n", count: 500))\",\"version\":\"1\"}")))
        #expect(info.name.count == 64)
    }
}
