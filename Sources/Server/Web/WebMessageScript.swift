/// `assets/web-message.js`: posts the page's authorization response to the window that opened
/// it (popup login) or framed it (silent sign-in), as auth0-spa-js expects (auth0-compat.md §11).
///
/// The target origin is the page's `data-target-origin`, one exact origin the server checked
/// (`WebMessageOrigin`); the script never posts to `*`. The response travels as hidden inputs,
/// so the page needs no inline script and its CSP stays `script-src 'self'`.
enum WebMessageScript {
    static let text = """
    (function () {
      "use strict";
      function post() {
        var form = document.getElementById("authorization-response");
        if (!form) { return; }
        var origin = form.getAttribute("data-target-origin");
        var target = window.opener || (window.parent !== window ? window.parent : null);
        if (!origin || origin === "*" || !target) { return; }
        var response = {};
        var fields = form.querySelectorAll("input[type=hidden]");
        for (var i = 0; i < fields.length; i++) { response[fields[i].name] = fields[i].value; }
        target.postMessage({ type: "authorization_response", response: response }, origin);
      }
      if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", post);
      } else {
        post();
      }
    })();

    """
}
