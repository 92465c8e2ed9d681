# Sourced by scripts/bench: the "start" row. Needs free_port, ensure_glewlwyd, $bin, $work, pids.
#
# Cold start and idle memory, ours beside glewlwyd in the same run, BENCH_RUNS times (default 5)
# in alternating order: exec to the first 200 of discovery (keys loaded, database open, both on a
# database made by an earlier start), then RSS, anonymous memory and private dirty pages 2 s later.
bench_start() {
    local runs=${BENCH_RUNS:-5} port glew_port run rows="$work/start-rows.jsonl" glew_conf here=$PWD
    ensure_glewlwyd
    # A binary just linked is dirty in the page cache until written back, and smaps counts such
    # pages as private dirty: written out first, so that column is the process's own memory.
    sync "$bin/idp"
    port=$(free_port)
    glew_port=$(free_port)
    mkdir -p "$work/start"
    # The first start of each creates its database and keys; only the later ones are measured.
    scripts/bench.d/glewlwyd.sh start "$work/glewlwyd" "$glew_port" 1 > /dev/null
    kill "$(cat "$work/glewlwyd/pid")"
    wait "$(cat "$work/glewlwyd/pid")" 2>/dev/null || true
    glew_conf="$work/glewlwyd/glewlwyd.conf"
    ours() {
        (cd "$work/start" && IDP_LISTEN=127.0.0.1:$port IDP_ISSUER=http://127.0.0.1:$port/ IDP_LOG_LEVEL=warning \
            python3 "$here/scripts/bench.d/cold_start.py" ours "http://127.0.0.1:$port/.well-known/openid-configuration" 2 -- "$bin/idp")
    }
    peer() {
        python3 scripts/bench.d/cold_start.py glewlwyd \
            "http://127.0.0.1:$glew_port/api/gatehousebench/.well-known/openid-configuration" 2 -- glewlwyd --config-file="$glew_conf"
    }
    ours > /dev/null
    : > "$rows"
    for run in $(seq "$runs"); do
        if [ $((run % 2)) -eq 1 ]; then ours >> "$rows"; peer >> "$rows"; else peer >> "$rows"; ours >> "$rows"; fi
    done
    python3 - "$rows" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
by = collections.defaultdict(list)
for row in rows: by[row["name"]].append(row)
def spread(values, scale=1, digits=1):
    values = [v / scale for v in values]
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} / {max(values):.{digits}f}"
print(f"Cold start to the first 200 of discovery and memory 2 s later, min / median / max over {len(by['ours'])} runs "
      f"(load average at the end {sys.argv[2]})")
print(f"{'server':<10}{'start ms':>22}{'RSS MiB':>22}{'anonymous MiB':>22}{'private dirty MiB':>22}{'failed':>8}")
for name in ("ours", "glewlwyd"):
    r = by[name]
    print(f"{name:<10}{spread([x['start_ms'] for x in r]):>22}{spread([x['rss_kb'] for x in r], 1024):>22}"
          f"{spread([x['anonymous_kb'] for x in r], 1024):>22}{spread([x['private_dirty_kb'] for x in r], 1024):>22}"
          f"{sum(not x['ok'] for x in r):>8}")
ratios = sorted(o["start_ms"] / p["start_ms"] for o, p in zip(by["ours"], by["glewlwyd"]))
print(f"ours / glewlwyd start time, run by run: {ratios[0]:.2f} / {statistics.median(ratios):.2f} / {ratios[-1]:.2f} (goal <= 1)")
PY
}
