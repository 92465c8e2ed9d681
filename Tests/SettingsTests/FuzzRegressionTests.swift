import Testing
@testable import Settings

/// Inputs scripts/fuzz found (target `settings`), kept as regression tests. Each failed before its fix.
@Suite struct SettingsFuzzRegressionTests {
    /// ConfigFile splits on the Character "\n", but "\r\n" is one Character, so a file with CRLF
    /// line ends reads as a single line (found from Fuzz/settings/corpus/crlf.conf).
    @Test func crlfLineEndsSeparateLines() {
        let parsed = ConfigFile.parse("log_level = debug\r\nlisten = 0.0.0.0:8080\r\n", file: "crlf.conf")
        #expect(parsed.problems.isEmpty)
        #expect(parsed.entries == [ConfigEntry(key: "log_level", value: "debug", line: 1),
                                   ConfigEntry(key: "listen", value: "0.0.0.0:8080", line: 2)])
    }

    /// A NUL in a host:port host is accepted; C APIs would see only the bytes before it
    /// (found as `admin_listen = 1\0…\027.0.0.1:9090`).
    @Test(arguments: ["127.0.0.1\u{0}evil:8080", "1\u{0}\u{0}27.0.0.1:9090"])
    func listenHostWithNULIsRefused(_ text: String) {
        guard case .failure = ListenTarget.parse(text) else {
            Issue.record("accepted \(text.debugDescription)")
            return
        }
    }

    /// inet_pton reads a Swift String as a C string, so "10.0.0.1\0junk" is trusted as 10.0.0.1.
    @Test func trustedProxyWithNULIsRefused() {
        guard case .failure = TrustedProxyList.parse("10.0.0.1\u{0}junk") else {
            Issue.record("trusted 10.0.0.1\\0junk")
            return
        }
    }
}
