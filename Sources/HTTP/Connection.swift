/// One client connection: its descriptor, queued output and lifecycle (`machine`).
///
/// Safety of `@unchecked Sendable`: every field is read and written only under `lock`. The owning event
/// loop takes it for each event, timer scan and resumption; a worker takes it once, to queue and write
/// the answer to the request it ran (see `EventLoop.finishOnWorker`).
final class Connection: @unchecked Sendable {
    let fd: Int32
    let id: UInt64
    let peer: PeerAddress
    let lock = PThreadMutex()
    var machine: ConnectionStateMachine

    /// Serialized responses not yet sent; `outputOffset` bytes of it are already written.
    var output: [UInt8] = []
    var outputOffset = 0
    /// Events currently registered with epoll.
    var interest: ConnectionStateMachine.Interest = .read

    init(fd: Int32, id: UInt64, peer: PeerAddress, machine: ConnectionStateMachine) {
        self.fd = fd
        self.id = id
        self.peer = peer
        self.machine = machine
    }

    var pendingOutput: Int { output.count - outputOffset }

    /// Writes queued output until done or the socket is full, and tells the machine; false when the socket failed.
    func writePending(now: UInt64) -> Bool {
        var sent = 0
        while pendingOutput > 0 {
            let count: Int
            do {
                count = try output.withUnsafeBytes { raw in
                    try Sys.send(fd, UnsafeRawBufferPointer(rebasing: raw[outputOffset...]))
                }
            } catch {
                return false  // EPIPE / ECONNRESET: the client went away mid-response.
            }
            if count == 0 { break }
            outputOffset += count
            sent += count
        }
        if pendingOutput == 0 && !output.isEmpty {
            if output.capacity > 1 << 20 {
                output = []
            } else {
                output.removeAll(keepingCapacity: true)
            }
            outputOffset = 0
        }
        machine.wrote(sent, unsent: pendingOutput, now: now)
        return true
    }
}
