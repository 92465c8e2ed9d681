import Foundation
import Testing
import TestSupport
@testable import Mail

@Suite struct TemplateTests {
    static let values = ["code": "123456", "app_name": "Example App", "expires_minutes": "10", "email": "alice@example.org"]
    static let names = ["verify_email", "reset_password", "passwordless_code", "test"]

    /// Every default template renders in both languages, with the code, the app name and the expiry.
    @Test(arguments: ["en", "ja"])
    func everyTemplateRendersWithItsValues(locale: String) throws {
        for name in Self.names {
            let mail = try MailTemplates().render(name, locale: locale, values: Self.values)
            #expect(mail.locale == locale)
            #expect(!mail.subject.isEmpty && !mail.subject.contains("\n"), "\(name): one subject line")
            #expect(mail.text.contains("Example App") && mail.html?.contains("Example App") == true, "\(name)")
            #expect(!mail.text.contains("{{") && mail.html?.contains("{{") == false, "\(name): nothing left unrendered")
            if name != "test" {
                #expect(mail.text.contains("123456") && mail.html?.contains("123456") == true, "\(name): the code")
                #expect(mail.text.contains("10") && mail.html?.contains("10") == true, "\(name): the expiry")
            }
        }
    }

    @Test func japaneseIsJapanese() throws {
        let mail = try MailTemplates().render("passwordless_code", locale: "ja", values: Self.values)
        #expect(mail.subject == "【Example App】ログイン用確認コード：123456")
        #expect(mail.text.contains("有効期限は 10 分"))
        #expect(mail.html?.contains("lang=\"ja\"") == true)
    }

    @Test func theLinkBlockAppearsOnlyWithALink() throws {
        let templates = MailTemplates()
        let without = try templates.render("reset_password", locale: "en", values: Self.values)
        #expect(!without.text.contains("Or open this link"))
        #expect(!without.text.contains("\n\n\n"), "an absent block leaves no blank lines behind")
        #expect(without.html?.contains("<a href") == false)
        var values = Self.values
        values["link"] = "https://id.example.com/reset?ticket=abc&x=1"
        let with = try templates.render("reset_password", locale: "en", values: values)
        #expect(with.text.contains("Or open this link (it works once, in any browser):\nhttps://id.example.com/reset?ticket=abc&x=1\n"))
        #expect(with.html?.contains("<a href=\"https://id.example.com/reset?ticket=abc&amp;x=1\">") == true)
        #expect(try templates.render("reset_password", locale: "ja", values: values).text.contains("ticket=abc&x=1"))
        values["link"] = ""
        #expect(!(try templates.render("reset_password", locale: "en", values: values).text.contains("Or open")))
    }

    @Test func valuesAreEscapedInHTMLOnly() throws {
        var values = Self.values
        values["app_name"] = "<script>alert(\"x\")</script> & 'co'"
        let mail = try MailTemplates().render("verify_email", locale: "en", values: values)
        #expect(mail.html?.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;") == true)
        #expect(mail.html?.contains("<script>") == false)
        #expect(mail.text.contains("<script>alert(\"x\")</script> & 'co'"))
    }

    /// ja-JP → ja; fr (no such locale) → en; case and `_` do not matter; a path is never a locale.
    @Test(arguments: [("ja-JP", "ja"), ("JA_jp", "ja"), ("ja", "ja"), ("en-GB", "en"), ("fr", "en"), ("", "en"),
                      ("../../etc", "en"), ("ja/../en", "en")])
    func localeFallback(requested: String, chosen: String) throws {
        #expect(try MailTemplates().render("test", locale: requested, values: Self.values).locale == chosen)
    }

    @Test func theOverrideDirectoryReplacesFilesOneByOneAndAddsLocales() throws {
        let directory = try TemporaryDirectory("templates")
        try FileManager.default.createDirectory(atPath: directory.file("en"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("fr"), withIntermediateDirectories: true)
        try "Custom {{code}}\n".write(toFile: directory.file("en/verify_email.subject"), atomically: true, encoding: .utf8)
        try "Votre code : {{code}}\n".write(toFile: directory.file("fr/verify_email.subject"), atomically: true, encoding: .utf8)
        try "Bonjour, {{code}}.\n".write(toFile: directory.file("fr/verify_email.txt"), atomically: true, encoding: .utf8)
        let templates = MailTemplates(overrideDirectory: directory.path)

        let english = try templates.render("verify_email", locale: "en", values: Self.values)
        #expect(english.subject == "Custom 123456")
        #expect(english.text.contains("Use this code to confirm"), "the text part is still the embedded one")
        let french = try templates.render("verify_email", locale: "fr-CA", values: Self.values)
        #expect(french.locale == "fr" && french.subject == "Votre code : 123456" && french.text == "Bonjour, 123456.\n")
        #expect(french.html == nil, "an added locale without HTML sends text only")
        #expect(try templates.render("passwordless_code", locale: "fr", values: Self.values).locale == "en")
    }

    @Test func aMissingValueIsAnError() {
        #expect(throws: MessageError.missingValue(template: "en/verify_email.subject", name: "code")) {
            try MailTemplates().render("verify_email", locale: "en", values: ["app_name": "x", "expires_minutes": "1"])
        }
    }

    @Test(arguments: [("{{#link}}never closed", "{{#link}} is never closed"), ("{{/link}}", "{{/link}} closes no open block"),
                      ("{{bad name}}", "\"{{bad name}}\" is not a placeholder name (letters, digits, _)")])
    func malformedTemplatesAreReported(source: String, reason: String) {
        #expect(throws: MessageError.malformedTemplate("t", reason: reason)) { try Template(parsing: source, name: "t") }
    }

    @Test func unknownTemplate() {
        #expect(throws: MessageError.unknownTemplate("nope")) { try MailTemplates().render("nope", locale: "en", values: [:]) }
        #expect(throws: MessageError.unknownTemplate("../x")) { try MailTemplates().render("../x", locale: "en", values: [:]) }
    }

    /// Fails when Sources/Mail/EmbeddedTemplates.swift is stale: run scripts/embed-templates.
    @Test func embeddedTemplatesMatchTheFiles() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent("Config/templates").path
        var files: [String: String] = [:]
        for locale in try FileManager.default.contentsOfDirectory(atPath: directory) {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory + "/" + locale) {
                files["\(locale)/\(name)"] = try String(contentsOfFile: "\(directory)/\(locale)/\(name)", encoding: .utf8)
            }
        }
        #expect(files.keys.sorted() == EmbeddedTemplates.files.keys.sorted(), "run scripts/embed-templates")
        for (name, text) in files { #expect(EmbeddedTemplates.files[name] == text, "\(name) differs: run scripts/embed-templates") }
        #expect(files.count == 24)
    }
}
