import Dispatch
import Synchronization

/// At most one password hash at a time per two cores (at least one). Each Argon2id takes 7 MiB
/// (`Argon2Parameters.default`) and all of a core, so more at once would only add memory — a burst
/// of 100 logins would otherwise ask for 700 MiB. Half the cores is the bulkhead: a burst of
/// sign-ins, or of guesses at passwords, leaves the other half to refreshes, `/userinfo` and pages
/// (README "Passwords").
public enum PasswordHashingGate {
    public static let limit = max(1, SystemCPUs.online() / 2)
    private static let slots = DispatchSemaphore(value: limit)
    private static let running = Atomic<Int>(0)
    private static let mostAtOnce = Atomic<Int>(0)

    /// The most hashes that ran at once since the process started (for tests).
    public static var peak: Int { mostAtOnce.load(ordering: .relaxed) }

    static func run<T>(_ work: () throws -> T) rethrows -> T {
        slots.wait()
        let now = running.add(1, ordering: .relaxed).newValue
        var seen = mostAtOnce.load(ordering: .relaxed)
        while now > seen {
            let (exchanged, original) = mostAtOnce.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
        defer {
            running.subtract(1, ordering: .relaxed)
            slots.signal()
        }
        return try work()
    }
}
