import Glibc

/// Process-wide settings the daemon needs before it serves.
public enum ProcessSetup {
    /// Ignores SIGPIPE: a client that resets mid-response must cost an error, not the process.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Makes every file the process creates (database, WAL, key-encryption key) private to its user.
    public static func restrictFileCreation() {
        umask(0o077)
    }

    /// Raises the open-file soft limit toward `wanted` (capped by the hard limit);
    /// returns the limit in force, so callers can warn when it is below what they need.
    @discardableResult
    public static func raiseOpenFileLimit(to wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        let target = min(rlim_t(wanted), limit.rlim_max)
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }
}
