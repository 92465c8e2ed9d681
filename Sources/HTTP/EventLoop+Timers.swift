/// Deadline enforcement: header, body, idle, write and linger timeouts, checked every `timerInterval`.
extension EventLoop {
    func scanTimers() {
        resumeAcceptingIfDue()
        for connection in Array(connections.values) {
            if connection.lingering {
                if now >= connection.lingerDeadline { close(connection) }
                continue
            }
            if connection.inFlight { continue }  // Handlers are not timed here; the pool is bounded instead.
            if connection.pendingOutput > 0 {
                if now &- connection.lastWriteProgress >= context.writeTimeout {
                    context.logger.info("http_write_timeout", ["peer": .string(connection.peer.description)])
                    close(connection)
                }
                continue
            }
            if connection.closeAfterWrite { continue }
            let elapsed = now &- connection.phaseStart
            switch connection.phase {
            case .idle:
                // A fresh connection gets the header timeout to start talking; a used one the idle timeout.
                let limit = connection.servedRequests == 0 ? context.headerTimeout : context.idleTimeout
                if elapsed >= limit { close(connection) }
            case .head:
                if elapsed >= context.headerTimeout { reject(connection, HTTPParseError(408, "header timeout")); flushAndUpdate(connection) }
            case .body:
                if elapsed >= context.bodyTimeout { reject(connection, HTTPParseError(408, "body timeout")); flushAndUpdate(connection) }
            }
        }
    }
}
