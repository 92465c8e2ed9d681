#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A value split into independently locked stripes, one picked per thread, for state that every request
/// updates (metrics). Threads rarely meet on a stripe, so an update almost never waits or spins; readers
/// visit every stripe and merge.
final class Striped<Value: Sendable>: Sendable {
    private final class Stripe: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
    }

    private static var count: Int { 16 }
    private let stripes: [Stripe]

    init(_ make: () -> Value) {
        stripes = (0..<Self.count).map { _ in Stripe(make()) }
    }

    /// Runs `body` on the calling thread's stripe.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        stripes[Self.stripeIndex()].value.withLock { body(&$0) }
    }

    /// Every stripe's value, each read under its own lock.
    func snapshot() -> [Value] {
        stripes.map { stripe in stripe.value.withLock { $0 } }
    }

    /// Mixes the thread's id (a pointer, so its low bits are alignment) into a stripe number.
    private static func stripeIndex() -> Int {
        let mixed = UInt64(UInt(bitPattern: Int(bitPattern: pthread_self()))) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 60)
    }
}
