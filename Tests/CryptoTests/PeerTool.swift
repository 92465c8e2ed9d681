import Foundation

/// An independent implementation the crypto tests compare against (`python3`, `argon2`), run to
/// its end: its exit status and its standard output without the trailing newline.
enum PeerTool {
    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let standardInput = input.map { _ in Pipe() }
        if let standardInput { process.standardInput = standardInput }
        try process.run()
        if let input, let standardInput {
            standardInput.fileHandleForWriting.write(Data(input.utf8))
            try standardInput.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
