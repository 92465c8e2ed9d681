import HTTP
import Settings
import Synchronization

/// Which peers are trusted proxies, and what a request's client address and request id are.
///
/// Policy (RFC 7239, RFC 9700 §4.13): forwarded headers count only when the *direct* peer is trusted.
/// Then `X-Forwarded-For` (or, when absent, `Forwarded: for=`) is walked from the right, skipping hops
/// that are themselves trusted proxies; the first untrusted address is the client. Anything a client
/// writes to the left of that is ignored, so forged or rotating `X-Forwarded-For` values change nothing.
/// The list is swapped atomically on SIGHUP reload.
public final class ProxyTrust: Sendable {
    private let list: Mutex<TrustedProxyList>

    public init(_ list: TrustedProxyList) {
        self.list = Mutex(list)
    }

    public var current: TrustedProxyList { list.withLock { $0 } }

    public func replace(with newList: TrustedProxyList) { list.withLock { $0 = newList } }

    /// Whether the direct peer may speak for the client.
    public static func trusts(_ peer: PeerAddress, in list: TrustedProxyList) -> Bool {
        switch peer {
        case .unix: return list.unixSockets
        case .ip(let host, _):
            guard !list.networks.isEmpty, let address = IPAddress(host) else { return false }
            return list.contains(address)
        }
    }

    /// The client's address for a request from `peer` (its own text unless it is a trusted proxy).
    public static func clientAddress(peer: PeerAddress, headers: HTTPHeaders, list: TrustedProxyList) -> String {
        let direct = peer.description
        guard trusts(peer, in: list) else { return direct }
        let hops = forwardedChain(headers)
        var last = direct
        for hop in hops.reversed() {
            // An unparseable hop (`unknown`, an obfuscated name, garbage) ends the walk at the last hop we can vouch for.
            guard let address = parseNode(hop) else { return last }
            if !list.contains(address) { return address.description }
            last = address.description
        }
        return last
    }

    /// The hops a proxy chain reported, leftmost first: every `X-Forwarded-For` field in order, or
    /// when there is none, the `for=` parameters of every `Forwarded` element.
    static func forwardedChain(_ headers: HTTPHeaders) -> [Substring] {
        let xff = headers.values("X-Forwarded-For")
        if !xff.isEmpty {
            return xff.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        }
        return ForwardedHeader.elements(headers).compactMap { element -> Substring? in element["for"].map { Substring($0) } }
    }

    /// An address as written in a forwarded header: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
    /// `[2001:db8::1]:4711`, optionally in double quotes.
    static func parseNode(_ raw: some StringProtocol) -> IPAddress? {
        var text = Substring(raw).trimmingSpacesAndQuotes()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
            return IPAddress(text)
        }
        if let colon = text.firstIndex(of: ":"), text.contains("."), text[text.index(after: colon)...].allSatisfy(\.isNumber) {
            text = text[..<colon]  // IPv4 with a port.
        }
        return IPAddress(text)
    }

    /// Accepts an upstream `X-Request-Id` only when it is 1–128 characters of `[A-Za-z0-9._-]`.
    public static func acceptableRequestID(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count) else { return nil }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return nil
            }
        }
        return value
    }

    /// The `HTTPServerConfiguration.requestIdentity` hook: client address, upstream request id, and the self-check.
    public func identityHook(selfCheck: ProxySelfCheck?) -> RequestIdentityHook {
        { [self] peer, headers in
            let list = current
            let trusted = Self.trusts(peer, in: list)
            selfCheck?.observe(peer: peer, headers: headers, trusted: trusted)
            guard trusted else { return (peer.description, nil) }
            return (Self.clientAddress(peer: peer, headers: headers, list: list),
                    Self.acceptableRequestID(headers["X-Request-Id"]))
        }
    }
}

/// RFC 7239 `Forwarded` parsing: elements separated by `,`, pairs by `;`, values optionally quoted.
enum ForwardedHeader {
    /// Every element of every `Forwarded` field, leftmost first, with lower-cased parameter names.
    static func elements(_ headers: HTTPHeaders) -> [[String: String]] {
        var result: [[String: String]] = []
        for field in headers.values("Forwarded") {
            for element in splitOutsideQuotes(field, on: ",") {
                var pairs: [String: String] = [:]
                for pair in splitOutsideQuotes(element, on: ";") {
                    guard let equals = pair.firstIndex(of: "=") else { continue }
                    let name = pair[..<equals].trimmingSpacesAndQuotes().lowercased()
                    let value = String(pair[pair.index(after: equals)...].trimmingSpacesAndQuotes())
                    if !name.isEmpty { pairs[name] = value }
                }
                result.append(pairs)
            }
        }
        return result
    }

    static func splitOutsideQuotes(_ text: some StringProtocol, on separator: Character) -> [Substring] {
        let text = Substring(text)
        var parts: [Substring] = []
        var start = text.startIndex
        var quoted = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" { quoted.toggle() }
            if character == separator && !quoted {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        parts.append(text[start...])
        return parts
    }
}

extension Substring {
    func trimmingSpacesAndQuotes() -> Substring {
        var view = self
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        if view.count >= 2, view.first == "\"", view.last == "\"" { view = view.dropFirst().dropLast() }
        return view
    }
}
