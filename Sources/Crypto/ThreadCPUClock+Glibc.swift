#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): what a computation cost in CPU,
/// unmoved by other threads or processes on a busy machine.
enum ThreadCPUClock {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 else { return 0 }
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
