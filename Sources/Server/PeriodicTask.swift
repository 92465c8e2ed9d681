import HTTP
import Synchronization

/// A background chore run every `interval` on a thread of its own until `stop()`
/// (audit batches, key-ring polling). A stop takes effect when the current sleep ends.
final class PeriodicTask: Sendable {
    private let stopped = Atomic<Bool>(false)

    func start(name: String, every interval: Duration, _ body: @escaping @Sendable () -> Void) {
        OSThread.start(name: name) { [self] in
            while !stopped.load(ordering: .acquiring) {
                OSThread.sleep(for: interval)
                // Stopped while asleep: the owner may already have closed what `body` uses.
                if stopped.load(ordering: .acquiring) { return }
                body()
            }
        }
    }

    func stop() { stopped.store(true, ordering: .releasing) }
}
