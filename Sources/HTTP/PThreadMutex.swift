#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex that spins briefly before sleeping (`PTHREAD_MUTEX_ADAPTIVE_NP`), for the
/// per-connection lock: a loop and a worker meet on it only for a few hundred nanoseconds at a
/// time, where `Synchronization.Mutex`'s priority-inheritance futex sends the loser through the
/// kernel's rt-mutex path. Heap-allocated because pthread objects must never move.
final class PThreadMutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
