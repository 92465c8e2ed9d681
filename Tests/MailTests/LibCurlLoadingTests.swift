import Testing
@testable import Mail

/// libcurl is opened with dlopen on first use (README "Memory and start"); what a missing or
/// wrong library is reported as, through the loader's seam for another soname.
@Suite struct LibCurlLoadingTests {
    @Test func theInstalledLibcurlLoads() throws {
        try LibCurl.load()
        #expect(LibCurl.problem(soname: "libcurl.so.4") == nil)
    }

    @Test(arguments: [
        ("libgatehouse-absent.so.4", ["libgatehouse-absent.so.4 cannot be loaded (install the Debian package libcurl4): ",
                                      "cannot open shared object file"]),
        // A real library, but not libcurl: the first function is missing.
        ("libz.so.1", ["libz.so.1 has no curl_global_init (install or upgrade the Debian package libcurl4): ",
                       "undefined symbol: curl_global_init"]),
    ])
    func aLibraryThatCannotServeIsNamedWithItsPackage(soname: String, fragments: [String]) throws {
        let problem = try #require(LibCurl.problem(soname: soname))
        for fragment in fragments { #expect(problem.contains(fragment), "\(problem)") }
    }
}
