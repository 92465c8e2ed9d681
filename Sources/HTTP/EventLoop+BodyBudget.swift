/// The body budget: a running total of the request body bytes this loop's connections hold, and shedding
/// (503, close) of the largest bodies still arriving when it is over `bodyBudget`.
extension EventLoop {
    /// Brings this loop's body total up to date with what the connection holds now; returns the change.
    @discardableResult
    func account(_ connection: Connection) -> Int {
        let change = connection.machine.settleBodyBytes()
        bodyBytes += change
        return change
    }

    /// After an event: sheds if a body grew past the budget.
    func shedBodiesIfOverBudget() {
        guard bodiesGrew else { return }
        bodiesGrew = false
        _ = makeRoom(for: 0, holding: nil)
    }

    /// Refuses bodies still arriving on this loop, largest first (503, close), until `incoming` more bytes fit
    /// the budget; false if they cannot (what is left is with workers). `holding` is the connection whose lock
    /// the caller holds: it is not a candidate. Only the loop ever holds two connection locks, so this cannot deadlock.
    func makeRoom(for incoming: Int, holding current: Connection?) -> Bool {
        while bodyBytes + incoming > bodyBudget {
            var largest: Connection?
            var largestBytes = 0
            for connection in connections.values where connection !== current {
                let bytes = connection.lock.withLock {
                    account(connection)  // Drops bodies whose answers workers have queued since.
                    return connection.machine.sheddableBodyBytes
                }
                if bytes > largestBytes {
                    largest = connection
                    largestBytes = bytes
                }
            }
            if bodyBytes + incoming <= bodyBudget { return true }
            guard let largest else { return false }
            largest.lock.withLock {
                refuseForBudget(largest)
                flushAndUpdate(largest)
            }
        }
        return true
    }

    func refuseForBudget(_ connection: Connection) {
        reject(connection, HTTPParseError(503, "body budget exhausted"), retryAfter: Self.bodyBudgetRetryAfter)
    }
}
