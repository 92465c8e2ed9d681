/// Why migrating refused or failed. Every message names the migration's file.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An applied migration's checksum (or name) differs from the binary's copy.
    case changedMigration(version: Int, name: String, appliedChecksum: String, binaryChecksum: String)
    /// The database has versions this binary does not know: it was migrated by a newer release.
    case databaseNewer(databaseVersion: Int, binaryVersion: Int)
    /// The binary's list has the same version twice.
    case duplicateVersion(version: Int, files: [String])
    /// The binary's list skips a version (or does not start at 1).
    case versionGap(missing: Int, before: String)
    /// The migration's SQL failed; its transaction was rolled back.
    case failed(version: Int, name: String, error: SQLiteError)

    public var description: String {
        switch self {
        case .changedMigration(let version, let name, let applied, let binary):
            "migration \(Self.identifier(version, name)) was changed after it was applied "
                + "(checksum \(applied) in database, \(binary) in \(Self.identifier(version, name)).sql)"
        case .databaseNewer(let databaseVersion, let binaryVersion):
            "schema version \(databaseVersion) is newer than this binary (knows up to \(binaryVersion))"
        case .duplicateVersion(let version, let files):
            "migration version \(version) is used by more than one file: \(files.joined(separator: ", "))"
        case .versionGap(let missing, let before):
            "migration version \(missing) is missing (the next file is \(before))"
        case .failed(let version, let name, let error):
            "migration \(Self.identifier(version, name)).sql failed and was rolled back: \(error)"
        }
    }

    private static func identifier(_ version: Int, _ name: String) -> String {
        Migration(version: version, name: name, sql: "", checksum: "").identifier
    }
}
