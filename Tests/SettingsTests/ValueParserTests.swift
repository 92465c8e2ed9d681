import Foundation
import Testing
@testable import Settings

@Suite struct ValueParserTests {
    @Test(arguments: [
        ("127.0.0.1:8080", ListenTarget.tcp(host: "127.0.0.1", port: 8080)),
        ("0.0.0.0:0", .tcp(host: "0.0.0.0", port: 0)),
        ("[::1]:8443", .tcp(host: "::1", port: 8443)),
        ("localhost:80", .tcp(host: "localhost", port: 80)),
        ("unix:/run/gatehouse/idp.sock", .unix(path: "/run/gatehouse/idp.sock")),
    ])
    func acceptsListenAddresses(text: String, expected: ListenTarget) throws {
        #expect(try ListenTarget.parse(text).get() == expected)
    }

    @Test(arguments: ["8080", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:+80", ":8080",
                      "::1:8080", "[127.0.0.1]:80", "unix:relative.sock", "unix:/" + String(repeating: "a", count: 120)])
    func rejectsListenAddresses(text: String) {
        #expect(throws: ParseFailure.self) { try ListenTarget.parse(text).get() }
    }

    @Test(arguments: [
        ("https://id.example.com/", "https", "id.example.com", "/"),
        ("http://127.0.0.1:8080/", "http", "127.0.0.1:8080", "/"),
        ("https://id.example.com/tenant/a/", "https", "id.example.com", "/tenant/a/"),
    ])
    func acceptsIssuers(text: String, scheme: String, authority: String, path: String) throws {
        let issuer = try Issuer.parse(text).get()
        #expect(issuer.scheme == scheme)
        #expect(issuer.authority == authority)
        #expect(issuer.path == path)
        #expect(issuer.endpoint("oauth/token") == text + "oauth/token")
    }

    @Test(arguments: ["https://id.example.com", "id.example.com/", "ftp://id.example.com/", "HTTPS://id.example.com/",
                      "https://user@id.example.com/", "https://id.example.com/?x=1/", "https://id.example.com/#f/",
                      "https:///", "https://id.example.com/a b/"])
    func rejectsIssuers(text: String) {
        #expect(throws: ParseFailure.self) { try Issuer.parse(text).get() }
    }

    @Test(arguments: [("16384", 16_384), ("16KiB", 16_384), ("16K", 16_384), ("1MiB", 1_048_576), ("2 MiB", 2_097_152), ("1024B", 1024)])
    func parsesSizes(text: String, bytes: Int) throws {
        #expect(try ValueParsers.byteSize(text, in: 1...(1 << 30)).get() == bytes)
    }

    @Test(arguments: ["", "-1", "+5", "0x10", "1.5MiB", "16 KB", "99999999999999999999", "3GiB"])
    func rejectsSizes(text: String) {
        #expect(throws: ParseFailure.self) { try ValueParsers.byteSize(text, in: 1...(1 << 30)).get() }
    }

    @Test(arguments: [("10", Duration.seconds(10)), ("10s", .seconds(10)), ("250ms", .milliseconds(250)), ("5m", .seconds(300)), ("1h", .seconds(3600))])
    func parsesDurations(text: String, expected: Duration) throws {
        #expect(try ValueParsers.duration(text, in: .zero...(.seconds(86_400))).get() == expected)
    }

    @Test(arguments: ["", "ten", "1.5s", "-1s", "+1s", "10 parsecs", "2d"])
    func rejectsDurations(text: String) {
        #expect(throws: ParseFailure.self) { try ValueParsers.duration(text, in: .zero...(.seconds(86_400))).get() }
    }

    @Test func suggestsTheNearestName() {
        #expect(Suggest.nearest(to: "isuer", among: ["issuer", "listen"]) == "issuer")
        #expect(Suggest.nearest(to: "completely_different", among: ["issuer", "listen"]) == nil)
    }
}

@Suite struct KeySettingTests {
    @Test func aKeyEncryptionKeyMustBe32BytesOfBase64() throws {
        let good = Data(repeating: 7, count: 32).base64EncodedString()
        #expect(try SettingsLoader.load(configPath: nil, environment: ["IDP_KEY_ENCRYPTION_KEY": good]).settings.keyEncryptionKey == good)
        for bad in ["", "not base64!", Data(repeating: 7, count: 16).base64EncodedString(), Data(repeating: 7, count: 33).base64EncodedString()] {
            #expect(throws: ConfigurationError.self) {
                try SettingsLoader.load(configPath: nil, environment: ["IDP_KEY_ENCRYPTION_KEY": bad])
            }
        }
    }

    @Test func theKeyFileDefaultsBesideTheDatabase() throws {
        let settings = try SettingsLoader.load(configPath: nil, environment: ["IDP_DATABASE": "/var/lib/idp/db.sqlite3"]).settings
        #expect(settings.effectiveKeyEncryptionKeyFile == "/var/lib/idp/db.sqlite3.kek")
    }

    @Test(arguments: [("2048", true), ("3072", true), ("4096", true), ("1024", false), ("2049", false), ("+2048", false)])
    func rsaKeyBits(text: String, accepted: Bool) {
        let result = ValueParsers.rsaKeyBits(text)
        if accepted { #expect((try? result.get()) == Int(text)) } else { #expect((try? result.get()) == nil) }
    }
}

@Suite struct ConnectionNameTests {
    @Test(arguments: [("Username-Password-Authentication", true), ("my_db-2", true), ("", false), ("has space", false),
                      ("ünïcode", false), (String(repeating: "a", count: 129), false)])
    func connectionNames(text: String, accepted: Bool) {
        #expect(((try? ValueParsers.connectionName(text).get()) != nil) == accepted)
    }
}
