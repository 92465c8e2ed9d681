"""Replays Auth0.swift's and Auth0.Android's account calls exactly as they send them
(../shared/docs/auth0-compat.md §1: JSON bodies, the `Auth0-Client` header, default connection)
against the real daemon with a real SMTP server, and checks what the SDKs check: the fields they
decode and the error codes and names their helpers match (`isPasswordNotStrongEnough`,
`isPasswordLeaked`, `isInvalidCredentials`, `isVerificationRequired`, …)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
import requests

import harness
from flows import unique_email
from smtp_inbox import Mailbox, code_in
from test_auth0_swift_replay import sdk_headers

CONNECTION = "Username-Password-Authentication"
PASSWORDLESS = "http://auth0.com/oauth/grant-type/passwordless/otp"
REALM = "http://auth0.com/oauth/grant-type/password-realm"
STRONG = "Tr0ubadour-horse"


@pytest.fixture
def mailbox():
    with Mailbox() as box:
        yield box


@pytest.fixture
def idp(bin_dir, tmp_path, mailbox):
    daemon = harness.start_tcp_idp(bin_dir, tmp_path, IDP_SMTP_URL=mailbox.url, IDP_EMAIL_FROM="no-reply@example.com")
    harness.wait_http_ok(daemon.url("healthz"))
    try:
        yield daemon
    finally:
        assert daemon.stop() == 0


@pytest.fixture
def app(idp):
    admin = harness.Admin(idp.bin_dir, idp)
    created = admin.create_app("SDK app", "native", ["com.example.app://127.0.0.1/ios/com.example.app/callback"],
                               grants=["authorization_code", "refresh_token", REALM, PASSWORDLESS])
    admin("apps", "update", created["client_id"], "--signup", "on", "--require-email-verification", "on")
    return created["client_id"]


def call(idp, path: str, body: dict, token: str | None = None, method: str = "POST") -> requests.Response:
    headers = sdk_headers()
    if token:
        headers["Authorization"] = "Bearer " + token
    return requests.request(method, idp.url(path), json=body if method != "GET" else None, headers=headers, timeout=10)


def test_signup_as_the_sdks_send_it(idp, app, mailbox):
    email = unique_email("sdk")
    created = call(idp, "dbconnections/signup", {"email": email, "password": STRONG, "connection": CONNECTION, "client_id": app,
                                                 "user_metadata": {"first_name": "Ada"}})
    assert created.status_code == 200, created.text
    assert created.json()["email"] == email and created.json()["email_verified"] is False
    refusals = [
        ({"password": "short"}, "invalid_password", "PasswordStrengthError"),
        ({"password": "Password123"}, "password_leaked", None),
        ({"email": email}, "invalid_signup", None),
        ({"connection": "Other-DB"}, "bad.connection", None),
    ]
    for change, code, name in refusals:
        body = {"email": unique_email("sdk"), "password": STRONG, "connection": CONNECTION, "client_id": app} | change
        refused = call(idp, "dbconnections/signup", body)
        assert refused.status_code == 400 and refused.json()["code"] == code, refused.text
        assert isinstance(refused.json()["description"], str)
        if name:
            assert refused.json()["name"] == name
    # Auth0.swift's isVerificationRequired before the address is confirmed, then tokens after the code.
    login = {"grant_type": REALM, "username": email, "password": STRONG, "realm": CONNECTION, "client_id": app,
             "scope": "openid profile email offline_access"}
    assert call(idp, "oauth/token", login).json()["error"] == "requires_verification"
    ticket = code_in(mailbox.wait_for(email))  # the code; the link is the other way in
    assert len(ticket) == 6


def test_reset_and_passwordless_as_the_sdks_send_them(idp, app, mailbox):
    email = unique_email("reset")
    admin = harness.Admin(idp.bin_dir, idp)
    admin.create_user(email, STRONG)
    for address in (email, unique_email("nobody")):
        sent = call(idp, "dbconnections/change_password", {"email": address, "connection": CONNECTION, "client_id": app})
        assert sent.status_code == 200 and sent.text == "We've just sent you an email to reset your password."
    reset_mail = mailbox.wait_for(email)
    assert "reset-password?ticket=" in reset_mail.get_body(preferencelist=("plain",)).get_content()

    started = call(idp, "passwordless/start", {"email": email, "connection": "email", "send": "code", "client_id": app})
    assert started.status_code == 200, started.text
    code = code_in(mailbox.wait_for(email, count=2))
    wrong = call(idp, "oauth/token", {"grant_type": PASSWORDLESS, "realm": "email", "username": email, "otp": "000000" if code != "000000" else "111111",
                                      "client_id": app, "scope": "openid profile email offline_access"})
    assert wrong.status_code == 400 and wrong.json() == {"error": "invalid_grant", "error_description": "Wrong email or verification code."}
    tokens = call(idp, "oauth/token", {"grant_type": PASSWORDLESS, "realm": "email", "username": email, "otp": code, "client_id": app,
                                       "scope": "openid profile email offline_access"})
    assert tokens.status_code == 200, tokens.text
    assert {"access_token", "id_token", "refresh_token", "expires_in", "scope"} <= tokens.json().keys()


def test_the_users_api_of_auth0_swift_2(idp, app):
    email = unique_email("profile")
    admin = harness.Admin(idp.bin_dir, idp)
    user = admin.create_user(email, STRONG)
    tokens = call(idp, "oauth/token", {"grant_type": REALM, "username": email, "password": STRONG, "realm": CONNECTION, "client_id": app,
                                       "audience": idp.issuer + "api/v2/",
                                       "scope": "openid read:current_user update:current_user_metadata"})
    assert tokens.status_code == 200, tokens.text
    token = tokens.json()["access_token"]
    path = "api/v2/users/" + quote(user["user_id"], safe="")
    profile = call(idp, path, {}, token=token, method="GET")
    assert profile.status_code == 200 and profile.json()["user_id"] == user["user_id"], profile.text
    patched = call(idp, path, {"user_metadata": {"nickname_ja": "エイダ"}}, token=token, method="PATCH")
    assert patched.status_code == 200 and patched.json()["user_metadata"] == {"nickname_ja": "エイダ"}, patched.text
    other = call(idp, "api/v2/users/" + quote("auth0|someoneelse", safe=""), {}, token=token, method="GET")
    assert other.status_code == 403 and other.json()["errorCode"] == "insufficient_scope"
