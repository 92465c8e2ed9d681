import Foundation

/// A real HTTP(S) server (Python http.server, `Tests/upstream/http_stub.py`) on loopback that
/// answers as upstream providers may: a key set with `max-age`, error statuses, a redirect, a slow
/// or oversized answer, and an echo of form POSTs.
public final class UpstreamHTTPStub: @unchecked Sendable {
    public let port: Int
    private let process: Process

    public static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("upstream/http_stub.py").path
    }

    /// Starts the server on a free port; with `certificate` it speaks TLS.
    public init(certificate: TestCertificate? = nil) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", Self.scriptPath, "--port", "0"]
        if let certificate { arguments += ["--tls-cert", certificate.certificate, "--tls-key", certificate.key] }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw UpstreamHTTPStubError.didNotStart }
            line.append(chunk)
        }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.first == "listening", let bound = Int(words.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw UpstreamHTTPStubError.didNotStart
        }
        port = bound
    }

    public func stop() {
        process.stop(within: 3)
    }

    deinit { stop() }
}

public enum UpstreamHTTPStubError: Error { case didNotStart }
