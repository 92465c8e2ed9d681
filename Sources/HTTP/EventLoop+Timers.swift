/// Deadline enforcement: header, body, idle, write and linger timeouts, checked every `timerInterval`.
extension EventLoop {
    func scanTimers() {
        resumeAcceptingIfDue()
        for connection in Array(connections.values) {
            connection.lock.withLock { checkDeadlines(connection) }
        }
    }

    /// Saturating: a worker may stamp a connection with a clock reading taken after this loop's `now`.
    private func elapsed(since instant: UInt64) -> UInt64 {
        now > instant ? now - instant : 0
    }

    private func checkDeadlines(_ connection: Connection) {
        if connection.lingering {
            if now >= connection.lingerDeadline { close(connection) }
            return
        }
        if connection.inFlight { return }  // Handlers are not timed here; the pool is bounded instead.
        if connection.pendingOutput > 0 {
            if elapsed(since: connection.lastWriteProgress) >= context.writeTimeout {
                context.logger.info("http_write_timeout", ["peer": .string(connection.peer.description)])
                close(connection)
            }
            return
        }
        if connection.closeAfterWrite { return }
        let elapsed = elapsed(since: connection.phaseStart)
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
