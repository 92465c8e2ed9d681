import FoundationEssentials
import Synchronization

/// A count that may be expensive to take (it grows with the data: the live sessions of a million
/// users are an index range of 700,000 entries, ~0.35 s on a busy machine) read at every metrics
/// scrape. A count that took at least `slow` is reused for `maximumAge`; a quick one (a small
/// deployment) is taken afresh at every read, so the gauge stays exact where exactness is cheap.
final class CachedCount: Sendable {
    private let count: @Sendable () -> Int
    private let maximumAge: Duration
    private let slow: Duration
    private let state = Mutex<(value: Int, reusableUntil: ContinuousClock.Instant?)>((0, nil))

    init(maximumAge: Duration, slow: Duration = .milliseconds(10), _ count: @escaping @Sendable () -> Int) {
        self.count = count
        self.maximumAge = maximumAge
        self.slow = slow
    }

    func value() -> Int {
        let now = ContinuousClock.now
        if let cached = state.withLock({ state -> Int? in
            guard let until = state.reusableUntil, now < until else { return nil }
            return state.value
        }) {
            return cached
        }
        // Outside the lock: a slow count never blocks a scrape that finds a fresh value.
        let fresh = count()
        let took = ContinuousClock.now - now
        state.withLock { $0 = (fresh, took >= slow ? now + maximumAge : nil) }
        return fresh
    }
}
