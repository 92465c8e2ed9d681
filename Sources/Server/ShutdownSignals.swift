import Glibc

/// Waits for SIGTERM, SIGINT (shutdown) or SIGHUP (reload) synchronously with `sigwait`.
///
/// `block()` must run before any thread starts, so every thread inherits the mask and
/// the signals are only ever delivered to the thread that waits for them.
public enum ShutdownSignals {
    private static var set: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGHUP)  // Reload (see Production/Reload).
        return signals
    }

    public static func block() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Blocks until SIGTERM, SIGINT or SIGHUP arrives; returns its name.
    public static func wait() -> String {
        var signals = set
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received == SIGTERM ? "SIGTERM" : received == SIGHUP ? "SIGHUP" : "SIGINT"
    }
}
