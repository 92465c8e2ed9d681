# Sourced by scripts/bench: the "ab" row (and "refresh-ab", its refresh row). Needs scale_seed,
# scale_access_tokens, free_port, $bin, $work, $lua, pids.
#
# One row of two builds at each database size, in alternating rounds: this checkout's build (or
# BENCH_BIN) against the one in BENCH_BEFORE_BIN. BENCH_AB_ROW picks the row: `refresh` (default),
# the ES256 refresh of the same 12,000 pooled tokens, or `userinfo`, GET /userinfo round robin over
# the 200 opaque access tokens of the scale row (minted once per build and size, on a copy of the
# seed that is then thrown away; every copy has the same grants and keys, so they hold on each).
# Each round starts a fresh daemon on a 4 KiB-write copy of its own build's seed and runs wrk (16
# connections, BENCH_SECONDS), so both builds do the same work in every round; the order of builds
# and sizes alternates between rounds. Whole `scale` runs differ more from each other than a
# change to one path does: ratios taken within a round are what compare two builds.
# The seeds come from each build's own `bench seed` (its own schema): BENCH_SEED_CACHE for this
# build, BENCH_BEFORE_SEED_CACHE (default: a folder of the run) for the other.
bench_ab() {
    local before=${BENCH_BEFORE_BIN:?BENCH_BEFORE_BIN names the directory of the other build (idp, bench)}
    local sizes=${BENCH_SCALE_SIZES:-1k,1m} runs=${BENCH_RUNS:-3} rows="$work/ab-rows.jsonl" list=() size run label
    local row=${BENCH_AB_ROW:-refresh}
    case "$row" in refresh|userinfo) ;; *) echo "ab: BENCH_AB_ROW must be refresh or userinfo, not $row" >&2; return 2 ;; esac
    IFS=, read -r -a list <<< "$sizes"
    : > "$rows"
    # The build of a label's daemons.
    ab_binary() { if [ "$1" = after ]; then echo "$bin"; else echo "$before"; fi; }
    # A fresh daemon of `binary` on a new copy of the seed in `dir`; sets daemon and port.
    ab_start() {
        local dir=$1 binary=$2
        rm -f "$dir/data/idp.sqlite3-wal" "$dir/data/idp.sqlite3-shm"
        dd if="$dir/seed.sqlite3" of="$dir/data/idp.sqlite3" bs=4096 status=none  # see scale_seed: no large folios
        sync
        port=$(free_port)
        (cd "$dir" && IDP_LISTEN=127.0.0.1:$port IDP_ISSUER=http://127.0.0.1:$port/ IDP_LOG_LEVEL=warning IDP_MAINTENANCE_INTERVAL=0 \
            IDP_MAX_CONNECTIONS_PER_CLIENT=0 exec "$binary/idp") > "$dir/idp.out" 2> "$dir/idp.err" &
        daemon=$!
        pids+=($daemon)
        for _ in $(seq 2000); do curl -fs "http://127.0.0.1:$port/healthz" > /dev/null 2>&1 && break; sleep 0.01; done
        if ! curl -fs "http://127.0.0.1:$port/healthz" > /dev/null 2>&1; then
            echo "ab: the build in $binary did not start on $dir:" >&2
            cat "$dir/idp.err" >&2
            return 1
        fi
    }
    # wrk's pool for the row: refresh tokens, or access tokens minted by a daemon of the label's
    # build on a copy that the first round replaces.
    ab_pool() {
        local label=$1 size=$2 dir daemon port
        dir="$work/$label-$size"  # not in the `local` above: its words are expanded before any is assigned
        if [ "$row" = refresh ]; then
            head -n 12000 "$dir/pool/refresh_ES256.txt" > "$dir/wrk-pool.txt"
            return
        fi
        ab_start "$dir" "$(ab_binary "$label")" || return 1
        # shellcheck disable=SC1091
        source "$dir/pool/env.sh"
        head -n 200 "$dir/pool/refresh_ES256.txt" > "$dir/access-source.txt"
        scale_access_tokens "$port" "$ES256_CLIENT" "$dir/access-source.txt" "$dir/wrk-pool.txt"
        kill "$daemon"
        wait "$daemon" 2> /dev/null || true
    }
    for size in "${list[@]}"; do
        scale_seed "$size" > /dev/null
        mv "$work/scale-$size" "$work/after-$size"
        (bin=$before BENCH_SEED_CACHE=${BENCH_BEFORE_SEED_CACHE:-$work/before-seeds} scale_seed "$size" > /dev/null)
        mv "$work/scale-$size" "$work/before-$size"
        # The seeded copies are only templates: every round copies them again.
        for label in after before; do
            mv "$work/$label-$size/data/idp.sqlite3" "$work/$label-$size/seed.sqlite3"
            ab_pool "$label" "$size"
        done
    done
    ab_round() {
        local label=$1 size=$2 run=$3 dir daemon port cpu0 reads0 written0 cpu1 reads1 written1
        dir="$work/$label-$size"
        ab_start "$dir" "$(ab_binary "$label")" || return 1
        sleep 1
        # shellcheck disable=SC1091
        source "$dir/pool/env.sh"
        cpu0=$(awk '{print $14+$15}' "/proc/$daemon/stat")
        reads0=$(awk '/^syscr/ {print $2}' "/proc/$daemon/io")
        written0=$(awk '/^write_bytes/ {print $2}' "/proc/$daemon/io")
        POOL="$dir/wrk-pool.txt" CLIENT=$ES256_CLIENT WRK_THREADS=2 wrk -t2 -c16 -d"${seconds}s" -s "$lua/$row.lua" "http://127.0.0.1:$port" \
            > "$dir/wrk.txt" 2>&1 || true
        cpu1=$(awk '{print $14+$15}' "/proc/$daemon/stat")
        reads1=$(awk '/^syscr/ {print $2}' "/proc/$daemon/io")
        written1=$(awk '/^write_bytes/ {print $2}' "/proc/$daemon/io")
        kill "$daemon"
        wait "$daemon" 2> /dev/null || true
        python3 - "$label" "$size" "$run" "$dir/wrk.txt" "$((cpu1 - cpu0))" "$((reads1 - reads0))" "$((written1 - written0))" \
            "$(getconf CLK_TCK)" <<'PY' >> "$rows"
import json, re, sys
label, size, run, path, ticks, reads, written, hz = sys.argv[1:9]
text = open(path).read()
found = re.search(r"(\d+) requests in", text)
if not found:
    sys.exit(f"ab: no wrk result for {label} at {size}, round {run}:\n{text}")
count = int(found.group(1))
bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(json.dumps({"build": label, "size": size, "run": int(run), "requests": count,
                  "req_per_sec": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
                  "cpu_ms": int(ticks) * 1000 / int(hz) / count, "reads": int(reads) / count, "kb_written": int(written) / count / 1000,
                  "errors": int(bad.group(1)) if bad else 0}))
PY
    }
    local order=() spec
    for run in $(seq "$runs"); do
        order=()
        for size in "${list[@]}"; do order+=("after:$size" "before:$size"); done
        if [ $((run % 2)) -eq 0 ]; then local reversed=(); for ((i=${#order[@]}-1; i>=0; i--)); do reversed+=("${order[$i]}"); done; order=("${reversed[@]}"); fi
        for spec in "${order[@]}"; do ab_round "${spec%%:*}" "${spec#*:}" "$run"; done
    done
    python3 - "$rows" "${list[0]}" "$row" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
smallest, row = sys.argv[2], sys.argv[3]
at = {(r["build"], r["size"], r["run"]): r for r in rows}
sizes = list(dict.fromkeys(r["size"] for r in rows))
runs = sorted({r["run"] for r in rows})
def spread(values, digits=2):
    values = sorted(values)
    return f"{values[0]:.{digits}f} / {statistics.median(values):.{digits}f} / {values[-1]:.{digits}f}"
what = "ES256 refresh" if row == "refresh" else "/userinfo, 200 opaque access tokens"
print(f"A/B: {what} (wrk -c16, fresh daemon per round on a copy of each build's seed; min / median / max over {len(runs)} rounds)")
print(f"{'build':<8}{'size':<6}{'req/s':>22}{'CPU ms':>24}{'reads/req':>20}{'KB w/req':>18}{'errors':>8}")
for build in ("before", "after"):
    for size in sizes:
        group = [at[(build, size, run)] for run in runs]
        print(f"{build:<8}{size:<6}{spread([r['req_per_sec'] for r in group], 0):>22}{spread([r['cpu_ms'] for r in group], 3):>24}"
              f"{spread([r['reads'] for r in group], 1):>20}{spread([r['kb_written'] for r in group], 1):>18}{sum(r['errors'] for r in group):>8}")
for size in sizes:
    print(f"after / before at {size}, within each round: req/s {spread([at[('after', size, r)]['req_per_sec'] / at[('before', size, r)]['req_per_sec'] for r in runs])}")
for size in sizes[1:]:
    for build in ("before", "after"):
        ratio = [at[(build, size, r)]["req_per_sec"] / at[(build, smallest, r)]["req_per_sec"] for r in runs]
        print(f"{build} {size} / {smallest}, within each round: {spread(ratio)} (goal >= 0.85)")
PY
}
