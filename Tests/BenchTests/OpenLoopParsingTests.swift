@testable import bench
import Testing

/// The open-loop generator's response reading (`bench openloop`): a wrong status or length there
/// would make every latency figure in `scripts/bench latency` wrong without an error.
@Suite("Open-loop generator parsing")
struct OpenLoopParsingTests {
    typealias Client = OpenLoopBench.HTTPClient

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 12", 200, 12),
        ("HTTP/1.1 400 Bad Request\r\ncontent-length:7\r\nX: y", 400, 7),
        ("HTTP/1.1 201 Created\r\nCONTENT-LENGTH:   305", 201, 305),
        ("HTTP/1.1 204 No Content\r\nDate: x", 204, 0),
        ("HTTP/1.1 200 OK\r\nX-Content-Length: 9", 200, 0),
        ("HTTP/1.1 200 OK\r\nContent-Type: a\r\nContent-Length: 3x", 200, 3),
        ("HTTP/1.1 503", 503, 0),
        ("HTTP/1.1", 0, 0),
        ("", 0, 0),
    ])
    func statusAndContentLength(head: String, status: Int, length: Int) {
        let parsed = Client.statusAndLength(Array(head.utf8)[...])
        #expect(parsed.status == status && parsed.length == length)
    }

    @Test(arguments: [
        ("ab", "abcab", 0),
        ("ca", "abcab", 2),
        ("ab", "xxab", 2),
        ("\r\n\r\n", "HTTP/1.1 200 OK\r\n\r\nbody", 15),
        ("abd", "abcab", nil),
        ("", "abc", nil),
        ("abcd", "abc", nil),
    ] as [(String, String, Int?)])
    func findsTheFirstOccurrence(needle: String, haystack: String, index: Int?) {
        #expect(Client.find(Array(needle.utf8), in: Array(haystack.utf8)[...]) == index)
    }

    /// A slice keeps its parent's indices: the answer is an index into the parent, not an offset.
    @Test func findInASliceAnswersTheParentsIndex() {
        let bytes = Array("xxxxHTTP/1.1\r\n\r\n".utf8)
        #expect(Client.find([13, 10, 13, 10], in: bytes[4...]) == 12)
        #expect(Client.find(Array("xx".utf8), in: bytes[3...]) == nil)
    }

    @Test(arguments: [
        (#"{"access_token":"a","refresh_token":"rt2.g.3.mac","expires_in":86400}"#, "rt2.g.3.mac"),
        (#"{"refresh_token":""}"#, ""),
        (#"{"access_token":"a"}"#, nil),
        (#"{"refresh_token":"unterminated"#, nil),
    ] as [(String, String?)])
    func findsTheSuccessorToken(body: String, token: String?) {
        #expect(OpenLoopBench.refreshToken(in: Array(body.utf8)) == token)
    }
}
