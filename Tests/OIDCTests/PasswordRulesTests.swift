import Foundation
import Model
@testable import OIDC
import Synchronization
import Testing

/// Auth0's password levels, the blocklist and the language choice: table-driven.
@Suite("Password rules and language choice")
struct PasswordRulesTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let policy: PasswordPolicy
        let password: String
        let unmet: [PasswordPolicy.Rule]
        var testDescription: String { "\(policy) \(password.debugDescription)" }
    }

    static let rows: [Row] = [
        Row(policy: .none, password: "", unmet: [.lengthAtLeast(1)]),
        Row(policy: .none, password: "a", unmet: []),
        Row(policy: .low, password: "abcde", unmet: [.lengthAtLeast(6)]),
        Row(policy: .low, password: "abcdef", unmet: []),
        Row(policy: .fair, password: "abcdefgh", unmet: [.upperCase, .digit]),
        Row(policy: .fair, password: "Abcdefg1", unmet: []),
        Row(policy: .fair, password: "Ab1", unmet: [.lengthAtLeast(8)]),
        Row(policy: .fair, password: "ABCDEFG1", unmet: [.lowerCase]),
        Row(policy: .fair, password: "Ärger-über-1", unmet: []),  // non-ASCII letters count by their case
        Row(policy: .good, password: "abcdefg1", unmet: [.threeOfFourKinds]),
        Row(policy: .good, password: "abcdef1!", unmet: []),
        Row(policy: .good, password: "パスワード-ab1", unmet: []),  // kana are special characters
        Row(policy: .excellent, password: "Abcdefgh1", unmet: [.lengthAtLeast(10)]),
        Row(policy: .excellent, password: "Abcdefgh1!", unmet: []),
        Row(policy: .excellent, password: "Abbbc-def-1", unmet: [.noThreeIdenticalInARow]),
        Row(policy: .fair, password: String(repeating: "Ab1", count: 43), unmet: [.lengthAtMost(128)]),
    ]

    @Test(arguments: rows)
    func levels(_ row: Row) {
        #expect(row.policy.unmetRules(row.password) == row.unmet)
    }

    @Test func theDescriptionListsEveryUnmetRule() {
        let text = PasswordPolicy.describe(PasswordPolicy.fair.unmetRules("abc"))
        #expect(text == "Password is too weak. It needs at least 8 characters; an upper-case letter (A-Z); a digit (0-9).")
    }

    @Test func theBlocklistIgnoresCaseCommentsAndTheUsersOwnAddress() {
        let list = PasswordBlocklist(listText: "#!comment\nSummer2024\n\nhunter2\n")
        #expect(list.refuses("summer2024") && list.refuses("HUNTER2"))
        #expect(!list.refuses("#!comment"))
        #expect(list.refuses("Password123"))  // built in
        #expect(list.refuses("Ada.Lovelace1@example.com", email: "ada.lovelace1@example.com"))
        #expect(list.refuses("ada.lovelace1", email: "Ada.Lovelace1@example.com"))
        #expect(!list.refuses("Tr0ubadour-horse", email: "ada@example.com"))
    }

    /// A list read from a file is parsed once, when first needed (or prepared), not at construction.
    @Test func aDeferredListLoadsOnceOnFirstUse() {
        let loads = Mutex(0)
        let list = PasswordBlocklist(deferredListText: {
            loads.withLock { $0 += 1 }
            return Array("#!comment\nSummer2024\n".utf8)
        })
        #expect(loads.withLock { $0 } == 0)
        #expect(list.refuses("SUMMER2024") && list.refuses("Password123") && !list.refuses("#!comment"))
        list.prepare()
        #expect(list.count == PasswordBlocklist(listText: "Summer2024").count)
        #expect(loads.withLock { $0 } == 1)
    }

    /// An unreadable file (nil) leaves the built-in few, and is not read again.
    @Test func aDeferredListThatCannotBeReadKeepsTheBuiltInFew() {
        let loads = Mutex(0)
        let list = PasswordBlocklist(deferredListText: {
            loads.withLock { $0 += 1 }
            return nil
        })
        #expect(list.refuses("P@ssw0rd") && !list.refuses("Summer2024"))
        #expect(list.count == PasswordBlocklist(entries: []).count)
        #expect(loads.withLock { $0 } == 1)
    }

    @Test func rulesPutStrengthBeforeTheList() {
        let rules = PasswordRules(policy: .fair, blocklist: PasswordBlocklist(entries: ["Abcdefg1"]))
        #expect(rules.refusal("abc", email: nil)?.name == "PasswordStrengthError")
        #expect(rules.refusal("Abcdefg1", email: nil)?.code == "password_leaked")
        #expect(rules.refusal("Abcdefg2", email: nil) == nil)
    }

    @Test(arguments: [
        ("ja", "en-US,en;q=0.9", ["ja", "en-us", "en"]),
        (nil, "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", ["fr-ch", "fr", "en", "de"]),
        (nil, "ja;q=0, en", ["en"]),
        ("ja-JP en", nil, ["ja-jp", "en"]),
        (nil, "en;q=0.5, ja;q=0.5", ["en", "ja"]),
        ("<script>", "x;q=abc, ja", ["x", "ja"]),
    ] as [(String?, String?, [String])])
    func localePreferences(uiLocales: String?, acceptLanguage: String?, expected: [String]) {
        #expect(LocalePreference.ordered(uiLocales: uiLocales, acceptLanguage: acceptLanguage) == expected)
    }

    @Test func aLanguageIsPickedExactlyThenByItsPrimaryTag() {
        #expect(LocalePreference.pick(["ja-jp", "en"], available: ["en", "ja"]) == "ja")
        #expect(LocalePreference.pick(["fr", "de"], available: ["en", "ja"]) == "en")
        #expect(LocalePreference.pick(["pt-br"], available: ["en", "pt-br", "pt"]) == "pt-br")
    }

    @Test func codesAreSixUniformDigits() {
        var seen = [Int](repeating: 0, count: 10)
        for _ in 0..<2000 {
            let code = OneTimeCodes.sixDigits()
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            seen[Int(String(code.first!))!] += 1
        }
        // Every leading digit appears (leading zeros are kept): 2000 draws, about 200 each.
        #expect(seen.allSatisfy { $0 > 100 })
    }
}
