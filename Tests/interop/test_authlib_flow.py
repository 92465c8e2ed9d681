"""Authorization code + PKCE with a real OAuth client library (authlib) through nginx TLS."""

from __future__ import annotations

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session

from flows import (PASSWORD, assert_code_callback, authorize_params, check_id_token, check_token_body,
                   exchange_code, fetch_jwks, query, random_value, sign_in, unique_email, unverified_header)

pytestmark = pytest.mark.signin

SCOPE = "openid profile email"


def authlib_client(deployment, app: dict, redirect_uri: str, auth_method: str) -> tuple[OAuth2Session, list]:
    """An authlib session for the app, trusting the deployment's certificate; records token responses."""
    client = OAuth2Session(app["client_id"], app.get("client_secret"), scope=SCOPE, redirect_uri=redirect_uri,
                           code_challenge_method="S256", token_endpoint_auth_method=auth_method)
    client.verify = deployment.verify
    client.trust_env = False  # REQUESTS_CA_BUNDLE would otherwise replace `verify`
    responses: list[requests.Response] = []
    client.hooks["response"].append(lambda response, *args, **kwargs: responses.append(response))
    return client, responses


def run_flow(deployment, browser: requests.Session, app: dict, user: dict, redirect_uri: str,
             auth_method: str, alg: str) -> dict:
    """One complete sign-in with authlib building the request and redeeming the code; returns the token."""
    issuer = deployment.issuer
    client, responses = authlib_client(deployment, app, redirect_uri, auth_method)
    verifier = random_value() + random_value()[:21]  # 64 characters
    nonce = random_value()
    url, state = client.create_authorization_url(deployment.url("authorize"), code_verifier=verifier, nonce=nonce)
    sent = query(url)
    assert sent["code_challenge_method"] == "S256" and sent["nonce"] == nonce, sent

    callback = sign_in(browser, url, issuer, user["email"], PASSWORD)
    assert_code_callback(callback, redirect_uri, state, issuer)

    token = client.fetch_token(deployment.url("oauth/token"), authorization_response=callback, state=state,
                               code_verifier=verifier)
    token_response = responses[-1]
    assert token_response.status_code == 200
    assert "no-store" in token_response.headers.get("Cache-Control", ""), token_response.headers
    body = token_response.json()
    check_token_body(body)
    assert token["access_token"] == body["access_token"]

    jwks = fetch_jwks(issuer, deployment.verify)
    claims = check_id_token(body["id_token"], jwks, alg=alg, issuer=issuer, client_id=app["client_id"],
                            user=user, nonce=nonce, scopes=set(SCOPE.split()))
    assert unverified_header(body["id_token"])["alg"] == alg
    return {"token": body, "claims": claims, "client": client}


def check_userinfo(deployment, access_token: str, user: dict) -> None:
    for method, scheme in (("GET", "Bearer"), ("POST", "bearer"), ("GET", "BEARER")):
        response = requests.request(method, deployment.url("userinfo"), verify=deployment.verify, timeout=10,
                                    headers={"Authorization": f"{scheme} {access_token}"})
        assert response.status_code == 200, (method, scheme, response.status_code, response.text)
        assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
        info = response.json()
        assert info.get("sub") == user["user_id"], info
        assert info.get("email") == user["email"], info
        assert info.get("name") == user["name"], info


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_native_app_pkce_flow_then_sso(gatehouse_tls, free_port, alg):
    deployment = gatehouse_tls
    redirect_uri = f"http://127.0.0.1:{free_port}/callback"
    app = deployment.admin.create_app(f"Native {alg}", "native", [redirect_uri],
                                      id_token_alg=None if alg == "RS256" else alg)
    assert not app.get("client_secret"), "native apps are public: no secret"
    user = deployment.admin.create_user(unique_email("native"), PASSWORD, name="Ada Lovelace")

    browser = deployment.session()
    first = run_flow(deployment, browser, app, user, redirect_uri, "none", alg)
    check_userinfo(deployment, first["token"]["access_token"], user)

    # A second app in the same browser: the session cookie signs in without the form (SSO).
    other_uri = f"http://127.0.0.1:{free_port}/other-callback"
    other = deployment.admin.create_app(f"Other {alg}", "native", [other_uri])
    client, responses = authlib_client(deployment, other, other_uri, "none")
    verifier, nonce = random_value(), random_value()
    url, state = client.create_authorization_url(deployment.url("authorize"), code_verifier=verifier, nonce=nonce)
    straight = browser.get(url, allow_redirects=False, timeout=10)
    assert straight.status_code == 302, f"SSO: expected 302 with a code, got {straight.status_code}: {straight.text[:500]}"
    callback = straight.headers["Location"]
    assert_code_callback(callback, other_uri, state, deployment.issuer)
    client.fetch_token(deployment.url("oauth/token"), authorization_response=callback, state=state,
                       code_verifier=verifier)
    body = responses[-1].json()
    claims = check_id_token(body["id_token"], fetch_jwks(deployment.issuer, deployment.verify), alg="RS256",
                            issuer=deployment.issuer, client_id=other["client_id"], user=user, nonce=nonce,
                            scopes=set(SCOPE.split()))
    assert claims["sid"] == first["claims"]["sid"], "SSO reuses the browser session"
    assert claims["auth_time"] == first["claims"]["auth_time"], "no new authentication happened"

    # A different browser (empty cookie jar) gets the login form again.
    fresh = deployment.session().get(url, allow_redirects=False, timeout=10)
    assert fresh.status_code == 200 and "login-form" in fresh.text


@pytest.mark.parametrize("auth_method, flag", [("client_secret_basic", "basic"), ("client_secret_post", "post")])
def test_regular_app_with_client_secret(gatehouse_tls, auth_method, flag):
    deployment = gatehouse_tls
    redirect_uri = "https://app.example.com/callback"
    app = deployment.admin.create_app(f"Regular {flag}", "regular", [redirect_uri], auth_method=flag)
    assert app.get("client_secret"), "regular apps are confidential"
    user = deployment.admin.create_user(unique_email("regular"), PASSWORD, name="Grace Hopper")
    result = run_flow(deployment, deployment.session(), app, user, redirect_uri, auth_method, "RS256")
    check_userinfo(deployment, result["token"]["access_token"], user)


def test_regular_app_rejects_a_missing_or_wrong_secret(gatehouse_tls):
    deployment = gatehouse_tls
    redirect_uri = "https://app.example.com/callback"
    app = deployment.admin.create_app("Regular strict", "regular", [redirect_uri], auth_method="basic")
    user = deployment.admin.create_user(unique_email("strict"), PASSWORD)
    browser = deployment.session()
    for secret in (None, app["client_secret"] + "x"):
        state = random_value()
        params, verifier = authorize_params(app["client_id"], redirect_uri, state=state)
        url = requests.Request("GET", deployment.url("authorize"), params=params).prepare().url
        if secret is None:
            callback = sign_in(browser, url, deployment.issuer, user["email"], PASSWORD)
        else:
            callback = browser.get(url, allow_redirects=False, timeout=10).headers["Location"]
        code = assert_code_callback(callback, redirect_uri, state, deployment.issuer)
        auth = None if secret is None else (app["client_id"], secret)
        response = exchange_code(deployment.url("oauth/token"), code, redirect_uri, app["client_id"], verifier,
                                 verify=deployment.verify, auth=auth)
        # RFC 6749 §5.2: 401 when the client tried the Authorization header, 400 or 401 when it sent nothing.
        assert response.status_code in ((400, 401) if secret is None else (401,)), \
            (secret, response.status_code, response.text)
        assert response.json().get("error") == "invalid_client", response.text
