import Synchronization

/// Passwords nobody may choose: known-breached and common ones, from a list file (one password per
/// line, as Debian's `john-data` ships in `/usr/share/john/password.lst`; `#!comment` lines
/// skipped), compared without regard to case. No network look-ups (README "Passwords").
public struct PasswordBlocklist: Sendable {
    private let list: Entries

    /// The folded entries, made once: at once, or on first use (or `prepare()`) for a list read
    /// from a file, so a daemon's start does not wait for parsing thousands of lines.
    private final class Entries: Sendable {
        private let folded: Mutex<Set<String>?>
        private let load: @Sendable () -> [String]

        init(_ entries: Set<String>?, load: @escaping @Sendable () -> [String]) {
            folded = Mutex(entries)
            self.load = load
        }

        var set: Set<String> {
            folded.withLock { current in
                if let current { return current }
                let made = PasswordBlocklist.fold(load())
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
        list = Entries(Self.fold(Array(entries)), load: { [] })
    }

    /// The list from a file's text: one password per line; blank lines and `#!` comments skipped.
    public init(listText: String) {
        self.init(entries: Self.lines(listText))
    }

    /// A list whose entries `load` gives the first time one is needed (or at `prepare()`).
    public init(deferred load: @escaping @Sendable () -> [String]) {
        list = Entries(nil, load: load)
    }

    /// Passwords of a list file's text.
    public static func lines(_ listText: String) -> [String] {
        listText.split(whereSeparator: \.isNewline).lazy
            .map { String($0) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#!") }
    }

    static func fold(_ entries: [String]) -> Set<String> { Set((entries + builtIn).map { $0.lowercased() }) }

    /// Makes the entries now, if a deferred list has not yet.
    public func prepare() { _ = list.set }

    public var count: Int { list.set.count }

    /// Whether the password is on the list, or is the user's own email or its local part.
    public func refuses(_ password: String, email: String? = nil) -> Bool {
        let folded = password.lowercased()
        if list.set.contains(folded) { return true }
        guard let email = email?.lowercased() else { return false }
        return folded == email || folded == email.split(separator: "@").first.map(String.init)
    }
}
