import Synchronization

/// CPU spent hashing and verifying passwords in this process, for `/metrics`
/// (`gatehouse_password_hashing_cpu_seconds_total`). By design most of a sign-in's CPU is its
/// password hash; this lets an operator, and `scripts/bench flow`, see what the rest costs.
public enum PasswordHashingCPU {
    private static let total = Atomic<UInt64>(0)

    /// Seconds of CPU, all threads together, since the process started.
    public static var seconds: Double { Double(total.load(ordering: .relaxed)) / 1e9 }

    /// Runs one hash or verification through `PasswordHashingGate` and counts its CPU.
    static func measure<T>(_ work: () throws -> T) rethrows -> T {
        try PasswordHashingGate.run {
            let started = ThreadCPUClock.nanoseconds()
            defer { total.add(ThreadCPUClock.nanoseconds() &- started, ordering: .relaxed) }
            return try work()
        }
    }
}
