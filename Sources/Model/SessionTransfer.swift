import FoundationEssentials

/// An application's part in native-to-web session transfer (README "Native to web"): whether it may
/// hand its signed-in user over to a web view, and whether — and how — it accepts such a handover.
public struct SessionTransferPolicy: Sendable, Equatable {
    /// How `/authorize` may receive the token: the `session_transfer_token` query parameter, the
    /// `auth0_session_transfer_token` cookie the app sets in its web view, or both.
    public struct Channels: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let cookie = Channels(rawValue: 1)
        public static let query = Channels(rawValue: 2)
    }

    /// What the token is bound to besides the user, the issuing app and its refresh-token family.
    public enum Binding: String, Sendable, CaseIterable {
        /// The client address that asked for the token must be the one that redeems it (Auth0's device binding).
        case ip
        /// No address binding (an app whose web view leaves by another network path).
        case none
    }

    /// Issuing side: `grant_type=refresh_token` with the session-transfer audience is allowed.
    public var allowIssue: Bool
    /// Receiving side: the channels `/authorize` honours a token from; empty = off.
    public var accept: Channels
    public var binding: Binding

    public init(allowIssue: Bool = false, accept: Channels = [], binding: Binding = .ip) {
        self.allowIssue = allowIssue
        self.accept = accept
        self.binding = binding
    }

    /// `cookie,query`, `cookie`, `query` or `off`, as `idp-admin` writes and reads it.
    public var acceptText: String {
        var names: [String] = []
        if accept.contains(.cookie) { names.append("cookie") }
        if accept.contains(.query) { names.append("query") }
        return names.isEmpty ? "off" : names.joined(separator: ",")
    }

    /// Parses `acceptText`'s forms (in either order); nil for anything else.
    public static func channels(_ text: String) -> Channels? {
        if text == "off" { return [] }
        var channels: Channels = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            switch name {
            case "cookie": channels.insert(.cookie)
            case "query": channels.insert(.query)
            default: return nil
            }
        }
        return channels.isEmpty ? nil : channels
    }
}

/// A one-time session transfer token, stored only as the digest of its value.
public struct SessionTransferToken: Sendable, Equatable {
    public var tokenHash: String
    public var userID: String
    /// The application that asked for it.
    public var clientID: String
    /// The refresh-token family (grant) it came from: revoking it ends what the transfer created.
    public var grantID: String
    /// The address it was asked from; nil when the issuing app binds to none.
    public var ip: String?
    public var issuedAt: Date
    public var expiresAt: Date
    public var consumedAt: Date?

    public init(tokenHash: String, userID: String, clientID: String, grantID: String, ip: String?, issuedAt: Date,
                expiresAt: Date, consumedAt: Date? = nil) {
        self.tokenHash = tokenHash
        self.userID = userID
        self.clientID = clientID
        self.grantID = grantID
        self.ip = ip
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.consumedAt = consumedAt
    }
}

/// What presenting a session transfer token found, decided in one atomic step.
public enum SessionTransferRedemption: Sendable, Equatable {
    /// First presentation within its lifetime: the token is now consumed.
    case redeemed(SessionTransferToken)
    /// Already consumed by an earlier presentation.
    case reused(SessionTransferToken)
    /// Past its lifetime (and now consumed, so it never counts again).
    case expired(SessionTransferToken)
    case unknown
}

public protocol SessionTransferStore: Sendable {
    func insert(_ token: SessionTransferToken) throws(StorageError)
    /// Consumes the token in one atomic step: of concurrent presentations exactly one sees `.redeemed`.
    func redeem(tokenHash: String, at time: Date) throws(StorageError) -> SessionTransferRedemption
    /// Creates `session` (whose `parentGrantID` is set) only while that grant is live, in one step, so
    /// a revocation of the parent either precedes it (false, nothing created) or ends it.
    func startSession(_ session: Session) throws(StorageError) -> Bool
}
