/// Deadline enforcement: header, body, idle, write and linger timeouts, checked every `timerInterval`.
extension EventLoop {
    func scanTimers() {
        resumeAcceptingIfDue()
        for connection in Array(connections.values) {
            connection.lock.withLock { enforceDeadline(connection) }
        }
    }

    private func enforceDeadline(_ connection: Connection) {
        guard let expiry = connection.machine.expired(at: now) else { return }
        switch expiry {
        case .linger, .idle:
            close(connection)
        case .write:
            context.logger.info("http_write_timeout", ["peer": .string(connection.peer.description)])
            close(connection)
        case .head:
            reject(connection, HTTPParseError(408, "header timeout"))
            flushAndUpdate(connection)
        case .body:
            reject(connection, HTTPParseError(408, "body timeout"))
            flushAndUpdate(connection)
        }
    }
}
