import Testing
@testable import Server

@Suite struct StaticAssetsTests {
    @Test(arguments: [
        ("assets/gatehouse.css", "text/css; charset=utf-8"),
        ("/assets/form-post.js", "text/javascript; charset=utf-8"),
    ])
    func servesWithTypeCachingAndStrongETag(_ path: String, _ type: String) throws {
        let response = try #require(StaticAssets.response(for: path))
        #expect(response.status == 200)
        #expect(!response.body.isEmpty)
        #expect(response.headers["Content-Type"] == type)
        #expect(response.headers["Cache-Control"] == "public, max-age=86400")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        let etag = try #require(response.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
        let again = try #require(StaticAssets.response(for: path, ifNoneMatch: etag))
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.headers["ETag"] == etag)
        #expect(StaticAssets.response(for: path, ifNoneMatch: "\"other\"")?.status == 200)
    }

    @Test func unknownPathsAreNil() {
        #expect(StaticAssets.response(for: "assets/other.css") == nil)
        #expect(StaticAssets.response(for: "assets/../assets/gatehouse.css") == nil)
    }

    @Test func etagsDifferPerAsset() {
        #expect(StaticAssets.response(for: StaticAssets.stylesheetPath)?.headers["ETag"]
                != StaticAssets.response(for: StaticAssets.formPostScriptPath)?.headers["ETag"])
    }

    @Test func stylesheetHasDarkModeTouchTargetsAndNoThirdPartyResources() {
        let css = StaticAssets.stylesheet
        #expect(css.contains("prefers-color-scheme: dark"))
        #expect(css.contains("min-height: 48px"))
        #expect(css.contains("system-ui"))
        #expect(!css.contains("url("))
        #expect(!css.contains("@import"))
    }

    @Test func formPostScriptSubmitsTheFirstForm() {
        #expect(StaticAssets.formPostScript.contains("document.forms[0]"))
        #expect(StaticAssets.formPostScript.contains("HTMLFormElement.prototype.submit.call(form)"))
    }
}
