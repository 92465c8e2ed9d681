"""response_mode=web_message in a real headless Chromium, the way auth0-spa-js uses it.

The app's page (served from an allowed loopback origin) frames `/authorize?prompt=none&
response_mode=web_message` in a hidden iframe and waits for `{type: "authorization_response"}`
from the issuer's origin, as auth0-spa-js's silent sign-in does; a popup login does the same with
`window.open`. A page on an origin that is not an Allowed Web Origin gets nothing, whether it names
its own origin or the real app's as redirect_uri. The app and the foreign page are on 127.0.0.1
like the issuer (other ports, so other origins but the same site), so the session cookie is sent to
the iframe and only the origin checks stand between the foreign page and a code.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from flows import PASSWORD, authorize_params, check_token_response, exchange_code, query, unique_email
from test_browser_login import chromium, type_like_a_person

pytestmark = pytest.mark.signin

# What auth0-spa-js does (its runIframe/runPopup): listen for messages, keep those from the issuer's
# origin whose data.type is "authorization_response". The page records every message it gets, so a
# test can also see that nothing at all arrived.
APP_PAGE = b"""<!doctype html>
<html lang="en"><meta charset="utf-8"><title>App</title>
<button id="login" type="button">Log in</button>
<script>
var q = new URLSearchParams(location.search);
window.__messages = [];
window.addEventListener("message", function (e) {
  window.__messages.push({origin: e.origin, data: e.data});
});
document.getElementById("login").addEventListener("click", function () {
  window.__popup = window.open(q.get("popup"), "auth0:authorize:popup", "width=400,height=600");
});
if (q.get("iframe")) {
  var frame = document.createElement("iframe");
  frame.setAttribute("width", "0");
  frame.setAttribute("height", "0");
  frame.style.display = "none";
  frame.src = q.get("iframe");
  document.body.appendChild(frame);
}
</script>
</html>
"""


class Site:
    """A static site on 127.0.0.1:<port> that serves the app page at every path."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(APP_PAGE)))
                self.end_headers()
                self.wfile.write(APP_PAGE)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def page(self, **params: str) -> str:
        return f"{self.origin}/?{urlencode(params)}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def silent_url(gatehouse, client_id: str, redirect_uri: str) -> tuple[str, dict, str]:
    params, verifier = authorize_params(client_id, redirect_uri, prompt="none", response_mode="web_message")
    return requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url, params, verifier


def issuer_origin(gatehouse) -> str:
    return gatehouse.issuer.rstrip("/")


def wait_for_answer(driver, origin: str, timeout: float = 15) -> dict:
    """The first authorization_response from `origin`, as auth0-spa-js would take it."""
    def answered(d):
        for message in d.execute_script("return window.__messages"):
            data = message.get("data") or {}
            if message.get("origin") == origin and isinstance(data, dict) and data.get("type") == "authorization_response":
                return data["response"]
        return None
    return WebDriverWait(driver, timeout).until(answered)


def messages_after(driver, seconds: float) -> list:
    time.sleep(seconds)
    return driver.execute_script("return window.__messages")


def sign_in_top_level(driver, gatehouse, client_id: str, redirect_uri: str, email: str) -> None:
    params, _ = authorize_params(client_id, redirect_uri)
    driver.get(requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url)
    fill_login_form(driver, email)
    WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(redirect_uri) and "code=" in d.current_url)


def fill_login_form(driver, email: str) -> None:
    field = WebDriverWait(driver, 15).until(expected_conditions.element_to_be_clickable(
        (By.CSS_SELECTOR, "form.login-form input[name=email]")))
    type_like_a_person(field, email)
    type_like_a_person(driver.find_element(By.CSS_SELECTOR, "form.login-form input[name=password]"), PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form.login-form button.button.primary").click()


@pytest.fixture
def sites():
    app, foreign = Site(), Site()
    yield app, foreign
    app.close()
    foreign.close()


def test_silent_sign_in_posts_the_code_to_the_allowed_origin_only(gatehouse, tmp_path, sites):
    app_site, foreign = sites
    app = gatehouse.admin.create_app("SPA", "spa", [app_site.origin], web_origins=[app_site.origin])
    user = gatehouse.admin.create_user(unique_email("spa"), PASSWORD)
    driver = chromium(tmp_path)
    try:
        sign_in_top_level(driver, gatehouse, app["client_id"], app_site.origin, user["email"])

        # 1. Signed in: the hidden iframe answers with a code for this state, which the token endpoint takes.
        url, params, verifier = silent_url(gatehouse, app["client_id"], app_site.origin)
        driver.get(app_site.page(iframe=url))
        response = wait_for_answer(driver, issuer_origin(gatehouse))
        assert response.get("state") == params["state"] and response.get("code"), response
        assert response.get("iss") == gatehouse.issuer and "error" not in response, response
        tokens = check_token_response(exchange_code(gatehouse.url("oauth/token"), response["code"], app_site.origin,
                                                    app["client_id"], verifier))
        assert tokens.get("id_token"), tokens

        # 2. A foreign origin (same site, another port) that frames the same request, naming the real
        #    app's redirect_uri: the page may not be framed there and would post only to the app's origin.
        url, _, _ = silent_url(gatehouse, app["client_id"], app_site.origin)
        driver.get(foreign.page(iframe=url))
        assert messages_after(driver, 4) == [], "a foreign origin received a web message"

        # 3. The foreign page names itself as redirect_uri: not a callback, not a web origin -> an error
        #    page that posts nothing (not even an error).
        url, _, _ = silent_url(gatehouse, app["client_id"], foreign.origin)
        driver.get(foreign.page(iframe=url))
        assert messages_after(driver, 3) == [], "a foreign origin received a web message"
        refused = [e for e in gatehouse.idp.logs() if e.get("event") == "authorize_refused"]
        assert refused and refused[-1].get("code") == "callback_not_allowed", refused[-1:]

        # 4. After logout the same silent request answers login_required, posted to the app.
        driver.get(gatehouse.url("v2/logout") + "?" + urlencode({"client_id": app["client_id"]}))
        url, params, _ = silent_url(gatehouse, app["client_id"], app_site.origin)
        driver.get(app_site.page(iframe=url))
        response = wait_for_answer(driver, issuer_origin(gatehouse))
        assert response.get("error") == "login_required" and response.get("state") == params["state"], response
        assert "code" not in response, response
    finally:
        driver.quit()


def test_callback_without_a_web_origin_is_refused_before_anything_is_posted(gatehouse, tmp_path, sites):
    """Auth0's rule: the redirect_uri's origin must be an Allowed Web Origin, a registered callback is not enough."""
    app_site, _ = sites
    app = gatehouse.admin.create_app("SPA without origins", "spa", [app_site.origin])
    url, _, _ = silent_url(gatehouse, app["client_id"], app_site.origin)
    page = requests.get(url, timeout=10, allow_redirects=False)
    assert page.status_code == 400 and "web_origin_not_allowed" in page.text, page.text[:500]
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    driver = chromium(tmp_path)
    try:
        driver.get(app_site.page(iframe=url))
        assert messages_after(driver, 3) == [], "an app without web origins received a web message"
    finally:
        driver.quit()


def test_popup_login_answers_the_opener(gatehouse, tmp_path, sites):
    """auth0-spa-js's loginWithPopup: the login page runs in a popup that must keep its opener."""
    app_site, _ = sites
    app = gatehouse.admin.create_app("SPA popup", "spa", [app_site.origin], web_origins=[app_site.origin])
    user = gatehouse.admin.create_user(unique_email("popup"), PASSWORD)
    params, verifier = authorize_params(app["client_id"], app_site.origin, response_mode="web_message")
    url = requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url
    driver = chromium(tmp_path)
    try:
        driver.get(app_site.page(popup=url))
        opener = driver.current_window_handle
        driver.find_element(By.ID, "login").click()
        WebDriverWait(driver, 10).until(lambda d: len(d.window_handles) == 2)
        driver.switch_to.window(next(h for h in driver.window_handles if h != opener))
        fill_login_form(driver, user["email"])
        driver.switch_to.window(opener)
        response = wait_for_answer(driver, issuer_origin(gatehouse))
        assert response.get("state") == params["state"] and response.get("code"), json.dumps(response)
        check_token_response(exchange_code(gatehouse.url("oauth/token"), response["code"], app_site.origin,
                                           app["client_id"], verifier))
    finally:
        driver.quit()
