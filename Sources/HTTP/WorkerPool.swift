import Dispatch
import Synchronization

/// A fixed set of threads running blocking handler work (SQLite, crypto) off the event loops.
final class WorkerPool: Sendable {
    typealias Job = @Sendable () -> Void

    private struct Queue {
        var jobs: [Job?] = []
        var head = 0
        var stopping = false
    }

    private let queue = Mutex(Queue())
    private let ready = DispatchSemaphore(value: 0)
    private let threadCount: Int

    init(threads: Int) {
        threadCount = max(1, threads)
    }

    func start() {
        for index in 0..<threadCount {
            OSThread.start(name: "http-worker-\(index)") { [self] in self.work() }
        }
    }

    func submit(_ job: @escaping Job) {
        queue.withLock { $0.jobs.append(job) }
        ready.signal()
    }

    /// Lets queued jobs finish, then ends the threads; never waits for a handler that is still running.
    func stop() {
        queue.withLock { $0.stopping = true }
        for _ in 0..<threadCount { ready.signal() }
    }

    private func work() {
        while true {
            ready.wait()
            let job: Job?? = queue.withLock { state in
                if state.head < state.jobs.count {
                    let next = state.jobs[state.head]
                    state.jobs[state.head] = nil
                    state.head += 1
                    if state.head == state.jobs.count || state.head >= 1024 {
                        state.jobs.removeSubrange(0..<state.head)
                        state.head = 0
                    }
                    return .some(next)
                }
                return state.stopping ? .none : .some(nil)
            }
            switch job {
            case .none: return
            case .some(let next?): next()
            case .some(nil): continue
            }
        }
    }
}
