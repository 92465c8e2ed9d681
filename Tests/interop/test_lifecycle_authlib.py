"""Token lifecycle with a real OAuth client library (authlib) through nginx TLS: refresh rotation
and reuse detection, revocation (RFC 7009), introspection (RFC 7662), client credentials, and
logout — tokens verified with joserfc against our JWKS."""

from __future__ import annotations

import time
import urllib.parse

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session

from flows import PASSWORD, assert_code_callback, fetch_jwks, query, random_value, sign_in, unique_email, verify_jwt
from authlib.integrations.base_client.errors import OAuthError

pytestmark = pytest.mark.signin

SCOPE = "openid profile email offline_access"
INVALID_REFRESH = {"error": "invalid_grant", "error_description": "Unknown or invalid refresh token."}


def session_for(deployment, app: dict, redirect_uri: str | None, auth_method: str, scope: str = SCOPE) -> OAuth2Session:
    client = OAuth2Session(app["client_id"], app.get("client_secret"), scope=scope, redirect_uri=redirect_uri,
                           code_challenge_method="S256", token_endpoint_auth_method=auth_method)
    client.verify = deployment.verify
    client.trust_env = False
    return client


def signed_in(deployment, app: dict, user: dict, redirect_uri: str, auth_method: str = "none",
              browser: requests.Session | None = None) -> tuple[OAuth2Session, dict, requests.Session]:
    """Authorization code + PKCE with authlib; returns the client, its token and the browser."""
    client = session_for(deployment, app, redirect_uri, auth_method)
    verifier = random_value() + random_value()[:21]
    url, state = client.create_authorization_url(deployment.url("authorize"), code_verifier=verifier, nonce=random_value())
    browser = browser or deployment.session()
    callback = sign_in(browser, url, deployment.issuer, user["email"], PASSWORD)
    assert_code_callback(callback, redirect_uri, state, deployment.issuer)
    token = client.fetch_token(deployment.url("oauth/token"), authorization_response=callback, state=state,
                               code_verifier=verifier)
    assert token.get("refresh_token"), token
    return client, token, browser


def native_app(deployment, free_port: int, reuse_interval: int = 0) -> tuple[dict, dict, str]:
    redirect_uri = f"http://127.0.0.1:{free_port}/callback"
    app = deployment.admin.create_app("Lifecycle native", "native", [redirect_uri], logout_urls=[redirect_uri])
    deployment.admin("apps", "update", app["client_id"], "--refresh-reuse-interval", str(reuse_interval))
    user = deployment.admin.create_user(unique_email("lifecycle"), PASSWORD, name="Barbara Liskov")
    return app, user, redirect_uri


def userinfo_status(deployment, access_token: str) -> int:
    return requests.get(deployment.url("userinfo"), verify=deployment.verify, timeout=10,
                        headers={"Authorization": f"Bearer {access_token}"}).status_code


def test_refresh_rotates_and_reuse_revokes_the_family(gatehouse_tls, free_port):
    deployment = gatehouse_tls
    app, user, redirect_uri = native_app(deployment, free_port)
    client, first, _ = signed_in(deployment, app, user, redirect_uri)

    second = client.refresh_token(deployment.url("oauth/token"), refresh_token=first["refresh_token"])
    assert second["refresh_token"] != first["refresh_token"], "rotation issues a new refresh token"
    assert isinstance(second["expires_in"], int) and second["id_token"], second
    jwks = fetch_jwks(deployment.issuer, deployment.verify)
    old_claims = verify_jwt(first["id_token"], jwks, "RS256").claims
    new_claims = verify_jwt(second["id_token"], jwks, "RS256").claims
    assert new_claims["sub"] == old_claims["sub"] == user["user_id"]
    assert new_claims["auth_time"] == old_claims["auth_time"], "auth_time of the original login"
    assert "nonce" not in new_claims
    assert userinfo_status(deployment, second["access_token"]) == 200

    # Presenting the rotated-out token again is reuse: 400 with Auth0's exact body, family revoked.
    reused = requests.post(deployment.url("oauth/token"), verify=deployment.verify, timeout=10,
                           json={"grant_type": "refresh_token", "client_id": app["client_id"],
                                 "refresh_token": first["refresh_token"]})
    assert reused.status_code == 400 and reused.json() == INVALID_REFRESH, reused.text
    newest = requests.post(deployment.url("oauth/token"), verify=deployment.verify, timeout=10,
                           json={"grant_type": "refresh_token", "client_id": app["client_id"],
                                 "refresh_token": second["refresh_token"]})
    assert newest.status_code == 400 and newest.json() == INVALID_REFRESH, newest.text
    assert userinfo_status(deployment, second["access_token"]) == 401


def test_revocation_kills_the_family_and_its_access_tokens(gatehouse_tls, free_port):
    deployment = gatehouse_tls
    app, user, redirect_uri = native_app(deployment, free_port)
    client, token, _ = signed_in(deployment, app, user, redirect_uri)
    assert userinfo_status(deployment, token["access_token"]) == 200

    response = client.revoke_token(deployment.url("oauth/revoke"), token=token["refresh_token"],
                                   token_type_hint="refresh_token")
    assert response.status_code == 200 and response.content == b"", response.text
    assert userinfo_status(deployment, token["access_token"]) == 401
    refreshed = requests.post(deployment.url("oauth/token"), verify=deployment.verify, timeout=10,
                              data={"grant_type": "refresh_token", "client_id": app["client_id"],
                                    "refresh_token": token["refresh_token"]})
    assert refreshed.status_code == 400 and refreshed.json() == INVALID_REFRESH
    # Unknown and already-revoked tokens still answer 200 (no oracle).
    assert client.revoke_token(deployment.url("oauth/revoke"), token="not-a-token").status_code == 200
    assert client.revoke_token(deployment.url("oauth/revoke"), token=token["refresh_token"]).status_code == 200


def test_revoking_the_opaque_access_token_revokes_its_grant(gatehouse_tls, free_port):
    """No audience: the access token is opaque (`at_…`); revoking it does what revoking an access
    token does (its grant, so the refresh token too), and the other node-independent checks hold."""
    deployment = gatehouse_tls
    app, user, redirect_uri = native_app(deployment, free_port)
    client, token, _ = signed_in(deployment, app, user, redirect_uri)
    assert token["access_token"].startswith("at_") and "." not in token["access_token"], token
    assert token["token_type"] == "Bearer" and token["expires_in"] == 86400, token
    refreshed = client.refresh_token(deployment.url("oauth/token"), refresh_token=token["refresh_token"])
    assert refreshed["access_token"].startswith("at_") and refreshed["access_token"] != token["access_token"]
    assert userinfo_status(deployment, refreshed["access_token"]) == 200

    response = client.revoke_token(deployment.url("oauth/revoke"), token=token["access_token"],
                                   token_type_hint="access_token")
    assert response.status_code == 200 and response.content == b"", response.text
    assert userinfo_status(deployment, token["access_token"]) == 401
    assert userinfo_status(deployment, refreshed["access_token"]) == 401
    dead = requests.post(deployment.url("oauth/token"), verify=deployment.verify, timeout=10,
                         data={"grant_type": "refresh_token", "client_id": app["client_id"],
                               "refresh_token": refreshed["refresh_token"]})
    assert dead.status_code == 400 and dead.json() == INVALID_REFRESH, dead.text


def test_introspection_for_a_confidential_client(gatehouse_tls):
    deployment = gatehouse_tls
    redirect_uri = "https://web.example.com/callback"
    app = deployment.admin.create_app("Lifecycle web", "regular", [redirect_uri], auth_method="basic")
    user = deployment.admin.create_user(unique_email("introspect"), PASSWORD)
    client, token, _ = signed_in(deployment, app, user, redirect_uri, auth_method="client_secret_basic")

    active = client.introspect_token(deployment.url("oauth/introspect"), token=token["access_token"]).json()
    assert active["active"] is True and active["sub"] == user["user_id"] and active["client_id"] == app["client_id"], active
    assert "openid" in active["scope"].split(), active
    refresh = client.introspect_token(deployment.url("oauth/introspect"), token=token["refresh_token"]).json()
    assert refresh["active"] is True, refresh

    client.revoke_token(deployment.url("oauth/revoke"), token=token["refresh_token"])
    inactive = client.introspect_token(deployment.url("oauth/introspect"), token=token["access_token"]).json()
    assert inactive == {"active": False}, inactive


def test_client_credentials_for_a_machine_app(gatehouse_tls):
    deployment = gatehouse_tls
    api = "https://api.lifecycle.example"
    deployment.admin("apis", "create", "--identifier", api, "--name", "Lifecycle API", "--scopes", "read:items,write:items")
    app = deployment.admin("apps", "create", "--name", "Lifecycle worker", "--type", "m2m")
    deployment.admin("apps", "grant", app["client_id"], "--api", api, "--scopes", "read:items")
    # A scope outside the client grant refuses the whole request (403 access_denied), as Auth0 does.
    greedy = session_for(deployment, app, None, "client_secret_basic", scope="read:items write:items")
    try:
        greedy.fetch_token(deployment.url("oauth/token"), grant_type="client_credentials", audience=api)
        raise AssertionError("a scope outside the grant was issued")
    except OAuthError as error:
        assert error.error == "access_denied", error
        assert error.description == "Client has not been granted scopes: write:items", error

    client = session_for(deployment, app, None, "client_secret_basic", scope="read:items")
    token = client.fetch_token(deployment.url("oauth/token"), grant_type="client_credentials", audience=api)
    assert token["scope"] == "read:items"
    assert "refresh_token" not in token and "id_token" not in token, token
    claims = verify_jwt(token["access_token"], fetch_jwks(deployment.issuer, deployment.verify), "RS256").claims
    assert claims["aud"] == api and claims["sub"] == app["client_id"] and claims["client_id"] == app["client_id"], claims
    assert claims["exp"] > time.time()

    denied = requests.post(deployment.url("oauth/token"), verify=deployment.verify, timeout=10,
                           auth=(app["client_id"], app["client_secret"]),
                           data={"grant_type": "client_credentials", "audience": "https://not-granted.example"})
    assert denied.status_code == 403 and denied.json()["error"] == "access_denied", denied.text


def test_logout_ends_the_session_and_returns_to_the_app(gatehouse_tls, free_port):
    deployment = gatehouse_tls
    app, user, redirect_uri = native_app(deployment, free_port)
    client, token, browser = signed_in(deployment, app, user, redirect_uri)

    # Auth0's /v2/logout, exactly as Auth0.swift opens it; the returnTo query is kept.
    return_to = redirect_uri + "?from=logout"
    logout = browser.get(deployment.url("v2/logout") + "?" + urllib.parse.urlencode(
        {"returnTo": return_to, "client_id": app["client_id"]}) + "&federated", allow_redirects=False, timeout=10)
    assert logout.status_code == 302 and logout.headers["Location"] == return_to, (logout.status_code, logout.headers)

    # The browser session is gone: prompt=none now answers login_required.
    url, state = session_for(deployment, app, redirect_uri, "none").create_authorization_url(
        deployment.url("authorize"), code_verifier=random_value() + random_value(), prompt="none")
    silent = browser.get(url, allow_redirects=False, timeout=10)
    assert silent.status_code == 302
    assert query(silent.headers["Location"]).get("error") == "login_required", silent.headers["Location"]

    # RP-initiated logout with a valid id_token_hint redirects at once, carrying state.
    _, again, browser = signed_in(deployment, app, user, redirect_uri, browser=browser)
    rp = browser.get(deployment.url("oidc/logout") + "?" + urllib.parse.urlencode(
        {"id_token_hint": again["id_token"], "post_logout_redirect_uri": redirect_uri, "state": "bye"}),
        allow_redirects=False, timeout=10)
    assert rp.status_code == 302, (rp.status_code, rp.text[:300])
    assert query(rp.headers["Location"]).get("state") == "bye", rp.headers["Location"]
