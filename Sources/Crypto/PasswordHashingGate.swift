import Dispatch
import Synchronization

/// At most one password hash per core at a time. Each scrypt takes 32 MiB (N = 2^15, r = 8) and
/// all of a core, so more at once only adds memory — a burst of 100 logins would otherwise ask
/// for 3 GiB — while the throughput stays what the cores give (README "Tests and benchmarks").
public enum PasswordHashingGate {
    public static let limit = max(1, SystemCPUs.online())
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
