/// The life of one connection: a state machine with no I/O and no clock of its own.
///
/// The event loop (and, for the request it runs, a worker) reports what happened and carries out the `Action`
/// returned; timeouts, epoll interest and the body bytes held are pure functions of the state. It owns the
/// request parser, since parsing progress decides half of the state (which timeout runs, whether a 100 Continue
/// is due), and it counts the queued output it does not own.
struct ConnectionStateMachine: Sendable {
    enum State: Equatable, Sendable {
        /// Waiting for the next request; nothing of it received.
        case idle
        /// Part of a request head received.
        case head
        /// The head is complete and the body arriving; `continueSent` once a 100 Continue (or the answer) is queued.
        case body(continueSent: Bool)
        /// A worker runs the request; nothing more is parsed until its answer is queued (keeps pipelined answers in order).
        case inFlight(Worker)
        /// The last answer is queued (close asked for, error, timeout, or the peer's FIN): write it, then shut.
        case closing
        /// Our write side is shut; input is read and dropped until `deadline` or the peer's FIN, so unread request
        /// bytes do not turn our last answer into a RST.
        case lingering(deadline: UInt64)
        /// The socket failed on the worker's write; the loop closes it when it gets the connection back.
        case failed
        case closed
    }

    /// What happened to the connection while a worker ran its request.
    enum Worker: Equatable, Sendable {
        case running
        /// The socket failed (reset, broken pipe): the loop closes it when the worker hands it back.
        case socketFailed
        /// The loop stopped for good: the worker closes the descriptor.
        case loopStopped
    }

    /// What the caller must do after an event.
    enum Action: Equatable, Sendable {
        case none
        /// Close the descriptor now.
        case close
        /// Shut the write side; keep reading (and dropping) until the linger deadline.
        case shutWriteAndLinger
        /// A worker owns the request: stop watching the descriptor, close it when the worker hands it back.
        case stopWatching
        /// The loop is stopping while a worker owns the request: shut both directions and leave the descriptor to it.
        case abandon
        /// On the worker: queue and write the answer.
        case respond
        /// On the worker: give the connection back to the loop.
        case handBack
    }

    /// What buffered input asks for next.
    enum Next {
        /// Nothing until more bytes arrive, output drains or a worker finishes.
        case wait
        /// A complete request: answer it inline (then `responseQueued`) or hand it to a worker (`dispatched`).
        case request(RequestHead, body: [UInt8])
        /// The head asks for `100-continue`: queue the interim answer (`outputQueued`) or the final one.
        case expectsContinue(RequestHead)
        /// Framing failed: queue the error answer (the state is `closing` already).
        case reject(HTTPParseError)
    }

    /// A timeout that has run out.
    enum Expiry: Equatable, Sendable {
        /// Lingering is over: close.
        case linger
        /// An unused or idle keep-alive connection: close without an answer.
        case idle
        /// No write progress while output is pending: close.
        case write
        /// The head or the body took too long: answer 408 and close.
        case head
        case body
    }

    /// The epoll events the connection needs.
    struct Interest: OptionSet, Sendable {
        let rawValue: UInt8
        static let read = Interest(rawValue: 1)
        static let write = Interest(rawValue: 2)
    }

    /// Timeouts in nanoseconds.
    struct Timeouts: Sendable, Equatable {
        /// From the accept, or the first byte of a request, until its head is complete.
        var head: UInt64
        /// Between keep-alive requests.
        var idle: UInt64
        /// From the end of the head until the body is complete.
        var body: UInt64
        /// Longest wait without write progress while output is pending.
        var write: UInt64
        /// How long a shut connection drains input before it is closed.
        var linger: UInt64 = 1_000_000_000
    }

    /// Stop parsing and reading new requests while this much output is queued (bounded memory for clients that never read).
    static let outputHighWater = 256 * 1024

    let timeouts: Timeouts
    private(set) var state: State = .idle
    private(set) var parser: RequestParser
    /// The peer sent FIN: answer what is complete, then close. Apart from `state`, since it can come in any state.
    private(set) var peerClosed = false
    private(set) var servedRequests = 0
    /// When the current idle, head or body phase began (the start of its timeout).
    private(set) var phaseStart: UInt64
    private(set) var lastWriteProgress: UInt64
    /// Output queued and not yet written (the bytes themselves are the connection's).
    private(set) var unsent = 0
    /// The body of the request a worker runs: it still counts against the body budget until the answer is queued.
    private var inFlightBodyBytes = 0
    /// What the body budget was last told about this connection (see `settleBodyBytes`).
    private var accountedBodyBytes = 0

    init(limits: ParserLimits, timeouts: Timeouts, now: UInt64) {
        self.timeouts = timeouts
        parser = RequestParser(limits: limits)
        phaseStart = now
        lastWriteProgress = now
    }

    // MARK: Input

    /// Bytes arrived from the peer; dropped once the connection is finishing.
    mutating func received(_ bytes: UnsafeRawBufferPointer) {
        switch state {
        case .idle, .head, .body, .inFlight(.running): parser.append(bytes)
        case .inFlight, .closing, .lingering, .failed, .closed: break
        }
    }

    /// The peer sent FIN.
    mutating func peerFinished() -> Action {
        peerClosed = true
        if case .lingering = state {
            state = .closed
            return .close
        }
        return .none  // What is complete is still answered (see `nextRequest`).
    }

    /// What to do with buffered input; call until `.wait`.
    mutating func nextRequest(now: UInt64) -> Next {
        switch state {
        case .idle, .head, .body: break
        default: return .wait
        }
        guard unsent < Self.outputHighWater else { return .wait }
        switch parser.next() {
        case .request(let head, let body):
            return .request(head, body: body)
        case .failed(let error):
            state = .closing
            return .reject(error)
        case .needMore:
            enterPhase(parser.phase, now: now)
            if case .body(continueSent: false) = state, let head = parser.pendingHead, head.expectContinue {
                state = .body(continueSent: true)
                return .expectsContinue(head)
            }
            if peerClosed { state = .closing }  // Half-closed client: everything complete has been answered.
            return .wait
        }
    }

    private mutating func enterPhase(_ phase: RequestParser.Phase, now: UInt64) {
        switch (phase, state) {
        case (.idle, .idle), (.head, .head), (.body, .body): return
        case (.idle, _): state = .idle
        case (.head, _): state = .head
        case (.body, _): state = .body(continueSent: false)
        }
        phaseStart = now
    }

    /// The parsed request went to a worker with `bodyBytes` of body.
    mutating func dispatched(bodyBytes: Int) {
        state = .inFlight(.running)
        inFlightBodyBytes = bodyBytes
    }

    /// The answer to a request is queued; `close` when it is the last on this connection.
    mutating func responseQueued(close: Bool, unsent: Int, now: UInt64) {
        servedRequests += 1
        inFlightBodyBytes = 0
        self.unsent = unsent
        state = close ? .closing : .idle
        phaseStart = now  // The idle timer starts now, not when the request arrived.
    }

    /// Output other than an answer (100 Continue, an error) is queued.
    mutating func outputQueued(unsent: Int) {
        self.unsent = unsent
    }

    /// Ends the exchange early (timeout, body budget) before its error answer is queued; frees the parser's buffers.
    mutating func refuse(_ error: HTTPParseError) {
        switch state {
        case .idle, .head, .body, .closing:
            state = .closing
            parser.stop(error)
        default: break
        }
    }

    // MARK: Worker

    /// The worker finished the request's handler.
    mutating func workerFinished() -> Action {
        switch state {
        case .inFlight(.running):
            return .respond
        case .inFlight(.loopStopped):
            state = .closed
            return .close
        default:
            state = .failed
            return .handBack
        }
    }

    /// The worker's write of the answer failed.
    mutating func workerWriteFailed() {
        state = .failed
    }

    /// After the worker queued and wrote its answer: whether the loop must see the connection, i.e. more than
    /// "answer written, wait for the next request" is due (output left, a close, buffered input, other interest).
    func needsLoop(registered: Interest) -> Bool {
        state != .idle || unsent > 0 || peerClosed || parser.bufferedCount > 0 || registered != interest
    }

    // MARK: Output

    /// `sent` bytes were written; `unsent` remain.
    mutating func wrote(_ sent: Int, unsent: Int, now: UInt64) {
        if sent > 0 { lastWriteProgress = now }
        self.unsent = unsent
    }

    /// After a write on the loop: a closing connection with nothing left to write is shut.
    mutating func outputFlushed(now: UInt64) -> Action {
        guard state == .closing, unsent == 0 else { return .none }
        if peerClosed {
            state = .closed
            return .close
        }
        state = .lingering(deadline: now &+ timeouts.linger)
        return .shutWriteAndLinger
    }

    // MARK: Failure and shutdown

    /// The socket failed, or the loop gave up on the connection.
    mutating func abort() -> Action {
        switch state {
        case .inFlight(.running), .inFlight(.socketFailed):
            state = .inFlight(.socketFailed)
            return .stopWatching
        case .inFlight(.loopStopped), .closed:
            return .none
        default:
            state = .closed
            return .close
        }
    }

    /// The loop stops for good.
    mutating func loopStopped() -> Action {
        if case .inFlight = state {
            state = .inFlight(.loopStopped)
            return .abandon
        }
        state = .closed
        return .close
    }

    /// While draining: nothing running, nothing to write and no request half-received, so it can be closed now.
    var isIdle: Bool {
        switch state {
        case .idle: unsent == 0 && parser.phase == .idle
        case .lingering: true
        default: false
        }
    }

    /// Whether the loop still reads or writes the descriptor.
    var isActive: Bool {
        switch state {
        case .inFlight(.socketFailed), .inFlight(.loopStopped), .failed, .closed: false
        default: true
        }
    }

    // MARK: Pure functions of the state

    /// The epoll events wanted now.
    var interest: Interest {
        switch state {
        case .lingering:
            return peerClosed ? [] : .read
        case .closing:
            return unsent > 0 ? .write : []
        case .idle, .head, .body, .inFlight(.running):
            var wanted: Interest = unsent > 0 ? .write : []
            // Reading goes on while a worker runs (no epoll change per request); pipelined bytes wait in the
            // parser, bounded by one header's worth.
            let inFlight = state == .inFlight(.running)
            if !peerClosed && unsent < Self.outputHighWater
                && (!inFlight || parser.bufferedCount < parser.limits.maxHeaderBytes) {
                wanted.insert(.read)
            }
            return wanted
        case .inFlight, .failed, .closed:
            return []
        }
    }

    /// The timeout that has run out at `now`, if any.
    func expired(at now: UInt64) -> Expiry? {
        switch state {
        case .lingering(let deadline):
            return now >= deadline ? .linger : nil
        case .inFlight, .failed, .closed:
            return nil  // Handlers are not timed here; the worker pool is bounded instead.
        case .idle, .head, .body, .closing:
            break
        }
        if unsent > 0 { return Self.elapsed(since: lastWriteProgress, now: now) >= timeouts.write ? .write : nil }
        let elapsed = Self.elapsed(since: phaseStart, now: now)
        switch state {
        case .idle:
            // A fresh connection gets the header timeout to start talking; a used one the idle timeout.
            return elapsed >= (servedRequests == 0 ? timeouts.head : timeouts.idle) ? .idle : nil
        case .head:
            return elapsed >= timeouts.head ? .head : nil
        case .body:
            return elapsed >= timeouts.body ? .body : nil
        default:
            return nil  // Closing with nothing to write: the next flush shuts it.
        }
    }

    /// Saturating: a worker may stamp the connection with a clock reading taken after the loop's `now`.
    private static func elapsed(since instant: UInt64, now: UInt64) -> UInt64 {
        now > instant ? now - instant : 0
    }

    // MARK: Body budget

    /// Request body bytes this connection pins: a body still arriving (with the input buffered for it),
    /// or the body of the request a worker runs.
    var heldBodyBytes: Int {
        switch state {
        case .body: parser.retainedBytes
        case .inFlight: inFlightBodyBytes
        default: 0
        }
    }

    /// Bytes of a body still arriving, which the loop may refuse to shed load; 0 otherwise.
    var sheddableBodyBytes: Int {
        if case .body = state { return parser.retainedBytes }
        return 0
    }

    /// The change in `heldBodyBytes` since the last call, for the loop's running total.
    mutating func settleBodyBytes() -> Int {
        let held = heldBodyBytes
        defer { accountedBodyBytes = held }
        return held - accountedBodyBytes
    }
}
