import Crypto
import Foundation
import Testing
import TestSupport

/// Catalogue rows that need the real `idp` process: kill -9, SIGTERM, key rotation while serving.
@Suite("Negative catalogue: the daemon")
struct NegativeCatalogueDaemonTests {
    static let scope = "openid profile email offline_access"

    /// Signs in with offline_access and returns the first refresh token.
    static func refreshToken(_ fixture: SignInFixture, clientID: String) throws -> String {
        let callback = try fixture.signIn(Browser(directory: fixture.daemon.directory), clientID: clientID, extra: [("scope", scope)])
        let code = try #require(queryParameters(of: callback)["code"])
        return try #require(try fixture.redeem(code: code, clientID: clientID).json()["refresh_token"] as? String)
    }

    /// One rotation as Auth0.swift sends it; the new token response, or nil when the daemon did not answer 200.
    static func rotate(_ fixture: SignInFixture, clientID: String, _ token: String) -> [String: Any]? {
        guard let response = try? Browser(directory: fixture.daemon.directory).post(fixture.issuer + "oauth/token", json: [
            "grant_type": "refresh_token", "client_id": clientID, "refresh_token": token,
        ]), response.status == 200 else { return nil }
        return try? response.json()
    }

    /// K01 against idp itself: SIGKILL while refresh tokens rotate, three times. Each time the file
    /// passes `db check` (integrity_check and migrations), and the last rotation answered 200 is
    /// there: its token still refreshes after the restart (a retry inside the reuse window, should the
    /// kill have landed after a commit whose answer was lost).
    @Test func killNineWhileRotatingLosesNoAnsweredRotation() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        var token = try Self.refreshToken(fixture, clientID: app.clientID)
        let port = try #require(URLComponents(string: fixture.issuer)?.port)
        var daemon = fixture.daemon
        for round in 0..<3 {
            let pid = daemon.process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3 + 0.2 * Double(round)) { kill(pid, SIGKILL) }
            var answered = 0
            while let body = Self.rotate(fixture, clientID: app.clientID, token), let next = body["refresh_token"] as? String {
                token = next
                answered += 1
            }
            #expect(daemon.waitForExit() == SIGKILL, "round \(round)")
            #expect(answered > 0, "round \(round): nothing was answered before the kill")
            let check = try fixture.daemon.admin(["db", "check"])
            #expect(check.status == 0, "round \(round): \(check.stdout) \(check.stderr)")
            daemon = try Daemon(environment: ["IDP_LISTEN": "127.0.0.1:\(port)", "IDP_ISSUER": fixture.issuer],
                                directory: fixture.daemon.directory)
            let after = try #require(Self.rotate(fixture, clientID: app.clientID, token), "round \(round): the last answered token is gone")
            token = try #require(after["refresh_token"] as? String)
        }
        #expect(daemon.stop() == 0)
    }

    /// I24 and L04: SIGTERM closes SQLite cleanly (the -wal file goes with the last connection, the
    /// file checks out), and the database, its WAL, its shared memory and the KEK are 0600 meanwhile.
    @Test func sigtermClosesTheDatabaseCleanlyAndItsFilesArePrivate() throws {
        let fixture = try SignInFixture()
        let app = try fixture.createApp()
        try fixture.createUser()
        _ = try Self.refreshToken(fixture, clientID: app.clientID)
        let database = fixture.daemon.directory.file("data/idp.sqlite3")
        for suffix in ["", "-wal", "-shm", ".kek"] {
            let mode = (try FileManager.default.attributesOfItem(atPath: database + suffix)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "idp.sqlite3\(suffix) has mode \(String(mode ?? 0, radix: 8))")
        }
        #expect(fixture.daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"), "the WAL outlived a clean shutdown")
        let check = try fixture.daemon.admin(["db", "check"])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
    }

    /// E05: after `keys rotate`, no token ever names a kid the JWKS does not serve, and the old key
    /// stays published. The row also asks that a new key be published before it signs — for at least
    /// the JWKS cache lifetime, or a client holding a cached JWKS cannot verify the next ID token.
    @Test func aRotatedKeyIsPublishedBeforeItSigns() throws {
        let fixture = try SignInFixture(environment: ["IDP_JWKS_MAX_AGE": "2s"])
        let app = try fixture.createApp()
        try fixture.createUser()
        var token = try Self.refreshToken(fixture, clientID: app.clientID)
        func kids() throws -> Set<String> {
            Set((try Curl.get(fixture.issuer + ".well-known/jwks.json").json()["keys"] as? [[String: String]] ?? []).compactMap { $0["kid"] })
        }
        let before = try kids()
        let rotated = try fixture.daemon.admin(["keys", "rotate", "--alg", "RS256", "--json"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let newKid = try #require((try JSONSerialization.jsonObject(with: Data(rotated.stdout.utf8)) as? [String: String])?["kid"])
        var published: Date?
        var signed: Date?
        let deadline = Date().addingTimeInterval(12)
        while signed == nil, Date() < deadline {
            let body = try #require(Self.rotate(fixture, clientID: app.clientID, token))
            token = try #require(body["refresh_token"] as? String)
            let idToken = try #require(body["id_token"] as? String)
            let header = try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(idToken.split(separator: ".")[0]))) as? [String: Any]
            let kid = try #require(header?["kid"] as? String)
            let served = try kids()
            #expect(served.contains(kid), "an ID token names \(kid), which the JWKS does not serve")
            #expect(before.isSubset(of: served), "a rotated-out key left the JWKS")
            if published == nil, served.contains(newKid) { published = Date() }
            if kid == newKid { signed = Date() }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let first = try #require(signed, "the new key never signed within 12 s")
        withKnownIssue("a rotated key signs as soon as the daemon loads it; it is never published ahead of use") {
            let lead = first.timeIntervalSince(published ?? first)
            #expect(lead >= 2, "the new key signed \(lead) s after it was first served; a JWKS cached for 2 s does not know it")
        }
    }
}
