#!/usr/bin/env python3
"""Verify Gatehouse-signed compact JWS tokens with joserfc (an independent JOSE stack).

Usage: jose_verify.py JWKS.json TOKENS.json
TOKENS.json is a list of {"token": str, "alg": str, "payload": str}. Each token
must verify against the JWKS (key chosen by kid) and carry exactly the payload;
a copy with one flipped signature character must be refused. Prints a JSON
summary and exits non-zero on any failure.
"""
import json
import sys

from joserfc import jws
from joserfc.jwk import KeySet


def flip_last_signature_char(token: str) -> str:
    head, _, signature = token.rpartition(".")
    # Change a middle character so the base64url stays canonical.
    middle = len(signature) // 2
    replacement = "A" if signature[middle] != "A" else "B"
    return head + "." + signature[:middle] + replacement + signature[middle + 1:]


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        key_set = KeySet.import_key_set(json.load(handle))
    with open(sys.argv[2], encoding="utf-8") as handle:
        cases = json.load(handle)
    failures = []
    for case in cases:
        try:
            result = jws.deserialize_compact(case["token"], key_set, algorithms=[case["alg"]])
            if result.payload != case["payload"].encode("utf-8"):
                failures.append(f"{case['alg']}: payload mismatch")
        except Exception as error:  # noqa: BLE001 - report every failure
            failures.append(f"{case['alg']}: {type(error).__name__}: {error}")
            continue
        try:
            jws.deserialize_compact(flip_last_signature_char(case["token"]), key_set, algorithms=[case["alg"]])
            failures.append(f"{case['alg']}: tampered token accepted")
        except Exception:  # noqa: BLE001 - any rejection is correct
            pass
    print(json.dumps({"verified": len(cases) - len(failures), "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
