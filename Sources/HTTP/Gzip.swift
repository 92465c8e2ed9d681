import CZlib

/// One-shot gzip compression of response bodies, and the Accept-Encoding check that allows it.
enum Gzip {
    /// Compresses `bytes` into a gzip member; nil if zlib fails (the caller then sends the body uncompressed).
    static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        guard gh_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let capacity = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: capacity)
        let status: Int32 = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                // zlib never writes through next_in; the mutable cast is only for its C signature.
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// Whether an Accept-Encoding value allows gzip: `gzip`/`x-gzip` with q > 0, or `*` with q > 0 when gzip is not named.
    static func accepted(_ header: String?) -> Bool {
        guard let header else { return false }
        var gzipQuality: Double?
        var wildcardQuality: Double?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let first = parts.first else { continue }
            let coding = first.trimmingSpaces.lowercased()
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let text = parameter.trimmingSpaces.lowercased()
                if text.hasPrefix("q=") { quality = Double(text.dropFirst(2)) ?? 0 }
            }
            if coding == "gzip" || coding == "x-gzip" {
                gzipQuality = max(gzipQuality ?? 0, quality)
            } else if coding == "*" {
                wildcardQuality = quality
            }
        }
        if let gzipQuality { return gzipQuality > 0 }
        return (wildcardQuality ?? 0) > 0
    }
}
