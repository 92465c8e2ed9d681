import FoundationEssentials
import Logging
import OIDC

/// The password blocklist file, read when the list is first needed (`GatehouseServer` prepares it
/// on a background thread once it listens; a request that needs it first waits for it); a missing
/// or unreadable file leaves the built-in few and says so in the log.
enum PasswordBlocklistFile {
    static func list(at path: String, logger: Logger) -> PasswordBlocklist {
        PasswordBlocklist(deferredListText: {
            guard let data = FileManager.default.contents(atPath: path) else {
                logger.warning("password_blocklist_missing", ["path": .string(path)])
                return nil
            }
            logger.info("password_blocklist_loaded", ["path": .string(path), "bytes": .int(data.count)])
            return [UInt8](data)
        })
    }
}
