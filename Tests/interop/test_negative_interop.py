"""What a real client sees when things go wrong: error pages, error redirects, replay and PKCE failures."""

from __future__ import annotations

import pytest
import requests

from flows import (PASSWORD, assert_code_callback, assert_oauth_error, authorize_params, check_token_response,
                   exchange_code, login_form, parse_page, query, random_value, sign_in, submit_login, unique_email)

pytestmark = pytest.mark.signin


@pytest.fixture
def setup(gatehouse, free_port):
    redirect_uri = f"http://127.0.0.1:{free_port}/callback"
    app = gatehouse.admin.create_app("Negative", "native", [redirect_uri])
    user = gatehouse.admin.create_user(unique_email("neg"), PASSWORD, name="Eve")
    return gatehouse, app, user, redirect_uri


def authorize_url(deployment, params: dict) -> str:
    return requests.Request("GET", deployment.url("authorize"), params=params).prepare().url


def assert_error_page(response: requests.Response, status: int = 400) -> None:
    assert response.status_code == status, f"{response.status_code} {response.headers} {response.text[:500]}"
    assert "Location" not in response.headers, f"must never redirect: {response.headers['Location']}"
    assert response.headers.get("Content-Type", "").startswith("text/html"), response.headers
    assert "code=" not in response.text


def signed_in_code(deployment, app, user, redirect_uri) -> tuple[str, str]:
    params, verifier = authorize_params(app["client_id"], redirect_uri)
    callback = sign_in(deployment.session(), authorize_url(deployment, params), deployment.issuer, user["email"],
                       PASSWORD)
    return assert_code_callback(callback, redirect_uri, params["state"], deployment.issuer), verifier


def test_disallowed_callback_gets_an_error_page_and_no_redirect(setup):
    deployment, app, _user, redirect_uri = setup
    for bad in ("https://evil.example/callback", redirect_uri + "x", redirect_uri + "?foo=bar",
                redirect_uri.replace("/callback", "/CALLBACK")):
        params, _ = authorize_params(app["client_id"], bad)
        assert_error_page(requests.get(authorize_url(deployment, params), allow_redirects=False, timeout=10))


def test_unknown_client_gets_an_error_page(setup):
    deployment, _app, _user, redirect_uri = setup
    params, _ = authorize_params("no-such-client", redirect_uri)
    assert_error_page(requests.get(authorize_url(deployment, params), allow_redirects=False, timeout=10))


def test_prompt_none_without_a_session_redirects_login_required(setup):
    deployment, app, _user, redirect_uri = setup
    params, _ = authorize_params(app["client_id"], redirect_uri, prompt="none")
    response = requests.get(authorize_url(deployment, params), allow_redirects=False, timeout=10)
    assert response.status_code == 302, response.text[:500]
    location = response.headers["Location"]
    assert location.split("?")[0] == redirect_uri, location
    values = query(location)
    assert values.get("error") == "login_required", values
    assert values.get("state") == params["state"], values
    assert values.get("iss") == deployment.issuer, values
    assert "code" not in values


def test_wrong_password_shows_the_form_again_with_an_alert(setup):
    deployment, app, user, redirect_uri = setup
    params, _ = authorize_params(app["client_id"], redirect_uri)
    browser = deployment.session()
    page = browser.get(authorize_url(deployment, params), allow_redirects=False, timeout=10)
    assert "gatehouse_tx" in browser.cookies, "over an http issuer the transaction cookie has no __Host- prefix"
    form = login_form(page.text, deployment.issuer)
    response = submit_login(browser, form, deployment.issuer, user["email"], PASSWORD + "!")
    assert response.status_code == 401, response.text[:500]
    assert "Location" not in response.headers
    parsed = parse_page(response.text)
    assert parsed.errors == ["Wrong email or password."], parsed.errors
    assert '<p class="error field-error" id="password-error" role="alert">Wrong email or password.</p>' in response.text
    login_form(response.text, deployment.issuer)  # the form is offered again
    assert "gatehouse_session" not in browser.cookies
    logs = deployment.idp.logs()  # every stderr line is JSON
    assert logs and PASSWORD not in deployment.idp.stderr_text(), "a password reached the logs"


def test_code_replay_is_invalid_grant_and_revokes_the_first_token(setup):
    deployment, app, _user, redirect_uri = setup
    code, verifier = signed_in_code(deployment, app, _user, redirect_uri)
    token_url = deployment.url("oauth/token")
    first = check_token_response(exchange_code(token_url, code, redirect_uri, app["client_id"], verifier))
    userinfo = deployment.url("userinfo")
    ok = requests.get(userinfo, headers={"Authorization": f"Bearer {first['access_token']}"}, timeout=10)
    assert ok.status_code == 200, ok.text

    replay = exchange_code(token_url, code, redirect_uri, app["client_id"], verifier)
    assert_oauth_error(replay, 400, "invalid_grant")
    assert "no-store" in replay.headers.get("Cache-Control", ""), replay.headers

    revoked = requests.get(userinfo, headers={"Authorization": f"Bearer {first['access_token']}"}, timeout=10)
    assert revoked.status_code == 401, revoked.text
    challenge = revoked.headers.get("WWW-Authenticate", "")
    assert challenge.startswith("Bearer") and 'error="invalid_token"' in challenge, challenge


def test_wrong_pkce_verifier_is_invalid_grant(setup):
    deployment, app, user, redirect_uri = setup
    code, verifier = signed_in_code(deployment, app, user, redirect_uri)
    token_url = deployment.url("oauth/token")
    assert_oauth_error(exchange_code(token_url, code, redirect_uri, app["client_id"], random_value()),
                       400, "invalid_grant")
    # Whether or not the code survived that attempt, a request without a verifier is never accepted.
    missing = requests.post(token_url, json={"grant_type": "authorization_code", "code": code,
                                             "redirect_uri": redirect_uri, "client_id": app["client_id"]},
                            timeout=10)
    assert missing.status_code == 400, missing.text
    assert missing.json().get("error") in ("invalid_grant", "invalid_request"), missing.text


def test_bad_bearer_token_at_userinfo(setup):
    deployment, *_ = setup
    for header in ({"Authorization": "Bearer not-a-token"}, {}):
        response = requests.get(deployment.url("userinfo"), headers=header, timeout=10)
        assert response.status_code == 401, response.text
        assert response.headers.get("WWW-Authenticate", "").startswith("Bearer"), response.headers
    bad = requests.get(deployment.url("userinfo"), headers={"Authorization": "Bearer not-a-token"}, timeout=10)
    assert 'error="invalid_token"' in bad.headers["WWW-Authenticate"], bad.headers


def test_redirect_uri_must_match_at_the_token_endpoint(setup):
    deployment, app, user, redirect_uri = setup
    code, verifier = signed_in_code(deployment, app, user, redirect_uri)
    other = redirect_uri.replace("/callback", "/elsewhere")
    assert_oauth_error(exchange_code(deployment.url("oauth/token"), code, other, app["client_id"], verifier),
                       400, "invalid_grant")
