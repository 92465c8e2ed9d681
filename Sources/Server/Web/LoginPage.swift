import HTTP
import OIDC
import Settings

/// The sign-in page served by `{issuer}authorize` and `{issuer}login`, in each of its views
/// (`LoginView`: password, signup, the code steps, reset), in the user's language. Its markup is a
/// contract with browser and conformance tests: one form posting `tx`, `csrf_token` and the
/// pressed button's `action`; labelled fields with autofill hints; an error next to its field.
enum LoginPage {
    /// The password view with the given texts (tests and the simplest callers).
    static func render(appName: String, issuer: Issuer, transactionID: String, csrfToken: String,
                       email: String? = nil, errorMessage: String? = nil, status: Int = 200,
                       redirectURI: String? = nil) -> HTTPResponse {
        let screen = LoginScreen(transactionID: transactionID, csrfToken: csrfToken, appName: appName, email: email,
                                 errorMessage: errorMessage, redirectURI: redirectURI ?? "")
        return render(screen, issuer: issuer, status: status)
    }

    /// The flow's login screen; a new or resealed transaction's cookie is set with it.
    static func render(_ screen: LoginScreen, issuer: Issuer, cookies: CookieSpec, status: Int = 200, texts: PageText = .shipped) -> HTTPResponse {
        var response = render(screen, issuer: issuer, status: status, texts: texts)
        if let maxAge = screen.newTransactionMaxAge, let sealed = screen.transactionCookie {
            for cookie in cookies.setTransaction(sealed, maxAge: maxAge) { response.headers.add("Set-Cookie", cookie) }
        }
        return response
    }

    static func render(_ screen: LoginScreen, issuer: Issuer, status: Int, texts: PageText = .shipped) -> HTTPResponse {
        let t = texts.language(screen.locales)
        let view = LoginForm(screen: screen, t: t, loginURL: issuer.endpoint("login"))
        let branding = Branding(logoURL: screen.logoURL, accentColor: screen.accentColor)
        var body = branding.logoMarkup
        body += "<h1>\(HTML.escape(view.title))</h1>\n<p class=\"subtitle\">\(HTML.escape(view.subtitle))</p>\n"
        if let notice = screen.notice { body += "<p class=\"notice\" role=\"status\">\(HTML.escape(t(notice, ["email": view.email])))</p>\n" }
        if screen.errorField == nil { body += PageLayout.errorParagraph(screen.errorMessage.map { t($0) }) }
        body += view.connectionButtons()
        body += "<form method=\"post\" action=\"\(HTML.escape(issuer.endpoint("login")))\" class=\"login-form\">\n"
        body += PageLayout.hidden("tx", screen.transactionID)
        body += PageLayout.hidden("csrf_token", screen.csrfToken)
        body += view.fields()
        body += "<div class=\"actions\">\n" + view.buttons() + "</div>\n</form>\n"
        body += view.links()
        let html = PageLayout.document(title: view.documentTitle, issuer: issuer, body: body, language: t.tag, style: branding.style)
        let formAction = WebOrigin.cspSource(forAction: screen.redirectURI).map { [$0] } ?? []
        return PageLayout.response(html, status: status, formAction: formAction, keepsOpener: screen.responseMode == .webMessage,
                                   images: branding.imageSources, styleHashes: branding.styleHashes)
    }
}

/// One view's texts, fields and buttons.
private struct LoginForm {
    let screen: LoginScreen
    let t: PageText.Language
    let loginURL: String

    /// The address the view is about (code steps), else what the user typed.
    var email: String {
        switch screen.view {
        case .verifyEmail(let email), .resetPassword(let email), .passwordlessCode(let email): email
        default: screen.email ?? ""
        }
    }

    var title: String {
        switch screen.view {
        case .password: t("login.title")
        case .signup: t("signup.title")
        case .verifyEmail: t("verify.title")
        case .forgotPassword: t("forgot.title")
        case .resetPassword: t("reset.title")
        case .passwordlessEmail, .passwordlessCode: t("passwordless.title")
        }
    }

    /// The window title names the app: "Sign in to Notes".
    var documentTitle: String {
        switch screen.view {
        case .password: t("login.document_title", ["app": screen.appName])
        default: title + " – " + screen.appName
        }
    }

    var subtitle: String {
        let values = ["app": screen.appName, "email": email]
        return switch screen.view {
        case .password: t("login.subtitle", values)
        case .signup: t("signup.subtitle", values)
        case .verifyEmail: t("verify.subtitle", values)
        case .forgotPassword: t("forgot.subtitle", values)
        case .resetPassword: t("reset.subtitle", values)
        case .passwordlessEmail: t("passwordless.subtitle", values)
        case .passwordlessCode: t("passwordless.code_subtitle", values)
        }
    }

    func fields() -> String {
        switch screen.view {
        case .password:
            // The first empty field gets the focus: the password once the email is known.
            let hasEmail = !(screen.email ?? "").isEmpty
            return emailField(autocomplete: "username", focus: !hasEmail) + passwordField(new: false, focus: hasEmail)
        case .signup:
            return emailField(autocomplete: "email", focus: (screen.email ?? "").isEmpty || screen.errorField == "email")
                + passwordField(new: true, focus: !(screen.email ?? "").isEmpty && screen.errorField != "email")
        case .forgotPassword, .passwordlessEmail:
            return emailField(autocomplete: "email", focus: true)
        case .verifyEmail, .passwordlessCode:
            return PageLayout.hidden("email", email) + codeField()
        case .resetPassword:
            return PageLayout.hidden("email", email) + codeField() + passwordField(new: true, focus: false)
        }
    }

    func buttons() -> String {
        let (action, label): (String, String) = switch screen.view {
        case .password: ("login", t("button.continue"))
        case .signup: ("signup", t("button.create_account"))
        case .verifyEmail: ("verify_email", t("button.verify"))
        case .forgotPassword: ("reset_request", t("button.send_code"))
        case .resetPassword: ("reset_password", t("button.reset"))
        case .passwordlessEmail: ("passwordless_start", t("button.send_code"))
        case .passwordlessCode: ("passwordless_verify", t("button.continue"))
        }
        var html = button(action, label, primary: true)
        if case .verifyEmail = screen.view { html += button("resend_code", t("button.resend"), primary: false) }
        html += button("cancel", t("button.cancel"), primary: false)
        return html
    }

    /// The application's upstream connections above the password form (password and signup views):
    /// one form whose buttons post `action=connection:NAME`, then an "or" divider.
    func connectionButtons() -> String {
        guard !screen.offers.connections.isEmpty else { return "" }
        switch screen.view {
        case .password, .signup: break
        default: return ""
        }
        var html = "<form method=\"post\" action=\"\(HTML.escape(loginURL))\" class=\"connections\">\n"
        html += PageLayout.hidden("tx", screen.transactionID) + PageLayout.hidden("csrf_token", screen.csrfToken)
        for offer in screen.offers.connections {
            html += ConnectionButton(offer: offer, t: t).markup
        }
        html += "</form>\n<p class=\"divider\"><span>\(HTML.escape(t("login.or")))</span></p>\n"
        return html
    }

    /// The other views, as buttons of the same form (they carry the transaction and the typed email).
    func links() -> String {
        var items: [(String, String)] = []
        switch screen.view {
        case .password:
            if screen.offers.passwordReset { items.append(("show_forgot", t("link.forgot"))) }
            if screen.offers.passwordless { items.append(("show_passwordless", t("link.passwordless"))) }
            if screen.offers.signup { items.append(("show_signup", t("link.sign_up"))) }
        case .signup:
            items.append(("show_login", t("link.sign_in")))
        default:
            items.append(("show_login", t("link.back")))
        }
        guard !items.isEmpty else { return "" }
        var html = "<form method=\"post\" action=\"\(HTML.escape(loginURL))\" class=\"links\">\n"
        html += PageLayout.hidden("tx", screen.transactionID) + PageLayout.hidden("csrf_token", screen.csrfToken)
        if !email.isEmpty { html += PageLayout.hidden("email", email) }
        for (action, label) in items {
            html += "<button type=\"submit\" name=\"action\" value=\"\(action)\" class=\"link\">\(HTML.escape(label))</button>\n"
        }
        return html + "</form>\n"
    }

    private func button(_ action: String, _ label: String, primary: Bool) -> String {
        let kind = primary ? "primary" : "secondary"
        let novalidate = primary ? "" : " formnovalidate"
        return "<button type=\"submit\" name=\"action\" value=\"\(action)\" class=\"button \(kind)\"\(novalidate)>\(HTML.escape(label))</button>\n"
    }

    private func emailField(autocomplete: String, focus: Bool) -> String {
        let value = (screen.email ?? "").isEmpty ? "" : " value=\"\(HTML.escape(screen.email ?? ""))\""
        return label("email", t("field.email"))
            + "<input type=\"email\" name=\"email\" id=\"email\" autocomplete=\"\(autocomplete)\" required\(focus ? " autofocus" : "")"
            + "\(value)\(invalid("email"))>\n" + fieldError("email")
    }

    private func passwordField(new: Bool, focus: Bool) -> String {
        let focused = focus || screen.errorField == "password"
        return label("password", t(new ? "field.new_password" : "field.password"))
            + "<input type=\"password\" name=\"password\" id=\"password\" autocomplete=\"\(new ? "new-password" : "current-password")\""
            + " required\(focused ? " autofocus" : "")\(invalid("password"))>\n" + fieldError("password")
    }

    private func codeField() -> String {
        label("code", t("field.code"))
            + "<input type=\"text\" name=\"code\" id=\"code\" autocomplete=\"one-time-code\" inputmode=\"numeric\" pattern=\"[0-9 ]*\""
            + " maxlength=\"9\" required autofocus aria-describedby=\"code-hint\(screen.errorField == "code" ? " code-error" : "")\""
            + "\(screen.errorField == "code" ? " aria-invalid=\"true\"" : "")>\n"
            + "<p class=\"hint\" id=\"code-hint\">\(HTML.escape(t("hint.code")))</p>\n" + fieldError("code")
    }

    private func label(_ field: String, _ text: String) -> String {
        "<label for=\"\(field)\">\(HTML.escape(text))</label>\n"
    }

    private func invalid(_ field: String) -> String {
        screen.errorField == field ? " aria-invalid=\"true\" aria-describedby=\"\(field)-error\"" : ""
    }

    private func fieldError(_ field: String) -> String {
        guard screen.errorField == field, let message = screen.errorMessage else { return "" }
        return "<p class=\"error field-error\" id=\"\(field)-error\" role=\"alert\">\(HTML.escape(t(message)))</p>\n"
    }
}
