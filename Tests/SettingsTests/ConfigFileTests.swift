import Testing
@testable import Settings

@Suite struct ConfigFileTests {
    @Test(arguments: [
        ("listen = 127.0.0.1:9000", "listen", "127.0.0.1:9000"),
        ("  listen=127.0.0.1:9000  ", "listen", "127.0.0.1:9000"),
        ("listen = 127.0.0.1:9000 # trailing comment", "listen", "127.0.0.1:9000"),
        ("database = \"/var/lib/idp/db # not a comment.sqlite3\"", "database", "/var/lib/idp/db # not a comment.sqlite3"),
        ("database = a#b", "database", "a#b"),
        ("log_level = debug\r", "log_level", "debug"),
    ])
    func parsesValues(line: String, key: String, value: String) {
        let parsed = ConfigFile.parse(line, file: "t.conf")
        #expect(parsed.problems.isEmpty)
        #expect(parsed.entries == [ConfigEntry(key: key, value: value, line: 1)])
    }

    @Test func skipsCommentsAndBlankLines() {
        let parsed = ConfigFile.parse("# a comment\n\n   \n\t# indented comment\nlisten = :1\n", file: "t.conf")
        #expect(parsed.entries.map(\.line) == [5])
    }

    @Test(arguments: [
        ("just words", "expected `key = value`"),
        ("Listen = x", "not a valid key"),
        ("max-connections = 5", "not a valid key"),
        ("database = \"unterminated", "unterminated quoted value"),
        ("database = \"a\" b", "unexpected text after the closing quote"),
    ])
    func reportsMalformedLines(line: String, message: String) {
        let parsed = ConfigFile.parse("log_level = info\n" + line, file: "bad.conf")
        #expect(parsed.problems.count == 1)
        #expect(parsed.problems.first?.source == .file("bad.conf", line: 2))
        #expect(parsed.problems.first?.message.contains(message) == true)
    }

    @Test func aKeySetTwiceIsAnError() {
        let parsed = ConfigFile.parse("log_level = info\nlog_level = debug\n", file: "t.conf")
        #expect(parsed.problems.map(\.description) == ["t.conf:2: log_level: set twice (first on line 1)"])
    }
}
