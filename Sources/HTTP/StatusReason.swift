/// Reason phrases for the status line; unknown codes get a generic phrase (clients ignore it anyway).
enum StatusReason {
    static func phrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: status < 400 ? "Status" : "Error"
        }
    }

    /// A short JSON error code for server-generated error bodies.
    static func errorCode(_ status: Int) -> String {
        switch status {
        case 400: "bad_request"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "request_timeout"
        case 413: "content_too_large"
        case 414: "uri_too_long"
        case 417: "expectation_failed"
        case 431: "header_fields_too_large"
        case 500: "internal_error"
        case 501: "not_implemented"
        case 503: "unavailable"
        case 505: "http_version_not_supported"
        default: "error"
        }
    }
}
