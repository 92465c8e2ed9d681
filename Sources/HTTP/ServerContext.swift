import Logging
import Synchronization

/// What every event loop shares: configuration, responder, logger, worker pool and global counters.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let pool: WorkerPool
    let limits: ParserLimits
    let admission: ConnectionAdmission
    let stopping = Atomic<Bool>(false)
    let timeouts: ConnectionStateMachine.Timeouts
    let drainTimeout: UInt64

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.pool = WorkerPool(threads: configuration.workerThreads)
        self.limits = configuration.parserLimits
        admission = ConnectionAdmission(maxConnections: configuration.maxConnections,
                                        maxPerClient: configuration.maxConnectionsPerClient)
        timeouts = ConnectionStateMachine.Timeouts(head: Self.nanoseconds(configuration.headerTimeout),
                                                   idle: Self.nanoseconds(configuration.idleTimeout),
                                                   body: Self.nanoseconds(configuration.bodyTimeout),
                                                   write: Self.nanoseconds(configuration.writeTimeout))
        drainTimeout = Self.nanoseconds(configuration.drainTimeout)
    }

    /// One loop's share of the body budget: an even split, but never less than two maximal bodies
    /// (a body's buffers can exceed its length while it grows).
    var bodyBudgetPerLoop: Int {
        max(configuration.maxBufferedBodyBytes / max(1, configuration.loopThreads), 2 * limits.maxBodyBytes)
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
    }
}
