import Model
import SQLite

/// Gatehouse's storage: the database, migrated at open. Record stores build on `database`.
public final class Store: Sendable {
    public let path: String
    public let database: Database
    /// Shared by every `SQLiteClientStore` over this store.
    let clientCache = ClientCache()
    /// The last write probe, for `checkWrites()`.
    let writeProbe = WriteProbe()

    /// Opens (creating if needed, with its parent directory) the database at `path` and applies
    /// pending migrations. Throws `StoreOpenError` with a message for the operator.
    public init(path: String, readers: Int = 4, busyTimeout: Duration = .seconds(5),
                migrations: [Migration] = EmbeddedMigrations.all) throws(StoreOpenError) {
        self.path = path
        let database: Database
        do {
            database = try Database(path: path, readers: readers, busyTimeout: busyTimeout)
        } catch let error as SQLiteError {
            throw .cannotOpen(path: path, error)
        } catch {
            throw .cannotOpen(path: path, SQLiteError(extendedCode: SQLiteResult.cantOpen, message: "\(error)"))
        }
        do {
            try Migrator(migrations, database: database).migrate()
        } catch let error as MigrationError {
            database.close()
            throw .migration(path: path, error)
        } catch let error as SQLiteError {
            database.close()
            throw .cannotOpen(path: path, error)
        } catch {
            database.close()
            throw .cannotOpen(path: path, SQLiteError(extendedCode: SQLiteResult.error, message: "\(error)"))
        }
        self.database = database
    }

    /// A `SELECT 1` on a reader, for /readyz (with `checkWrites()`).
    public func ping() throws(StorageError) {
        try mapStorageErrors {
            _ = try database.read { try $0.queryOne("SELECT 1") }
        }
    }

    /// Periodic maintenance: folds the WAL into the database file and truncates it.
    /// Returns false when readers kept it from finishing (harmless; try again later).
    @discardableResult
    public func checkpoint() throws(StorageError) -> Bool {
        do {
            try database.checkpoint(truncate: true)
            return true
        } catch let error as SQLiteError where error.isBusy {
            return false
        } catch {
            throw StorageError.map(error)
        }
    }

    /// For the daemon: checkpoints on a timer instead of inside the commit that fills the WAL.
    public func startBackgroundCheckpoints() throws(StorageError) {
        try mapStorageErrors { try database.startBackgroundCheckpoints() }
    }

    /// Sizes in bytes of the database file and its `-wal` file.
    public func fileSizes() -> (database: Int64, wal: Int64) { database.fileSizes() }

    /// Closes every connection. Idempotent.
    public func close() {
        database.close()
    }
}
