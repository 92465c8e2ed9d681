#!/usr/bin/env python3
"""A local stand-in for Sign in with Apple or Google, for Gatehouse's upstream tests
(Tests/TestSupport/AppleGoogleStub.swift starts it). It reproduces what Gatehouse must cope
with, and checks what Gatehouse sends:

  GET  /.well-known/openid-configuration   discovery
  GET  /keys                               its JWKS (keys it generates at start)
  GET  /authorize                          apple: an auto-submitting form_post of code, state and,
                                           on a subject's first authorization only, the `user` JSON;
                                           google: a 302 with code and state
  POST /token                              authorization_code (PKCE checked, codes single use) and
                                           refresh_token; apple: client_secret must be an ES256 JWT
                                           of the team key with exact claims; google: the secret
  POST /revoke                             apple: checks the client secret, records the token

Test-only control endpoints (JSON in, JSON out):

  POST /control/next-user      who signs in at the next /authorize: sub, email, email_verified,
                               is_private_email, name {firstName, lastName}, hd
  POST /control/id-token       an ID token for aud/nonce/sub/...; variant: none, hs256-public-key,
                               unknown-kid, expired, bad-signature
  POST /control/native-code    an authorization code redeemable with client_id=<bundle id>
  POST /control/fail-revoke    {"times": N}: the next N revoke calls answer 503
  POST /control/notify         signs an Apple server-to-server notification and POSTs
                               {"payload": JWT} to "url"; answers the status and body it got
                               (without "url": answers {"payload": JWT})
  GET  /control/revoked        the revoke calls that succeeded
  GET  /control/token-requests every token request's form, with the verified client-secret claims

Prints "listening PORT" once it accepts connections.
"""
import argparse
import base64
import hashlib
import hmac
import json
import secrets
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.exceptions import InvalidSignature

APPLE_AUDIENCE = "https://appleid.apple.com"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def compact(header, claims, sign):
    signing_input = b64(json.dumps(header, separators=(",", ":")).encode()) + "." + \
        b64(json.dumps(claims, separators=(",", ":")).encode())
    return signing_input + "." + b64(sign(signing_input.encode()))


class SigningKey:
    """An RS256 or ES256 key of the provider, published in its JWKS."""

    def __init__(self, alg, kid):
        self.alg = alg
        self.kid = kid
        if alg == "RS256":
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            self.private = ec.generate_private_key(ec.SECP256R1())

    def sign(self, data):
        if self.alg == "RS256":
            return self.private.sign(data, padding.PKCS1v15(), hashes.SHA256())
        r, s = decode_dss_signature(self.private.sign(data, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")

    def jwk(self):
        numbers = self.private.public_key().public_numbers()
        if self.alg == "RS256":
            n = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
            return {"kty": "RSA", "kid": self.kid, "use": "sig", "alg": "RS256", "n": b64(n), "e": b64(numbers.e.to_bytes(3, "big"))}
        return {"kty": "EC", "kid": self.kid, "use": "sig", "alg": "ES256", "crv": "P-256",
                "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))}

    def public_pem(self):
        return self.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)

    def token(self, claims, kid=None):
        return compact({"alg": self.alg, "kid": kid or self.kid, "typ": "JWT"}, claims, self.sign)


class Provider:
    """Everything the stand-in remembers, behind one lock."""

    def __init__(self, options):
        self.mode = options.mode
        self.options = options
        self.lock = threading.Lock()
        self.keys = [SigningKey(options.alg, options.mode + "-key-1"), SigningKey("ES256", options.mode + "-key-2")]
        self.stranger = SigningKey(options.alg, options.mode + "-key-1")  # same kid, other key: a forgery
        self.team_key = None
        if options.mode == "apple":
            self.team_key = ec.generate_private_key(ec.SECP256R1())
            with open(options.p8_out, "wb") as handle:
                handle.write(self.team_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
        self.codes = {}
        self.refresh_tokens = {}
        self.authorized_subjects = set()
        self.revoked = []
        self.token_requests = []
        self.fail_revoke = 0
        self.next_user = {"sub": "000123.stub." + options.mode, "email": "alice@example.com", "email_verified": True,
                          "is_private_email": False, "name": {"firstName": "Alice", "lastName": "Apple"}}
        self.base = None

    @property
    def issuer(self):
        return self.options.issuer or self.base

    def client_ids(self):
        return [self.options.client_id] + [c for c in self.options.native_client_ids.split(",") if c]

    # --- the ID token ---

    def id_token_claims(self, user, aud, nonce, now=None):
        now = int(now or time.time())
        claims = {"iss": self.issuer, "aud": aud, "sub": user["sub"], "iat": now, "exp": now + 600, "auth_time": now}
        if nonce is not None:
            claims["nonce"] = nonce
        if user.get("email") is not None:
            claims["email"] = user["email"]
        if self.mode == "apple":
            # Apple writes these booleans as strings.
            claims["email_verified"] = "true" if user.get("email_verified", True) else "false"
            claims["is_private_email"] = "true" if user.get("is_private_email") else "false"
            claims["nonce_supported"] = True
        else:
            claims["email_verified"] = bool(user.get("email_verified", True))
            claims["azp"] = aud
            if user.get("hd") or self.options.hosted_domain:
                claims["hd"] = user.get("hd") or self.options.hosted_domain
            name = user.get("name") or {}
            if name:
                claims["given_name"] = name.get("firstName")
                claims["family_name"] = name.get("lastName")
                claims["name"] = " ".join(x for x in [name.get("firstName"), name.get("lastName")] if x)
        return claims

    def id_token(self, request):
        user = dict(self.next_user)
        for field in ("sub", "email", "email_verified", "is_private_email", "hd", "name"):
            if field in request:
                user[field] = request[field]
        claims = self.id_token_claims(user, request.get("aud", self.options.client_id), request.get("nonce"))
        for name, value in (request.get("claims") or {}).items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        variant = request.get("variant")
        key = self.keys[0]
        if variant == "expired":
            claims["iat"] -= 7200
            claims["exp"] = claims["iat"] + 600
        if variant == "none":
            return compact({"alg": "none", "kid": key.kid}, claims, lambda _: b"")
        if variant == "hs256-public-key":
            secret = key.public_pem()
            return compact({"alg": "HS256", "kid": key.kid, "typ": "JWT"}, claims,
                           lambda data: hmac.new(secret, data, hashlib.sha256).digest())
        if variant == "unknown-kid":
            return key.token(claims, kid="no-such-key")
        if variant == "bad-signature":
            return self.stranger.token(claims)
        return key.token(claims)

    # --- client authentication ---

    def check_client(self, form, authorization):
        """The client id and, for Apple, the verified client-secret claims; or an error string."""
        client_id = form.get("client_id")
        if authorization and authorization.lower().startswith("basic "):
            user, _, password = base64.b64decode(authorization[6:]).decode().partition(":")
            client_id, form = user, dict(form, client_secret=password)
        if client_id not in self.client_ids():
            return None, None, "invalid_client: unknown client_id %r" % client_id
        secret = form.get("client_secret")
        if not secret:
            return None, None, "invalid_client: no client_secret"
        if self.mode == "google":
            if not hmac.compare_digest(secret, self.options.client_secret):
                return None, None, "invalid_client: wrong client_secret"
            return client_id, None, None
        claims, problem = self.verify_client_secret(secret, client_id)
        if problem:
            return None, None, "invalid_client: " + problem
        return client_id, claims, None

    def verify_client_secret(self, secret, client_id):
        """Apple's rules for the client-secret JWT, each refusal naming the rule."""
        parts = secret.split(".")
        if len(parts) != 3:
            return None, "client_secret is not a compact JWS"
        try:
            header = json.loads(unb64(parts[0]))
            claims = json.loads(unb64(parts[1]))
            signature = unb64(parts[2])
        except ValueError:
            return None, "client_secret is not readable"
        if header.get("alg") != "ES256":
            return None, "client_secret alg is %r, not ES256" % header.get("alg")
        if header.get("kid") != self.options.key_id:
            return None, "client_secret kid is %r, not %r" % (header.get("kid"), self.options.key_id)
        if len(signature) != 64:
            return None, "client_secret signature is not 64 bytes (raw r||s)"
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        try:
            self.team_key.public_key().verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return None, "client_secret signature does not verify with the team key"
        now = time.time()
        expected = {"iss": self.options.team_id, "sub": client_id, "aud": APPLE_AUDIENCE}
        for name, value in expected.items():
            if claims.get(name) != value:
                return None, "client_secret %s is %r, not %r" % (name, claims.get(name), value)
        if sorted(claims) != ["aud", "exp", "iat", "iss", "sub"]:
            return None, "client_secret claims are %s" % sorted(claims)
        if not isinstance(claims["iat"], int) or not isinstance(claims["exp"], int):
            return None, "client_secret iat/exp are not integers"
        if claims["iat"] > now + 60 or claims["exp"] <= now:
            return None, "client_secret is not valid now"
        if claims["exp"] - claims["iat"] > 3600:
            return None, "client_secret lives longer than an hour"
        return claims, None

    # --- codes and tokens ---

    def new_code(self, **grant):
        code = "c" + secrets.token_urlsafe(24)
        with self.lock:
            self.codes[code] = dict(grant, issued=time.time())
        return code

    def redeem(self, form, authorization):
        client_id, secret_claims, problem = self.check_client(form, authorization)
        with self.lock:
            self.token_requests.append({"form": {k: v for k, v in form.items() if k != "client_secret"},
                                        "client_id": client_id, "client_secret_claims": secret_claims, "problem": problem})
        if problem:
            return 401, {"error": "invalid_client", "error_description": problem}
        grant_type = form.get("grant_type")
        if grant_type == "refresh_token":
            with self.lock:
                entry = self.refresh_tokens.get(form.get("refresh_token", ""))
            if not entry or entry["client_id"] != client_id or entry.get("revoked"):
                return 400, {"error": "invalid_grant", "error_description": "unknown or revoked refresh token"}
            return 200, {"access_token": "a" + secrets.token_urlsafe(16), "token_type": "Bearer", "expires_in": 3600,
                         "id_token": self.keys[0].token(self.id_token_claims(entry["user"], client_id, None))}
        if grant_type != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        with self.lock:
            grant = self.codes.pop(form.get("code", ""), None)  # single use, even when refused below
        if grant is None:
            return 400, {"error": "invalid_grant", "error_description": "unknown, used or expired code"}
        if grant["client_id"] != client_id:
            return 400, {"error": "invalid_grant", "error_description": "the code was issued to another client"}
        if time.time() - grant["issued"] > 300:
            return 400, {"error": "invalid_grant", "error_description": "the code expired"}
        if grant.get("redirect_uri") and form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"error": "invalid_grant", "error_description": "redirect_uri differs from the authorization request"}
        challenge = grant.get("code_challenge")
        verifier = form.get("code_verifier")
        if challenge:
            if not verifier or b64(hashlib.sha256(verifier.encode()).digest()) != challenge:
                return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}
        elif verifier:
            return 400, {"error": "invalid_grant", "error_description": "code_verifier without a code_challenge"}
        user = grant["user"]
        body = {"access_token": "a" + secrets.token_urlsafe(16), "token_type": "Bearer", "expires_in": 3600,
                "id_token": self.keys[0].token(self.id_token_claims(user, client_id, grant.get("nonce")))}
        refresh = "r" + secrets.token_urlsafe(24)
        with self.lock:
            self.refresh_tokens[refresh] = {"client_id": client_id, "user": user}
        body["refresh_token"] = refresh
        return 200, body

    def revoke(self, form, authorization):
        client_id, secret_claims, problem = self.check_client(form, authorization)
        if problem:
            return 401, {"error": "invalid_client", "error_description": problem}
        with self.lock:
            if self.fail_revoke > 0:
                self.fail_revoke -= 1
                return 503, {"error": "temporarily_unavailable"}
            token = form.get("token", "")
            entry = self.refresh_tokens.get(token)
            if entry and entry["client_id"] != client_id:
                return 400, {"error": "invalid_request", "error_description": "the token belongs to another client"}
            if entry:
                entry["revoked"] = True
            self.revoked.append({"token": token, "client_id": client_id, "token_type_hint": form.get("token_type_hint"),
                                 "client_secret_claims": secret_claims, "known": entry is not None})
        return 200, {}

    def notify(self, request):
        """Signs an Apple server-to-server notification and POSTs it; returns what the target answered."""
        import urllib.request
        event = {"type": request["type"], "sub": request["sub"], "event_time": int(time.time() * 1000)}
        if "email" in request:
            event["email"] = request["email"]
            event["is_private_email"] = "true" if request.get("is_private_email", True) else "false"
        now = int(time.time())
        claims = {"iss": request.get("iss", self.issuer), "aud": request.get("aud", self.options.client_id),
                  "iat": now + int(request.get("iat_offset", 0)), "jti": secrets.token_hex(8), "events": json.dumps(event)}
        variant = request.get("variant")
        if variant == "bad-signature":
            payload = self.stranger.token(claims)
        elif variant == "none":
            payload = compact({"alg": "none", "kid": self.keys[0].kid}, claims, lambda _: b"")
        else:
            payload = self.keys[0].token(claims)
        if not request.get("url"):
            return {"payload": payload}  # for in-process tests, which post it themselves
        data = json.dumps({"payload": payload}).encode()
        outgoing = urllib.request.Request(request["url"], data=data, method="POST",
                                          headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(outgoing, timeout=10) as response:
                return {"status": response.status, "body": response.read().decode()}
        except urllib.error.HTTPError as error:
            return {"status": error.code, "body": error.read().decode()}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    provider = None

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="application/json", headers=()):
        if not isinstance(body, (bytes, bytearray)):
            body = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def form(self):
        length = int(self.headers.get("Content-Length", "0"))
        text = self.rfile.read(length).decode()
        if self.headers.get("Content-Type", "").startswith("application/json"):
            return json.loads(text or "{}")
        return dict(parse_qsl(text, keep_blank_values=True))

    def do_GET(self):
        p = self.provider
        url = urlsplit(self.path)
        if url.path == "/.well-known/openid-configuration":
            base = p.base
            self.answer(200, {"issuer": p.issuer, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
                              "jwks_uri": base + "/keys", "revocation_endpoint": base + "/revoke",
                              "response_types_supported": ["code"], "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                              "subject_types_supported": ["pairwise" if p.mode == "apple" else "public"]})
        elif url.path == "/keys":
            self.answer(200, {"keys": [k.jwk() for k in p.keys]}, headers=[("Cache-Control", "public, max-age=300")])
        elif url.path == "/authorize":
            self.authorize(dict(parse_qsl(url.query, keep_blank_values=True)))
        elif url.path == "/control/revoked":
            with p.lock:
                self.answer(200, {"revoked": list(p.revoked)})
        elif url.path == "/control/token-requests":
            with p.lock:
                self.answer(200, {"requests": list(p.token_requests)})
        else:
            self.answer(404, {"error": "not_found"})

    def authorize(self, query):
        p = self.provider
        redirect_uri = query.get("redirect_uri")
        if query.get("client_id") != p.options.client_id or not redirect_uri:
            self.answer(400, b"invalid_client or no redirect_uri", "text/plain")
            return
        if query.get("response_type") != "code":
            self.answer(400, b"response_type must be code", "text/plain")
            return
        scopes = query.get("scope", "").split()
        if p.mode == "apple" and ({"name", "email"} & set(scopes)) and query.get("response_mode") != "form_post":
            # Apple's rule: asking for name or email requires form_post.
            self.answer(400, b"response_mode must be form_post when name or email is requested", "text/plain")
            return
        with p.lock:
            user = dict(p.next_user)
        code = p.new_code(client_id=query["client_id"], redirect_uri=redirect_uri, nonce=query.get("nonce"),
                          code_challenge=query.get("code_challenge"), user=user)
        fields = [("code", code)]
        if "state" in query:
            fields.append(("state", query["state"]))
        if p.mode == "google":
            self.answer(302, b"", "text/plain", headers=[("Location", redirect_uri + ("&" if "?" in redirect_uri else "?") + urlencode(fields))])
            return
        with p.lock:
            first = user["sub"] not in p.authorized_subjects
            p.authorized_subjects.add(user["sub"])
        if first and scopes:
            profile = {}
            if "name" in scopes and user.get("name"):
                profile["name"] = user["name"]
            if "email" in scopes and user.get("email"):
                profile["email"] = user["email"]
            fields.append(("user", json.dumps(profile)))
        inputs = "".join('<input type="hidden" name="%s" value="%s">' % (name, value.replace("&", "&amp;").replace('"', "&quot;"))
                         for name, value in fields)
        page = ('<!DOCTYPE html><html><body onload="document.forms[0].submit()">'
                '<form method="post" action="%s">%s<noscript><button>Continue</button></noscript></form></body></html>'
                % (redirect_uri.replace('"', "&quot;"), inputs))
        self.answer(200, page.encode(), "text/html; charset=utf-8")

    def do_POST(self):
        p = self.provider
        url = urlsplit(self.path)
        form = self.form()
        if url.path == "/token":
            status, body = p.redeem(form, self.headers.get("Authorization"))
            self.answer(status, body)
        elif url.path == "/revoke" and p.mode == "apple":
            status, body = p.revoke(form, self.headers.get("Authorization"))
            self.answer(status, body)
        elif url.path == "/control/next-user":
            with p.lock:
                p.next_user = dict(p.next_user, **form)
            self.answer(200, p.next_user)
        elif url.path == "/control/id-token":
            self.answer(200, {"id_token": p.id_token(form)})
        elif url.path == "/control/native-code":
            user = dict(p.next_user)
            for field in ("sub", "email", "email_verified", "is_private_email", "name"):
                if field in form:
                    user[field] = form[field]
            client_id = form.get("client_id") or (p.client_ids()[1] if len(p.client_ids()) > 1 else p.options.client_id)
            self.answer(200, {"code": p.new_code(client_id=client_id, nonce=form.get("nonce"), user=user)})
        elif url.path == "/control/fail-revoke":
            with p.lock:
                p.fail_revoke = int(form.get("times", 1))
            self.answer(200, {"times": p.fail_revoke})
        elif url.path == "/control/notify":
            self.answer(200, p.notify(form))
        else:
            self.answer(404, {"error": "not_found"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["apple", "google"], required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--client-id", required=True, help="the web client id (Apple: the Services ID)")
    parser.add_argument("--native-client-ids", default="", help="comma-separated native client ids (Apple: bundle ids)")
    parser.add_argument("--client-secret", default="", help="google: the client secret it expects")
    parser.add_argument("--team-id", default="", help="apple: the team id the client secret's iss must be")
    parser.add_argument("--key-id", default="", help="apple: the key id the client secret's kid must be")
    parser.add_argument("--p8-out", default="", help="apple: where to write the team's .p8 key it generates")
    parser.add_argument("--issuer", default="", help="the iss of its tokens (default: its own base URL)")
    parser.add_argument("--hosted-domain", default="", help="google: an hd claim on every ID token")
    parser.add_argument("--alg", choices=["RS256", "ES256"], default="RS256", help="the algorithm of its first key")
    options = parser.parse_args()
    if options.mode == "apple" and not (options.team_id and options.key_id and options.p8_out):
        parser.error("apple mode needs --team-id, --key-id and --p8-out")
    # A test process may block SIGTERM (the daemon's shutdown handling); the mask is inherited.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    Handler.provider = Provider(options)
    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    Handler.provider.base = "http://127.0.0.1:%d" % server.server_address[1]
    print("listening %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
