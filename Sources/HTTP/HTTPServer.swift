import Dispatch
import Glibc
import Logging
import Synchronization

/// The HTTP/1.1 server: `loopThreads` epoll loops doing all socket I/O, plus a bounded worker pool for blocking handlers.
public final class HTTPServer: Sendable {
    private struct State {
        var started = false
        var shutDown = false
        var loops: [EventLoop] = []
        var listenerFDs: [Int32] = []
        var unixPaths: [String] = []
    }

    private let context: ServerContext
    private let state = Mutex(State())
    /// Entered at `start()`, left when shutdown completes; `waitUntilStopped()` waits on it.
    private let running = DispatchGroup()
    private let loopsFinished = DispatchGroup()
    private let listenersReleased = DispatchSemaphore(value: 0)

    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        context = ServerContext(configuration: configuration, responder: responder, logger: logger)
    }

    /// Binds every listener (port 0 becomes a real port), starts the threads, and returns what was bound.
    public func start() throws -> [BoundAddress] {
        try state.withLock { state in
            guard !state.started else { throw SystemError("start(already started)", errno: EALREADY) }
            state.started = true
            Sys.ignoreSIGPIPE()
            var listeners: [EventLoop.Listener] = []
            var bound: [BoundAddress] = []
            do {
                for address in context.configuration.listen {
                    switch address {
                    case .tcp(let host, let port):
                        let (fd, actualPort) = try Sys.listenTCP(host: host, port: port, backlog: 1024)
                        listeners.append(.init(fd: fd, isUnix: false))
                        bound.append(.tcp(host: host, port: actualPort))
                    case .unix(let path):
                        let fd = try Sys.listenUnix(path: path, backlog: 1024)
                        listeners.append(.init(fd: fd, isUnix: true))
                        state.unixPaths.append(path)
                        bound.append(.unix(path: path))
                    }
                }
                for index in 0..<max(1, context.configuration.loopThreads) {
                    state.loops.append(try EventLoop(context: context, index: index, listeners: listeners) { [listenersReleased] in
                        listenersReleased.signal()
                    })
                }
            } catch {
                listeners.forEach { Sys.close($0.fd) }
                state.unixPaths.forEach { unlink($0) }
                state.loops = []
                throw error
            }
            state.listenerFDs = listeners.map(\.fd)
            running.enter()
            context.pool.start()
            for loop in state.loops {
                loopsFinished.enter()
                OSThread.start(name: "http-loop-\(loop.index)") { [loopsFinished] in
                    loop.run()
                    loopsFinished.leave()
                }
            }
            context.logger.info("http_listening", ["addresses": .string(bound.map(\.description).joined(separator: " "))])
            return bound
        }
    }

    /// Stops accepting at once, lets in-flight requests finish (up to `drainTimeout`), closes everything, then returns.
    public func shutdown() {
        let loops: [EventLoop]? = state.withLock { state in
            guard state.started, !state.shutDown else { return nil }
            state.shutDown = true
            return state.loops
        }
        guard let loops else {
            waitUntilStopped()
            return
        }
        context.stopping.store(true, ordering: .releasing)
        loops.forEach { $0.wake() }
        for _ in loops { listenersReleased.wait() }
        let (fds, paths) = state.withLock { ($0.listenerFDs, $0.unixPaths) }
        fds.forEach { Sys.close($0) }
        paths.forEach { unlink($0) }
        loopsFinished.wait()
        context.pool.stop()
        context.logger.info("http_stopped")
        running.leave()
    }

    /// Blocks until `shutdown()` has finished (returns at once if the server never started).
    public func waitUntilStopped() {
        running.wait()
    }

    /// Connections currently open, across all loops.
    public var connectionCount: Int { context.admission.count.load(ordering: .relaxed) }
}
