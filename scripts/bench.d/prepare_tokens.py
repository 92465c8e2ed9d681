#!/usr/bin/env python3
"""Prepares real tokens for scripts/bench against a running idp: apps, a user, one login,
then many codes through single sign-on (no password hashing per token) exchanged for
refresh and access tokens. Writes one token per line into OUT_DIR/<pool>.txt and the ids
wrk needs into OUT_DIR/env.sh.

Usage: prepare_tokens.py BASE_URL BIN_DIR OUT_DIR [COUNT]
"""
import base64
import hashlib
import html.parser
import json
import os
import secrets
import subprocess
import sys
import urllib.parse

import requests

base, bin_dir, out_dir = sys.argv[1].rstrip("/") + "/", sys.argv[2], sys.argv[3]
count = int(sys.argv[4]) if len(sys.argv) > 4 else 400
callback = "http://127.0.0.1:9/callback"


def admin(*args, stdin=""):
    done = subprocess.run([os.path.join(bin_dir, "idp-admin"), *args, "--json"], input=stdin, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


class Form(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("type") == "hidden":
            self.fields[attrs["name"]] = attrs.get("value", "")


def pkce():
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_url(client_id, challenge):
    query = urllib.parse.urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": callback,
                                    "scope": "openid profile email offline_access", "state": secrets.token_urlsafe(8),
                                    "nonce": secrets.token_urlsafe(8), "code_challenge": challenge,
                                    "code_challenge_method": "S256"})
    return base + "authorize?" + query


def code_from(response):
    return urllib.parse.parse_qs(urllib.parse.urlparse(response.headers["Location"]).query)["code"][0]


apps = {alg: admin("apps", "create", "--name", f"bench {alg}", "--type", "native", "--callbacks", callback,
                   "--id-token-alg", alg, "--refresh-reuse-interval", "0")["client_id"] for alg in ("RS256", "ES256")}
def create_once(*args, stdin=""):
    """Creates a user or an API; a later round of the same bench (scripts/bench cluster) uses the first round's."""
    try:
        admin(*args, stdin=stdin)
    except subprocess.CalledProcessError as error:
        if "exists" not in (error.stderr or "") + (error.stdout or ""):
            raise


create_once("users", "create", "--email", "bench@example.com", "--password-stdin", stdin="Bench password 123\n")
browser = requests.Session()
browser.trust_env = False
verifier, challenge = pkce()
page = browser.get(authorize_url(apps["RS256"], challenge))
form = Form()
form.feed(page.text)
posted = browser.post(base + "login", data={**form.fields, "email": "bench@example.com", "password": "Bench password 123",
                                            "action": "login"}, allow_redirects=False)
resumed = browser.get(posted.headers["Location"], allow_redirects=False)
assert resumed.status_code == 302, resumed.text

pools = {"refresh_RS256": [], "refresh_ES256": [], "access": []}
for index in range(count):
    alg = "RS256" if index % 2 == 0 else "ES256"
    verifier, challenge = pkce()
    sso = browser.get(authorize_url(apps[alg], challenge), allow_redirects=False)
    assert sso.status_code == 302, sso.text
    tokens = requests.post(base + "oauth/token", json={"grant_type": "authorization_code", "client_id": apps[alg],
                                                        "code": code_from(sso), "code_verifier": verifier,
                                                        "redirect_uri": callback}).json()
    pools["refresh_" + alg].append(tokens["refresh_token"])
    pools["access"].append(tokens["access_token"])

os.makedirs(out_dir, exist_ok=True)
for name, tokens in pools.items():
    with open(os.path.join(out_dir, name + ".txt"), "w") as file:
        file.write("\n".join(tokens) + "\n")

# An m2m app with an API, for client_credentials.
create_once("apis", "create", "--identifier", "https://api.bench.example", "--name", "Bench API", "--scopes", "read,write")
m2m = admin("apps", "create", "--name", "bench m2m", "--type", "m2m")
admin("apps", "grant", m2m["client_id"], "--api", "https://api.bench.example", "--scopes", "read")
with open(os.path.join(out_dir, "env.sh"), "w") as file:
    file.write(f"RS256_CLIENT={apps['RS256']}\nES256_CLIENT={apps['ES256']}\n")
    basic = base64.b64encode(f"{m2m['client_id']}:{m2m['client_secret']}".encode()).decode()
    file.write(f"M2M_BASIC={basic}\n")
print(f"prepared {count} refresh and access tokens")
