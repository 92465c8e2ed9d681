import Foundation

/// `doctor --url`: one GET with the curl CLI, and when it fails, which step failed.
enum DiscoveryFetch {
    enum Outcome {
        case answered(status: Int, body: Data)
        case failed(String)
    }

    static func get(_ url: String, options: [String] = []) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "10", "-w", "\n%{http_code}"] + options + [url]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { return .failed("cannot run /usr/bin/curl: \(error)") }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return .failed(cause(exitCode: process.terminationStatus, message: message)) }
        guard let newline = data.lastIndex(of: UInt8(ascii: "\n")),
              let status = Int(String(decoding: data[data.index(after: newline)...], as: UTF8.self)) else {
            return .failed("no HTTP answer")
        }
        return .answered(status: status, body: Data(data[..<newline]))
    }

    /// curl's exit codes (its man page, "EXIT CODES"), as the step that failed.
    static func cause(exitCode: Int32, message: String) -> String {
        let detail = message.isEmpty ? "" : " (\(message.replacingOccurrences(of: "curl: ", with: "")))"
        switch exitCode {
        case 6: return "DNS: the host name does not resolve\(detail); use --resolve HOST:IP before DNS is set up"
        case 7: return "TCP: cannot connect (nothing listening, or a firewall)\(detail)"
        case 28: return "timeout after 10 s\(detail)"
        case 35, 53, 54, 58, 59, 66, 80: return "TLS handshake failed\(detail)"
        case 51, 60, 77, 83, 90, 91: return "TLS verification failed: the certificate is not trusted for this name\(detail); use --cacert FILE for a private CA"
        case 52: return "the server closed the connection without an answer\(detail)"
        case 56: return "the connection broke while receiving\(detail)"
        default: return "curl exit \(exitCode)\(detail)"
        }
    }

    /// `HOST:IP` as curl's `HOST:PORT:IP`, the port taken from `url`; nil when HOST is not the URL's host.
    static func resolveOption(_ value: String, url: String) -> String? {
        guard let colon = value.firstIndex(of: ":"), let components = URLComponents(string: url), let host = components.host else { return nil }
        let name = String(value[..<colon]), address = String(value[value.index(after: colon)...])
        guard name.lowercased() == host.lowercased(), !address.isEmpty else { return nil }
        let port = components.port ?? (components.scheme == "https" ? 443 : 80)
        let bracketed = address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address
        return "\(name):\(port):\(bracketed)"
    }
}
