/// Allow-list rules for Allowed Callback URLs, Allowed Logout URLs and Allowed Web Origins.
///
/// API skeleton fixed by the lead so the storage/admin and protocol-core work can proceed
/// in parallel; the protocol-core work replaces the bodies (see README "Allow-lists").
public enum RedirectURIPolicy {
    /// Which allow-list an entry belongs to.
    public enum ListKind: String, Sendable {
        case callback, logout, webOrigin = "web_origin"
    }

    /// The outcome of matching a requested URL against an allow-list.
    public enum Match: Sendable, Equatable {
        /// The entry it matched.
        case allowed(entry: String)
        /// Refused; `reason` says exactly why for operators (never shown to end users),
        /// `nearest` is the closest entry, if any.
        case refused(reason: String, nearest: String?)
    }

    /// Problems with an entry an operator wants to register (empty when acceptable).
    /// `isNative` allows custom schemes and loopback `http`.
    public static func registrationProblems(_ entry: String, kind: ListKind, isNative: Bool) -> [String] {
        fatalError("RedirectURIPolicy.registrationProblems is implemented by the protocol-core work")
    }

    /// Matches `requested` against `allowed` under the rules for `kind`.
    public static func match(_ requested: String, allowed: [String], kind: ListKind, isNative: Bool) -> Match {
        fatalError("RedirectURIPolicy.match is implemented by the protocol-core work")
    }
}
