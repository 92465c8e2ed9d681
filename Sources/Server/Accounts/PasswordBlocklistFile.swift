import FoundationEssentials
import Logging
import OIDC

/// Reads the password blocklist file once at start; a missing or unreadable file leaves the
/// built-in few and says so in the log.
enum PasswordBlocklistFile {
    static func load(_ path: String, logger: Logger) -> PasswordBlocklist {
        guard let data = FileManager.default.contents(atPath: path) else {
            logger.warning("password_blocklist_missing", ["path": .string(path)])
            return PasswordBlocklist(entries: [])
        }
        let list = PasswordBlocklist(listText: String(decoding: data, as: UTF8.self))
        logger.info("password_blocklist_loaded", ["path": .string(path), "entries": .int(list.count)])
        return list
    }
}
