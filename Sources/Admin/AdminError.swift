import Settings

/// Why a command did not succeed; each case maps to `idp-admin`'s documented exit status.
public enum AdminError: Error, Equatable, CustomStringConvertible {
    /// The operation failed: not found, conflict, validation (exit 1).
    case failed(String)
    /// The command line is wrong (exit 2).
    case usage(String)
    /// The configuration is unusable (exit 78).
    case configuration(String)
    /// No database at the resolved path; nothing was created (exit 1).
    case noDatabase(String)
    /// The operator answered no to a confirmation (exit 1).
    case notConfirmed(String)

    public var exitCode: Int32 {
        switch self {
        case .failed, .noDatabase, .notConfirmed: 1
        case .usage: 2
        case .configuration: ConfigurationError.exitCode
        }
    }

    /// The `error` field of `--json` errors.
    public var code: String {
        switch self {
        case .failed: "failed"
        case .usage: "usage"
        case .configuration: "configuration"
        case .noDatabase: "no_database"
        case .notConfirmed: "not_confirmed"
        }
    }

    public var description: String {
        switch self {
        case .failed(let message), .usage(let message), .configuration(let message), .noDatabase(let message),
             .notConfirmed(let message): message
        }
    }
}
