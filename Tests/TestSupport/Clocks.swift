import Foundation
import Model

/// A clock stuck at one instant.
public struct FixedClock: Clock {
    public let now: Date
    public init(_ now: Date = Date(timeIntervalSince1970: 1_800_000_000)) { self.now = now }
}

/// A clock tests move by hand, shared safely between threads.
public final class MutableClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    public var now: Date {
        lock.lock(); defer { lock.unlock() }
        return current
    }

    public func advance(by seconds: TimeInterval) {
        lock.lock(); defer { lock.unlock() }
        current += seconds
    }

    public func set(_ date: Date) {
        lock.lock(); defer { lock.unlock() }
        current = date
    }
}
