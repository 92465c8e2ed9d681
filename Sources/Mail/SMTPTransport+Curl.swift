internal import CCurlLoader
import FoundationEssentials

/// The libcurl calls behind `SMTPTransport`: one easy handle per delivery, the message read
/// from memory by a callback, errors mapped to `DeliveryError`.
extension SMTPTransport {
    func perform(_ message: [UInt8], from: String, to recipients: [String]) throws(DeliveryError) {
        do {
            try LibCurl.load()
        } catch {
            throw DeliveryError(.other, error.description)
        }
        guard let handle = gh_curl_easy_init() else {
            throw DeliveryError(.other, "libcurl could not be initialised")
        }
        defer { gh_curl_easy_cleanup(handle) }
        var recipientList: UnsafeMutablePointer<curl_slist>?
        for recipient in recipients { recipientList = gh_curl_slist_append(recipientList, "<\(recipient)>") }
        defer { gh_curl_slist_free_all(recipientList) }

        let source = Unmanaged.passRetained(UploadSource(message, cancellation: cancellation))
        defer { source.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            var status = CURLE_OK
            func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
            set(gh_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
            set(gh_curl_set_string(handle, CURLOPT_URL, configuration.url.description))
            set(gh_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"))
            set(gh_curl_set_string(handle, CURLOPT_MAIL_FROM, "<\(from)>"))
            set(gh_curl_set_list(handle, CURLOPT_MAIL_RCPT, recipientList))
            set(gh_curl_set_long(handle, CURLOPT_UPLOAD, 1))
            set(gh_curl_set_long(handle, CURLOPT_INFILESIZE_LARGE, message.count))
            set(gh_curl_set_read_function(handle, uploadCallback))
            set(gh_curl_set_pointer(handle, CURLOPT_READDATA, source.toOpaque()))
            set(gh_curl_set_long(handle, CURLOPT_NOPROGRESS, 0))
            set(gh_curl_set_progress_function(handle, progressCallback))
            set(gh_curl_set_pointer(handle, CURLOPT_XFERINFODATA, source.toOpaque()))
            // Threads of our own call this: no SIGALRM-based resolver timeouts.
            set(gh_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
            set(gh_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout)))
            set(gh_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(configuration.timeout)))
            set(gh_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
            set(gh_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
            switch tlsPolicy {
            case .implicit: break
            case .required: set(gh_curl_set_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)))
            case .whenOffered: set(gh_curl_set_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_TRY.rawValue)))
            }
            if let caFile = configuration.caFile { set(gh_curl_set_string(handle, CURLOPT_CAINFO, caFile)) }
            if let username = configuration.username { set(gh_curl_set_string(handle, CURLOPT_USERNAME, username)) }
            if let password = configuration.password { set(gh_curl_set_string(handle, CURLOPT_PASSWORD, password)) }
            guard status == CURLE_OK else { return status }
            return gh_curl_easy_perform(handle)
        }
        guard code != CURLE_OK else { return }
        let reply = gh_curl_response_code(handle)
        let written = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let text = written.isEmpty ? String(cString: gh_curl_easy_strerror(code)) : written
        throw Self.error(code, text, replyCode: reply > 0 ? Int(reply) : nil)
    }

    /// Sorts libcurl's result into what an operator acts on (`idp-admin email test` prints it).
    static func error(_ code: CURLcode, _ text: String, replyCode: Int?) -> DeliveryError {
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST:
            return DeliveryError(.connection, text)
        case CURLE_OPERATION_TIMEDOUT:
            return DeliveryError(.timeout, text)
        case CURLE_USE_SSL_FAILED:
            return DeliveryError(.tls, "the server does not offer STARTTLS, and mail to a host that is not loopback is never sent in clear text (\(text))")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER:
            return DeliveryError(.tls, text)
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR:
            return DeliveryError(.authentication, text, replyCode: replyCode)
        case CURLE_ABORTED_BY_CALLBACK:
            return DeliveryError(.cancelled, "stopped while delivering")
        default:
            // libcurl reports a refused MAIL FROM or RCPT TO as a send error with the reply code.
            if text.hasPrefix("RCPT failed") || text.hasPrefix("MAIL failed") {
                return DeliveryError(.rejected, text, replyCode: replyCode)
            }
            return DeliveryError(.other, text, replyCode: replyCode)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// The message bytes libcurl pulls through `uploadCallback`, and the cancellation it polls.
private final class UploadSource {
    let bytes: [UInt8]
    var offset = 0
    let cancellation: DeliveryCancellation?

    init(_ bytes: [UInt8], cancellation: DeliveryCancellation?) {
        self.bytes = bytes
        self.cancellation = cancellation
    }
}

private func uploadCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let context else { return 0 }
    let source = Unmanaged<UploadSource>.fromOpaque(context).takeUnretainedValue()
    let length = min(size * count, source.bytes.count - source.offset)
    guard length > 0 else { return 0 }
    source.bytes.withUnsafeBufferPointer { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + source.offset, byteCount: length)
    }
    source.offset += length
    return length
}

private func progressCallback(_ context: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<UploadSource>.fromOpaque(context).takeUnretainedValue().cancellation?.isCancelled == true ? 1 : 0
}
