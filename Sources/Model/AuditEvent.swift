import FoundationEssentials

/// Something that happened, for operators: logins, failures, token issuance, admin changes.
public struct AuditEvent: Sendable, Equatable {
    public var id: Int64?
    public let time: Date
    /// Dotted name, e.g. `keys.rotated`, `login.failed`.
    public let event: String
    public let userID: String?
    public let clientID: String?
    public let ip: String?
    /// `user`, `system`, or the operator's OS user name for admin commands.
    public let actor: String
    /// Extra facts as a flat JSON object of strings; never secrets.
    public let details: [String: String]

    public init(id: Int64? = nil, time: Date, event: String, userID: String? = nil, clientID: String? = nil,
                ip: String? = nil, actor: String, details: [String: String] = [:]) {
        self.id = id
        self.time = time
        self.event = event
        self.userID = userID
        self.clientID = clientID
        self.ip = ip
        self.actor = actor
        self.details = details
    }
}
