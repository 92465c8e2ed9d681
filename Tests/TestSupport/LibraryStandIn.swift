import Foundation

/// A directory to put on a child process's `LD_LIBRARY_PATH`, where its `dlopen` of a soname
/// finds a stand-in instead of the real library (README "Memory and start"): the binaries'
/// own missing-library paths, exercised without uninstalling anything.
public struct LibraryStandIn {
    public enum Kind {
        /// An empty file: the dynamic loader cannot load it ("file too short").
        case unloadable
        /// A copy of libz, a real library without any of the functions we resolve.
        case withoutTheFunctions
    }

    public let directory: TemporaryDirectory

    /// Stands in for each soname (`libcurl.so.4`, `libpq.so.5`).
    public init(_ sonames: [String], _ kind: Kind) throws {
        directory = try TemporaryDirectory("idp-standin")
        for soname in sonames {
            let target = URL(fileURLWithPath: directory.file(soname))
            switch kind {
            case .unloadable: try Data().write(to: target)
            case .withoutTheFunctions: try FileManager.default.copyItem(at: URL(fileURLWithPath: try Self.libz()), to: target)
            }
        }
    }

    /// The environment for the child process.
    public var environment: [String: String] { ["LD_LIBRARY_PATH": directory.path] }

    /// The libz this test process has mapped (the HTTP target links it for gzip).
    static func libz() throws -> String {
        let maps = try mappedFiles(of: "self")
        guard let line = maps.split(separator: "\n").first(where: { $0.contains("/libz.so") }),
              let slash = line.firstIndex(of: "/") else { throw StandInError.noLibz }
        return String(line[slash...])
    }

    public enum StandInError: Error { case noLibz }
}

/// `/proc/PID/maps` of a process ("self" for this one): the files it has mapped, libraries included.
/// Read to its end: procfs reports a size of 0, which a read sized by it would trust.
public func mappedFiles(of pid: String) throws -> String {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
    defer { try? handle.close() }
    return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
}
