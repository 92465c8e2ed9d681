import Model

/// The answer to "would this client's /authorize accept this redirect_uri?", for operators
/// (`idp-admin apps test-callback`). Pure, so the command is a thin wrapper.
public struct CallbackVerdict: Sendable, Equatable {
    public let allowed: Bool
    /// The entry that matched, when allowed.
    public let entry: String?
    /// Why it was refused.
    public let reason: String?
    /// The closest registered callback, when refused.
    public let nearest: String?

    /// Matches `url` against the client's Allowed Callback URLs under the /authorize rules
    /// (native apps get the RFC 8252 loopback any-port rule).
    public static func evaluate(client: Client, url: String) -> CallbackVerdict {
        switch RedirectURIPolicy.match(url, allowed: client.callbacks, kind: .callback, isNative: client.type == .native) {
        case .allowed(let entry):
            return CallbackVerdict(allowed: true, entry: entry, reason: nil, nearest: nil)
        case .refused(let reason, let nearest):
            return CallbackVerdict(allowed: false, entry: nil, reason: reason, nearest: nearest)
        }
    }

    /// `allowed (matches ENTRY)`, or `refused: REASON` plus `nearest allowed callback: ENTRY`.
    public var text: String {
        if allowed { return "allowed (matches \(entry ?? ""))" }
        var text = "refused: \(reason ?? "")"
        if let nearest { text += "\nnearest allowed callback: \(nearest)" }
        return text
    }

    /// `{"allowed":…, "reason":…, "nearest":…, "entry":…}`; absent values are nil (JSON null).
    public var fields: [String: String?] {
        ["reason": reason, "nearest": nearest, "entry": entry]
    }
}
