
/// One client connection's state.
///
/// Safety of `@unchecked Sendable`: every field is read and written only under `lock`. The owning event
/// loop takes it for each event, timer scan and resumption; a worker takes it once, to queue and write
/// the answer to the request it ran (see `EventLoop.finishOnWorker`).
final class Connection: @unchecked Sendable {
    let fd: Int32
    let id: UInt64
    let peer: PeerAddress
    let lock = PThreadMutex()
    var parser: RequestParser

    /// Serialized responses not yet sent; `outputOffset` bytes of it are already written.
    var output: [UInt8] = []
    var outputOffset = 0
    /// A request is with a worker; nothing else is parsed until its answer is queued (keeps pipelined answers in order).
    var inFlight = false
    /// The socket failed (reset, broken pipe) while a worker owned the request; the loop closes it on resumption.
    var failed = false
    /// The loop stopped for good while a worker owned the request; the worker closes the descriptor.
    var abandoned = false
    /// The last response is queued: close once it is written, and parse nothing more.
    var closeAfterWrite = false
    /// The client sent FIN; answer what is complete, then close.
    var readClosed = false
    /// Our side is shut for writing and we discard input briefly so the client can read our last answer before a RST.
    var lingering = false
    var lingerDeadline: UInt64 = 0
    var sentContinue = false
    var servedRequests = 0

    /// Parser phase last seen, and when it began (start of the header or body timeout).
    var phase: RequestParser.Phase = .idle
    var phaseStart: UInt64
    var lastWriteProgress: UInt64
    /// Events currently registered with epoll.
    var interest: UInt32

    init(fd: Int32, id: UInt64, peer: PeerAddress, limits: ParserLimits, now: UInt64, interest: UInt32) {
        self.fd = fd
        self.id = id
        self.peer = peer
        self.parser = RequestParser(limits: limits)
        self.phaseStart = now
        self.lastWriteProgress = now
        self.interest = interest
    }

    var pendingOutput: Int { output.count - outputOffset }

    /// Writes queued output until done or the socket is full; false when the socket failed.
    func writePending(now: UInt64) -> Bool {
        while pendingOutput > 0 {
            let sent: Int
            do {
                sent = try output.withUnsafeBytes { raw in
                    try Sys.send(fd, UnsafeRawBufferPointer(rebasing: raw[outputOffset...]))
                }
            } catch {
                return false  // EPIPE / ECONNRESET: the client went away mid-response.
            }
            if sent == 0 { break }
            outputOffset += sent
            lastWriteProgress = now
        }
        if pendingOutput == 0 && !output.isEmpty {
            if output.capacity > 1 << 20 {
                output = []
            } else {
                output.removeAll(keepingCapacity: true)
            }
            outputOffset = 0
        }
        return true
    }
}
