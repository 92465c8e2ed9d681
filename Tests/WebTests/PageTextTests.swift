import Foundation
import OIDC
@testable import Server
import Testing
import TestSupport

/// The page catalogues: shipped complete in English and Japanese, built in from Config/locales,
/// overridable per key by an operator.
@Suite("Page texts")
struct PageTextTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theEmbeddedCatalogueIsConfigLocales() throws {
        for (tag, text) in EmbeddedLocales.files {
            let file = try String(contentsOf: Self.repository.appendingPathComponent("Config/locales/\(tag).strings"), encoding: .utf8)
            #expect(file.trimmingCharacters(in: .newlines) == text.trimmingCharacters(in: .newlines),
                    "Config/locales/\(tag).strings changed: run scripts/embed-locales")
        }
        #expect(Set(EmbeddedLocales.files.keys) == ["en", "ja"])
    }

    @Test func japaneseHasEveryEnglishKeyAndEachPlaceholder() throws {
        let english = try #require(PageText.shipped.catalogues["en"])
        let japanese = try #require(PageText.shipped.catalogues["ja"])
        #expect(Set(english.keys) == Set(japanese.keys))
        for (key, text) in english {
            for placeholder in ["{app}", "{email}"] where text.contains(placeholder) {
                #expect(japanese[key]?.contains(placeholder) == true, "\(key) lacks \(placeholder) in ja")
            }
        }
    }

    @Test func everyMessageTheCoreNamesHasAText() throws {
        let english = try #require(PageText.shipped.catalogues["en"])
        var keys = [LoginMessages.codeSentVerify, LoginMessages.verifyRequired, LoginMessages.codeSentReset,
                    LoginMessages.codeSentPasswordless, LoginMessages.codeResent, LoginMessages.wrongCode, LoginMessages.leakedPassword,
                    LoginMessages.reusedPassword, LoginMessages.existingEmail, LoginMessages.invalidEmail, LoginMessages.tooManyRequests,
                    LoginMessages.unavailable, LoginMessages.verificationUnavailable, LoginMessages.userBlocked,
                    PasswordAuthenticator.wrongCredentials]
        keys += PasswordPolicy.allCases.map(LoginMessages.weakPassword)
        for key in keys { #expect(english[key] != nil, "no text for \(key)") }
        #expect(PageText.shipped.language(["en"])(PasswordAuthenticator.wrongCredentials) == "Wrong email or password.")
    }

    @Test func anOperatorOverridesAKeyAndAddsALanguage() throws {
        let directory = try TemporaryDirectory("locales")
        try "login.title = Welcome back\n".write(toFile: directory.file("en.strings"), atomically: true, encoding: .utf8)
        try "login.title = Connexion\n".write(toFile: directory.file("fr.strings"), atomically: true, encoding: .utf8)
        let texts = PageText(overrides: directory.path)
        #expect(texts.language(["en"])("login.title") == "Welcome back")
        #expect(texts.language(["en"])("field.email") == "Email")
        let french = texts.language(["fr-FR"])
        #expect(french.tag == "fr" && french("login.title") == "Connexion" && french("field.email") == "Email")
        #expect(texts.language(["ja"])("login.title") == "ログイン")
    }

    @Test func placeholdersAreFilledAndUnknownKeysShownAsGiven() {
        let japanese = PageText.shipped.language(["ja"])
        #expect(japanese("login.subtitle", ["app": "メモ"]) == "メモ を続けるにはログインしてください")
        #expect(japanese("Try again in 15 minutes.") == "Try again in 15 minutes.")
    }

    /// The `.strings` line format, one case per rule.
    @Test(arguments: [
        ("a = b", ["a": "b"]),
        ("a=b", ["a": "b"]),
        ("  a \t=\t b  ", ["a": "b"]),
        ("a = b = c", ["a": "b = c"]),
        ("a =", ["a": ""]),
        ("= b", [:]),
        ("no equals sign", [:]),
        ("# a = b", [:]),
        ("   #a=b", [:]),
        ("a = b\r\nc = d\r\n", ["a": "b", "c": "d"]),
        ("a = b\rc = d", ["a": "b", "c": "d"]),
        ("\n\n  \na = b\n\n", ["a": "b"]),
        ("a = 1\na = 2", ["a": "2"]),
        ("k = \u{3000}ログイン\u{3000}", ["k": "ログイン"]),
        ("k = e\u{301} # not a comment", ["k": "e\u{301} # not a comment"]),
        ("ключ = значение", ["ключ": "значение"]),
    ] as [(String, [String: String])])
    func parsesLines(text: String, expected: [String: String]) {
        #expect(PageText.parse(text) == expected)
    }
}
