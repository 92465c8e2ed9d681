#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small lock-protected stack of reusable C objects (here: signing
/// `EVP_PKEY_CTX`s that have already been through `EVP_PKEY_sign_init`).
///
/// An initialised context can sign many times, but not concurrently, so
/// each signer borrows one exclusively. Reuse skips the per-call provider
/// lookup and initialisation, which matters for ES256 where the signature
/// itself costs only ~20 µs.
final class ContextPool: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var idle: [OpaquePointer] = []
    private let capacity: Int
    private let free: (OpaquePointer) -> Void

    init(capacity: Int = 16, free: @escaping (OpaquePointer) -> Void) {
        self.capacity = capacity
        self.free = free
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        idle.forEach(free)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// An idle object, or nil when the caller should make a new one.
    func take() -> OpaquePointer? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return idle.popLast()
    }

    /// Returns an object for reuse, freeing it if the pool is full.
    func give(_ object: OpaquePointer) {
        pthread_mutex_lock(mutex)
        if idle.count < capacity {
            idle.append(object)
            pthread_mutex_unlock(mutex)
        } else {
            pthread_mutex_unlock(mutex)
            free(object)
        }
    }
}
