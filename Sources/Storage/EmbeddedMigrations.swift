// GENERATED FILE: do not edit. Produced by scripts/embed-migrations from Migrations/*.sql;
// rerun the script after changing a migration (StorageTests fails while this file is stale).
import SQLite

/// The schema migrations compiled into the binary, in version order.
public enum EmbeddedMigrations {
    public static let all: [Migration] = []
}
