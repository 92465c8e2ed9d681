/// How an operator's multi-step change used the write lock: every step a short transaction, so
/// request writers queued behind it wait at most `longest` (issue #18: no admin or maintenance
/// operation holds the lock for more than a few milliseconds at a time).
public struct WriteHolds: Sendable, Equatable {
    public private(set) var transactions = 0
    public private(set) var longest: Duration = .zero
    public private(set) var total: Duration = .zero

    public init() {}

    mutating func record(_ held: Duration) {
        transactions += 1
        longest = max(longest, held)
        total += held
    }

    /// Milliseconds, for JSON output.
    public static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
