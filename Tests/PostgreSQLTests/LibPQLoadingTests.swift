import Testing
@testable import PostgreSQL

/// libpq is opened with dlopen when a PostgreSQL database is first opened (README "Memory and
/// start"); what a missing or wrong library is reported as, through the loader's seam for another soname.
@Suite struct LibPQLoadingTests {
    @Test func theInstalledLibpqLoads() throws {
        try LibPQ.load()
        #expect(LibPQ.problem(soname: "libpq.so.5") == nil)
    }

    @Test(arguments: [
        ("libgatehouse-absent.so.5", ["libgatehouse-absent.so.5 cannot be loaded (install the Debian package libpq5): ",
                                      "cannot open shared object file"]),
        ("libz.so.1", ["libz.so.1 has no PQconnectdbParams (install or upgrade the Debian package libpq5): ",
                       "undefined symbol: PQconnectdbParams"]),
    ])
    func aLibraryThatCannotServeIsNamedWithItsPackage(soname: String, fragments: [String]) throws {
        let problem = try #require(LibPQ.problem(soname: soname))
        for fragment in fragments { #expect(problem.contains(fragment), "\(problem)") }
    }

    /// A missing library is a configuration error, not a connection failure a start would wait out.
    @Test func itsErrorIsNotRetryable() {
        let error = PostgresError.libraryUnavailable("libpq.so.5 cannot be loaded")
        #expect(error.isLibraryUnavailable && !error.isConnectionFailure && !error.isRetryable)
    }
}
