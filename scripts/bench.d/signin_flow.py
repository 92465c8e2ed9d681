#!/usr/bin/env python3
"""The whole browser sign-in, as a new visitor each time: GET /authorize (the login page),
POST /login with the password, the resume redirect back to /authorize, the code on the
callback, and the code exchanged at the token endpoint (PKCE). CONCURRENCY threads run
flows back to back for SECONDS; prints one JSON line: flows/s, p50/p99 of a whole flow in ms,
errors. The users are user<i>@seed.example for i below USERS (the `bench seed` accounts, all with
the one seeded password), or a single EMAIL when USERS is 0.

Usage: signin_flow.py BASE_URL CLIENT_ID CALLBACK EMAIL_OR_PATTERN PASSWORD USERS CONCURRENCY SECONDS LABEL [PACE [PEER]]
PACE: seconds each thread waits after a flow (a steady trickle of sign-ins beside other load).
PEER "glewlwyd:PLUGIN:SECRET": the same flow against glewlwyd's code flow (its login API, its consent
PUT, then its authorize endpoint with g_continue, and the code exchanged with HTTP Basic).
"""
import base64
import hashlib
import html.parser
import json
import random
import secrets
import sys
import threading
import time
import urllib.parse

import requests

base, client, callback, email, password = sys.argv[1].rstrip("/") + "/", sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
users, concurrency, seconds, label = int(sys.argv[6]), int(sys.argv[7]), float(sys.argv[8]), sys.argv[9]
pace = float(sys.argv[10]) if len(sys.argv) > 10 else 0.0
peer = sys.argv[11].split(":") if len(sys.argv) > 11 else None


class Form(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("type") == "hidden":
            self.fields[attrs["name"]] = attrs.get("value", "")


def glewlwyd_flow(browser, who):
    plugin, secret = peer[1], peer[2]
    if browser.post(base + "api/auth/", json={"username": who, "password": password}).status_code != 200:
        return False
    if browser.put(base + "api/auth/grant/" + client, json={"scope": "openid scope1"}).status_code != 200:
        return False
    query = urllib.parse.urlencode({"response_type": "code", "client_id": client, "redirect_uri": callback, "scope": "openid scope1",
                                    "state": secrets.token_urlsafe(8), "nonce": secrets.token_urlsafe(8), "g_continue": ""})
    answer = browser.get(base + "api/" + plugin + "/auth?" + query, allow_redirects=False)
    location = answer.headers.get("Location", "")
    if answer.status_code != 302 or "code=" not in location:
        return False
    code = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)["code"][0]
    tokens = browser.post(base + "api/" + plugin + "/token", auth=(client, secret),
                          data={"grant_type": "authorization_code", "code": code, "redirect_uri": callback})
    return tokens.status_code == 200 and "access_token" in tokens.json()


def flow(browser, who):
    if peer:
        return glewlwyd_flow(browser, who)
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({"response_type": "code", "client_id": client, "redirect_uri": callback,
                                    "scope": "openid profile email offline_access", "state": secrets.token_urlsafe(8),
                                    "nonce": secrets.token_urlsafe(8), "code_challenge": challenge, "code_challenge_method": "S256"})
    page = browser.get(base + "authorize?" + query, allow_redirects=False)
    if page.status_code != 200:
        return False
    form = Form()
    form.feed(page.text)
    posted = browser.post(base + "login", data={**form.fields, "email": who, "password": password, "action": "login"},
                          allow_redirects=False)
    if posted.status_code not in (302, 303):
        return False
    resumed = browser.get(urllib.parse.urljoin(base, posted.headers["Location"]), allow_redirects=False)
    location = resumed.headers.get("Location", "")
    if resumed.status_code != 302 or not location.startswith(callback):
        return False
    code = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)["code"][0]
    tokens = browser.post(base + "oauth/token", json={"grant_type": "authorization_code", "client_id": client, "code": code,
                                                      "code_verifier": verifier, "redirect_uri": callback})
    return tokens.status_code == 200 and "refresh_token" in tokens.json()


latencies, errors, lock = [], [0], threading.Lock()
deadline = time.monotonic() + seconds


def worker(index):
    rng = random.Random(index)
    while time.monotonic() < deadline:
        browser = requests.Session()  # a new visitor: no cookies, so no single sign-on
        browser.trust_env = False
        who = email.replace("{i}", str(rng.randrange(users))) if users else email
        started = time.monotonic()
        try:
            ok = flow(browser, who)
        except requests.RequestException:
            ok = False
        elapsed = time.monotonic() - started
        with lock:
            if ok:
                latencies.append(elapsed)
            else:
                errors[0] += 1
        browser.close()
        if pace:
            time.sleep(pace)


started = time.monotonic()
threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
wall = time.monotonic() - started
latencies.sort()


def pct(p):
    return round(latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000, 2) if latencies else None


print(json.dumps({"name": label, "flows": len(latencies), "flows_per_sec": round(len(latencies) / wall, 2), "p50_ms": pct(0.5),
                  "p99_ms": pct(0.99), "errors": errors[0], "concurrency": concurrency, "seconds": round(wall, 2)}))
