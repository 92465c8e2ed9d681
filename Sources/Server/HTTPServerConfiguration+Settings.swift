import HTTP
import Settings

extension HTTPServerConfiguration {
    /// The HTTP limits and listeners from the daemon's settings.
    init(_ settings: Settings) {
        switch settings.listen {
        case .tcp(let host, let port): self.init(listen: [.tcp(host: host, port: port)])
        case .unix(let path): self.init(listen: [.unix(path: path)])
        }
        maxHeaderBytes = settings.maxHeaderBytes
        maxBodyBytes = settings.maxBodyBytes
        maxBufferedBodyBytes = settings.maxBufferedBodyBytes
        headerTimeout = settings.headerTimeout
        bodyTimeout = settings.bodyTimeout
        idleTimeout = settings.idleTimeout
        maxConnections = settings.maxConnections
        maxConnectionsPerClient = settings.maxConnectionsPerClient
        workerThreads = settings.workerThreads
        drainTimeout = settings.drainTimeout
        gzipMinimumBytes = settings.gzipMinBytes
    }
}
