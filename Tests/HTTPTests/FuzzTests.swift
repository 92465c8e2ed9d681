import Testing
@testable import HTTP

/// A small deterministic generator so fuzz failures reproduce (SplitMix64 with a fixed seed).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// I23: random mutations of recorded requests, fed in random splits, never crash the parser and never yield an invalid request.
@Test func parserSurvivesMutationFuzzing() {
    let corpus: [[UInt8]] = [
        "GET /a/b?x=1 HTTP/1.1\r\nHost: example\r\nAccept-Encoding: gzip\r\n\r\n",
        "POST /token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 29\r\n\r\ngrant_type=authorization_code",
        "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;e=1\r\nhello\r\n0\r\nT: 1\r\n\r\n",
        "GET / HTTP/1.0\r\n\r\nGET /%C3%A9 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
    ].map { Array($0.utf8) }
    let interesting: [UInt8] = [0, 9, 10, 13, 32, 37, 43, 44, 58, 59, 48, 57, 70, 102, 127, 128, 0xC0, 0xED, 0xFF]
    var random = SeededGenerator(state: 0x6761_7465_686F_7573)
    var limits = ParserLimits()
    limits.maxBodyBytes = 4096
    limits.maxHeaderBytes = 2048
    limits.maxRequestLineBytes = 1024
    var requests = 0
    var failures = 0
    for _ in 0..<20_000 {
        var input = corpus[Int.random(in: 0..<corpus.count, using: &random)]
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = Int.random(in: 0..<max(1, input.count), using: &random)
            let byte = Bool.random(using: &random) ? interesting.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !input.isEmpty: input[position] = byte
            case 1: input.insert(byte, at: min(position, input.count))
            case 2 where !input.isEmpty: input.remove(at: position)
            case 3:
                let end = min(input.count, position + Int.random(in: 1...16, using: &random))
                input.insert(contentsOf: input[position..<end], at: position)
            case 4: input = Array(input.prefix(position))
            default: input.append(contentsOf: input)
            }
        }
        var parser = RequestParser(limits: limits)
        var offset = 0
        feeding: while offset < input.count {
            let step = Int.random(in: 1...max(1, input.count - offset), using: &random)
            parser.append(Array(input[offset..<(offset + step)]))
            offset += step
            while true {
                switch parser.next() {
                case .needMore: continue feeding
                case .failed(let error):
                    failures += 1
                    #expect([400, 413, 414, 417, 431, 501, 505].contains(error.status))
                    break feeding
                case .request(let head, let body):
                    requests += 1
                    #expect(body.count <= limits.maxBodyBytes)
                    #expect(head.path.hasPrefix("/") || head.path == "*")
                    #expect(!head.path.utf8.contains(0))
                }
            }
        }
    }
    #expect(requests > 0)
    #expect(failures > 0)
}
