/// Per-request facts the web layer hands to the protocol core, and the sign-in outcomes the core
/// reports back for the web layer to record (audit events, metrics). An `inout` parameter, so what
/// the core reported survives a thrown error.
public struct RequestContext: Sendable {
    /// The client's address: the peer, or what a trusted proxy forwarded (throttling, sessions, audit).
    public var clientIP: String
    /// A short label of the device, shown by `idp-admin sessions list`.
    public var deviceName: String?
    /// The browser's `Accept-Language`, for pages and messages when the request names no `ui_locales`.
    public var acceptLanguage: String?
    public var events: [SignInEvent] = []

    public init(clientIP: String, deviceName: String? = nil) {
        self.clientIP = clientIP
        self.deviceName = deviceName
    }

    mutating func record(_ kind: SignInEvent.Kind, userID: String? = nil, clientID: String?, details: [String: String] = [:]) {
        events.append(SignInEvent(kind, userID: userID, clientID: clientID, details: details))
    }
}
