"""F12 in a real browser: a cross-site page embedding the logout URLs cannot sign the user out.

/oidc/logout asks for a POST with a CSRF token; /v2/logout (Auth0's contract) signs out on a GET, and
what keeps a cross-site <img> from doing so is the session cookie's SameSite=Lax, which only the
browser enforces. The attacker's page is served from http://localhost:<port>/, another site than
the issuer's 127.0.0.1.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from flows import PASSWORD, authorize_params, sign_in, unique_email
from test_browser_login import chromium

pytestmark = pytest.mark.signin


def attacker_site(page: bytes) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def session_states(gatehouse, user_id: str) -> list[str]:
    return [row["state"] for row in gatehouse.admin("sessions", "list", "--user", user_id)]


def test_cross_site_images_of_the_logout_urls_do_not_sign_out(gatehouse, tmp_path):
    app = gatehouse.admin.create_app("Web", "native", ["http://127.0.0.1:9/callback"])
    user = gatehouse.admin.create_user(unique_email("csrf"), PASSWORD)
    jar = gatehouse.session()
    params, _ = authorize_params(app["client_id"], "http://127.0.0.1:9/callback")
    sign_in(jar, requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url, gatehouse.issuer,
            user["email"], PASSWORD)
    cookie = jar.cookies.get("gatehouse_session")
    assert cookie, jar.cookies
    assert session_states(gatehouse, user["user_id"]) == ["live"]

    page = (f'<!doctype html><img src="{gatehouse.url("v2/logout")}">'
            f'<img src="{gatehouse.url("oidc/logout")}?client_id={app["client_id"]}">').encode()
    site = attacker_site(page)
    driver = chromium(tmp_path)
    try:
        driver.get(gatehouse.url("healthz"))  # the cookie's site, to hand it the signed-in cookie
        driver.add_cookie({"name": "gatehouse_session", "value": cookie, "path": "/", "httpOnly": True, "sameSite": "Lax"})
        before = sum(1 for e in gatehouse.idp.logs() if e.get("event") == "access" and "logout" in str(e.get("path")))
        driver.get(f"http://localhost:{site.server_address[1]}/")
        deadline = time.monotonic() + 10
        fetched = 0
        while fetched < before + 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            fetched = sum(1 for e in gatehouse.idp.logs() if e.get("event") == "access" and "logout" in str(e.get("path")))
        assert fetched >= before + 2, "the browser never requested the logout URLs"
        assert session_states(gatehouse, user["user_id"]) == ["live"], "a cross-site image signed the user out"

        # Control: the same GET as a top-level navigation carries the cookie, and signs out.
        driver.get(gatehouse.url("v2/logout"))
        assert session_states(gatehouse, user["user_id"]) == ["ended"]
    finally:
        driver.quit()
        site.shutdown()
        site.server_close()
