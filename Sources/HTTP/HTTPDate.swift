#if canImport(Glibc)
import Glibc
#endif

/// The IMF-fixdate `Date` header value, recomputed at most once per second.
/// Not thread-safe: each event loop owns one; workers format their own with `bytes(at:)`.
struct HTTPDateCache {
    private var second: time_t = -1
    private(set) var bytes: [UInt8] = []

    private static let days = Array("SunMonTueWedThuFriSat".utf8)
    private static let months = Array("JanFebMarAprMayJunJulAugSepOctNovDec".utf8)

    /// The current value, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
    mutating func current() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            bytes = Self.bytes(at: now)
        }
        return bytes
    }

    /// The current value without a cache, for threads that own none.
    static func now() -> [UInt8] {
        bytes(at: time(nil))
    }

    static func format(_ seconds: time_t) -> String {
        String(decoding: bytes(at: seconds), as: UTF8.self)
    }

    /// Formats without Strings or locale: cheap enough to run per response.
    static func bytes(at seconds: time_t) -> [UInt8] {
        var value = seconds
        var parts = tm()
        gmtime_r(&value, &parts)
        var out = [UInt8]()
        out.reserveCapacity(29)
        func name(_ table: [UInt8], _ index: Int32) {
            let start = Int(index) * 3
            out.append(contentsOf: table[start..<start + 3])
        }
        func two(_ number: Int32) {
            out.append(UInt8(truncatingIfNeeded: 48 + number / 10))
            out.append(UInt8(truncatingIfNeeded: 48 + number % 10))
        }
        name(days, parts.tm_wday)
        out.append(contentsOf: [44, 32])  // ", "
        two(parts.tm_mday)
        out.append(32)
        name(months, parts.tm_mon)
        out.append(32)
        let year = parts.tm_year + 1900
        two(year / 100)
        two(year % 100)
        out.append(32)
        two(parts.tm_hour)
        out.append(58)  // ":"
        two(parts.tm_min)
        out.append(58)
        two(parts.tm_sec)
        out.append(contentsOf: Array(" GMT".utf8))
        return out
    }
}
