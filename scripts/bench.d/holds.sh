# Sourced by scripts/bench: the "holds" row. Needs scale_seed, $bin, $work, pids.
#
# How long idp-admin's batch work keeps other writers waiting, on the BENCH_HOLDS_SIZE (default 1m)
# seeded database with the OS page cache cold (dropped when the bench may, as root; otherwise the
# figures are for a warm cache and say so): a real idp runs beside it, idle, and lock_probe.py
# takes and releases the write lock every millisecond, timing each wait. Two operations:
# `users delete` of a user given 100,000 extra families, and `db purge` of the seed's dead
# families, stopped after BENCH_HOLDS_PURGE_SECONDS (default 120; the whole run takes minutes).
# The probe's longest wait is the longest any of them held the lock (issue #18: a few milliseconds).
holds_drop_caches() {
    sync
    if [ -w /proc/sys/vm/drop_caches ] && echo 1 > /proc/sys/vm/drop_caches 2>/dev/null; then echo cold; else echo warm; fi
}

bench_holds() {
    local size=${BENCH_HOLDS_SIZE:-1m} purge_seconds=${BENCH_HOLDS_PURGE_SECONDS:-120} dir="$work/holds" port cache
    local heavy="auth0|holds-bench-heavy-user" probe idp rows="$work/holds-rows.jsonl"
    scale_seed "$size" > /dev/null
    mkdir -p "$dir/data"
    mv "$work/scale-$size/data/idp.sqlite3" "$work/scale-$size/data/idp.sqlite3.kek" "$dir/data/"
    # The heavy user: one user, 100,000 live one-row families (one device each, a token each).
    sqlite3 "$dir/data/idp.sqlite3" <<SQL
BEGIN;
INSERT INTO users (user_id, email, email_key, email_verified, password_hash, blocked, logins_count, created_at, updated_at, connection, email_lookup)
    SELECT '$heavy', 'heavy@holds.example', email_key || '.heavy', email_verified, password_hash, 0, 0, created_at, updated_at, connection, email_lookup || '.heavy'
    FROM users LIMIT 1;
INSERT INTO grants (grant_id, client_id, user_id, scope, created_at, refresh_generation, refresh_salt, refresh_issued_at, refresh_expires_at)
    SELECT 'heavy-' || value, (SELECT client_id FROM clients LIMIT 1), '$heavy', 'openid offline_access', unixepoch(),
        0, randomblob(16), unixepoch(), unixepoch() + 30 * 86400 FROM generate_series(1, 100000);
COMMIT;
SQL
    port=$(free_port)
    cache=$(holds_drop_caches)
    (cd "$dir" && IDP_LISTEN=127.0.0.1:$port IDP_ISSUER=http://127.0.0.1:$port/ IDP_LOG_LEVEL=warning IDP_MAINTENANCE_INTERVAL=0 \
        exec "$bin/idp") > "$dir/idp.out" 2> "$dir/idp.err" &
    idp=$!
    pids+=("$idp")
    for _ in $(seq 2000); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.01; done
    : > "$rows"
    holds_run() {
        local name=$1
        shift
        python3 scripts/bench.d/lock_probe.py "$dir/data/idp.sqlite3" "$dir/probe-$name.json" &
        probe=$!
        sleep 1
        local started=$SECONDS
        (cd "$dir" && "$@" > "$dir/$name.json" 2> "$dir/$name.err") || true
        local took=$((SECONDS - started))
        sleep 1
        kill -TERM "$probe"
        wait "$probe" || true
        python3 -c 'import json, sys; row = json.load(open(sys.argv[1])); row.update(name=sys.argv[2], seconds=int(sys.argv[3])); print(json.dumps(row))' \
            "$dir/probe-$name.json" "$name" "$took" >> "$rows"
    }
    holds_run users_delete "$bin/idp-admin" users delete "$heavy" --yes --json
    holds_run db_purge timeout -s INT "$purge_seconds" "$bin/idp-admin" db purge --json
    kill "$idp"
    wait "$idp" 2>/dev/null || true
    python3 - "$rows" "$size" "$cache" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"Write-lock waits of another writer beside idp-admin, {sys.argv[2]} database, {sys.argv[3]} page cache, an idle idp beside it"
      f" (load average at the end {sys.argv[4]})")
print(f"{'operation':<14}{'seconds':>9}{'probes':>9}{'>1 ms':>8}{'>5 ms':>8}{'>10 ms':>8}{'p99 ms':>9}{'max ms':>9}")
for r in rows:
    print(f"{r['name']:<14}{r['seconds']:>9}{r['attempts']:>9}{r['waits_over_1ms']:>8}{r['waits_over_5ms']:>8}{r['waits_over_10ms']:>8}"
          f"{r['p99_ms']:>9.2f}{r['max_ms']:>9.2f}")
PY
}
