import SQL

extension SQLDatabase {
    /// Lookups that need no common snapshot (each result is checked on its own, and the write that
    /// follows re-checks what must not have changed): one read transaction on SQLite, where it
    /// costs one set of file locks instead of one per statement; bare statements on PostgreSQL,
    /// where BEGIN and COMMIT would be two more round trips and each statement sees the latest commit.
    func lookups<T>(_ body: (Connection) throws -> T) throws -> T {
        dialect == .postgresql ? try withReader(body) : try read(body)
    }
}
