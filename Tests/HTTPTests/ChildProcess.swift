import Foundation
import Testing

/// Runs `scenario` in a child copy of this test binary, for scenarios that change process-wide state (limits) or
/// measure the process (RSS). In the parent it starts the child on just `test` with `variable` set, expects it to
/// pass and returns its output; in the child (`variable` set) it runs `scenario` and returns "".
@discardableResult
func inChildProcess(test: String, variable: String, sourceLocation: SourceLocation = #_sourceLocation,
                    _ scenario: () throws -> Void) throws -> String {
    if getenv(variable) != nil {
        try scenario()
        return ""
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    process.arguments = ["--testing-library", "swift-testing", "--filter", test]
    process.environment = ProcessInfo.processInfo.environment.merging([variable: "1"]) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "child output:\n\(text.suffix(3000))", sourceLocation: sourceLocation)
    #expect(text.contains("passed"), sourceLocation: sourceLocation)
    return text
}
