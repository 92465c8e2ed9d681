import CSQLite
import Glibc

/// A busy handler that retries every millisecond, in place of `sqlite3_busy_timeout`'s, for the
/// daemon's writer (`Database.startBackgroundCheckpoints`); `PRAGMA busy_timeout` then reads 0.
///
/// SQLite's own handler sleeps longer and longer (1, 2, 5, 10 … 100 ms) while another process
/// holds the write lock, so a waiter oversleeps a lock that is held a few milliseconds at a time
/// and then taken again: beside `idp-admin users delete` of a user with 100,000 tokens (batches of
/// a few milliseconds), the daemon's refreshes waited a median of 1.5 s (issue #18). Polling at
/// 1 ms takes the lock within about a millisecond of its release, whoever holds it.
extension Connection {
    /// Milliseconds each retry sleeps.
    static let busyPollMilliseconds: Int32 = 1

    func pollForTheWriteLock() {
        let timeoutMilliseconds = busyTimeoutMilliseconds
        // The timeout travels in the context pointer itself: no allocation, no lifetime to manage.
        let context = UnsafeMutableRawPointer(bitPattern: UInt(max(1, timeoutMilliseconds)))
        sqlite3_busy_handler(handle, { context, attempts in
            let timeout = Int64(UInt(bitPattern: context))
            // Each attempt sleeps at least 1 ms; stop once that many sleeps add up to the timeout.
            guard Int64(attempts) * Int64(Connection.busyPollMilliseconds) < timeout else { return 0 }
            _ = sqlite3_sleep(Connection.busyPollMilliseconds)
            return 1
        }, context)
    }
}
