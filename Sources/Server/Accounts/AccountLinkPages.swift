import HTTP
import OIDC

/// The pages emailed links open: `reset-password?ticket=…` and `verify-email?ticket=…`. They work
/// in any browser — the mail app's own, another one — with no cookie from the sign-in that sent
/// them, and once: the ticket is the only credential. Opening a link changes nothing (mail
/// scanners fetch links); the button on the page does.
struct AccountLinkPages: Sendable {
    let services: Services
    let selfService: SelfService

    func resetForm(_ request: HTTPRequest) -> HTTPResponse {
        let t = language(request)
        let ticket = Self.ticket(request) ?? ""
        do throws(AccountError) {
            guard let email = try selfService.resetLinkEmail(ticket) else { return expired(t) }
            return resetPage(t, ticket: ticket, email: email, error: nil, status: 200)
        } catch {
            return message(t, title: "link_page.expired_title", text: "error.unavailable", status: error.status)
        }
    }

    func resetSubmit(_ request: HTTPRequest) -> HTTPResponse {
        let t = language(request)
        let form = Self.form(request)
        let ticket = form["ticket"] ?? ""
        var context = RequestContext(request)
        defer { services.record(context) }
        do throws(AccountError) {
            _ = try selfService.resetPassword(linkToken: ticket, newPassword: form["password"] ?? "", context: &context)
            return message(t, title: "link_page.reset_done_title", text: "link_page.reset_done", status: 200)
        } catch {
            if error.code == "invalid_grant" { return expired(t) }
            if error.status >= 500 { return message(t, title: "link_page.expired_title", text: "error.unavailable", status: error.status) }
            guard let email = (try? selfService.resetLinkEmail(ticket)) ?? nil else { return expired(t) }
            let key = LoginMessages.forRefusal(error, policy: selfService.passwords.policy).key
            return resetPage(t, ticket: ticket, email: email, error: key, status: error.status)
        }
    }

    func verifyForm(_ request: HTTPRequest) -> HTTPResponse {
        let t = language(request)
        let ticket = Self.ticket(request) ?? ""
        var body = "<h1>\(HTML.escape(t("link_page.verify_title")))</h1>\n"
        body += "<form method=\"post\" action=\"\(HTML.escape(services.issuer.endpoint(SelfService.verifyPath)))\">\n"
        body += PageLayout.hidden("ticket", ticket)
        body += "<div class=\"actions\"><button type=\"submit\" class=\"button primary\">\(HTML.escape(t("link_page.verify_button")))</button></div>\n"
        body += "</form>\n"
        return page(t, title: t("link_page.verify_title"), body: body, status: 200)
    }

    func verifySubmit(_ request: HTTPRequest) -> HTTPResponse {
        let t = language(request)
        var context = RequestContext(request)
        defer { services.record(context) }
        do throws(AccountError) {
            _ = try selfService.verifyEmail(linkToken: Self.form(request)["ticket"] ?? "", context: &context)
            return message(t, title: "link_page.verify_done_title", text: "link_page.verify_done", status: 200)
        } catch {
            return error.status >= 500 ? message(t, title: "link_page.expired_title", text: "error.unavailable", status: error.status)
                : expired(t)
        }
    }

    // MARK: - rendering

    private func resetPage(_ t: PageText.Language, ticket: String, email: String, error: String?, status: Int) -> HTTPResponse {
        var body = "<h1>\(HTML.escape(t("link_page.reset_title")))</h1>\n"
        body += "<p class=\"subtitle\">\(HTML.escape(t("link_page.reset_subtitle", ["email": email])))</p>\n"
        body += "<form method=\"post\" action=\"\(HTML.escape(services.issuer.endpoint(SelfService.resetPath)))\">\n"
        body += PageLayout.hidden("ticket", ticket)
        // The address, for password managers to file the new password under.
        body += "<input type=\"email\" name=\"username\" value=\"\(HTML.escape(email))\" autocomplete=\"username\" hidden readonly>\n"
        body += "<label for=\"password\">\(HTML.escape(t("field.new_password")))</label>\n"
        body += "<input type=\"password\" name=\"password\" id=\"password\" autocomplete=\"new-password\" required autofocus"
        body += error == nil ? ">\n" : " aria-invalid=\"true\" aria-describedby=\"password-error\">\n"
        if let error { body += "<p class=\"error field-error\" id=\"password-error\" role=\"alert\">\(HTML.escape(t(error)))</p>\n" }
        body += "<div class=\"actions\"><button type=\"submit\" class=\"button primary\">\(HTML.escape(t("button.reset")))</button></div>\n"
        body += "</form>\n"
        return page(t, title: t("link_page.reset_title"), body: body, status: status)
    }

    private func expired(_ t: PageText.Language) -> HTTPResponse {
        message(t, title: "link_page.expired_title", text: "link_page.expired", status: 410)
    }

    private func message(_ t: PageText.Language, title: String, text: String, status: Int) -> HTTPResponse {
        page(t, title: t(title), body: "<h1>\(HTML.escape(t(title)))</h1>\n<p>\(HTML.escape(t(text)))</p>\n", status: status)
    }

    private func page(_ t: PageText.Language, title: String, body: String, status: Int) -> HTTPResponse {
        var response = PageLayout.response(PageLayout.document(title: title, issuer: services.issuer, body: body, language: t.tag),
                                           status: status)
        SecurityHeaders.noStore(&response)
        // The ticket is in the URL: never send it on as a referrer.
        response.headers.set("Referrer-Policy", "no-referrer")
        return response
    }

    private func language(_ request: HTTPRequest) -> PageText.Language {
        services.pageText.language(LocalePreference.ordered(uiLocales: request.queryItems?.first { $0.0 == "ui_locales" }?.1,
                                                            acceptLanguage: request.headers["Accept-Language"]))
    }

    private static func ticket(_ request: HTTPRequest) -> String? {
        request.queryItems?.first { $0.0 == "ticket" }?.1
    }

    private static func form(_ request: HTTPRequest) -> [String: String] {
        guard let text = String(validating: request.body, as: UTF8.self), let pairs = try? FormCodec.decode(text) else { return [:] }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }
}
