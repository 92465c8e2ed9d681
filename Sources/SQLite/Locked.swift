import Synchronization

/// A value guarded by a lock: the writer connection is only ever touched inside `withLock`.
///
/// A class around `Mutex` so the value can be a non-Sendable connection that stays put while
/// callers borrow it; the lock, not the type system, is what makes sharing it safe.
final class Locked<Value>: @unchecked Sendable {
    private let lock = Mutex(())
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { _ in try body(&value) }
    }
}
