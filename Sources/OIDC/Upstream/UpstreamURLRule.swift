/// Which URLs Gatehouse will talk to upstream (README "Upstream connections"): https, or plain http
/// for a loopback host only (a local stand-in in tests and development); no userinfo, no fragment.
public enum UpstreamURLRule {
    /// Why `url` is refused, or nil when it is acceptable.
    public static func problem(_ url: String) -> String? {
        guard let parts = URLParts(url), parts.hasAuthority, !parts.host.isEmpty else { return "not an absolute URL" }
        let scheme = String(decoding: parts.scheme, as: UTF8.self).lowercased()
        guard scheme == "https" || (scheme == "http" && parts.isLoopbackHost) else {
            return scheme == "http" ? "plain http is allowed only for loopback hosts (127.0.0.1, [::1], localhost)" : "must be https"
        }
        guard parts.userinfo == nil else { return "must not carry credentials" }
        guard parts.fragment == nil else { return "must not have a fragment" }
        if parts.port != nil && parts.numericPort == nil { return "has an invalid port" }
        return nil
    }
}
