/// A fixed set of read-only connections handed out one thread at a time.
///
/// A caller waits (on a condition, not a spin) when all readers are busy; readers are
/// never shared, so each one's statement cache and transaction state stay single-threaded.
final class ReaderPool: @unchecked Sendable {
    private let condition = Condition()
    private var idle: [Connection]
    private var isClosed = false

    init(_ connections: [Connection]) {
        idle = connections
    }

    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try acquire()
        defer { release(connection) }
        return try body(connection)
    }

    private func acquire() throws -> Connection {
        condition.lock()
        defer { condition.unlock() }
        while idle.isEmpty && !isClosed {
            condition.wait()
        }
        guard !isClosed else { throw SQLiteError.misuse("database is closed") }
        return idle.removeLast()
    }

    private func release(_ connection: Connection) {
        condition.lock()
        defer { condition.unlock() }
        if isClosed {
            // The pool closed while this reader was out: close it now that nobody uses it.
            connection.close()
        } else {
            idle.append(connection)
            condition.signal()
        }
    }

    /// Runs `body` on every idle reader in turn, holding the pool meanwhile (tests).
    func forEachIdle(_ body: (Connection) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        idle.forEach(body)
    }

    /// Closes idle readers now and busy ones when they come back; wakes every waiter.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        idle.forEach { $0.close() }
        idle.removeAll()
        condition.broadcast()
    }
}
