"""OAuth/OIDC pieces the interop tests share: PKCE values, the login form, the sign-in dance, token checks."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlsplit

import requests
from joserfc import jwt
from joserfc.jwk import KeySet

PASSWORD = "Correct horse battery staple 42"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def random_value() -> str:
    """32 random bytes, unpadded base64url: 43 characters (how Auth0.swift makes state, nonce, verifier)."""
    return b64url(secrets.token_bytes(32))


def s256(verifier: str) -> str:
    return b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def unique_email(tag: str = "user") -> str:
    return f"{tag}-{secrets.token_hex(4)}@example.com"


def query(url: str) -> dict[str, str]:
    """A URL's query parameters, each expected once."""
    parsed = parse_qs(urlsplit(url).query, keep_blank_values=True)
    for name, values in parsed.items():
        assert len(values) == 1, f"{name} appears {len(values)} times in {url}"
    return {name: values[0] for name, values in parsed.items()}


def unverified_header(token: str) -> dict:
    return json.loads(b64url_decode(token.split(".")[0]))


def unverified_claims(token: str) -> dict:
    return json.loads(b64url_decode(token.split(".")[1]))


# --- the login page -------------------------------------------------------------------------

@dataclass
class Form:
    attrs: dict[str, str]
    inputs: list[dict[str, str]] = field(default_factory=list)
    buttons: list[dict[str, str]] = field(default_factory=list)

    @property
    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()

    def hidden(self) -> dict[str, str]:
        return {i["name"]: i.get("value", "") for i in self.inputs
                if (i.get("type") or "").lower() == "hidden" and i.get("name")}

    def input(self, name: str) -> dict[str, str] | None:
        return next((i for i in self.inputs if i.get("name") == name), None)

    def button(self, value: str) -> dict[str, str] | None:
        return next((b for b in self.buttons if b.get("name") == "action" and b.get("value") == value), None)


class PageParser(HTMLParser):
    """Collects every form with its inputs and buttons, and the text of `p.error` alerts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self.errors: list[str] = []
        self._form: Form | None = None
        self._error_depth = 0
        self._error_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = {name: (value if value is not None else "") for name, value in attrs}
        if tag == "form":
            self._form = Form(attributes)
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None:
            self._form.inputs.append(attributes)
        elif tag == "button" and self._form is not None:
            self._form.buttons.append(attributes)
        elif tag == "p" and "error" in (attributes.get("class") or "").split():
            self._error_depth = 1
            self._error_text = []
            self.error_role = attributes.get("role")

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "p" and self._error_depth:
            self._error_depth = 0
            self.errors.append(" ".join("".join(self._error_text).split()))

    def handle_data(self, data):
        if self._error_depth:
            self._error_text.append(data)


def parse_page(html: str) -> PageParser:
    parser = PageParser()
    parser.feed(html)
    parser.close()
    return parser


def login_form(html: str, issuer: str) -> Form:
    """The one login form, checked against the contract."""
    page = parse_page(html)
    forms = [f for f in page.forms if "login-form" in f.classes]
    assert len(forms) == 1, f"expected exactly one form.login-form, found {len(forms)}:\n{html[:3000]}"
    form = forms[0]
    assert form.attrs.get("method", "").lower() == "post", form.attrs
    assert form.attrs.get("action") == issuer + "login", form.attrs
    hidden = form.hidden()
    assert hidden.get("tx"), f"hidden tx missing: {form.inputs}"
    assert hidden.get("csrf_token"), f"hidden csrf_token missing: {form.inputs}"
    assert form.input("email") is not None, form.inputs
    password = form.input("password")
    assert password is not None and (password.get("type") or "").lower() == "password", form.inputs
    login = form.button("login")
    cancel = form.button("cancel")
    assert login is not None and {"button", "primary"} <= set(login.get("class", "").split()), form.buttons
    assert cancel is not None and {"button", "secondary"} <= set(cancel.get("class", "").split()), form.buttons
    return form


# --- the sign-in dance over HTTP --------------------------------------------------------------

def authorize_params(client_id: str, redirect_uri: str, *, scope: str = "openid profile email",
                     state: str | None = None, nonce: str | None = None, verifier: str | None = None,
                     **extra: str) -> tuple[dict[str, str], str]:
    """Authorization request parameters and the PKCE verifier."""
    verifier = verifier or random_value()
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": scope,
              "state": state or random_value(), "nonce": nonce or random_value(),
              "code_challenge": s256(verifier), "code_challenge_method": "S256", **extra}
    return params, verifier


def absolute_location(response: requests.Response) -> str:
    location = response.headers.get("Location")
    assert location, f"{response.status_code} without Location: {response.text[:500]}"
    return urljoin(response.url, location)


def open_login_page(browser: requests.Session, authorize_url: str, issuer: str,
                    headers: dict | None = None) -> tuple[requests.Response, Form]:
    page = browser.get(authorize_url, allow_redirects=False, timeout=10, headers=headers)
    assert page.status_code == 200, f"GET authorize: {page.status_code} {page.headers} {page.text[:1000]}"
    assert page.headers.get("Content-Type", "").startswith("text/html"), page.headers
    return page, login_form(page.text, issuer)


def submit_login(browser: requests.Session, form: Form, issuer: str, email: str, password: str,
                 action: str = "login") -> requests.Response:
    fields = dict(form.hidden())
    fields.update({"email": email, "password": password, "action": action})
    return browser.post(form.attrs["action"], data=fields, allow_redirects=False, timeout=10)


def sign_in(browser: requests.Session, authorize_url: str, issuer: str, email: str, password: str,
            headers: dict | None = None) -> str:
    """Login page → POST credentials → 303 resume → 302 callback. Returns the callback URL (not followed)."""
    _, form = open_login_page(browser, authorize_url, issuer, headers)
    posted = submit_login(browser, form, issuer, email, password)
    assert posted.status_code == 303, f"POST login: {posted.status_code} {posted.text[:1000]}"
    resume = absolute_location(posted)
    assert resume.startswith(issuer + "authorize/resume?"), resume
    assert query(resume).get("tx"), resume
    return follow_resume(browser, resume)


def follow_resume(browser: requests.Session, resume: str) -> str:
    final = browser.get(resume, allow_redirects=False, timeout=10)
    assert final.status_code == 302, f"GET resume: {final.status_code} {final.text[:1000]}"
    return absolute_location(final)


def assert_code_callback(callback: str, redirect_uri: str, state: str, issuer: str) -> str:
    """The success redirect: the registered URI with code, state and iss (RFC 9207). Returns the code."""
    assert callback.split("?")[0] == redirect_uri, callback
    params = query(callback)
    assert "error" not in params, params
    assert params.get("state") == state, params
    assert params.get("iss") == issuer, params
    assert params.get("code"), params
    return params["code"]


def exchange_code(token_url: str, code: str, redirect_uri: str, client_id: str, verifier: str, *,
                  verify: str | bool = True, as_json: bool = False, auth=None, extra: dict | None = None,
                  headers: dict | None = None) -> requests.Response:
    body = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
            "client_id": client_id, "code_verifier": verifier, **(extra or {})}
    if as_json:
        return requests.post(token_url, json=body, auth=auth, verify=verify, timeout=10, headers=headers)
    return requests.post(token_url, data=body, auth=auth, verify=verify, timeout=10, headers=headers)


def assert_oauth_error(response: requests.Response, status: int, error: str) -> dict:
    assert response.status_code == status, f"{response.status_code} {response.text[:500]}"
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    body = response.json()
    assert body.get("error") == error, body
    assert isinstance(body.get("error_description", ""), str), body
    return body


# --- tokens ---------------------------------------------------------------------------------

def fetch_jwks(issuer: str, verify: str | bool = True) -> dict:
    response = requests.get(issuer + ".well-known/jwks.json", verify=verify, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def verify_jwt(token: str, jwks: dict, alg: str):
    """Verifies the signature with joserfc (key picked by kid); returns the decoded token."""
    header = unverified_header(token)
    assert header.get("alg") == alg, header
    assert header.get("kid"), header
    assert header["kid"] in {k["kid"] for k in jwks["keys"]}, (header, [k["kid"] for k in jwks["keys"]])
    return jwt.decode(token, KeySet.import_key_set(jwks), algorithms=[alg])


def check_token_response(response: requests.Response) -> dict:
    assert response.status_code == 200, f"{response.status_code} {response.text[:1000]}"
    assert "no-store" in response.headers.get("Cache-Control", ""), response.headers
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    body = response.json()
    check_token_body(body)
    return body


def check_token_body(body: dict) -> None:
    for name in ("access_token", "id_token", "token_type", "scope"):
        assert isinstance(body.get(name), str) and body[name], (name, body)
    assert body["token_type"] == "Bearer", body
    assert isinstance(body.get("expires_in"), (int, float)) and not isinstance(body["expires_in"], bool), body
    assert body["expires_in"] > 0, body
    check_opaque_access_token(body["access_token"])


def check_opaque_access_token(token: str) -> None:
    """Without an audience the access token is opaque (README, Auth0.swift compatibility): `at_` and
    base64url, no JWS parts, long enough for a header, a nonce, a payload and a tag."""
    assert token.startswith("at_") and "." not in token, token
    assert len(b64url_decode(token[3:])) > 49, token


def check_id_token(id_token: str, jwks: dict, *, alg: str, issuer: str, client_id: str, user: dict,
                   nonce: str, scopes: set[str]) -> dict:
    token = verify_jwt(id_token, jwks, alg)
    claims = token.claims
    now = time.time()
    assert claims.get("iss") == issuer, claims
    assert claims.get("sub") == user["user_id"], claims
    audience = claims.get("aud")
    assert audience == client_id or (isinstance(audience, list) and client_id in audience), claims
    assert claims.get("azp", client_id) == client_id, claims
    if isinstance(audience, list) and len(audience) > 1:
        assert claims.get("azp") == client_id, claims
    for name in ("exp", "iat", "auth_time"):
        assert isinstance(claims.get(name), (int, float)), (name, claims)
    assert claims["exp"] > now > claims["iat"] - 60, claims
    assert claims["auth_time"] <= now + 60, claims
    assert claims.get("nonce") == nonce, claims
    assert isinstance(claims.get("sid"), str) and claims["sid"], claims
    if "email" in scopes:
        assert claims.get("email") == user["email"], claims
        assert isinstance(claims.get("email_verified"), bool), claims
    if "profile" in scopes and user.get("name"):
        assert claims.get("name") == user["name"], claims
    return claims
