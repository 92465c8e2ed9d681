internal import CCurlLoader
import FoundationEssentials
import OIDC

/// The libcurl calls behind `CurlUpstreamFetcher`: one easy handle per request, the answer and its
/// headers collected in memory by callbacks (refused past the size bound), errors as `.unreachable`.
extension CurlUpstreamFetcher {
    func perform(_ url: String, form: [UInt8]?, headers: [String]) throws(UpstreamError) -> UpstreamResponse {
        try Self.loadLibrary()
        guard let handle = gh_curl_easy_init() else { throw .unreachable("libcurl could not be initialised") }
        defer { gh_curl_easy_cleanup(handle) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        for header in headers { headerList = gh_curl_slist_append(headerList, header) }
        // The list may hold `Authorization`: libcurl keeps its own copies only while the handle lives.
        defer { gh_curl_slist_free_all(headerList) }

        let sink = Unmanaged.passRetained(ResponseSink(limit: configuration.maximumBodySize))
        defer { sink.release() }
        let scheme = url.lowercased().hasPrefix("https:") ? "https" : "http"
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            var status = CURLE_OK
            func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
            set(gh_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
            set(gh_curl_set_string(handle, CURLOPT_URL, url))
            // Only the scheme `UpstreamURLRule` accepted, and no redirects: a 3xx is an answer.
            set(gh_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, scheme))
            set(gh_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0))
            set(gh_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList))
            set(gh_curl_set_string(handle, CURLOPT_USERAGENT, "Gatehouse"))
            set(gh_curl_set_write_function(handle, CURLOPT_WRITEFUNCTION, bodyCallback))
            set(gh_curl_set_pointer(handle, CURLOPT_WRITEDATA, sink.toOpaque()))
            set(gh_curl_set_write_function(handle, CURLOPT_HEADERFUNCTION, headerCallback))
            set(gh_curl_set_pointer(handle, CURLOPT_HEADERDATA, sink.toOpaque()))
            // Threads of our own call this: no SIGALRM-based resolver timeouts.
            set(gh_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
            set(gh_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout)))
            set(gh_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(configuration.timeout)))
            set(gh_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
            set(gh_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
            if let caFile = configuration.caFile { set(gh_curl_set_string(handle, CURLOPT_CAINFO, caFile)) }
            if let form {
                set(gh_curl_set_long(handle, CURLOPT_POST, 1))
                set(gh_curl_set_long(handle, CURLOPT_POSTFIELDSIZE_LARGE, form.count))
                // COPYPOSTFIELDS copies the bytes, so the array need not outlive this closure.
                set(form.withUnsafeBufferPointer { gh_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress)) })
            }
            guard status == CURLE_OK else { return status }
            return gh_curl_easy_perform(handle)
        }
        let response = sink.takeUnretainedValue()
        guard code == CURLE_OK else {
            if response.overflowed { throw .unreachable("\(url): the answer is larger than \(configuration.maximumBodySize) bytes") }
            let written = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .unreachable("\(url): " + (written.isEmpty ? String(cString: gh_curl_easy_strerror(code)) : written))
        }
        return UpstreamResponse(status: Int(gh_curl_response_code(handle)), body: response.body,
                                maxAge: response.cacheControl.flatMap(Self.maxAge(cacheControl:)))
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// What the callbacks collect for one request.
private final class ResponseSink {
    let limit: Int
    var body: [UInt8] = []
    var overflowed = false
    /// The last response's `Cache-Control` (headers of an interim 1xx are replaced by the final ones).
    var cacheControl: String?

    init(limit: Int) { self.limit = limit }
}

private func bodyCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    // Returning less than `length` makes libcurl stop with CURLE_WRITE_ERROR.
    guard sink.body.count + length <= sink.limit else { sink.overflowed = true; return 0 }
    sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    return length
}

private func headerCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    var bytes = UnsafeRawBufferPointer(start: data, count: size * count)[...]
    while let last = bytes.last, last == 0x0D || last == 0x0A { bytes = bytes.dropLast() }
    let line = String(decoding: bytes, as: UTF8.self)
    if line.hasPrefix("HTTP/") { sink.cacheControl = nil }
    if let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "cache-control" {
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        sink.cacheControl = sink.cacheControl.map { $0 + ", " + value } ?? value
    }
    return size * count
}
