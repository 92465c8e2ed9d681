import Foundation
import TestSupport

/// Python's `email` package reading a message (`Tests/mail/parse_message.py`): an independent
/// check that what we compose is what a mail client sees.
struct ParsedMessage {
    let fields: [String: Any]
    var subject: String { fields["subject"] as? String ?? "" }
    var from: String { fields["from"] as? String ?? "" }
    var to: String { fields["to"] as? String ?? "" }
    var text: String? { fields["text"] as? String }
    var html: String? { fields["html"] as? String }
    var defects: [String] { fields["defects"] as? [String] ?? [] }
    var hasBareLF: Bool { fields["bare_lf"] as? Bool ?? true }
    var longestLine: Int { fields["longest_line"] as? Int ?? .max }

    init(_ raw: [UInt8]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = URL(fileURLWithPath: SMTPSink.scriptPath).deletingLastPathComponent().appendingPathComponent("parse_message.py").path
        process.arguments = ["python3", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(raw))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        fields = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    init(_ text: String) throws { try self.init(Array(text.utf8)) }
}
