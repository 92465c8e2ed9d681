#!/usr/bin/env python3
"""Generate RSA and P-256 keys with joserfc, sign tokens, and print them with the public JWKS.

Output (stdout, JSON): {"jwks": {"keys": [...]}, "tokens": [{"kid", "alg", "token", "payload"}]}
Gatehouse must import the public JWKs and verify every token.
"""
import json
import sys

from joserfc import jws
from joserfc.jwk import ECKey, RSAKey


def main() -> int:
    keys = [
        ("RS256", RSAKey.generate_key(2048, parameters={"kid": "py-rsa-2048"})),
        ("RS256", RSAKey.generate_key(3072, parameters={"kid": "py-rsa-3072"})),
        ("ES256", ECKey.generate_key("P-256", parameters={"kid": "py-ec"})),
    ]
    tokens = []
    for alg, key in keys:
        kid = key.kid
        for index in range(8 if alg == "ES256" else 2):
            payload = json.dumps({"iss": "https://py.example/", "sub": f"user-{index}", "n": index},
                                 separators=(",", ":"))
            token = jws.serialize_compact({"alg": alg, "kid": kid, "typ": "JWT"}, payload.encode("utf-8"), key)
            tokens.append({"kid": kid, "alg": alg, "token": token, "payload": payload})
    jwks = {"keys": [dict(key.as_dict(private=False), alg=alg, use="sig") for alg, key in keys]}
    print(json.dumps({"jwks": jwks, "tokens": tokens}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
