"""Replays exactly what Auth0.swift 3.x sends, through nginx TLS, and applies every check the SDK applies.

See ../shared/docs/auth0-compat.md §0–§4: telemetry, JSON bodies, 43-character random values, the
custom-scheme callback without the port, callback parsing order, Credentials decoding, ID token rules.
"""

from __future__ import annotations

import json
import time
from urllib.parse import quote, urlencode, urlsplit, parse_qsl

import pytest
import requests
from joserfc import jws
from joserfc.jwk import RSAKey

from flows import (PASSWORD, absolute_location, b64url, b64url_decode, login_form, random_value, s256, sign_in,
                   submit_login, unique_email)

pytestmark = pytest.mark.signin

BUNDLE_ID = "com.example.app"
TELEMETRY = b64url(json.dumps({"name": "Auth0.swift", "version": "3.1.0",
                               "env": {"swift": "6.0", "iOS": "17.4"}}, separators=(",", ":")).encode())
SCOPE = "openid profile email offline_access"
LEEWAY = 60


def sdk_callback(issuer: str) -> str:
    """computeDefaultRedirectURL: {bundleId}://{host}{path}/ios/{bundleId}/callback (url.host: no port)."""
    parts = urlsplit(issuer)
    return f"{BUNDLE_ID}://{parts.hostname}{parts.path.rstrip('/')}/ios/{BUNDLE_ID}/callback"


def sdk_headers() -> dict[str, str]:
    return {"Auth0-Client": TELEMETRY, "Content-Type": "application/json", "Accept": "*/*"}


class SDKRequest:
    """buildAuthorizeURL: the values and the URL Auth0.swift's WebAuth opens."""

    def __init__(self, issuer: str, client_id: str, **extra: str) -> None:
        self.state, self.nonce, self.verifier = random_value(), random_value(), random_value()
        assert all(len(v) == 43 for v in (self.state, self.nonce, self.verifier))
        self.redirect_uri = sdk_callback(issuer)
        params = {"client_id": client_id, "response_type": "code", "redirect_uri": self.redirect_uri,
                  "state": self.state, "nonce": self.nonce, "scope": SCOPE,
                  "code_challenge": s256(self.verifier), "code_challenge_method": "S256",
                  "auth0Client": TELEMETRY, **extra}
        # Percent-encoding with %20 for spaces and %2B for '+', as URLComponents does.
        self.url = issuer + "authorize?" + urlencode(params, quote_via=quote, safe="")


def parse_callback(url: str, sent: SDKRequest) -> dict[str, str]:
    """LoginTransaction/OAuth2Grant: merge fragment and query (query wins), state first, then error, then code."""
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == sent.redirect_uri, url
    values = dict(parse_qsl(parts.fragment, keep_blank_values=True)) if parts.fragment else {}
    values.update(parse_qsl(parts.query, keep_blank_values=True))
    assert values.get("state") == sent.state, f"Invalid callback URL: state {values.get('state')!r} in {url}"
    return values


def exchange(issuer: str, verify, client_id: str, code: str, sent: SDKRequest) -> requests.Response:
    body = {"client_id": client_id, "grant_type": "authorization_code", "code": code,
            "code_verifier": sent.verifier, "redirect_uri": sent.redirect_uri}
    return requests.post(issuer + "oauth/token", data=json.dumps(body), headers=sdk_headers(), verify=verify,
                         timeout=10)


def decode_credentials(response: requests.Response) -> dict:
    """Credentials.swift: 200–300, JSON; keys may be missing, but a wrong type fails decoding."""
    assert 200 <= response.status_code <= 300, f"{response.status_code} {response.text[:500]}"
    body = response.json()
    assert isinstance(body, dict), body
    for name in ("access_token", "token_type", "id_token", "refresh_token", "scope", "recovery_code"):
        if name in body:
            assert isinstance(body[name], str), f"Credentials.{name} must be a string: {body[name]!r}"
    expires_in = body.get("expires_in")
    assert isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool), \
        f"expires_in must be a number (a missing one means refresh on every call): {expires_in!r}"
    assert expires_in > 0
    assert body.get("token_type") == "Bearer", body
    assert body.get("access_token"), body
    assert body.get("id_token"), "WebAuth requires an id_token"
    assert set(body["scope"].split()) >= {"openid"}, body["scope"]
    assert "," not in body["scope"], "scope is one space-separated string"
    return body


def validate_id_token(id_token: str, issuer: str, verify, client_id: str, nonce: str,
                      max_age: int | None = None) -> dict:
    """IDTokenValidator + IDTokenSignatureValidator + ClaimValidators, in the SDK's order."""
    header = json.loads(b64url_decode(id_token.split(".")[0]))
    assert header.get("alg") == "RS256", f"Auth0.swift accepts only RS256: {header}"
    assert header.get("kid"), f"the header must have a kid: {header}"
    # The SDK fetches B/.well-known/jwks.json on every validation and picks the key by kid.
    jwks = requests.get(issuer + ".well-known/jwks.json", headers={"Auth0-Client": TELEMETRY}, verify=verify,
                        timeout=10)
    assert 200 <= jwks.status_code <= 300, jwks.status_code
    matches = [k for k in jwks.json()["keys"] if k.get("kid") == header["kid"]]
    assert len(matches) == 1, f"no key (or several) with kid {header['kid']}"
    jwk = matches[0]
    assert jwk.get("kty") == "RSA" and jwk.get("alg") == "RS256", jwk
    assert jwk.get("use", "sig") == "sig", jwk
    assert b64url_decode(jwk["n"])[0] != 0, "n must not carry a leading zero byte"
    # PKCS#1 v1.5 with SHA-256 over the compact serialization.
    jws.deserialize_compact(id_token, RSAKey.import_key(jwk), algorithms=["RS256"])

    claims = json.loads(b64url_decode(id_token.split(".")[1]))
    now = time.time()
    assert claims.get("iss") == issuer, f"iss {claims.get('iss')!r} must equal {issuer!r} exactly"
    assert isinstance(claims.get("sub"), str) and claims["sub"], claims
    audience = claims.get("aud")
    if isinstance(audience, list):
        assert client_id in audience, claims
        if len(audience) > 1:
            assert claims.get("azp") == client_id, claims
    else:
        assert audience == client_id, claims
    exp = claims.get("exp")
    assert isinstance(exp, (int, float)) or (isinstance(exp, str) and exp.isdigit()), claims
    assert float(exp) + LEEWAY > now, claims
    assert "iat" in claims, claims
    assert claims.get("nonce") == nonce, claims
    if max_age is not None:
        assert isinstance(claims.get("auth_time"), (int, float)), claims
        assert claims["auth_time"] + max_age + LEEWAY >= now, claims
    return claims


def check_user_profile(profile: dict) -> None:
    """UserProfile.swift: sub required; standard claims with the right JSON types."""
    assert isinstance(profile.get("sub"), str) and profile["sub"], profile
    for name in ("name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "picture",
                 "profile", "website", "email", "gender", "birthdate", "zoneinfo", "locale", "phone_number",
                 "updated_at"):
        if name in profile:
            assert isinstance(profile[name], str), f"{name} must be a string for UserProfile: {profile[name]!r}"
    for name in ("email_verified", "phone_number_verified"):
        if name in profile:
            assert isinstance(profile[name], bool), (name, profile[name])
    if "address" in profile:
        assert isinstance(profile["address"], dict) and all(isinstance(v, str) for v in profile["address"].values())


def cookies_of(response: requests.Response) -> list[str]:
    return list(response.raw.headers.getlist("Set-Cookie"))


def assert_host_cookie(set_cookies: list[str], name: str) -> None:
    matching = [c for c in set_cookies if c.split("=", 1)[0].strip() == f"__Host-{name}"]
    assert matching, f"no __Host-{name} cookie in {set_cookies}"
    attributes = [a.strip().lower() for a in matching[0].split(";")[1:]]
    assert "secure" in attributes, matching[0]
    assert "path=/" in attributes, matching[0]
    assert not any(a.startswith("domain=") for a in attributes), matching[0]
    assert "httponly" in attributes, matching[0]
    assert not any(c.split("=", 1)[0].strip() == name for c in set_cookies), "no unprefixed cookie over https"


@pytest.fixture
def native_app(gatehouse_tls):
    redirect_uri = sdk_callback(gatehouse_tls.issuer)
    assert redirect_uri == f"{BUNDLE_ID}://127.0.0.1/ios/{BUNDLE_ID}/callback"
    https_uri = f"https://127.0.0.1/ios/{BUNDLE_ID}/callback"
    app = gatehouse_tls.admin.create_app("iOS app", "native", [redirect_uri, https_uri])
    user = gatehouse_tls.admin.create_user(unique_email("ios"), PASSWORD, name="Ada Lovelace")
    return app, user


def test_auth0_swift_login_replay(gatehouse_tls, native_app):
    deployment, (app, user) = gatehouse_tls, native_app
    issuer, verify = deployment.issuer, deployment.verify
    sent = SDKRequest(issuer, app["client_id"])
    browser = deployment.session()  # ASWebAuthenticationSession: a browser, no telemetry header

    page = browser.get(sent.url, allow_redirects=False, timeout=10)
    assert page.status_code == 200, f"{page.status_code} {page.text[:500]}"
    assert_host_cookie(cookies_of(page), "gatehouse_tx")
    form = login_form(page.text, issuer)
    posted = submit_login(browser, form, issuer, user["email"], PASSWORD)
    assert posted.status_code == 303, f"{posted.status_code} {posted.text[:500]}"
    assert_host_cookie(cookies_of(posted), "gatehouse_session")
    resume = browser.get(absolute_location(posted), allow_redirects=False, timeout=10)
    assert resume.status_code == 302, resume.text[:500]
    callback = resume.headers["Location"]
    assert callback.startswith(sent.redirect_uri + "?"), callback

    values = parse_callback(callback, sent)
    assert "error" not in values, values
    assert values.get("iss") == issuer, values
    code = values["code"]

    credentials = decode_credentials(exchange(issuer, verify, app["client_id"], code, sent))
    claims = validate_id_token(credentials["id_token"], issuer, verify, app["client_id"], sent.nonce)
    assert claims["sub"] == user["user_id"]
    check_user_profile(claims)  # CredentialsManager.userProfile() decodes the ID token body
    assert claims.get("email") == user["email"], claims

    profile = requests.get(issuer + "userinfo", verify=verify, timeout=10,
                           headers={"Authorization": f"{credentials['token_type']} {credentials['access_token']}",
                                    "Auth0-Client": TELEMETRY})
    assert 200 <= profile.status_code <= 300, profile.text
    check_user_profile(profile.json())
    assert profile.json()["sub"] == claims["sub"]

    # The audit log records the client address nginx saw, not the unix socket it came through.
    # (The daemon writes audit events in batches every 200 ms.)
    deadline = time.monotonic() + 3
    logins = []
    while not logins and time.monotonic() < deadline:
        logins = [event for event in deployment.admin("audit", "tail", "--json") if event["event"] == "login.succeeded"]
        time.sleep(0.1)
    assert logins and logins[-1]["ip"] == "127.0.0.1", logins


def test_auth0_swift_sso_with_max_age(gatehouse_tls, native_app):
    """A second WebAuth login in the same browser with max_age: no form, auth_time present and fresh."""
    deployment, (app, user) = gatehouse_tls, native_app
    issuer, browser = deployment.issuer, deployment.session()
    first = SDKRequest(issuer, app["client_id"])
    parse_callback(sign_in(browser, first.url, issuer, user["email"], PASSWORD), first)
    second = SDKRequest(issuer, app["client_id"], max_age="3600")
    straight = browser.get(second.url, allow_redirects=False, timeout=10)
    assert straight.status_code == 302, straight.text[:500]
    values = parse_callback(straight.headers["Location"], second)
    credentials = decode_credentials(exchange(issuer, deployment.verify, app["client_id"], values["code"], second))
    validate_id_token(credentials["id_token"], issuer, deployment.verify, app["client_id"], second.nonce,
                      max_age=3600)


def test_auth0_swift_cancel_carries_state(gatehouse_tls, native_app):
    """The SDK checks state before error: a cancelled login must echo state, or the app sees 'Invalid callback URL'."""
    deployment, (app, _user) = gatehouse_tls, native_app
    sent = SDKRequest(deployment.issuer, app["client_id"])
    browser = deployment.session()
    page = browser.get(sent.url, allow_redirects=False, timeout=10)
    form = login_form(page.text, deployment.issuer)
    cancelled = submit_login(browser, form, deployment.issuer, "", "", action="cancel")
    if cancelled.status_code == 303:
        cancelled = browser.get(absolute_location(cancelled), allow_redirects=False, timeout=10)
    assert cancelled.status_code == 302, f"{cancelled.status_code} {cancelled.text[:500]}"
    values = parse_callback(cancelled.headers["Location"], sent)
    assert values.get("error") == "access_denied", values
    assert values.get("iss") == deployment.issuer, values
    assert "code" not in values, values


def test_auth0_swift_token_errors_are_json(gatehouse_tls, native_app):
    """WebAuth reads error/error_description from a JSON body; a plain 'Unauthorized' would read as 'PKCE not allowed'."""
    deployment, (app, _user) = gatehouse_tls, native_app
    sent = SDKRequest(deployment.issuer, app["client_id"])
    response = exchange(deployment.issuer, deployment.verify, app["client_id"], "not-a-code", sent)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body.get("error") == "invalid_grant", body
    assert isinstance(body.get("error_description"), str) and body["error_description"] != "Unauthorized", body


def decode_sso_credentials(response: requests.Response) -> dict:
    """SSOCredentials.swift: access_token, issued_token_type and id_token are required strings, refresh_token an
    optional one, expires_in a number or a numeric string (anything else fails decoding)."""
    assert 200 <= response.status_code <= 300, f"{response.status_code} {response.text[:500]}"
    body = response.json()
    for name in ("access_token", "issued_token_type", "id_token"):
        assert isinstance(body.get(name), str) and body[name], f"SSOCredentials.{name} is required: {body!r}"
    if "refresh_token" in body:
        assert isinstance(body["refresh_token"], str), body
    expires_in = body.get("expires_in")
    assert (isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool)) or \
        (isinstance(expires_in, str) and expires_in.replace(".", "", 1).isdigit()), f"expires_in: {expires_in!r}"
    return body


def test_auth0_swift_sso_exchange_then_web_view(gatehouse_tls, native_app):
    """ssoExchange(withRefreshToken:) through nginx TLS, then a WKWebView with the documented cookie opening the
    web app's /authorize: no login page, the web app's code, the same user (README "Native to web")."""
    deployment, (app, user) = gatehouse_tls, native_app
    issuer, verify = deployment.issuer, deployment.verify
    deployment.admin("apps", "update", app["client_id"], "--allow-session-transfer", "on")
    web_callback = "https://127.0.0.1/web/callback"
    web = deployment.admin.create_app("Web part", "spa", [web_callback])
    deployment.admin("apps", "update", web["client_id"], "--accept-session-transfer", "cookie")

    sent = SDKRequest(issuer, app["client_id"])
    values = parse_callback(sign_in(deployment.session(), sent.url, issuer, user["email"], PASSWORD), sent)
    credentials = decode_credentials(exchange(issuer, verify, app["client_id"], values["code"], sent))

    # Auth0Authentication.ssoExchange: token() with client_id, plus these three; JSON; url.host for the audience.
    body = {"client_id": app["client_id"], "refresh_token": credentials["refresh_token"], "grant_type": "refresh_token",
            "audience": f"urn:{urlsplit(issuer).hostname}:session_transfer"}
    response = requests.post(issuer + "oauth/token", data=json.dumps(body), headers=sdk_headers(), verify=verify, timeout=10)
    sso = decode_sso_credentials(response)
    assert sso["issued_token_type"] == "urn:auth0:params:oauth:token-type:session_transfer_token", sso
    assert sso["refresh_token"] != credentials["refresh_token"], "rotation on: the successor comes back"
    claims = validate_id_token(sso["id_token"], issuer, verify, app["client_id"], nonce=None)
    assert claims["sub"] == user["user_id"]

    # The web view: HTTPCookie(.domain: issuer host, .path: "/", .name: auth0_session_transfer_token, .secure: true).
    web_view = deployment.session()
    web_view.cookies.set("auth0_session_transfer_token", sso["access_token"], domain=urlsplit(issuer).hostname, path="/",
                         secure=True)
    web_request = SDKRequest(issuer, web["client_id"])
    authorize_url = web_request.url.replace(quote(web_request.redirect_uri, safe=""), quote(web_callback, safe=""))
    answer = web_view.get(authorize_url, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, f"{answer.status_code} {answer.text[:300]}"
    assert answer.headers["Location"].startswith(web_callback + "?code="), answer.headers["Location"]
    assert_host_cookie(cookies_of(answer), "gatehouse_session")
    assert any(c.startswith("auth0_session_transfer_token=;") for c in cookies_of(answer)), cookies_of(answer)
    code = dict(parse_qsl(urlsplit(answer.headers["Location"]).query))["code"]
    tokens = requests.post(issuer + "oauth/token", verify=verify, timeout=10, headers=sdk_headers(), data=json.dumps({
        "client_id": web["client_id"], "grant_type": "authorization_code", "code": code,
        "code_verifier": web_request.verifier, "redirect_uri": web_callback}))
    web_claims = validate_id_token(decode_credentials(tokens)["id_token"], issuer, verify, web["client_id"], web_request.nonce)
    assert web_claims["sub"] == claims["sub"]
