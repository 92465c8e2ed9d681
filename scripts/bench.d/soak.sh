# Sourced by scripts/bench: the "soak" row. Needs run_wrk, free_port, scale_seed, scale_start, $bin, $work, $lua, pids.
#
# A long run at half load on a seeded database (BENCH_SOAK_SIZE users, default 100k) with the
# maintenance purge on (every minute, the default): open-loop refreshes (chains) and /userinfo,
# each at a quarter of its wrk maximum measured first, and a sign-in every two seconds. Every
# 10 s the database, WAL and RSS go into soak.csv; gnuplot draws soak.png into BENCH_OUT. Audit
# events are kept BENCH_SOAK_AUDIT_RETENTION (default 5m), so that their table reaches its steady
# state inside the run; pages gained per table over the run are printed at the end.

# Pages in use per table and index (SQLite's dbstat), and the free list: where a database that grows
# puts its bytes. Read on a reader connection, beside the running daemon.
table_pages() {
    sqlite3 -readonly "$1" "SELECT name, count(*) FROM dbstat GROUP BY name; SELECT '(free list)', freelist_count FROM pragma_freelist_count;"
}

# "5m" → 300 (s, m, h, d).
duration_seconds() { python3 -c "import sys; v=sys.argv[1]; print(int(float(v[:-1]) * {'s': 1, 'm': 60, 'h': 3600, 'd': 86400}[v[-1]]) if v[-1] in 'smhd' else int(v))" "$1"; }

ensure_gnuplot() {
    command -v gnuplot >/dev/null && return
    export DEBIAN_FRONTEND=noninteractive
    apt-cache show gnuplot-nox >/dev/null 2>&1 || apt-get update -qq
    apt-get install -y -qq gnuplot-nox >/dev/null
}

bench_soak() {
    local minutes=${BENCH_SOAK_MINUTES:-30} size=${BENCH_SOAK_SIZE:-100k} out=${BENCH_OUT:-$PWD/bench-out}
    local audit_retention=${BENCH_SOAK_AUDIT_RETENTION:-5m}
    local duration p port start_ms pool rows="$work/soak-rows.jsonl" csv="$out/soak.csv"
    ensure_gnuplot
    mkdir -p "$out"
    duration=$(python3 -c "print(int(float('$minutes') * 60))")
    scale_seed "$size" > "$work/soak-seed.json"
    # Audit events are the one table that grows with traffic by design (an event per token issued),
    # up to audit_retention: a retention of minutes lets the soak reach that steady state.
    read -r p port start_ms < <(SCALE_MAINTENANCE=1m IDP_AUDIT_RETENTION=$audit_retention scale_start "$size")
    pids+=("$p")
    # shellcheck disable=SC1090
    source "$work/scale-$size/pool/env.sh"
    pool=$work/scale-$size/pool
    head -200 "$pool/refresh_ES256.txt" > "$pool/soak_access_source.txt"
    sed -n '201,216p' "$pool/refresh_ES256.txt" > "$pool/soak_chain.txt"
    tail -n +217 "$pool/refresh_ES256.txt" > "$pool/soak_max.txt"
    scale_access_tokens "$port" "$ES256_CLIENT" "$pool/soak_access_source.txt" "$pool/access.txt"
    local u="http://127.0.0.1:$port" refresh_max userinfo_max
    : > "$rows"
    seconds=5 connections=16 SERVER_PID=$p WRK_THREADS=2 POOL="$pool/soak_max.txt" CLIENT=$ES256_CLIENT \
        run_wrk refresh_max "$u" "$lua/refresh.lua" >> "$rows"
    seconds=5 connections=16 SERVER_PID=$p POOL="$pool/access.txt" run_wrk userinfo_max "$u" "$lua/userinfo.lua" >> "$rows"
    refresh_max=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1])][0]["req_per_sec"])' "$rows")
    userinfo_max=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1])][1]["req_per_sec"])' "$rows")
    local loads=()
    "$bin/bench" openloop --url "$u/oauth/token" --rate "$(python3 -c "print(max(5, round($refresh_max * 0.25)))")" --seconds "$duration" \
        --connections 16 --chain-refresh "$pool/soak_chain.txt" --client-id "$ES256_CLIENT" --label soak_refresh > "$work/soak-refresh.json" &
    loads+=($!); pids+=($!)
    "$bin/bench" openloop --url "$u/userinfo" --rate "$(python3 -c "print(max(5, round($userinfo_max * 0.25)))")" --seconds "$duration" \
        --connections 16 --header "Authorization: Bearer $(head -1 "$pool/access.txt")" --label soak_userinfo > "$work/soak-userinfo.json" &
    loads+=($!); pids+=($!)
    python3 "$lua/signin_flow.py" "$u/" "$ES256_CLIENT" "http://127.0.0.1:9/callback" 'user{i}@seed.example' "$SEED_PASSWORD" \
        "$SEED_USERS" 1 "$duration" soak_signin 2 > "$work/soak-signin.json" &
    loads+=($!); pids+=($!)
    local db="$work/scale-$size/data/idp.sqlite3" started now
    table_pages "$db" > "$work/soak-pages-start.txt"
    started=$(date +%s)
    echo "seconds,database_mib,wal_mib,rss_mib,server_cpu_s" > "$csv"
    while true; do
        now=$(date +%s)
        python3 -c '
import os, sys
db, pid, elapsed, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), os.sysconf("SC_CLK_TCK")
size = lambda p: os.path.getsize(p) / 1048576 if os.path.exists(p) else 0.0
rss = next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")) / 1024
stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
wal = db + "-wal"
print(f"{elapsed},{size(db):.2f},{size(wal):.2f},{rss:.2f},{(int(stat[11]) + int(stat[12])) / hz:.1f}")' \
            "$db" "$p" "$((now - started))" >> "$csv"
        [ $((now - started)) -ge "$duration" ] && break
        sleep 10
    done
    wait "${loads[@]}"
    table_pages "$db" > "$work/soak-pages-end.txt"
    gnuplot <<GNUPLOT
set terminal pngcairo size 900,500 noenhanced
set output "$out/soak.png"
set datafile separator ","
set title "Gatehouse soak: ${minutes} min at half load, $size users, purge every minute, audit kept $audit_retention"
set xlabel "seconds"
set ylabel "MiB"
set key top left
set grid
plot "$csv" using 1:2 with lines lw 2 title "database", "$csv" using 1:3 with lines lw 2 title "WAL", \
     "$csv" using 1:4 with lines lw 2 title "RSS"
GNUPLOT
    python3 - "$csv" "$work/soak-refresh.json" "$work/soak-userinfo.json" "$work/soak-signin.json" "$rows" "$out" \
        "$work/soak-pages-start.txt" "$work/soak-pages-end.txt" "$(duration_seconds "$audit_retention")" <<'PY'
import csv, json, sys
samples = list(csv.DictReader(open(sys.argv[1])))
loads = [json.loads(open(path).read()) for path in sys.argv[2:5]]
maxima = [json.loads(line) for line in open(sys.argv[5])]
def minute(rows, column): return sum(float(r[column]) for r in rows) / max(1, len(rows))
head, tail = samples[:6], samples[-6:]
span = (float(samples[-1]["seconds"]) - float(samples[0]["seconds"])) / 60 or 1
print(f"Soak: {span:.1f} min; wrk maxima first: refresh {maxima[0]['req_per_sec']:.0f}/s, userinfo {maxima[1]['req_per_sec']:.0f}/s; "
      "then each at 1/4 of it, open loop, plus a sign-in every 2 s")
for row in loads[:2]:
    print(f"  {row['name']:<14} {row['achieved_rate']:>7.0f}/s  p50 {row['p50_ms']:.2f} ms  p99 {row['p99_ms']:.2f} ms  p99.9 {row['p999_ms']:.2f} ms  errors {row['errors']}")
print(f"  {loads[2]['name']:<14} {loads[2]['flows']} flows, p50 {loads[2]['p50_ms']} ms, errors {loads[2]['errors']}")
for column, label in (("database_mib", "database"), ("wal_mib", "WAL"), ("rss_mib", "RSS")):
    first, last = minute(head, column), minute(tail, column)
    print(f"  {label:<9} first minute {first:8.1f} MiB, last minute {last:8.1f} MiB: {(last - first) / span:+.2f} MiB/min")
# Once the retention window and one purge have passed, the audit table deletes as much as it gains:
# the least-squares slope from then on is the steady state's trend.
settled = [r for r in samples if float(r["seconds"]) >= float(sys.argv[9]) + 120]
if len(settled) >= 6:
    xs = [float(r["seconds"]) / 60 for r in settled]
    for column, label in (("database_mib", "database"), ("wal_mib", "WAL"), ("rss_mib", "RSS")):
        ys = [float(r[column]) for r in settled]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print(f"  {label:<9} steady state (from minute {xs[0]:.0f}, audit kept {int(sys.argv[9]) // 60} min): "
              f"{min(ys):.1f} to {max(ys):.1f} MiB, trend {slope:+.3f} MiB/min")
pages = [dict((name, int(count)) for name, count in (line.rsplit("|", 1) for line in open(path) if "|" in line))
         for path in sys.argv[7:9]]
grown = sorted(((pages[1].get(name, 0) - pages[0].get(name, 0), name) for name in set(pages[0]) | set(pages[1])), reverse=True)
gains = ", ".join(f"{name} {delta:+d}" for delta, name in grown[:6] if delta > 0)
print(f"  pages gained over the soak (4 KiB each), largest first: {gains or 'none'}")
print(f"  samples: {sys.argv[1]}, plot: {sys.argv[6]}/soak.png")
PY
}
