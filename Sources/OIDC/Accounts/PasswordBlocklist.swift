import Synchronization

/// Passwords nobody may choose: known-breached and common ones, from a list file (one password per
/// line, as Debian's `john-data` ships in `/usr/share/john/password.lst`; `#!comment` lines
/// skipped), compared without regard to case. No network look-ups (README "Passwords").
public struct PasswordBlocklist: Sendable {
    private let entries: Entries

    /// The folded entries, made once: at once, or on first use (or `prepare()`) for a list read
    /// from a file, so a daemon's start does not wait for parsing thousands of lines.
    private final class Entries: Sendable {
        private let folded: Mutex<FoldedPasswordList?>
        private let load: (@Sendable () -> FoldedPasswordList)?

        init(_ made: FoldedPasswordList) {
            folded = Mutex(made)
            load = nil
        }

        init(load: @escaping @Sendable () -> FoldedPasswordList) {
            folded = Mutex(nil)
            self.load = load
        }

        var list: FoldedPasswordList {
            folded.withLock { current in
                if let current { return current }
                let made = load?() ?? FoldedPasswordList(folding: [])
                current = made
                return made
            }
        }
    }

    /// The few passwords refused even without a list file.
    static let builtIn: [String] = ["password", "password1", "passw0rd", "12345678", "123456789", "1234567890", "qwerty123",
                                    "qwertyuiop", "iloveyou", "letmein1", "abc12345", "11111111", "00000000", "87654321",
                                    "password123", "Password1", "Password123", "Passw0rd!", "P@ssw0rd", "Qwerty123"]

    public init(entries: some Sequence<String>) {
        self.entries = Entries(FoldedPasswordList(folding: Array(entries) + Self.builtIn))
    }

    /// The list from a file's text: one password per line; blank lines and `#!` comments skipped.
    public init(listText: String) {
        entries = Entries(FoldedPasswordList(listText: Array(listText.utf8), adding: Self.builtIn))
    }

    /// A list whose file text (UTF-8) `load` gives the first time an entry is needed (or at
    /// `prepare()`); nil, for a file that could not be read, leaves the built-in few.
    public init(deferredListText load: @escaping @Sendable () -> [UInt8]?) {
        entries = Entries(load: { FoldedPasswordList(listText: load() ?? [], adding: Self.builtIn) })
    }

    /// Makes the entries now, if a deferred list has not yet.
    public func prepare() { _ = entries.list }

    public var count: Int { entries.list.count }

    /// Whether the password is on the list, or is the user's own email or its local part.
    public func refuses(_ password: String, email: String? = nil) -> Bool {
        let folded = password.lowercased()
        if entries.list.contains(folded) { return true }
        guard let email = email?.lowercased() else { return false }
        return folded == email || folded == email.split(separator: "@").first.map(String.init)
    }
}
