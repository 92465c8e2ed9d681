import Foundation

extension Process {
    /// Sends `signal`, waits up to `seconds` for the exit, then SIGKILL: a child that does not stop
    /// fails its test on the status instead of holding the run.
    public func stop(sending signal: Int32 = SIGTERM, within seconds: TimeInterval) {
        guard isRunning else { return }
        kill(processIdentifier, signal)
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        if isRunning { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
    }
}
