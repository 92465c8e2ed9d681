import FoundationEssentials

/// The source of "now", injected so expiry logic can be tested without waiting.
public protocol Clock: Sendable {
    var now: Date { get }
}

/// The wall clock.
public struct SystemClock: Clock {
    public init() {}
    public var now: Date { Date() }
}
