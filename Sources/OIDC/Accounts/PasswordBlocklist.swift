/// Passwords nobody may choose: known-breached and common ones, from a list file (one password per
/// line, as Debian's `john-data` ships in `/usr/share/john/password.lst`; `#!comment` lines
/// skipped), compared without regard to case. No network look-ups (README "Passwords").
public struct PasswordBlocklist: Sendable {
    private let entries: Set<String>

    /// The few passwords refused even without a list file.
    static let builtIn: [String] = ["password", "password1", "passw0rd", "12345678", "123456789", "1234567890", "qwerty123",
                                    "qwertyuiop", "iloveyou", "letmein1", "abc12345", "11111111", "00000000", "87654321",
                                    "password123", "Password1", "Password123", "Passw0rd!", "P@ssw0rd", "Qwerty123"]

    public init(entries: some Sequence<String>) {
        self.entries = Set((Array(entries) + Self.builtIn).map { $0.lowercased() })
    }

    /// The list from a file's text: one password per line; blank lines and `#!` comments skipped.
    public init(listText: String) {
        let lines = listText.split(whereSeparator: \.isNewline).lazy
            .map { String($0) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#!") }
        self.init(entries: lines)
    }

    public var count: Int { entries.count }

    /// Whether the password is on the list, or is the user's own email or its local part.
    public func refuses(_ password: String, email: String? = nil) -> Bool {
        let folded = password.lowercased()
        if entries.contains(folded) { return true }
        guard let email = email?.lowercased() else { return false }
        return folded == email || folded == email.split(separator: "@").first.map(String.init)
    }
}
