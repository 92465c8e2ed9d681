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
    /// Stop reading new requests while this much output is queued (bounded memory for clients that never read).
    static let outputHighWater = 256 * 1024
    static let timerInterval: UInt64 = 100_000_000

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
    /// Called once this loop has stopped watching the listeners during shutdown.
    let onListenersReleased: @Sendable () -> Void
    private let readBuffer: UnsafeMutableRawBufferPointer

    init(context: ServerContext, index: Int, listeners: [Listener], onListenersReleased: @escaping @Sendable () -> Void) throws {
        self.context = context
        self.index = index
        self.listeners = listeners
        self.onListenersReleased = onListenersReleased
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
                if connection.failed && !connection.inFlight {
                    close(connection)
                    return
                }
                process(connection)
                flushAndUpdate(connection)
            }
        }
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
            let limit = context.configuration.maxConnections
            if context.connectionCount.wrappingAdd(1, ordering: .relaxed).newValue > limit {
                context.connectionCount.wrappingSubtract(1, ordering: .relaxed)
                Sys.close(fd)
                context.logger.warning("http_connection_refused", ["reason": "max_connections", "peer": .string(peer.description)])
                continue
            }
            nextConnectionID &+= 1
            let connection = Connection(fd: fd, id: nextConnectionID, peer: peer, limits: context.limits, now: now, interest: Self.readable)
            do {
                try Sys.epollControl(epoll, EPOLL_CTL_ADD, fd, events: Self.readable)
            } catch {
                context.logger.error("http_register_failed", ["error": .string(error.description)])
                Sys.close(fd)
                context.connectionCount.wrappingSubtract(1, ordering: .relaxed)
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
        if events & Self.hangup != 0 && events & Self.readable == 0 {
            close(connection)  // Reset, or both directions shut: nobody can read an answer.
            return
        }
        if events & Self.writable != 0 {
            flush(connection)
            if connections[connection.fd] !== connection { return }
        }
        if events & Self.readable != 0 || events & Self.hangup != 0 {
            readAvailable(connection)
            if connections[connection.fd] !== connection { return }
            if !connection.lingering { process(connection) }
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
                connection.readClosed = true
                if connection.lingering { close(connection) }
                return
            }
            if connection.lingering {
                continue  // Discarded: the connection is finished.
            }
            connection.parser.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
            if count < readBuffer.count { return }
        }
    }

    func flushAndUpdate(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        flush(connection)
        guard connections[connection.fd] === connection else { return }
        updatePhase(connection)
        updateInterest(connection)
    }

    private func flush(_ connection: Connection) {
        guard connection.writePending(now: now) else {
            close(connection)
            return
        }
        if connection.pendingOutput == 0 && connection.closeAfterWrite && !connection.inFlight && !connection.lingering {
            if connection.readClosed {
                close(connection)
            } else {
                // Half-close and drain briefly so unread request bytes do not turn our last answer into a RST.
                Sys.shutdownWrite(connection.fd)
                connection.lingering = true
                connection.lingerDeadline = now &+ 1_000_000_000
            }
        }
    }

    private func updatePhase(_ connection: Connection) {
        let phase = connection.parser.phase
        if phase != connection.phase {
            connection.phase = phase
            connection.phaseStart = now
        }
    }

    private func updateInterest(_ connection: Connection) {
        var wanted: UInt32 = 0
        if connection.lingering {
            wanted = connection.readClosed ? 0 : Self.readable
        } else if !connection.failed {
            // Reading goes on while a worker runs (no epoll change per request); pipelined bytes wait in the
            // parser, bounded by one header's worth.
            if !connection.closeAfterWrite && !connection.readClosed && connection.pendingOutput < Self.outputHighWater
                && (!connection.inFlight || connection.parser.bufferedCount < context.limits.maxHeaderBytes) {
                wanted |= Self.readable
            }
            if connection.pendingOutput > 0 { wanted |= Self.writable }
        }
        guard wanted != connection.interest else { return }
        do {
            try Sys.epollControl(epoll, EPOLL_CTL_MOD, connection.fd, events: wanted)
            connection.interest = wanted
        } catch {
            close(connection)
        }
    }

    func close(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        if connection.inFlight {
            // Its worker may still write to the descriptor: stop watching it, and close when the worker hands it back.
            connection.failed = true
            if connection.interest != 0, (try? Sys.epollControl(epoll, EPOLL_CTL_MOD, connection.fd, events: 0)) != nil {
                connection.interest = 0
            }
            return
        }
        connections[connection.fd] = nil
        Sys.close(connection.fd)  // Also removes it from the epoll set.
        context.connectionCount.wrappingSubtract(1, ordering: .relaxed)
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
                if isIdle(connection) { close(connection) }
            }
        }
    }

    /// Nothing in progress: no handler running, nothing to write, no request half-received.
    func isIdle(_ connection: Connection) -> Bool {
        !connection.inFlight && connection.pendingOutput == 0 && connection.parser.phase == .idle
    }

    private func finish() {
        for connection in Array(connections.values) {
            connection.lock.withLock {
                guard connection.inFlight else {
                    close(connection)
                    return
                }
                // A worker still owns it: end the exchange now, and leave the descriptor for the worker to close
                // so its number cannot be reused under the worker's write.
                connection.abandoned = true
                Sys.shutdownBoth(connection.fd)
                connections[connection.fd] = nil
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
