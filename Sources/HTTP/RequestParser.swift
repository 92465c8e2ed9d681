/// Incremental HTTP/1.x request parser: a pure state machine fed bytes, with no I/O.
///
/// Feed bytes with `append`, then call `next()` until it returns `.needMore`. Requests come out
/// strictly in order; after a `.failed` the parser stays failed, since framing can no longer be trusted.
public struct RequestParser: Sendable {
    public enum Event: Sendable {
        case request(RequestHead, body: [UInt8])
        case needMore
        case failed(HTTPParseError)
    }

    /// Coarse progress, used by the server to pick a timeout.
    public enum Phase: Sendable, Equatable {
        case idle  // Nothing of the next request received yet.
        case head  // Part of a request line or header received.
        case body  // Header complete, body still arriving.
    }

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(HTTPParseError)
    }

    public let limits: ParserLimits
    private var state: State = .head
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// Bytes of the current line-oriented section (head, chunk line, trailers) already scanned, relative to `readIndex`.
    private var scanned = 0
    private var lineStart = 0
    private var lines: [Range<Int>] = []
    private var head: RequestHead?
    private var body: [UInt8] = []

    public init(limits: ParserLimits = ParserLimits()) {
        self.limits = limits
        lines.reserveCapacity(16)
    }

    /// The head of the request whose body is still arriving (used for `Expect: 100-continue`).
    public var pendingHead: RequestHead? {
        if case .head = state { return nil }
        if case .failed = state { return nil }
        return head
    }

    public var phase: Phase {
        switch state {
        case .head: readIndex == buffer.count ? .idle : .head
        case .failed: .idle
        default: .body
        }
    }

    /// Bytes received but not yet consumed.
    public var bufferedCount: Int { buffer.count - readIndex }

    /// Heap bytes held for the request in progress: the input buffer and the body so far.
    var retainedBytes: Int { buffer.capacity + body.capacity }

    /// Input capacity kept between requests; more (left by a body) is freed so idle connections stay small.
    private static let keptCapacity = 16 * 1024

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfWorthwhile()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Drops consumed bytes; offsets are kept relative to `readIndex`, so this is always safe.
    private mutating func compactIfWorthwhile() {
        guard readIndex > 0 else { return }
        if readIndex == buffer.count {
            if buffer.capacity > Self.keptCapacity {
                buffer = []
            } else {
                buffer.removeAll(keepingCapacity: true)
            }
        } else if readIndex >= 4096 || readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
        } else {
            return
        }
        readIndex = 0
    }

    public mutating func next() -> Event {
        while true {
            switch state {
            case .failed(let error):
                return .failed(error)
            case .head:
                switch scanLines(limit: limits.maxHeaderBytes, isHead: true) {
                case .needMore: return .needMore
                case .failed(let error): return fail(error)
                case .complete(let length):
                    let result = buffer.withUnsafeBufferPointer { raw in
                        HeadParser.parse(UnsafeBufferPointer(rebasing: raw[readIndex...]), lines: lines, limits: limits)
                    }
                    consume(length)
                    switch result {
                    case .failure(let error): return fail(error)
                    case .success(let parsed):
                        switch parsed.framing {
                        case .none, .length(0):
                            return .request(parsed, body: [])
                        case .length(let count):
                            if count > limits.maxBodyBytes { return fail(HTTPParseError(413, "content-length over limit")) }
                            head = parsed
                            body = []
                            // Reserve only a little up front: a declared length is a claim, not bytes received.
                            body.reserveCapacity(min(count, 65_536))
                            state = .fixedBody(remaining: count)
                        case .chunked:
                            head = parsed
                            body = []
                            state = .chunkSize
                        }
                    }
                }
            case .fixedBody(let remaining):
                let take = min(remaining, buffer.count - readIndex)
                if take == 0 { return .needMore }
                body.append(contentsOf: buffer[readIndex..<readIndex + take])
                readIndex += take
                if take < remaining {
                    state = .fixedBody(remaining: remaining - take)
                    return .needMore
                }
                return finishBody()
            case .chunkSize:
                switch scanLines(limit: limits.maxChunkLineBytes, isHead: false) {
                case .needMore: return .needMore
                case .failed(let error): return fail(error)
                case .complete(let length):
                    let size = buffer.withUnsafeBufferPointer { raw in
                        Self.chunkSize(UnsafeBufferPointer(rebasing: raw[readIndex..<readIndex + length - 2]))
                    }
                    consume(length)
                    guard let size else { return fail(HTTPParseError(400, "invalid chunk size")) }
                    let (total, overflow) = body.count.addingReportingOverflow(size)
                    if overflow || total > limits.maxBodyBytes { return fail(HTTPParseError(413, "chunked body over limit")) }
                    state = size == 0 ? .trailers : .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count - readIndex)
                if take == 0 { return .needMore }
                body.append(contentsOf: buffer[readIndex..<readIndex + take])
                readIndex += take
                state = take < remaining ? .chunkData(remaining: remaining - take) : .chunkDataEnd
                if take < remaining { return .needMore }
            case .chunkDataEnd:
                if buffer.count - readIndex < 2 {
                    if buffer.count > readIndex && buffer[readIndex] != ASCII.cr { return fail(HTTPParseError(400, "missing CRLF after chunk")) }
                    return .needMore
                }
                guard buffer[readIndex] == ASCII.cr, buffer[readIndex + 1] == ASCII.lf else {
                    return fail(HTTPParseError(400, "missing CRLF after chunk"))
                }
                readIndex += 2
                state = .chunkSize
            case .trailers:
                switch scanLines(limit: limits.maxHeaderBytes, isHead: false, multiLine: true) {
                case .needMore: return .needMore
                case .failed(let error): return fail(error)
                case .complete(let length):
                    // Trailer fields must be well-formed fields (RFC 9112 section 7.1.2); then they are ignored.
                    let invalid = buffer.withUnsafeBufferPointer { raw -> HTTPParseError? in
                        let section = UnsafeBufferPointer(rebasing: raw[readIndex...])
                        for line in lines {
                            do throws(HTTPParseError) {
                                _ = try HeadParser.field(UnsafeBufferPointer(rebasing: section[line]))
                            } catch { return error }
                        }
                        return nil
                    }
                    consume(length)
                    if let invalid { return fail(invalid) }
                    return finishBody()
                }
            }
        }
    }

    private mutating func finishBody() -> Event {
        let finished = head!
        let payload = body
        head = nil
        body = []
        state = .head
        compactIfWorthwhile()
        return .request(finished, body: payload)
    }

    private mutating func fail(_ error: HTTPParseError) -> Event {
        state = .failed(error)
        head = nil
        body = []
        // Nothing more is parsed: free the input now rather than when the connection closes.
        buffer = []
        readIndex = 0
        consume(0)
        return .failed(error)
    }

    /// Ends parsing from outside (a timeout, the body budget): the parser fails with `error` and frees its buffers.
    mutating func stop(_ error: HTTPParseError) {
        _ = fail(error)
    }

    private mutating func consume(_ length: Int) {
        readIndex += length
        scanned = 0
        lineStart = 0
        lines.removeAll(keepingCapacity: true)
    }

    private enum ScanResult {
        case needMore
        case complete(length: Int)
        case failed(HTTPParseError)
    }

    /// Scans CRLF-terminated lines from `readIndex`, resuming where the last call stopped.
    ///
    /// For the head (`isHead`) and trailers (`multiLine`) it stops at the empty line; otherwise after one line.
    /// Bare CR and bare LF are refused. Leading empty lines before a request line are skipped.
    private mutating func scanLines(limit: Int, isHead: Bool, multiLine: Bool = false) -> ScanResult {
        var cursor = ScanCursor(scanned: scanned, lineStart: lineStart, lines: lines)
        lines = []  // Moved into the cursor so the array is not copied.
        let base = readIndex
        let limits = self.limits
        let result = buffer.withUnsafeBufferPointer { raw in
            Self.scan(UnsafeBufferPointer(rebasing: raw[base...]), cursor: &cursor, limit: limit, limits: limits,
                      isHead: isHead, multiLine: multiLine)
        }
        scanned = cursor.scanned
        lineStart = cursor.lineStart
        lines = cursor.lines
        return result
    }

    private struct ScanCursor {
        var scanned: Int
        var lineStart: Int
        var lines: [Range<Int>]
    }

    private static func scan(_ raw: UnsafeBufferPointer<UInt8>, cursor: inout ScanCursor, limit: Int, limits: ParserLimits,
                             isHead: Bool, multiLine: Bool) -> ScanResult {
        var index = cursor.scanned
        while index < raw.count {
            let byte = raw[index]
            if byte == ASCII.lf {
                guard index > cursor.lineStart, raw[index - 1] == ASCII.cr else {
                    return .failed(HTTPParseError(400, "bare LF"))
                }
                let line = cursor.lineStart..<(index - 1)
                cursor.lineStart = index + 1
                if !isHead && !multiLine {
                    cursor.scanned = index + 1
                    return .complete(length: index + 1)
                }
                if line.isEmpty {
                    if isHead && cursor.lines.isEmpty {
                        index += 1
                        continue  // Tolerate stray CRLF before a request line (RFC 9112 section 2.2).
                    }
                    cursor.scanned = index + 1
                    return .complete(length: index + 1)
                }
                cursor.lines.append(line)
                if isHead && cursor.lines.count > limits.maxHeaderCount + 1 {
                    return .failed(HTTPParseError(431, "too many header fields"))
                }
            } else if index > cursor.lineStart, raw[index - 1] == ASCII.cr {
                return .failed(HTTPParseError(400, "bare CR"))
            }
            index += 1
            if isHead && cursor.lines.isEmpty && index - cursor.lineStart > limits.maxRequestLineBytes {
                return .failed(HTTPParseError(414, "request line too long"))
            }
            if index > limit {
                if isHead { return .failed(HTTPParseError(431, "header section too large")) }
                return .failed(HTTPParseError(400, multiLine ? "trailer section too large" : "chunk line too long"))
            }
        }
        cursor.scanned = index
        return .needMore
    }

    /// Parses `1a` or `1a;name=value`; nil for non-hex, empty, overflowing sizes or control bytes in extensions.
    static func chunkSize(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        var size = 0
        var digits = 0
        var index = 0
        while index < line.count, let digit = ASCII.hexValue(line[index]) {
            let (shifted, overflow1) = size.multipliedReportingOverflow(by: 16)
            let (sum, overflow2) = shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            size = sum
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        if index == line.count { return size }
        guard line[index] == UInt8(ascii: ";") else { return nil }
        for byte in line[(index + 1)...] where !ASCII.isFieldValue(byte) { return nil }
        return size
    }
}
