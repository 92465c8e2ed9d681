import Foundation

/// Runs one test of this test binary in a child process, with `variable` set so the test runs its scenario
/// there instead: for scenarios that change process-wide state (limits) or measure the process (RSS).
func runTestInChild(named test: String, variable: String) throws -> (status: Int32, output: String) {
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
    return (process.terminationStatus, text)
}
