import Foundation
import SQLite

/// A fresh directory per test (SQLiteTests cannot use TestSupport, which depends on Storage).
final class TempDir: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "sqlite-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String = "test.sqlite3") -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Errors (or anything) gathered from several threads.
final class Collector<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Element] = []

    func append(_ item: Element) {
        lock.lock(); defer { lock.unlock() }
        items.append(item)
    }

    var all: [Element] {
        lock.lock(); defer { lock.unlock() }
        return items
    }
}

/// Runs `body(i)` for i in 0..<count on real threads (not the cooperative pool) and waits for all.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// Runs the sqlite3 CLI on `path` with `arguments` (dot-commands or SQL) and returns stdout.
@discardableResult
func sqlite3CLI(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = ["-bail", path] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func fileSize(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
}

extension Database {
    func count(_ table: String, where condition: String = "1") throws -> Int64 {
        try read { try $0.queryOne("SELECT count(*) FROM \(table) WHERE \(condition)")!.int64(0) }
    }
}

/// The sqlite3 CLI (Debian package `sqlite3`) stands in for a second process.
let cliAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")
