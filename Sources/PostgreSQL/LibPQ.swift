internal import CLibPQLoader
import Glibc

/// libpq, opened when a `postgresql://` database is first opened rather than linked, so a daemon
/// on SQLite never maps it nor the libraries it pulls in (README "Memory and start"). The calls
/// themselves are in `LibPQHandle+LibPQ.swift`.
public enum LibPQ {
    /// Opens it once per process; later calls answer at once. Throws why it cannot be used (the
    /// library, the Debian package to install, `libpq5`, and the dynamic loader's own text) as
    /// `PostgresError.libraryUnavailable`: a startup or configuration error, never retried.
    public static func load() throws(PostgresError) {
        if let problem = gh_pq_load() { throw .libraryUnavailable(String(cString: problem)) }
    }

    /// What `load()` would say if libpq were `soname`, leaving this process's libpq alone:
    /// the seam the missing-library tests use. Nil when it would load.
    static func problem(soname: String) -> String? {
        guard let text = gh_pq_check(soname) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }
}
