import Settings

/// Why a command did not succeed; each case maps to `idp-admin`'s documented exit status.
public enum AdminError: Error, Equatable, CustomStringConvertible {
    /// The operation failed: not found, conflict, validation (exit 1).
    case failed(String)
    /// The command line is wrong (exit 2).
    case usage(String)
    /// The configuration is unusable (exit 78).
    case configuration(String)

    public var exitCode: Int32 {
        switch self {
        case .failed: 1
        case .usage: 2
        case .configuration: ConfigurationError.exitCode
        }
    }

    public var description: String {
        switch self {
        case .failed(let message), .usage(let message), .configuration(let message): message
        }
    }
}
