"""Discovery and JWKS through a real nginx terminating TLS, checked with joserfc and Auth0.swift's JWK rules."""

from __future__ import annotations

import time

import requests
from joserfc.jwk import ECKey, JWKRegistry, KeySet, RSAKey

from flows import b64url_decode

PRIVATE_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"}


def discovery(deployment) -> dict:
    response = deployment.get(".well-known/openid-configuration")
    assert response.status_code == 200, response.text
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    return response.json()


def test_discovery_through_nginx_carries_the_https_issuer_everywhere(gatehouse_tls):
    issuer = gatehouse_tls.issuer
    assert issuer.startswith("https://127.0.0.1:") and issuer.endswith("/")
    document = discovery(gatehouse_tls)
    assert document["issuer"] == issuer
    expected = {"authorization_endpoint": "authorize", "token_endpoint": "oauth/token",
                "userinfo_endpoint": "userinfo", "jwks_uri": ".well-known/jwks.json"}
    for name, path in expected.items():
        assert document.get(name) == issuer + path, (name, document.get(name))
    urls = {name: value for name, value in document.items() if isinstance(value, str) and "://" in value}
    assert len(urls) >= 5, urls
    for name, value in urls.items():
        assert value.startswith(issuer), f"{name} = {value} does not start with {issuer}"
    assert "http://" not in gatehouse_tls.get(".well-known/openid-configuration").text
    assert "S256" in document["code_challenge_methods_supported"]
    assert "RS256" in document["id_token_signing_alg_values_supported"]
    assert "code" in document["response_types_supported"]
    assert document.get("authorization_response_iss_parameter_supported") is True
    # Every URL the document names actually resolves through the TLS front (jwks_uri at least).
    jwks = requests.get(document["jwks_uri"], verify=gatehouse_tls.verify, timeout=10)
    assert jwks.status_code == 200 and jwks.json()["keys"]


def test_discovery_ignores_a_forged_host_header(gatehouse_tls):
    """nginx forwards Host; URLs must still come from the configured issuer, never from the request."""
    response = gatehouse_tls.get(".well-known/openid-configuration",
                                 headers={"Host": "evil.example", "X-Forwarded-Host": "evil.example",
                                          "X-Forwarded-Proto": "http"})
    assert response.status_code == 200, response.text
    assert "evil.example" not in response.text
    assert response.json()["issuer"] == gatehouse_tls.issuer


def check_auth0_swift_jwk(jwk: dict) -> None:
    """Auth0.swift's rules for a JWK it will verify with (auth0-compat §4), plus basic hygiene."""
    kid = jwk.get("kid")
    assert isinstance(kid, str) and kid, f"kid missing: {jwk}"
    assert jwk.get("kty") in ("RSA", "EC"), jwk
    assert jwk.get("alg"), f"{kid}: alg missing (Auth0.swift force-unwraps it and crashes)"
    assert jwk.get("use") == "sig", f"{kid}: use must be sig: {jwk}"
    assert not PRIVATE_MEMBERS & set(jwk), f"{kid}: private members published: {set(jwk) & PRIVATE_MEMBERS}"
    if "key_ops" in jwk:
        assert jwk["key_ops"] == ["verify"], jwk
    key = JWKRegistry.import_key(jwk)
    assert key.kid == kid
    assert not key.is_private, kid
    if jwk["kty"] == "RSA":
        assert jwk["alg"] == "RS256", jwk
        assert isinstance(key, RSAKey)
        modulus = b64url_decode(jwk["n"])
        assert modulus[0] != 0, f"{kid}: n has a leading zero byte (Auth0.swift prepends its own)"
        bits = int.from_bytes(modulus, "big").bit_length()
        assert 2048 <= bits <= 4096, f"{kid}: {bits}-bit RSA key"
        assert bits % 8 == 0 and len(modulus) * 8 == bits, f"{kid}: n is not minimal ({len(modulus)} bytes, {bits} bits)"
        assert b64url_decode(jwk["e"]) == b"\x01\x00\x01", jwk["e"]
        assert "=" not in jwk["n"] + jwk["e"], "JWK numbers are unpadded base64url"
    else:
        assert jwk["alg"] == "ES256", jwk
        assert isinstance(key, ECKey)
        assert jwk.get("crv") == "P-256", jwk
        assert len(b64url_decode(jwk["x"])) == 32 and len(b64url_decode(jwk["y"])) == 32, jwk


def test_jwks_through_nginx_satisfies_joserfc_and_auth0_swift(gatehouse_tls):
    response = gatehouse_tls.get(".well-known/jwks.json")
    assert response.status_code == 200, response.text
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    jwks = response.json()
    assert set(jwks) == {"keys"}, jwks.keys()
    keys = jwks["keys"]
    for jwk in keys:
        check_auth0_swift_jwk(jwk)
    kids = [k["kid"] for k in keys]
    assert len(kids) == len(set(kids)), f"duplicate kids: {kids}"
    algorithms = {k["alg"] for k in keys}
    assert {"RS256", "ES256"} <= algorithms, algorithms
    key_set = KeySet.import_key_set(jwks)
    assert len(key_set.keys) == len(keys)


def test_jwks_etag_revalidates_through_nginx(gatehouse_tls):
    first = gatehouse_tls.get(".well-known/jwks.json")
    assert first.status_code == 200
    etag = first.headers.get("ETag")
    assert etag, first.headers
    assert "max-age=" in first.headers.get("Cache-Control", ""), first.headers
    again = gatehouse_tls.get(".well-known/jwks.json", headers={"If-None-Match": etag})
    assert again.status_code == 304, (again.status_code, again.text[:200])
    assert again.content == b""
    assert again.headers.get("ETag") == etag
    other = gatehouse_tls.get(".well-known/jwks.json", headers={"If-None-Match": '"not-the-current-tag"'})
    assert other.status_code == 200 and other.json() == first.json()


def test_keys_rotate_reaches_the_jwks_through_nginx_within_5s(gatehouse_tls):
    before = gatehouse_tls.get(".well-known/jwks.json")
    old_etag = before.headers["ETag"]
    old_kids = {k["kid"] for k in before.json()["keys"]}

    rotated = gatehouse_tls.admin("keys", "rotate")
    assert isinstance(rotated, list) and {r["alg"] for r in rotated} == {"RS256", "ES256"}, rotated
    new_kids = {r["kid"] for r in rotated}
    assert not new_kids & old_kids
    started = time.monotonic()

    deadline = started + 5.0
    seen: set[str] = set()
    while time.monotonic() < deadline:
        response = gatehouse_tls.get(".well-known/jwks.json")
        seen = {k["kid"] for k in response.json()["keys"]}
        if new_kids <= seen:
            break
        time.sleep(0.1)
    elapsed = time.monotonic() - started
    assert new_kids <= seen, f"new kids {new_kids} not in the JWKS after {elapsed:.1f}s: {seen}"
    assert old_kids <= seen, "rotated-out keys must stay published for tokens they signed"
    assert response.headers.get("ETag") != old_etag
    assert gatehouse_tls.get(".well-known/jwks.json", headers={"If-None-Match": old_etag}).status_code == 200
    for jwk in response.json()["keys"]:
        check_auth0_swift_jwk(jwk)

    listed = gatehouse_tls.admin("keys", "list")
    status = {k["kid"]: k["status"] for k in listed}
    assert all(status[kid] == "active" for kid in new_kids), listed
    assert all(status[kid] == "retired" for kid in old_kids), listed


def test_health_and_logs_through_nginx(gatehouse_tls):
    for path in ("healthz", "readyz"):
        response = gatehouse_tls.get(path)
        assert response.status_code == 200, (path, response.text)
    gatehouse_tls.get("healthz")
    logs = gatehouse_tls.idp.logs()
    started = [entry for entry in logs if "started" in entry.values()]
    assert started, logs[:5]
    assert gatehouse_tls.issuer in gatehouse_tls.idp.banner
