/// Up to `capacity` read-only connections handed out one thread at a time.
///
/// A caller waits (on a condition, not a spin) when all readers are busy; readers are
/// never shared, so each one's statement cache and transaction state stay single-threaded.
/// Readers beyond the first are opened when the traffic first needs them: each costs a file
/// open, the WAL index mapping and its pragmas, which a daemon's start need not wait for.
final class ReaderPool: @unchecked Sendable {
    private let condition = Condition()
    private var idle: [Connection]
    private var opened: Int
    private let capacity: Int
    private let open: () throws -> Connection
    private var isClosed = false

    /// Safety of `@unchecked Sendable`: every mutable property is read and written under `condition`.
    init(first: Connection, capacity: Int, open: @escaping () throws -> Connection) {
        idle = [first]
        opened = 1
        self.capacity = max(1, capacity)
        self.open = open
    }

    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try acquire()
        defer { release(connection) }
        return try body(connection)
    }

    private func acquire() throws -> Connection {
        condition.lock()
        defer { condition.unlock() }
        while idle.isEmpty && !isClosed && opened >= capacity {
            condition.wait()
        }
        guard !isClosed else { throw SQLiteError.misuse("database is closed") }
        if let connection = idle.popLast() { return connection }
        // Opened under the lock: rare (at most capacity - 1 times) and short, and it keeps the
        // count exact when several callers find the pool empty at once.
        let connection = try open()
        opened += 1
        return connection
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
