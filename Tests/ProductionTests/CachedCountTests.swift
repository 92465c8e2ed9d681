import Synchronization
@testable import Server
import Testing

/// The live-sessions gauge is counted at most once per maximum age, however often it is scraped.
@Suite struct CachedCountTests {
    @Test func aFreshValueIsReusedAndAnOldOneRecounted() throws {
        let counted = Mutex(0)
        let cached = CachedCount(maximumAge: .milliseconds(200)) { counted.withLock { $0 += 1; return $0 * 10 } }
        #expect(cached.value() == 10)
        #expect(cached.value() == 10 && cached.value() == 10)
        #expect(counted.withLock { $0 } == 1)
        let deadline = ContinuousClock.now + .milliseconds(250)
        while ContinuousClock.now < deadline {}  // past the maximum age
        #expect(cached.value() == 20)
        #expect(counted.withLock { $0 } == 2)
    }
}
