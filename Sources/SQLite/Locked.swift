import Glibc

/// A value guarded by a lock: the writer connection is only ever touched inside `withLock`.
///
/// A plain pthread mutex, not `Synchronization.Mutex`: the writer lock is held across SQLite
/// commits (syscalls) while other workers queue for it, and `Mutex` spins before it sleeps (on a
/// priority-inheritance futex), which burns the very cores the holder needs. The mutex lives in
/// heap memory of its own because pthread objects must never move.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
