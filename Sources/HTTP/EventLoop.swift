#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Logging
import Synchronization

/// One epoll thread: accepts, reads, parses, runs inline handlers, writes, and enforces timeouts.
///
/// Safety of `@unchecked Sendable`: all stored state except `inbox` is touched only by the loop's own
/// thread (inside `run()`); other threads interact only through `resume(_:)`, `wake()` and, for the
/// connection a worker owns, `finishOnWorker` under that connection's lock.
final class EventLoop: @unchecked Sendable {
    struct Listener {
        var fd: Int32
        var isUnix: Bool
        var registered = true
    }

    private struct Inbox {
        /// Connections a worker handed back because they need more than "answer written, wait for the next request".
        var resumed: [Connection] = []
        var closed = false
        /// The eventfd was signalled and the loop has not drained the inbox since: later posts
        /// need no wake-up of their own (one syscall per batch, not per completion).
        var wakePending = false
    }

    static let readable = UInt32(EPOLLIN.rawValue)
    static let writable = UInt32(EPOLLOUT.rawValue)
    static let hangup = UInt32(EPOLLHUP.rawValue) | UInt32(EPOLLERR.rawValue)
    static let timerInterval: UInt64 = 100_000_000
    /// Seconds a client refused for the body budget is asked to wait.
    static let bodyBudgetRetryAfter = 5

    let context: ServerContext
    let index: Int
    let epoll: Int32
    let wakeFD: Int32
    private let inbox = Mutex(Inbox())

    var listeners: [Listener]
    var connections: [Int32: Connection] = [:]
    var nextConnectionID: UInt64 = 0
    var now: UInt64 = Sys.monotonicNanoseconds()
    var dateCache = HTTPDateCache()
    var requestIDs = RequestIDGenerator()
    var acceptPausedUntil: UInt64 = 0
    var nextTimerScan: UInt64 = 0
    var draining = false
    var drainDeadline: UInt64 = 0
    /// Request body bytes this loop's connections hold, as last settled (see `ConnectionStateMachine.heldBodyBytes`).
    /// Loop thread only: workers do not report the bodies they are done with, so it may count those until the
    /// next settle; `makeRoom` settles every connection before it refuses anything.
    var bodyBytes = 0
    let bodyBudget: Int
    /// A body grew since the last shedding check (only then can shedding help).
    var bodiesGrew = false
    /// Called once this loop has stopped watching the listeners during shutdown.
    let onListenersReleased: @Sendable () -> Void
    private let readBuffer: UnsafeMutableRawBufferPointer

    init(context: ServerContext, index: Int, listeners: [Listener], onListenersReleased: @escaping @Sendable () -> Void) throws {
        self.context = context
        self.index = index
        self.listeners = listeners
        self.onListenersReleased = onListenersReleased
        bodyBudget = context.bodyBudgetPerLoop
        epoll = try Sys.epollCreate()
        do {
            wakeFD = try Sys.eventFD()
        } catch {
            Sys.close(epoll)
            throw error
        }
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        try Sys.epollControl(epoll, EPOLL_CTL_ADD, wakeFD, events: Self.readable)
        for listener in listeners {
            // EPOLLEXCLUSIVE: only one loop wakes per pending connection (no thundering herd).
            try Sys.epollControl(epoll, EPOLL_CTL_ADD, listener.fd, events: Self.readable | UInt32(EPOLLEXCLUSIVE.rawValue))
        }
    }

    deinit {
        readBuffer.deallocate()
        // Closed here, not when the loop stops: a worker still holding the loop may signal it until then.
        Sys.close(wakeFD)
    }

    // MARK: Cross-thread entry points

    /// Hands a connection back to this loop after its worker finished; dropped if the loop has already stopped.
    func resume(_ connection: Connection) {
        let signal = inbox.withLock { box -> Bool in
            guard !box.closed else { return false }
            box.resumed.append(connection)
            guard !box.wakePending else { return false }
            box.wakePending = true
            return true
        }
        // Outside the lock: a syscall under it makes every other worker spin.
        if signal { Sys.signalEventFD(wakeFD) }
    }

    func wake() {
        let open = inbox.withLock { !$0.closed }
        if open { Sys.signalEventFD(wakeFD) }
    }

    // MARK: The loop

    func run() {
        let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 256)
        defer { events.deallocate() }
        while true {
            let count: Int
            do {
                count = try Sys.epollWait(epoll, events, timeoutMilliseconds: 100)
            } catch {
                context.logger.error("http_loop_failed", ["error": .string("\(error)")])
                break
            }
            now = Sys.monotonicNanoseconds()
            for slot in 0..<count {
                let event = events[slot]
                let fd = event.data.fd
                if fd == wakeFD {
                    Sys.drainEventFD(wakeFD)
                    handleInbox()
                } else if let connection = connections[fd] {
                    connection.lock.withLock { handle(connection, events: event.events) }
                    shedBodiesIfOverBudget()
                } else if let listener = listeners.first(where: { $0.fd == fd }) {
                    acceptConnections(listener)
                }
            }
            if context.stopping.load(ordering: .acquiring) && !draining { beginDrain() }
            if now >= nextTimerScan {
                nextTimerScan = now &+ Self.timerInterval
                scanTimers()
            }
            if draining && (connections.isEmpty || now >= drainDeadline) { break }
        }
        finish()
    }

    private func handleInbox() {
        let resumed = inbox.withLock { box -> [Connection] in
            let taken = box.resumed
            box.resumed = []
            box.wakePending = false
            return taken
        }
        for connection in resumed where connections[connection.fd] === connection {
            connection.lock.withLock {
                if connection.machine.state == .failed {
                    close(connection)
                    return
                }
                process(connection)
                flushAndUpdate(connection)
            }
        }
        shedBodiesIfOverBudget()
    }

    // MARK: Accepting

    private func acceptConnections(_ listener: Listener) {
        for _ in 0..<64 {
            let accepted: (fd: Int32, peer: PeerAddress)?
            do {
                accepted = try Sys.accept(listener.fd, isUnix: listener.isUnix)
            } catch {
                if error.errno == EMFILE || error.errno == ENFILE || error.errno == ENOBUFS || error.errno == ENOMEM {
                    // Out of descriptors: stop watching listeners briefly instead of spinning on a level-triggered event.
                    pauseAccepting()
                    context.logger.warning("http_accept_paused", ["error": .string(error.description)])
                } else {
                    context.logger.error("http_accept_failed", ["error": .string(error.description)])
                }
                return
            }
            guard let (fd, peer) = accepted else { return }
            if let refusal = context.admission.admit(peer) {
                // Logged before the close, so whoever sees the close can see why.
                context.logger.warning("http_connection_refused", ["reason": .string(refusal.rawValue), "peer": .string(peer.description)])
                Sys.close(fd)
                continue
            }
            nextConnectionID &+= 1
            let machine = ConnectionStateMachine(limits: context.limits, timeouts: context.timeouts, now: now)
            let connection = Connection(fd: fd, id: nextConnectionID, peer: peer, machine: machine)
            do {
                try Sys.epollControl(epoll, EPOLL_CTL_ADD, fd, events: Self.epollEvents(connection.interest))
            } catch {
                context.logger.error("http_register_failed", ["error": .string(error.description)])
                Sys.close(fd)
                context.admission.release(peer)
                continue
            }
            connections[fd] = connection
        }
    }

    private func pauseAccepting() {
        acceptPausedUntil = now &+ 100_000_000
        for index in listeners.indices where listeners[index].registered {
            try? Sys.epollControl(epoll, EPOLL_CTL_DEL, listeners[index].fd, events: 0)
            listeners[index].registered = false
        }
    }

    func resumeAcceptingIfDue() {
        guard !draining, acceptPausedUntil != 0, now >= acceptPausedUntil else { return }
        acceptPausedUntil = 0
        for index in listeners.indices where !listeners[index].registered {
            try? Sys.epollControl(epoll, EPOLL_CTL_ADD, listeners[index].fd, events: Self.readable | UInt32(EPOLLEXCLUSIVE.rawValue))
            listeners[index].registered = true
        }
    }

    // MARK: Connection I/O

    private func handle(_ connection: Connection, events: UInt32) {
        guard connection.machine.isActive else {
            close(connection)  // Failed, or left to its worker: nothing more is read or written here.
            return
        }
        if events & Self.hangup != 0 && events & Self.readable == 0 {
            close(connection)  // Reset, or both directions shut: nobody can read an answer.
            return
        }
        if events & Self.writable != 0 {
            flush(connection)
        }
        if events & (Self.readable | Self.hangup) != 0 && connection.machine.isActive {
            readAvailable(connection)
            process(connection)
        }
        flushAndUpdate(connection)
    }

    private func readAvailable(_ connection: Connection) {
        // Bounded per wake-up so one fast client cannot starve the others on this loop.
        for _ in 0..<4 {
            let count: Int?
            do {
                count = try Sys.read(connection.fd, into: readBuffer)
            } catch {
                close(connection)
                return
            }
            guard let count else { return }
            if count == 0 {
                if connection.machine.peerFinished() == .close { closeDescriptor(connection) }
                return
            }
            connection.machine.received(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            if count < readBuffer.count { return }
        }
    }

    /// Writes what it can, brings the epoll registration and the body budget up to date; ends every event.
    func flushAndUpdate(_ connection: Connection) {
        if connection.machine.isActive { flush(connection) }
        if connection.machine.isActive { updateInterest(connection) }
        if account(connection) > 0 { bodiesGrew = true }
    }

    private func flush(_ connection: Connection) {
        guard connection.writePending(now: now) else {
            close(connection)
            return
        }
        switch connection.machine.outputFlushed(now: now) {
        case .close:
            closeDescriptor(connection)
        case .shutWriteAndLinger:
            // Half-close and drain briefly so unread request bytes do not turn our last answer into a RST.
            Sys.shutdownWrite(connection.fd)
        default:
            break
        }
    }

    private func updateInterest(_ connection: Connection) {
        let wanted = connection.machine.interest
        guard wanted != connection.interest else { return }
        do {
            try Sys.epollControl(epoll, EPOLL_CTL_MOD, connection.fd, events: Self.epollEvents(wanted))
            connection.interest = wanted
        } catch {
            close(connection)
        }
    }

    static func epollEvents(_ interest: ConnectionStateMachine.Interest) -> UInt32 {
        (interest.contains(.read) ? readable : 0) | (interest.contains(.write) ? writable : 0)
    }

    /// Closes the connection, or, if a worker owns its request, stops watching it until the worker hands it back.
    func close(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        switch connection.machine.abort() {
        case .close:
            closeDescriptor(connection)
        case .stopWatching:
            // Removed, not just muted: epoll reports a hang-up even with no events asked for.
            try? Sys.epollControl(epoll, EPOLL_CTL_DEL, connection.fd, events: 0)
            connection.interest = []
        default:
            break
        }
    }

    private func closeDescriptor(_ connection: Connection) {
        connections[connection.fd] = nil
        Sys.close(connection.fd)  // Also removes it from the epoll set.
        context.admission.release(connection.peer)
        account(connection)
    }

    // MARK: Shutdown

    private func beginDrain() {
        draining = true
        drainDeadline = now &+ context.drainTimeout
        for index in listeners.indices where listeners[index].registered {
            try? Sys.epollControl(epoll, EPOLL_CTL_DEL, listeners[index].fd, events: 0)
            listeners[index].registered = false
        }
        onListenersReleased()
        for connection in Array(connections.values) {
            connection.lock.withLock {
                if connection.machine.isIdle { close(connection) }
            }
        }
    }

    private func finish() {
        for connection in Array(connections.values) {
            connection.lock.withLock {
                switch connection.machine.loopStopped() {
                case .abandon:
                    // A worker still owns it: end the exchange now, and leave the descriptor for the worker to close
                    // so its number cannot be reused under the worker's write.
                    Sys.shutdownBoth(connection.fd)
                    connections[connection.fd] = nil
                default:
                    closeDescriptor(connection)
                }
            }
        }
        if !draining { onListenersReleased() }
        inbox.withLock { box in
            box.closed = true
            box.resumed = []
        }
        Sys.close(epoll)
    }
}
