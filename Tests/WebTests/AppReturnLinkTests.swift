import Foundation
import Model
import Testing
@testable import Server

/// Where the "back to the app" button of an un-intercepted universal-link callback points.
@Suite struct AppReturnLinkTests {
    static let ios = Client(clientID: "ios", name: "Notes", type: .native,
                            callbacks: ["com.example.notes://id.example.com/ios/com.example.Notes/callback",
                                        "https://id.example.com/ios/com.example.Notes/callback"],
                            bundleID: "com.example.Notes", createdAt: Date(timeIntervalSince1970: 0))
    static let bare = Client(clientID: "bare", name: "Bare", type: .native, callbacks: ["https://id.example.com/ios/com.example.bare/callback"],
                             bundleID: "com.example.bare", androidPackage: "com.example.bare", createdAt: Date(timeIntervalSince1970: 0))
    static let clients = [ios, bare]

    static func link(_ platform: AppReturnLink.Platform, _ id: String, query: [(String, String)] = []) -> String? {
        AppReturnLink.link(platform: platform, identifier: id, clients: clients, authority: "id.example.com",
                           path: "/\(platform.rawValue)/\(id)/callback", query: query)?.url
    }

    @Test func registeredCustomSchemeCallbackGetsTheResponseParametersOnly() {
        let url = Self.link(.ios, "com.example.Notes", query: [("code", "a b&c"), ("state", "s"), ("tracking", "x"), ("iss", "https://id/")])
        #expect(url == "com.example.notes://id.example.com/ios/com.example.Notes/callback?code=a%20b%26c&state=s&iss=https%3A%2F%2Fid%2F")
    }

    @Test func withoutOneIOSOpensTheBundleSchemeWithNoParameters() {
        #expect(Self.link(.ios, "com.example.bare", query: [("code", "c")]) == "com.example.bare://id.example.com/ios/com.example.bare/callback")
    }

    @Test func androidGetsAnIntentForItsPackageOnly() {
        #expect(Self.link(.android, "com.example.bare", query: [("code", "c")])
                == "intent://id.example.com/android/com.example.bare/callback?code=c#Intent;scheme=https;package=com.example.bare;end")
    }

    @Test(arguments: [
        (AppReturnLink.Platform.ios, "com.example.unknown"), (.ios, "com.example.notes"), (.android, "com.example.Notes"),
        (.ios, "com.example.Notes\"><script>"), (.ios, ""),
    ])
    func unregisteredOrUnsafeIdentifiersGetNothing(_ platform: AppReturnLink.Platform, _ id: String) {
        #expect(Self.link(platform, id) == nil)
    }
}
