import FoundationEssentials
import Glibc

/// An IPv4 or IPv6 address as its network-order bytes (4 or 16). IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is
/// normalised to IPv4, so a peer accepted on a dual-stack socket matches IPv4 ranges.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public var isIPv4: Bool { bytes.count == 4 }

    /// Parses a literal address: `192.0.2.1`, `2001:db8::1`, `::ffff:192.0.2.1` (no brackets, port or zone).
    public init?(_ text: some StringProtocol) {
        let string = String(text)
        // inet_pton reads a C string: a NUL would end the address early (10.0.0.1\0junk read as 10.0.0.1).
        guard !string.isEmpty, string.utf8.count <= 45, !string.contains("%"), !string.utf8.contains(0) else { return nil }
        if !string.contains(":") {
            var v4 = in_addr()
            guard inet_pton(AF_INET, string, &v4) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, string, &v6) == 1 else { return nil }
        let raw = withUnsafeBytes(of: &v6) { Array($0) }
        if raw[0..<10].allSatisfy({ $0 == 0 }) && raw[10] == 0xFF && raw[11] == 0xFF {
            bytes = Array(raw[12..<16])
        } else {
            bytes = raw
        }
    }

    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        var copy = in6_addr()
        withUnsafeMutableBytes(of: &copy) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        inet_ntop(AF_INET6, &copy, &text, socklen_t(text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A CIDR range such as `10.0.0.0/8` or `2001:db8::/32`; a single address is a full-length prefix.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    public let address: IPAddress
    public let prefixLength: Int

    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        var literal = String(parts[0])
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        // A mapped literal with a prefix counts in IPv6 bits; keep it simple and reject that shape.
        guard let address = IPAddress(literal) else { return nil }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let value = Int(digits), value <= bits else { return nil }
            if literal.contains(":") && address.isIPv4 { return nil }
            length = value
        }
        // Reject host bits set below the prefix: `10.0.0.1/8` is almost always a typo.
        guard IPNetwork.masked(address.bytes, length) == address.bytes else { return nil }
        self.address = address
        self.prefixLength = length
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        candidate.bytes.count == address.bytes.count && IPNetwork.masked(candidate.bytes, prefixLength) == address.bytes
    }

    static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        var out = bytes
        for index in out.indices {
            let remaining = length - index * 8
            if remaining >= 8 { continue }
            out[index] = remaining <= 0 ? 0 : out[index] & UInt8(truncatingIfNeeded: 0xFF << (8 - remaining))
        }
        return out
    }

    public var description: String { "\(address)/\(prefixLength)" }
}

/// The `trusted_proxies` setting: the peers whose X-Forwarded-* / Forwarded headers are believed.
public struct TrustedProxyList: Sendable, Equatable, CustomStringConvertible {
    public var networks: [IPNetwork]
    /// Peers on a unix-socket listener (the keyword `unix`).
    public var unixSockets: Bool

    public static let none = TrustedProxyList(networks: [], unixSockets: false)

    public init(networks: [IPNetwork], unixSockets: Bool) {
        self.networks = networks
        self.unixSockets = unixSockets
    }

    public var isEmpty: Bool { networks.isEmpty && !unixSockets }

    public func contains(_ address: IPAddress) -> Bool { networks.contains { $0.contains(address) } }

    public static func parse(_ text: String) -> Result<TrustedProxyList, ParseFailure> {
        var list = TrustedProxyList.none
        for item in text.split(separator: ",") {
            let entry = item.trimmingSpaces()
            if entry.isEmpty { continue }
            if entry == "unix" {
                list.unixSockets = true
                continue
            }
            guard let network = IPNetwork(entry) else {
                return .failure(ParseFailure("expected comma-separated IPv4/IPv6 addresses or CIDR ranges (e.g. 127.0.0.1, 10.0.0.0/8, ::1) or the word unix, "
                                             + "found \"\(entry)\" (a range must have no host bits set)"))
            }
            if !list.networks.contains(network) { list.networks.append(network) }
        }
        return .success(list)
    }

    public var description: String {
        (networks.map { $0.prefixLength == $0.address.bytes.count * 8 ? $0.address.description : $0.description }
            + (unixSockets ? ["unix"] : [])).joined(separator: ",")
    }
}
