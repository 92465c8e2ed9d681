#!/usr/bin/env bash
# Regenerates scripts/build.d/link-order.txt, the order scripts/build links idp's functions in.
#
# Runs the daemon under valgrind's callgrind (Debian: valgrind) through a start, a sign-in with
# code + PKCE and single sign-on (scripts/bench.d/prepare_tokens.py), a refresh, /userinfo, the
# discovery and health routes, and a stop; every function of the binary that ran, in the order
# callgrind first lists it, is one line of the file. Placed together they share the binary's pages
# (README "Memory and start"). What the start runs (up to a first discovery request and the
# background work the start queues) comes first, from a dump of its own: an idle daemon then maps
# those pages and not the requests' ones between them. A function the file does not name is still
# linked, after them: a stale file costs memory, never correctness. Takes a few minutes (the
# password hash is slow under valgrind).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind > /dev/null || { echo "link-order: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }
# Built as scripts/build builds (the static libstdc++ included, whose functions the file names too).
scratch=.build/link-order
scripts/build --scratch-path "$scratch"
bin=$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)
work=$(mktemp -d /tmp/gatehouse-link-order.XXXXXX)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the toolchain's DWARF 5; the symbol table is all it needs.
objcopy --strip-debug "$bin/idp" "$work/idp"
cp "$bin/idp-admin" "$work/idp-admin"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
export IDP_LISTEN=127.0.0.1:$port IDP_ISSUER=$base/ IDP_LOG_LEVEL=warning IDP_DATABASE=$work/data/idp.sqlite3
(cd "$work" && exec valgrind --tool=callgrind --demangle=no --dump-instr=no --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$work/callgrind.out" "$work/idp" > "$work/idp.log" 2>&1) &
daemon=$!
for _ in $(seq 1200); do curl -fs -o /dev/null "$base/.well-known/openid-configuration" && break; sleep 0.1; done
sleep 3  # the background work a start queues (the dummy password hash, the blocklist)
# What ran so far is what an idle daemon has mapped: its functions go first, in a dump of their own.
callgrind_control --dump=start "$daemon" > /dev/null 2>&1
python3 scripts/bench.d/prepare_tokens.py "$base/" "$work" "$work/pool" 3 > /dev/null
# shellcheck disable=SC1091
source "$work/pool/env.sh"
for path in /.well-known/openid-configuration /.well-known/jwks.json /healthz /readyz /metrics /nothing; do
    curl -s -o /dev/null "$base$path"
done
curl -s -o /dev/null -H "Authorization: Bearer $(head -1 "$work/pool/access.txt")" "$base/userinfo"
curl -s -o /dev/null -H 'Content-Type: application/json' "$base/oauth/token" \
    -d "{\"grant_type\":\"refresh_token\",\"client_id\":\"$ES256_CLIENT\",\"refresh_token\":\"$(head -1 "$work/pool/refresh_ES256.txt")\"}"
curl -s -o /dev/null -H 'Content-Type: application/json' "$base/oauth/token" \
    -d "{\"grant_type\":\"refresh_token\",\"client_id\":\"$RS256_CLIENT\",\"refresh_token\":\"$(head -1 "$work/pool/refresh_RS256.txt")\"}"
kill -TERM "$daemon"
wait "$daemon" || true
# The start's dump is callgrind.out.1, the rest callgrind.out (what ran after the dump).
python3 - scripts/build.d/link-order.txt "$work/callgrind.out.1" "$work/callgrind.out" <<'PY'
import sys
seen, names = set(), []
for path in sys.argv[2:]:
    object_file = None
    for line in open(path, errors="replace"):
        if line.startswith("ob="):
            object_file = line[3:].strip()
        elif line.startswith("fn=") and object_file and object_file.endswith("/idp"):
            name = line[3:].strip()
            if name not in seen:
                seen.add(name)
                names.append(name)
    print(f"link-order: {len(names)} functions after {path}")
open(sys.argv[1], "w").write("".join(name + "\n" for name in names))
PY
