import Foundation
import Synchronization
@testable import Server
import Testing

/// The live-sessions gauge: a slow count is reused for its maximum age, a quick one taken afresh.
@Suite struct CachedCountTests {
    @Test func aSlowCountIsReusedUntilItsMaximumAge() throws {
        let counted = Mutex(0)
        let cached = CachedCount(maximumAge: .milliseconds(300), slow: .milliseconds(5)) {
            Thread.sleep(forTimeInterval: 0.01)
            return counted.withLock { $0 += 1; return $0 * 10 }
        }
        #expect(cached.value() == 10)
        #expect(cached.value() == 10 && cached.value() == 10)
        #expect(counted.withLock { $0 } == 1)
        Thread.sleep(forTimeInterval: 0.35)  // past the maximum age
        #expect(cached.value() == 20)
        #expect(counted.withLock { $0 } == 2)
    }

    @Test func aQuickCountIsTakenAtEveryRead() {
        let counted = Mutex(0)
        let cached = CachedCount(maximumAge: .seconds(60), slow: .seconds(5)) { counted.withLock { $0 += 1; return $0 } }
        #expect(cached.value() == 1 && cached.value() == 2 && cached.value() == 3)
    }
}
