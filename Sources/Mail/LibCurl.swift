internal import CCurlLoader
import Glibc

/// libcurl, opened the first time SMTP delivery or an upstream fetch needs it rather than linked,
/// so a daemon that needs neither never maps it nor the libraries it pulls in (README "Memory and
/// start"). The calls themselves are in `SMTPTransport+Curl.swift` and the Server's upstream fetcher.
public enum LibCurl {
    /// Opens it once per process; later calls answer at once. Throws why it cannot be used: the
    /// library, the Debian package to install (`libcurl4`) and the dynamic loader's own text.
    public static func load() throws(LibraryUnavailable) {
        if let problem = gh_curl_load() { throw LibraryUnavailable(description: String(cString: problem)) }
    }

    /// What `load()` would say if libcurl were `soname`, leaving this process's libcurl alone:
    /// the seam the missing-library tests use. Nil when it would load.
    static func problem(soname: String) -> String? {
        guard let text = gh_curl_check(soname) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }
}

/// A shared library that cannot be opened, or lacks a function Gatehouse calls.
public struct LibraryUnavailable: Error, Sendable, CustomStringConvertible {
    public let description: String
}
