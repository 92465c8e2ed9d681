import Foundation

/// A real SMTP server (Python aiosmtpd, `Tests/mail/smtp_sink.py`) on loopback that stores each
/// message it accepts as a file; tests read them back with `messages()`.
public final class SMTPSink: @unchecked Sendable {
    public struct Received: Sendable {
        /// The DATA bytes as the server received them.
        public let raw: String
        public let envelopeFrom: String
        public let envelopeTo: [String]
        /// Whether the session had been upgraded to (or started in) TLS.
        public let tls: Bool
        /// The AUTH user, when the client authenticated.
        public let login: String?
    }

    public let port: Int
    public let directory: TemporaryDirectory
    private let process: Process

    public static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("mail/smtp_sink.py").path
    }

    /// Starts the server; `port` 0 lets it pick one. `options` are the script's flags.
    public init(port: Int = 0, options: [String] = []) throws {
        directory = try TemporaryDirectory("smtp")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.scriptPath, "--dir", directory.file("mail"), "--port", String(port)] + options
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw SMTPSinkError.didNotStart }
            line.append(chunk)
        }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.first == "listening", let bound = Int(words.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            throw SMTPSinkError.didNotStart
        }
        self.port = bound
    }

    /// What has arrived, in order.
    public func messages() -> [Received] {
        let folder = directory.file("mail")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".eml") }.sorted()
        return names.compactMap { name in
            let base = folder + "/" + String(name.dropLast(4))
            guard let raw = FileManager.default.contents(atPath: base + ".eml"),
                  let metaData = FileManager.default.contents(atPath: base + ".json"),
                  let meta = try? JSONSerialization.jsonObject(with: metaData) as? [String: Any] else { return nil }
            return Received(raw: String(decoding: raw, as: UTF8.self), envelopeFrom: meta["from"] as? String ?? "",
                            envelopeTo: meta["to"] as? [String] ?? [], tls: meta["tls"] as? Bool ?? false, login: meta["login"] as? String)
        }
    }

    /// Waits until at least `count` messages arrived (or `timeout` passed); returns them.
    public func waitForMessages(_ count: Int, timeout: TimeInterval = 20) -> [Received] {
        let deadline = Date().addingTimeInterval(timeout)
        var received = messages()
        while received.count < count, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            received = messages()
        }
        return received
    }

    public func stop() {
        process.stop(within: 3)
    }

    deinit { stop() }
}

public enum SMTPSinkError: Error { case didNotStart, openssl }

/// A self-signed certificate for 127.0.0.1 and localhost (made with the openssl CLI), for STARTTLS tests.
public struct TestCertificate: Sendable {
    public let certificate: String
    public let key: String

    public init(in directory: TemporaryDirectory) throws {
        certificate = directory.file("cert.pem")
        key = directory.file("key.pem")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                             "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                             "-keyout", key, "-out", certificate]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SMTPSinkError.openssl }
    }
}
