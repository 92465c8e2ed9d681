import Testing
@testable import HTTP

/// The connection lifecycle without sockets: scripted events on a fake clock (seconds), each checked against the
/// action, state or timeout the machine must produce.
typealias Machine = ConnectionStateMachine

/// One scripted step: an event with the answer expected, or a check of a pure function at the current time.
enum MachineStep: Sendable {
    /// Moves the fake clock to this many seconds.
    case at(Double)
    case receive(String)
    case next(NextKind)
    case dispatch(bodyBytes: Int)
    case respond(close: Bool, unsent: Int)
    case queue(unsent: Int)
    case wrote(Int, unsent: Int)
    case flushed(Machine.Action)
    case fin(Machine.Action)
    case abort(Machine.Action)
    case refuse
    case workerFinished(Machine.Action)
    case workerWriteFailed
    case loopStopped(Machine.Action)
    case state(Machine.State)
    case interest(Machine.Interest)
    /// `expired(at:)` at the current time.
    case expiry(Machine.Expiry?)
    case idleForDrain(Bool)
    case needsLoop(registered: Machine.Interest, Bool)
}

/// `nextRequest` results, reduced to what a script compares.
enum NextKind: Equatable, Sendable {
    case wait
    case request(path: String)
    case expectsContinue
    case reject(Int)

    init(_ next: Machine.Next) {
        switch next {
        case .wait: self = .wait
        case .request(let head, _): self = .request(path: head.path)
        case .expectsContinue: self = .expectsContinue
        case .reject(let error): self = .reject(error.status)
        }
    }
}

struct MachineScript: CustomTestStringConvertible, Sendable {
    let name: String
    let steps: [MachineStep]
    var testDescription: String { name }
}

/// head 10 s, idle 60 s, body 30 s, write 30 s, linger 1 s.
let scriptTimeouts = Machine.Timeouts(head: 10_000_000_000, idle: 60_000_000_000, body: 30_000_000_000,
                                      write: 30_000_000_000, linger: 1_000_000_000)
let simpleGet = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n"
let postWithBody = "POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n"

let machineScripts: [MachineScript] = [
    // Deadlines: which timeout runs is a function of the state and the clock alone.
    .init(name: "fresh connection gets the header timeout to start talking", steps: [
        .at(9.9), .expiry(nil), .at(10), .expiry(.idle),
    ]),
    .init(name: "partial head: header timeout from its first byte", steps: [
        .at(5), .receive("GET /a HT"), .next(.wait), .state(.head), .at(14.9), .expiry(nil), .at(15), .expiry(.head),
    ]),
    .init(name: "answered request: idle timeout from the answer", steps: [
        .at(1), .receive(simpleGet), .next(.request(path: "/a")), .at(2), .respond(close: false, unsent: 0), .next(.wait),
        .state(.idle), .at(61.9), .expiry(nil), .at(62), .expiry(.idle),
    ]),
    .init(name: "body: body timeout from the end of the head", steps: [
        .at(2), .receive(postWithBody + "abc"), .next(.wait), .state(.body(continueSent: false)),
        .at(31.9), .expiry(nil), .at(32), .expiry(.body),
    ]),
    .init(name: "pending output: the write timeout wins over idle", steps: [
        .at(1), .receive(simpleGet), .next(.request(path: "/a")), .respond(close: false, unsent: 500), .wrote(100, unsent: 400),
        .at(30.9), .expiry(nil), .at(31), .expiry(.write),
    ]),
    .init(name: "write progress restarts the write timeout", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .respond(close: false, unsent: 500),
        .at(20), .wrote(100, unsent: 400), .at(49.9), .expiry(nil), .at(50), .expiry(.write),
    ]),
    .init(name: "in flight: handlers are never timed here", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .at(100_000), .expiry(nil),
    ]),
    .init(name: "a worker's later clock reading is no negative age", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .at(100), .workerFinished(.respond),
        .respond(close: false, unsent: 0), .at(50), .expiry(nil), .at(159.9), .expiry(nil), .at(160), .expiry(.idle),
    ]),
    .init(name: "lingering ends at its deadline", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .at(3), .respond(close: true, unsent: 0),
        .flushed(.shutWriteAndLinger), .state(.lingering(deadline: 4_000_000_000)), .interest(.read),
        .at(3.9), .expiry(nil), .at(4), .expiry(.linger),
    ]),

    // Lifecycle.
    .init(name: "keep-alive: parse, answer, wait for the next request", steps: [
        .receive(simpleGet + simpleGet), .next(.request(path: "/a")), .respond(close: false, unsent: 0),
        .next(.request(path: "/a")), .respond(close: false, unsent: 0), .next(.wait), .state(.idle), .interest(.read),
    ]),
    .init(name: "Connection: close writes, then shuts the write side and lingers until FIN", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .respond(close: true, unsent: 300), .state(.closing),
        .next(.wait), .interest(.write), .flushed(.none), .wrote(300, unsent: 0), .flushed(.shutWriteAndLinger),
        .receive(simpleGet), .next(.wait), .fin(.close), .state(.closed),
    ]),
    .init(name: "FIN after pipelined requests: answer them, then close without lingering", steps: [
        .receive(simpleGet + simpleGet), .fin(.none), .next(.request(path: "/a")), .respond(close: false, unsent: 0),
        .next(.request(path: "/a")), .respond(close: false, unsent: 0), .next(.wait), .state(.closing),
        .interest([]), .flushed(.close),
    ]),
    .init(name: "FIN mid-request: close without an answer", steps: [
        .receive("GET /a HTTP/1.1\r\n"), .fin(.none), .next(.wait), .state(.closing), .flushed(.close),
    ]),
    .init(name: "framing error: reject, then nothing more is parsed", steps: [
        .receive("GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" + simpleGet), .next(.reject(400)), .state(.closing),
        .next(.wait), .queue(unsent: 100), .interest(.write),
    ]),
    .init(name: "100-continue is offered once", steps: [
        .receive("POST /p HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"),
        .next(.expectsContinue), .state(.body(continueSent: true)), .queue(unsent: 25), .next(.wait),
        .wrote(25, unsent: 0), .receive("ab"), .next(.wait), .receive("c"), .next(.request(path: "/p")),
    ]),
    .init(name: "output over the high-water mark stops parsing and reading", steps: [
        .receive(simpleGet + simpleGet), .next(.request(path: "/a")), .respond(close: false, unsent: Machine.outputHighWater),
        .next(.wait), .interest(.write), .wrote(1, unsent: Machine.outputHighWater - 1), .interest([.read, .write]),
        .next(.request(path: "/a")),
    ]),
    .init(name: "timeout refusal: closing, then lingering once the 408 is written", steps: [
        .receive("GET /a HT"), .next(.wait), .at(10), .expiry(.head), .refuse, .queue(unsent: 120), .state(.closing),
        .expiry(nil), .wrote(120, unsent: 0), .flushed(.shutWriteAndLinger),
    ]),

    // Workers.
    .init(name: "worker answers: the loop need not look at the connection", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .state(.inFlight(.running)), .next(.wait),
        .workerFinished(.respond), .respond(close: false, unsent: 0), .needsLoop(registered: .read, false),
    ]),
    .init(name: "worker answers with pipelined input waiting: the loop must look", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .receive("GET /b"), .next(.wait),
        .workerFinished(.respond), .respond(close: false, unsent: 0), .needsLoop(registered: .read, true),
    ]),
    .init(name: "worker's answer closes or is left unsent: the loop must look", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .workerFinished(.respond),
        .respond(close: true, unsent: 0), .needsLoop(registered: .read, true),
    ]),
    .init(name: "reading goes on while a worker runs, up to one header's worth", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .interest(.read),
        .receive(String(repeating: "x", count: ParserLimits().maxHeaderBytes)), .interest([]),
    ]),
    .init(name: "socket fails while a worker runs: stop watching, close once handed back", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .abort(.stopWatching),
        .state(.inFlight(.socketFailed)), .interest([]), .abort(.stopWatching), .workerFinished(.handBack),
        .state(.failed), .abort(.close), .state(.closed),
    ]),
    .init(name: "worker's own write fails: handed back failed", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .workerFinished(.respond),
        .respond(close: false, unsent: 10), .workerWriteFailed, .state(.failed), .interest([]), .abort(.close),
    ]),
    .init(name: "loop stops while a worker runs: the worker closes the descriptor", steps: [
        .receive(simpleGet), .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .loopStopped(.abandon),
        .abort(.none), .workerFinished(.close), .state(.closed),
    ]),
    .init(name: "loop stops with nothing running: close", steps: [
        .receive("GET /a"), .next(.wait), .loopStopped(.close), .state(.closed),
    ]),

    // Draining.
    .init(name: "drain closes idle connections only", steps: [
        .idleForDrain(true), .receive("GET /a"), .next(.wait), .idleForDrain(false), .receive(" HTTP/1.1\r\nHost: t\r\n\r\n"),
        .next(.request(path: "/a")), .dispatch(bodyBytes: 0), .idleForDrain(false), .workerFinished(.respond),
        .respond(close: false, unsent: 5), .idleForDrain(false), .wrote(5, unsent: 0), .idleForDrain(true),
    ]),
]

@Test("connection state machine", arguments: machineScripts)
func connectionStateMachine(_ script: MachineScript) {
    var machine = Machine(limits: ParserLimits(), timeouts: scriptTimeouts, now: 0)
    var now: UInt64 = 0
    for (index, step) in script.steps.enumerated() {
        let at = Comment(rawValue: "step \(index + 1): \(step)")
        switch step {
        case .at(let seconds): now = UInt64(seconds * 1_000_000_000)
        case .receive(let text): Array(text.utf8).withUnsafeBytes { machine.received($0) }
        case .next(let expected): #expect(NextKind(machine.nextRequest(now: now)) == expected, at)
        case .dispatch(let bytes): machine.dispatched(bodyBytes: bytes)
        case .respond(let close, let unsent): machine.responseQueued(close: close, unsent: unsent, now: now)
        case .queue(let unsent): machine.outputQueued(unsent: unsent)
        case .wrote(let sent, let unsent): machine.wrote(sent, unsent: unsent, now: now)
        case .flushed(let action): #expect(machine.outputFlushed(now: now) == action, at)
        case .fin(let action): #expect(machine.peerFinished() == action, at)
        case .abort(let action): #expect(machine.abort() == action, at)
        case .refuse: machine.refuse(HTTPParseError(408, "test"))
        case .workerFinished(let action): #expect(machine.workerFinished() == action, at)
        case .workerWriteFailed: machine.workerWriteFailed()
        case .loopStopped(let action): #expect(machine.loopStopped() == action, at)
        case .state(let state): #expect(machine.state == state, at)
        case .interest(let interest): #expect(machine.interest == interest, at)
        case .expiry(let expiry): #expect(machine.expired(at: now) == expiry, at)
        case .idleForDrain(let idle): #expect(machine.isIdle == idle, at)
        case .needsLoop(let registered, let needed): #expect(machine.needsLoop(registered: registered) == needed, at)
        }
    }
}

/// The body budget's view: what a connection holds while a body arrives and while a worker has it,
/// and that every byte counted in is counted out again.
@Test func bodyBytesAreCountedInAndOut() {
    var machine = Machine(limits: ParserLimits(), timeouts: scriptTimeouts, now: 0)
    var total = 0
    func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { machine.received($0) }
    }
    receive(Array("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 200000\r\n\r\n".utf8))
    #expect(NextKind(machine.nextRequest(now: 0)) == .wait)
    total += machine.settleBodyBytes()
    receive([UInt8](repeating: 1, count: 150_000))
    #expect(NextKind(machine.nextRequest(now: 0)) == .wait)
    total += machine.settleBodyBytes()
    #expect(total >= 150_000)
    #expect(machine.sheddableBodyBytes == total)
    receive([UInt8](repeating: 1, count: 50_000))
    guard case .request(_, let body) = machine.nextRequest(now: 0) else {
        Issue.record("expected the request")
        return
    }
    machine.dispatched(bodyBytes: body.capacity)
    total += machine.settleBodyBytes()
    #expect(total == body.capacity)
    #expect(machine.sheddableBodyBytes == 0)  // A worker has it: it cannot be shed.
    #expect(machine.workerFinished() == .respond)
    machine.responseQueued(close: false, unsent: 0, now: 0)
    total += machine.settleBodyBytes()
    #expect(total == 0)
}

@Test func refusingABodyFreesItsBuffers() {
    var machine = Machine(limits: ParserLimits(), timeouts: scriptTimeouts, now: 0)
    Array(("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 900000\r\n\r\n" + String(repeating: "x", count: 300_000)).utf8)
        .withUnsafeBytes { machine.received($0) }
    _ = machine.nextRequest(now: 0)
    #expect(machine.settleBodyBytes() >= 300_000)
    machine.refuse(HTTPParseError(503, "test"))
    #expect(machine.parser.retainedBytes == 0)
    #expect(machine.settleBodyBytes() < -300_000)
    #expect(machine.heldBodyBytes == 0)
    #expect(machine.state == .closing)
}
