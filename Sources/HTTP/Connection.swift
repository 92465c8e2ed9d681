/// One client connection's state. Owned and touched only by its event loop's thread.
final class Connection {
    let fd: Int32
    let id: UInt64
    let peer: PeerAddress
    var parser: RequestParser

    /// Serialized responses not yet sent; `outputOffset` bytes of it are already written.
    var output: [UInt8] = []
    var outputOffset = 0
    /// A request is with a worker; nothing else is parsed until its answer is queued (keeps pipelined answers in order).
    var inFlight = false
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
}
