import Dispatch
import FoundationEssentials
import Logging
import OIDC

/// Reads the password blocklist file on a background thread as the daemon starts (a request that
/// needs it first waits for it); a missing or unreadable file leaves the built-in few and says so
/// in the log.
enum PasswordBlocklistFile {
    static func load(_ path: String, logger: Logger) -> PasswordBlocklist {
        let list = PasswordBlocklist(deferred: {
            guard let data = FileManager.default.contents(atPath: path) else {
                logger.warning("password_blocklist_missing", ["path": .string(path)])
                return []
            }
            let entries = PasswordBlocklist.lines(String(decoding: data, as: UTF8.self))
            logger.info("password_blocklist_loaded", ["path": .string(path), "entries": .int(entries.count)])
            return entries
        })
        DispatchQueue.global(qos: .utility).async { list.prepare() }
        return list
    }
}
