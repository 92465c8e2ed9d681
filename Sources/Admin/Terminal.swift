import Foundation

/// A person at a terminal: asked before destructive changes, shown progress of long commands.
/// `idp-admin` passes one only when standard input and standard error are terminals.
public struct Terminal: Sendable {
    /// Shows `question` and returns the line typed (nil at end of input).
    public let ask: @Sendable (String) -> String?
    /// Replaces the current status line (progress); `finish` ends it with a newline.
    public let status: @Sendable (_ line: String, _ finish: Bool) -> Void

    public init(ask: @escaping @Sendable (String) -> String?, status: @escaping @Sendable (String, Bool) -> Void) {
        self.ask = ask
        self.status = status
    }

    /// Standard error and standard input, when both are terminals.
    public static func standard() -> Terminal? {
        guard isatty(STDIN_FILENO) == 1, isatty(STDERR_FILENO) == 1 else { return nil }
        return Terminal(
            ask: { question in
                FileHandle.standardError.write(Data(question.utf8))
                return readLine(strippingNewline: true)
            },
            status: { line, finish in
                // \r and erase-line keep one status line updated in place.
                FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line + (finish ? "\n" : "")).utf8))
            })
    }
}

/// Count, rate and time left for a long command, drawn at most 10 times a second.
final class Progress: @unchecked Sendable {
    private let terminal: Terminal?
    private let label: String
    private let total: Int?
    private let started = Date()
    private var lastDrawn = Date.distantPast
    private(set) var done = 0

    init(_ label: String, total: Int?, terminal: Terminal?) {
        self.label = label
        self.total = total
        self.terminal = terminal
    }

    func advance(by count: Int = 1) {
        done += count
        guard let terminal, Date().timeIntervalSince(lastDrawn) >= 0.1 else { return }
        lastDrawn = Date()
        terminal.status(line(), false)
    }

    func finish() {
        terminal?.status(line(), true)
    }

    /// `label 1200/5000 (24%), 830/s, 5s left`.
    func line() -> String {
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let rate = Double(done) / elapsed
        var text = "\(label) \(done)"
        if let total, total > 0 {
            text += "/\(total) (\(done * 100 / total)%)"
            if rate > 0, done < total { text += ", \(Int(rate.rounded()))/s, \(Int((Double(total - done) / rate).rounded(.up)))s left" }
            else { text += ", \(Int(rate.rounded()))/s" }
        } else {
            text += ", \(Int(rate.rounded()))/s"
        }
        if done == total || total == nil { text += String(format: ", %.1fs", elapsed) }
        return text
    }
}
