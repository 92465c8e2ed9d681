# Sourced by scripts/bench: the "instructions" row. Needs free_port, $bin, $work, pids.
#
# Instructions per request, counted by valgrind's callgrind in the daemon (every thread), which
# the machine's noise hardly moves: the requests' own work repeats exactly, and only the timers'
# share grows with a slower run (2% between two runs of one binary). Per kind
# (ES256 and RS256 refresh, client_credentials, /userinfo), BENCH_INSTRUCTION_REQUESTS requests
# (default 200) one after another after a warm-up, each kind in a dump of its own. The signature's
# instructions (OpenSSL's EVP_PKEY_sign, inclusive) are split out, and the rest is given as a
# ratio to one RSA-2048 signature counted in the same run: the part of a token a faster
# implementation can shrink, against the part only OpenSSL decides (README "Tests and benchmarks").
bench_instructions() {
    command -v valgrind > /dev/null || { echo "bench instructions: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }
    local requests=${BENCH_INSTRUCTION_REQUESTS:-200} port base daemon kind dir="$work/instructions" here=$PWD
    mkdir -p "$dir"
    # valgrind cannot read the toolchain's DWARF 5; the symbol table is all it needs.
    objcopy --strip-debug "$bin/idp" "$dir/idp"
    cp "$bin/idp-admin" "$dir/idp-admin"
    port=$(free_port)
    base=http://127.0.0.1:$port
    (cd "$dir" && IDP_LISTEN=127.0.0.1:$port IDP_ISSUER=$base/ IDP_LOG_LEVEL=warning IDP_DATABASE=$dir/data/idp.sqlite3 \
        exec valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$dir/callgrind.out" ./idp > "$dir/idp.log" 2>&1) &
    daemon=$!
    pids+=($daemon)
    for _ in $(seq 1200); do curl -fs -o /dev/null "$base/healthz" && break; sleep 0.1; done
    (cd "$dir" && IDP_DATABASE=$dir/data/idp.sqlite3 python3 "$here/scripts/bench.d/prepare_tokens.py" "$base/" "$dir" "$dir/pool" 40) > /dev/null
    python3 scripts/bench.d/drive_requests.py "$base" "$dir/pool" all 20
    for kind in refresh_ES256 refresh_RS256 client_credentials userinfo; do
        callgrind_control --zero "$daemon" > /dev/null 2>&1
        python3 scripts/bench.d/drive_requests.py "$base" "$dir/pool" "$kind" "$requests"
        callgrind_control --dump="$kind" "$daemon" > /dev/null 2>&1
    done
    kill -TERM "$daemon"
    wait "$daemon" 2>/dev/null || true
    local dumps=()
    for kind in refresh_ES256 refresh_RS256 client_credentials userinfo; do
        dumps+=("$(grep -l "^desc: Trigger: dump $kind\$" "$dir"/callgrind.out.* | head -1)")
    done
    python3 - "$requests" "${dumps[@]}" <<'PY'
import re, subprocess, sys
requests, dumps = int(sys.argv[1]), sys.argv[2:]
kinds = ["refresh_ES256", "refresh_RS256", "client_credentials", "userinfo"]
def counts(path):
    total = int(re.search(r"^summary: (\d+)", open(path).read(), re.M).group(1))
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path],
                          capture_output=True, text=True, check=True).stdout
    signing = re.search(r"^\s*([\d,]+) \([^)]*\)\s+\?\?\?:EVP_PKEY_sign \[", text, re.M)
    return total, int(signing.group(1).replace(",", "")) if signing else 0
rows = {kind: counts(path) for kind, path in zip(kinds, dumps)}
rsa = rows["refresh_RS256"][1] / requests
print(f"Instructions per request (callgrind, every thread of the daemon, {requests} requests of each kind, one at a time)")
print(f"{'request':<20}{'all':>12}{'signature':>12}{'the rest':>12}{'rest / RSA sign':>17}")
for kind in kinds:
    total, signing = rows[kind]
    rest = (total - signing) / requests
    print(f"{kind:<20}{total / requests:>12.0f}{signing / requests:>12.0f}{rest:>12.0f}{rest / rsa:>17.3f}")
print(f"one RSA-2048 signature (EVP_PKEY_sign in the RS256 refresh): {rsa:.0f} instructions")
PY
}
