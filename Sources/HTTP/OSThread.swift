import CLinux
import Glibc

/// Dedicated OS threads for the event loops, the worker pool and the daemon's periodic jobs.
/// Foundation's `Thread` would link all of Foundation into the daemon for this one job.
public enum OSThread {
    /// Runs `body` on a new detached thread; `name` is cut to the kernel's 15 bytes.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let job = Unmanaged.passRetained(Job(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
            _ = gh_set_thread_name(String(decoding: job.name.utf8.prefix(15), as: UTF8.self))
            job.body()
            return nil
        }, job)
        // Like Foundation's Thread: a process that cannot start its threads cannot serve.
        guard status == 0 else { fatalError("pthread_create failed: \(String(cString: strerror(status)))") }
        pthread_detach(thread)
    }

    /// Blocks the calling thread for `duration`, resuming after a signal interrupts the sleep.
    public static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }

    private final class Job {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
