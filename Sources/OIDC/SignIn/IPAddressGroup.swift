import FoundationEssentials

/// Groups client addresses for throttling: an IPv6 address by its first `prefixLength` bits (one
/// subscriber usually holds a whole /64, so counting single addresses would give them 2^64
/// tries), written as `2001:db8:1:2::/64`; IPv4 and anything unparsable as they are.
enum IPAddressGroup {
    static func group(_ address: String, ipv6PrefixLength: Int) -> String {
        guard address.contains(":"), let bytes = parseIPv6(address) else { return address }
        let length = min(max(ipv6PrefixLength, 0), 128)
        guard length < 128 else { return address }
        var masked = bytes
        for index in 0..<16 {
            let keep = min(max(length - index * 8, 0), 8)
            masked[index] &= keep == 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF00 >> keep)
        }
        return format(masked) + "/" + String(length)
    }

    /// RFC 4291 §2.2 text forms: eight groups, `::` once, an embedded dotted IPv4 tail; a `%zone` is dropped.
    static func parseIPv6(_ text: String) -> [UInt8]? {
        let address = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        let halves = address.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    let octets = piece.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
                    guard octets.count == 4, piece.split(separator: ".").allSatisfy({ $0.count <= 3 }) else { return nil }
                    result += [UInt16(octets[0]) << 8 | UInt16(octets[1]), UInt16(octets[2]) << 8 | UInt16(octets[3])]
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        let tail = halves.count == 2 ? groups(halves[1]) : []
        guard let tail else { return nil }
        let all: [UInt16]
        if halves.count == 2 {
            guard head.count + tail.count <= 7 else { return nil }
            all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard head.count == 8 else { return nil }
            all = head
        }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// Lower-case groups, the longest run of zero groups (two or more) as `::` (RFC 5952 §4).
    static func format(_ bytes: [UInt8]) -> String {
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else { index += 1; continue }
            var end = index
            while end < 8, groups[end] == 0 { end += 1 }
            if end - index > best.length, end - index >= 2 { best = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }
}
