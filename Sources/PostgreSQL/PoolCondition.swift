import Glibc

/// A mutex with a condition variable and a timed wait, for callers queuing for a pooled connection.
/// The pthread objects live in heap memory of their own: they must never move.
final class PoolCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        // Monotonic: a wall-clock step must not stretch or cut the wait.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Sleeps until signalled or `deadline` (CLOCK_MONOTONIC seconds) passes; call with the lock held.
    func wait(until deadline: timespec) {
        var deadline = deadline
        _ = pthread_cond_timedwait(condition, mutex, &deadline)
    }

    func signal() { pthread_cond_signal(condition) }
    func broadcast() { pthread_cond_broadcast(condition) }

    static func deadline(after duration: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = Int(now.tv_nsec) + Int(duration.components.attoseconds / 1_000_000_000)
        return timespec(tv_sec: now.tv_sec + Int(duration.components.seconds) + nanoseconds / 1_000_000_000,
                        tv_nsec: nanoseconds % 1_000_000_000)
    }

    static func hasPassed(_ deadline: timespec) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)
    }
}
