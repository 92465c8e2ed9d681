@testable import OIDC
import Testing

/// The blocklist's sorted buffer: how a list file's text is read into it, and what it finds.
@Suite("Folded password list")
struct FoldedPasswordListTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let found: [String]
        let notFound: [String]
        let count: Int
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "LF lines, the last without its end", text: "alpha\nbeta\ngamma", found: ["alpha", "beta", "gamma"],
             notFound: ["alph", "alphaa", "delta", ""], count: 3),
        Case(name: "CR LF and a lone CR end lines", text: "alpha\r\nbeta\rgamma\r\n", found: ["alpha", "beta", "gamma"],
             notFound: ["alpha\r", "beta\rgamma"], count: 3),
        Case(name: "blank lines and #! comments are skipped", text: "#!comment: a list\n\n\nhunter2\n#!\n", found: ["hunter2"],
             notFound: ["#!comment: a list", "#!", ""], count: 1),
        Case(name: "a # alone starts no comment", text: "#hashtag\n", found: ["#hashtag"], notFound: ["hashtag"], count: 1),
        Case(name: "entries are folded to lower case", text: "Summer2024\nHUNTER2\n", found: ["summer2024", "hunter2"],
             notFound: ["Summer2024", "HUNTER2"], count: 2),
        Case(name: "repeats and case variants count once", text: "abc\nABC\nAbc\nabc\n", found: ["abc"], notFound: [], count: 1),
        Case(name: "prefixes are distinct entries", text: "abcd\nab\nabc\n", found: ["ab", "abc", "abcd"], notFound: ["a", "abcde"], count: 3),
        Case(name: "non-ASCII lines fold as Swift lowercases them", text: "パスワード\nÄrger\nΑΘΗΝΑ\n",
             found: ["パスワード", "ärger", "αθηνα"], notFound: ["Ärger", "パスワ"], count: 3),
        Case(name: "an empty file", text: "", found: [], notFound: ["", "a"], count: 0),
        Case(name: "only line ends", text: "\n\r\n\r", found: [], notFound: [""], count: 0),
    ])
    func aListFileIsReadLineByLine(_ row: Case) {
        let list = FoldedPasswordList(listText: Array(row.text.utf8))
        for entry in row.found { #expect(list.contains(entry), "\(entry)") }
        for entry in row.notFound { #expect(!list.contains(entry), "\(entry)") }
        #expect(list.count == row.count)
    }

    @Test func invalidUTF8InAFileIsReadAsReplacementCharacters() {
        let list = FoldedPasswordList(listText: [0x61, 0xFF, 0x62, 0x0A, 0x63])
        #expect(list.contains("a\u{FFFD}b") && list.contains("c"))
        #expect(list.count == 2)
    }

    @Test func extraEntriesAreFoldedInWithTheFile() {
        let list = FoldedPasswordList(listText: Array("one\n".utf8), adding: ["Two", "ONE"])
        #expect(list.contains("one") && list.contains("two"))
        #expect(list.count == 2)
    }

    /// Every entry of a larger list is found, and nothing between them.
    @Test func aThousandEntriesAreEachFoundByBinarySearch() {
        let entries = (0..<1000).map { "Entry\($0 * 2)" }
        let list = FoldedPasswordList(folding: entries.shuffled())
        #expect(list.count == 1000)
        for index in 0..<1000 {
            #expect(list.contains("entry\(index * 2)"))
            #expect(!list.contains("entry\(index * 2 + 1)"))
        }
    }
}
