import Foundation
import Testing
@testable import Server

@Suite struct AppAssociationTests {
    static let clients = [
        Fixtures.client("ios-b", team: "TEAM123456", bundle: "com.example.zeta"),
        Fixtures.client("ios-a", team: "TEAM123456", bundle: "com.example.Alpha"),
        Fixtures.client("ios-no-team", bundle: "com.example.none"),
        Fixtures.client("ios-no-bundle", team: "TEAM123456"),
        Fixtures.client("spa", type: .spa, team: "TEAM123456", bundle: "com.example.spa"),
        Fixtures.client("android", androidPackage: "com.example.android", androidSHA256: ["AA:BB:CC", "DD:EE:FF"]),
        Fixtures.client("android-no-keys", androidPackage: "com.example.nokeys"),
        Fixtures.client("both", team: "TEAM999999", bundle: "com.example.both", androidPackage: "com.example.both",
                        androidSHA256: ["11:22"]),
    ]

    @Test func appleAppSiteAssociationListsCompleteIOSClientsInStableOrder() {
        let json = String(decoding: AppAssociation.appleAppSiteAssociation(clients: Self.clients, issuerPath: "/auth/"), as: UTF8.self)
        let expected = #"{"applinks":{"details":["#
            + #"{"appIDs":["TEAM123456.com.example.Alpha"],"components":[{"/":"/auth/ios/com.example.Alpha/callback"}]},"#
            + #"{"appIDs":["TEAM123456.com.example.zeta"],"components":[{"/":"/auth/ios/com.example.zeta/callback"}]},"#
            + #"{"appIDs":["TEAM999999.com.example.both"],"components":[{"/":"/auth/ios/com.example.both/callback"}]}"#
            + #"]},"webcredentials":{"apps":["TEAM123456.com.example.Alpha","TEAM123456.com.example.zeta","TEAM999999.com.example.both"]}}"#
        #expect(json == expected)
        #expect(!json.contains("\\/"))
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil)
        // Input order does not change the output.
        let reversed = AppAssociation.appleAppSiteAssociation(clients: Self.clients.reversed(), issuerPath: "/auth/")
        #expect(String(decoding: reversed, as: UTF8.self) == expected)
    }

    @Test func rootIssuerAndNoClients() {
        let json = String(decoding: AppAssociation.appleAppSiteAssociation(clients: [Self.clients[0]]), as: UTF8.self)
        #expect(json.contains(#"{"/":"/ios/com.example.zeta/callback"}"#))
        let empty = String(decoding: AppAssociation.appleAppSiteAssociation(clients: []), as: UTF8.self)
        #expect(empty == #"{"applinks":{"details":[]},"webcredentials":{"apps":[]}}"#)
    }

    @Test func assetLinksListAndroidClientsWithFingerprints() throws {
        let bytes = AppAssociation.assetLinks(clients: Self.clients)
        let statements = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]])
        #expect(statements.count == 2)
        let packages = statements.compactMap { ($0["target"] as? [String: Any])?["package_name"] as? String }
        #expect(packages == ["com.example.android", "com.example.both"])
        let first = statements[0]
        #expect(first["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
        let target = try #require(first["target"] as? [String: Any])
        #expect(target["namespace"] as? String == "android_app")
        #expect(target["sha256_cert_fingerprints"] as? [String] == ["AA:BB:CC", "DD:EE:FF"])
        #expect(String(decoding: AppAssociation.assetLinks(clients: []), as: UTF8.self) == "[]")
    }

    @Test func servedAsJSON() {
        let response = AppAssociation.response(AppAssociation.assetLinks(clients: []))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
    }

    @Test func jsonStringsAreEscaped() {
        #expect(JSONText.quote("a\"b\\c/d\n\u{1}") == #""a\"b\\c/d\n\u0001""#)
    }
}
