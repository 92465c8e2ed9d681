import Foundation
import Testing
@testable import Logging

@Suite struct LoggerTests {
    private let fixedTime = Date(timeIntervalSince1970: 1_795_984_385.123)  // 2026-11-29T20:33:05.123Z

    @Test func linesAreJSONWithTimeLevelEventThenSortedFields() throws {
        let sink = LogSink.memory()
        let logger = Logger(level: .debug, sink: sink, now: { [fixedTime] in fixedTime })
        logger.info("access", ["status": 200, "path": "/healthz", "duration_ms": 0.5, "ok": true])
        #expect(sink.lines == [#"{"time":"2026-11-29T20:33:05.123Z","level":"info","event":"access","duration_ms":0.5,"ok":true,"path":"/healthz","status":200}"#])
        let object = try JSONSerialization.jsonObject(with: Data(sink.lines[0].utf8)) as? [String: Any]
        #expect(object?["status"] as? Int == 200)
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("quote\"d", #""quote\"d""#),
        ("back\\slash", #""back\\slash""#),
        ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
        ("bell\u{07}nul\u{00}", #""bell\u0007nul\u0000""#),
        ("ünïcødé ✓", "\"ünïcødé ✓\""),
    ])
    func escapesStrings(text: String, expected: String) {
        #expect(JSONText.quote(text) == expected)
    }

    @Test func aForgedNewlineCannotStartAFakeLogLine() {
        let sink = LogSink.memory()
        Logger(sink: sink).warning("x", ["path": "/a\n{\"level\":\"error\"}"])
        #expect(sink.lines.count == 1)
        #expect(!sink.lines[0].contains("\n"))
    }

    @Test func levelsBelowTheThresholdAreDropped() {
        let sink = LogSink.memory()
        let logger = Logger(level: .warning, sink: sink)
        logger.debug("a")
        logger.info("b")
        logger.warning("c")
        logger.error("d")
        #expect(sink.lines.map { $0.contains(#""event":"c""#) || $0.contains(#""event":"d""#) } == [true, true])
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_795_984_385.007, "2026-11-29T20:33:05.007Z"),
        (1_795_984_385.999, "2026-11-29T20:33:05.999Z"),
        (951_782_400.5, "2000-02-29T00:00:00.500Z"),
    ])
    func timestampsAreRFC3339UTCWithMilliseconds(seconds: Double, expected: String) {
        #expect(Logger.timestamp(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(JSONText.render(.double(.nan)) == "null")
        #expect(JSONText.render(.int(-5)) == "-5")
    }
}
