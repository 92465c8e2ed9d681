import Foundation

/// Runs the `curl` CLI (a real HTTP client none of us wrote) and parses what it got.
public enum Curl {
    public struct Response: Sendable {
        public let status: Int
        /// Header names lower-cased.
        public let headers: [String: String]
        public let body: Data

        public var text: String { String(decoding: body, as: UTF8.self) }
        public func json() throws -> [String: Any] {
            (try JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }
    }

    /// `curl -s -i` with extra arguments, e.g. `["-H", "If-None-Match: x"]`.
    public static func get(_ url: String, _ arguments: [String] = []) throws -> Response {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-S", "-i", "--max-time", "15"] + arguments + [url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try parse(data)
    }

    static func parse(_ data: Data) throws -> Response {
        var rest = data[...]
        // Skip interim 1xx responses.
        while true {
            guard let end = rest.range(of: Data("\r\n\r\n".utf8)) else { throw CurlError.malformed }
            let head = String(decoding: rest[..<end.lowerBound], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count >= 2, let status = Int(parts[1]) else { throw CurlError.malformed }
            rest = rest[end.upperBound...]
            if status >= 200 {
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return Response(status: status, headers: headers, body: Data(rest))
            }
        }
    }

    public enum CurlError: Error { case malformed }
}

/// Runs the built `idp-admin` binary.
public enum AdminProcess {
    public static func run(_ arguments: [String], environment: [String: String], directory: String, input: String = "") throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Daemon.binary("idp-admin"))
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
