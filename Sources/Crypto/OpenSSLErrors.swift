import COpenSSL

/// Helpers that turn OpenSSL's thread-local error queue into `CryptoError`s.
enum OpenSSLErrors {
    /// Empties this thread's OpenSSL error queue and returns its entries, joined.
    ///
    /// Draining matters even when the text is unused: stale entries would
    /// otherwise be blamed on the next unrelated failure on this thread.
    static func drain() -> String {
        var lines: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return lines.joined(separator: "; ")
    }

    /// A `CryptoError` of `kind` whose detail is `context` plus the drained queue.
    static func error(_ kind: CryptoError.Kind, _ context: String) -> CryptoError {
        let queue = drain()
        return CryptoError(kind, detail: queue.isEmpty ? context : "\(context): \(queue)")
    }

    /// Throws `kind` unless an OpenSSL status code signals success (1).
    static func check(_ status: Int32, _ kind: CryptoError.Kind, _ context: String) throws {
        if status != 1 { throw error(kind, context) }
    }
}
