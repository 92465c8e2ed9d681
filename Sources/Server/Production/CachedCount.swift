import FoundationEssentials
import Synchronization

/// A count that is expensive to take (it grows with the data: the live sessions of a million
/// users are an index range of a million entries) read at every metrics scrape: taken at most
/// once per `maximumAge`, the scrapes in between answer the last value.
final class CachedCount: Sendable {
    private let count: @Sendable () -> Int
    private let maximumAge: Duration
    private let state = Mutex<(value: Int, taken: ContinuousClock.Instant?)>((0, nil))

    init(maximumAge: Duration, _ count: @escaping @Sendable () -> Int) {
        self.count = count
        self.maximumAge = maximumAge
    }

    func value() -> Int {
        let now = ContinuousClock.now
        if let cached = state.withLock({ state -> Int? in
            guard let taken = state.taken, now - taken < maximumAge else { return nil }
            return state.value
        }) {
            return cached
        }
        // Outside the lock: a slow count never blocks a scrape that finds a fresh value.
        let fresh = count()
        state.withLock { $0 = (fresh, now) }
        return fresh
    }
}
