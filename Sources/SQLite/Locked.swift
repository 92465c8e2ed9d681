import Foundation

/// A value guarded by a lock: the writer connection is only ever touched inside `withLock`.
///
/// Foundation's `NSLock` rather than `Synchronization.Mutex`, which needs macOS 15 while
/// the package still supports macOS 14.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
