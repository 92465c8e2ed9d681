import SQL

extension SQLDatabase {
    /// Lookups that need no common snapshot (each result is checked on its own, and the write that
    /// follows re-checks what must not have changed): one read transaction on SQLite, where it
    /// costs one set of file locks instead of one per statement; bare statements on PostgreSQL,
    /// where BEGIN and COMMIT would be two more round trips and each statement sees the latest commit.
    func lookups<T>(_ body: (Connection) throws -> T) throws -> T {
        dialect == .postgresql ? try withReader(body) : try read(body)
    }

    /// A write that is one statement: on PostgreSQL outside BEGIN…COMMIT (the statement is its own
    /// transaction, so BEGIN and COMMIT would only add two round trips); on SQLite in `write`, which
    /// takes the write lock the statement needs anyway.
    func singleStatementWrite<T>(_ body: (Connection) throws -> T) throws -> T {
        dialect == .postgresql ? try withReader(body) : try write(body)
    }
}
