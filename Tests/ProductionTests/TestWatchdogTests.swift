import Foundation
import Testing
import TestSupport

/// `scripts/test.d/watchdog.py`, the time limit on each step of `scripts/test`: a step that hangs
/// fails within the limit, naming the tests it left running, and takes its processes with it.
@Suite struct TestWatchdogTests {
    static let watchdog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/test.d/watchdog.py").path

    struct Outcome {
        let status: Int32
        let output: String
    }

    /// Runs `script` (bash) as the watched step, with a limit of `minutes`.
    func watch(_ script: String, minutes: String) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.watchdog, minutes, "/bin/bash", "-c", script]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    @Test func aHungStepIsStoppedAndNamesTheTestsStillRunning() throws {
        let directory = try TemporaryDirectory("idp-watchdog")
        let marker = directory.file("child.pid")
        let script = """
            echo '◇ Test run started.'
            echo '◇ Test finishes() started.'
            echo '◇ Test hangs(_:) started.'
            echo '◇ Test case passing 1 argument row → 1 to hangs(_:) started.'
            echo '◇ Test "a named test" started.'
            echo '✔ Test finishes() passed after 0.1 seconds.'
            echo '━ Test "a named test" passed after 0.2 seconds with 1 known issue.'
            set -m  # the background child in a process group of its own, as Process does
            (trap '' TERM; exec sleep 120) & echo $! > \(marker)
            sleep 120
            """
        let started = Date()
        let outcome = try watch(script, minutes: "0.03")
        #expect(outcome.status == 124, "\(outcome.output)")
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(outcome.output.contains("watchdog: tests started and not finished: hangs(_:)\n"), "\(outcome.output)")
        #expect(outcome.output.contains("sleep 120"), "the process tree: \(outcome.output)")
        // The step's background child went with it, in another process group and ignoring SIGTERM.
        let child = try #require(Int32(try String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let deadline = Date().addingTimeInterval(5)
        while kill(child, 0) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(kill(child, 0) == -1 && errno == ESRCH)
    }

    @Test(arguments: [("exit 0", Int32(0)), ("exit 3", 3), ("kill -TERM $$", 143)])
    func aStepThatEndsInTimeKeepsItsStatus(script: String, status: Int32) throws {
        let outcome = try watch("echo '✔ Test quick() passed after 0.1 seconds.'; " + script, minutes: "1")
        #expect(outcome.status == status, "\(outcome.output)")
        #expect(outcome.output == "✔ Test quick() passed after 0.1 seconds.\n")
    }
}
