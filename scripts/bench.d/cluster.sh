# Sourced by scripts/bench: `scripts/bench cluster`, the token rows on PostgreSQL beside SQLite
# in the same run, on one node and on two nodes behind nginx (README "Running several nodes").
# Uses run_wrk, free_port, $work, $bin and pids from scripts/bench.
#
# Per row: req/s and latency (wrk), idp CPU per request (all nodes), PostgreSQL CPU per request
# (the postmaster and its backends), and per request the statements the server ran
# (pg_stat_statements calls: each is one round trip, BEGIN and COMMIT included) and the
# transactions it committed (pg_stat_database xact_commit). The cluster runs with
# synchronous_commit=off, the counterpart of the daemon's SQLite synchronous=NORMAL in WAL mode:
# a power cut may lose the last commits, never consistency.

pg_tool() {
    # PostgreSQL refuses to run as root: then the cluster belongs to Debian's postgres user.
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

cluster_start_postgres() {
    local dir=$work/pg
    pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    mkdir -p "$dir/sock"
    pg_password=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
    printf '%s\n' "$pg_password" > "$dir/pwfile"
    chmod 600 "$dir/pwfile"
    [ "$(id -u)" = 0 ] && chown -R postgres "$dir"
    pg_tool "$pgbin/initdb" -D "$dir/data" -U gatehouse --pwfile="$dir/pwfile" --auth=scram-sha-256 -E UTF8 --locale=C >/dev/null
    pg_port=$(free_port)
    pg_tool "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-p $pg_port -k $dir/sock -c listen_addresses=127.0.0.1 \
        -c shared_preload_libraries=pg_stat_statements -c synchronous_commit=off -c max_connections=200" start >/dev/null
    pg_stop() { pg_tool "$pgbin/pg_ctl" -D "$work/pg/data" -m fast -w stop >/dev/null 2>&1 || true; }
    postmaster=$(head -1 "$dir/data/postmaster.pid")
    cp "$dir/pwfile" "$work/pg-password" && chmod 600 "$work/pg-password"
    for db in bench_pg1 bench_pg2; do cluster_psql postgres -c "CREATE DATABASE $db" >/dev/null; done
    cluster_psql postgres -c "CREATE EXTENSION pg_stat_statements" >/dev/null
}

# psql with the password from the environment, never argv.
cluster_psql() { local db=$1; shift; PGPASSWORD=$pg_password psql -qAtX -h 127.0.0.1 -p "$pg_port" -U gatehouse -d "$db" "$@"; }

# Ticks of CPU (user + system) of the pids given, and of the PostgreSQL server (postmaster and children).
cluster_ticks() {
    python3 - "$postmaster" "$@" <<'PY'
import os, sys
postmaster, nodes = sys.argv[1], sys.argv[2:]
def ticks(pid):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12]), fields[1]
    except (OSError, IndexError):
        return 0, None
node_ticks = sum(ticks(p)[0] for p in nodes)
pg = ticks(postmaster)[0]
for entry in os.listdir("/proc"):
    if entry.isdigit():
        value, parent = ticks(entry)
        if parent == postmaster: pg += value
print(node_ticks, pg)
PY
}

# Statements and commits so far in database $1.
cluster_counters() {
    cluster_psql postgres -c "SELECT COALESCE((SELECT sum(calls) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = '$1'), 0), (SELECT xact_commit FROM pg_stat_database WHERE datname = '$1')" | tr '|' ' '
}

# cluster_row SETUP DB NAME URL SCRIPT PIDS...: one run_wrk row with the figures above added.
cluster_row() {
    local setup=$1 db=$2 name=$3 url=$4 script=$5; shift 5
    local before after counters_before="0 0" counters_after="0 0"
    before=$(cluster_ticks "$@")
    [ "$db" != - ] && counters_before=$(cluster_counters "$db")
    run_wrk "$setup-$name" "$url" "$script" > "$work/cluster-row.json"
    sleep 1.2  # pg_stat_database is flushed about once a second
    after=$(cluster_ticks "$@")
    [ "$db" != - ] && counters_after=$(cluster_counters "$db")
    python3 - "$work/cluster-row.json" "$setup" "$name" "$before" "$after" "$counters_before" "$counters_after" "$(getconf CLK_TCK)" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))
setup, name = sys.argv[2], sys.argv[3]
(n0, p0), (n1, p1) = (map(int, s.split()) for s in sys.argv[4:6])
(s0, x0), (s1, x1) = (map(int, s.split()) for s in sys.argv[6:8])
hz, count = int(sys.argv[8]), row["requests"] or 1
row.update({"setup": setup, "row": name, "idp_cpu_ms_per_req": round((n1 - n0) * 1000 / hz / count, 3),
            "pg_cpu_ms_per_req": round((p1 - p0) * 1000 / hz / count, 3) if setup != "sqlite" else None,
            "statements_per_req": round((s1 - s0) / count, 2) if setup != "sqlite" else None,
            "commits_per_req": round((x1 - x0) / count, 2) if setup != "sqlite" else None})
print(json.dumps(row))
PY
}

# cluster_node DIR PORT ISSUER ENV...: starts idp in DIR; echoes its pid.
cluster_node() {
    local dir=$1 port=$2 issuer=$3; shift 3
    mkdir -p "$dir"
    (cd "$dir" && exec env "$@" IDP_LISTEN=127.0.0.1:$port IDP_ISSUER=$issuer IDP_LOG_LEVEL=warning IDP_MAX_CONNECTIONS_PER_CLIENT=0 \
        "$bin/idp") > "$dir/idp.out" 2> "$dir/idp.err" &
    echo $!
}

cluster_wait() { for _ in $(seq 150); do curl -fs "$1healthz" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "bench: $1 did not start" >&2; exit 1; }

cluster_nginx() {
    local port=$1 dir=$work/nginx-cluster; shift
    mkdir -p "$dir/tmp"
    local user="" servers=""
    [ "$(id -u)" = 0 ] && user="user root;"
    for upstream in "$@"; do servers+="        server 127.0.0.1:$upstream max_fails=1 fail_timeout=2s;"$'\n'; done
    cat > "$dir/nginx.conf" <<EOF
$user
daemon off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/tmp/body; proxy_temp_path $dir/tmp/proxy; fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi; scgi_temp_path $dir/tmp/scgi;
    upstream gatehouse {
$servers        keepalive 64;
    }
    server {
        listen 127.0.0.1:$port;
        location / {
            proxy_pass http://gatehouse;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_next_upstream error timeout http_502 http_504;
        }
    }
}
EOF
    nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/stderr.log" &
    pids+=($!)
    nginx_cluster_pid=$!
}

bench_cluster() {
    local connections=${BENCH_TOKEN_CONNECTIONS:-16} lua=scripts/bench.d rows=$work/cluster-rows.jsonl
    cluster_start_postgres
    trap 'pg_stop; cleanup' EXIT
    local kek=$work/cluster.kek
    local pg_env1=(IDP_DATABASE="postgresql://gatehouse@127.0.0.1:$pg_port/bench_pg1?sslmode=disable" IDP_DATABASE_PASSWORD_FILE="$work/pg-password" IDP_KEY_ENCRYPTION_KEY_FILE="$kek.1")
    local pg_env2=(IDP_DATABASE="postgresql://gatehouse@127.0.0.1:$pg_port/bench_pg2?sslmode=disable" IDP_DATABASE_PASSWORD_FILE="$work/pg-password" IDP_KEY_ENCRYPTION_KEY_FILE="$kek.2")
    local sqlite_env=(IDP_DATABASE="$work/cluster-sqlite/data/idp.sqlite3")
    local p_sqlite p_pg1 p_pg2a p_pg2b p_nginx
    p_sqlite=$(free_port); p_pg1=$(free_port); p_pg2a=$(free_port); p_pg2b=$(free_port); p_nginx=$(free_port)
    local s_pid g1_pid ga_pid gb_pid
    s_pid=$(cluster_node "$work/cluster-sqlite" "$p_sqlite" "http://127.0.0.1:$p_sqlite/" "${sqlite_env[@]}"); pids+=($s_pid)
    g1_pid=$(cluster_node "$work/cluster-pg1" "$p_pg1" "http://127.0.0.1:$p_pg1/" "${pg_env1[@]}"); pids+=($g1_pid)
    ga_pid=$(cluster_node "$work/cluster-pg2a" "$p_pg2a" "http://127.0.0.1:$p_nginx/" "${pg_env2[@]}"); pids+=($ga_pid)
    cluster_wait "http://127.0.0.1:$p_pg2a/"  # the first node of the pair creates the schema, the KEK and the keys
    gb_pid=$(cluster_node "$work/cluster-pg2b" "$p_pg2b" "http://127.0.0.1:$p_nginx/" "${pg_env2[@]}"); pids+=($gb_pid)
    cluster_nginx "$p_nginx" "$p_pg2a" "$p_pg2b"
    cluster_wait "http://127.0.0.1:$p_sqlite/"; cluster_wait "http://127.0.0.1:$p_pg1/"; cluster_wait "http://127.0.0.1:$p_pg2b/"
    cluster_wait "http://127.0.0.1:$p_nginx/"
    : > "$rows"
    local setup base db env_name node_pids run order
    # BENCH_RUNS rounds (default 3), the setups in alternating order, a fresh token pool each time.
    for run in $(seq "${BENCH_RUNS:-3}"); do
        order="sqlite pg1 pg2"
        [ $((run % 2)) -eq 0 ] && order="pg2 pg1 sqlite"
        for setup in $order; do
            case $setup in
                sqlite) base=http://127.0.0.1:$p_sqlite/; db=-; node_pids=("$s_pid"); env_name=sqlite_env ;;
                pg1) base=http://127.0.0.1:$p_pg1/; db=bench_pg1; node_pids=("$g1_pid"); env_name=pg_env1 ;;
                pg2) base=http://127.0.0.1:$p_nginx/; db=bench_pg2; node_pids=("$ga_pid" "$gb_pid"); env_name=pg_env2 ;;
            esac
            local -n setup_env=$env_name
            mkdir -p "$work/cpools-$setup"
            (cd "$work/cluster-${setup/pg2/pg2a}" && env "${setup_env[@]}" \
                python3 "$OLDPWD/scripts/bench.d/prepare_tokens.py" "$base" "$bin" "$work/cpools-$setup" 400) >/dev/null
            # shellcheck disable=SC1090
            source "$work/cpools-$setup/env.sh"
            {
                POOL="$work/cpools-$setup/refresh_ES256.txt" CLIENT=$ES256_CLIENT WRK_THREADS=2 \
                    cluster_row "$setup" "$db" refresh_ES256 "${base%/}" "$lua/refresh.lua" "${node_pids[@]}"
                POOL="$work/cpools-$setup/refresh_RS256.txt" CLIENT=$RS256_CLIENT WRK_THREADS=2 \
                    cluster_row "$setup" "$db" refresh_RS256 "${base%/}" "$lua/refresh.lua" "${node_pids[@]}"
                M2M_BASIC=$M2M_BASIC cluster_row "$setup" "$db" client_credentials "${base%/}" "$lua/client_credentials.lua" "${node_pids[@]}"
                POOL="$work/cpools-$setup/access.txt" cluster_row "$setup" "$db" userinfo "${base%/}" "$lua/userinfo.lua" "${node_pids[@]}"
            } | python3 -c 'import json, sys; [print(json.dumps({**json.loads(line), "run": int(sys.argv[1])})) for line in sys.stdin]' \
                "$run" >> "$rows"
            unset -n setup_env
        done
    done
    cp "$rows" "${BENCH_OUT:-/tmp}/gatehouse-bench-cluster.jsonl" 2>/dev/null || true
    python3 - "$rows" "$connections" "$seconds" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
runs = len({r["run"] for r in rows})
print(f"Cluster: wrk -t2 -c{sys.argv[2]} -d{sys.argv[3]}s per row, {runs} rounds in alternating order; sqlite = one node on SQLite, "
      "pg1 = one node on PostgreSQL, pg2 = two nodes on PostgreSQL behind nginx (round-robin); PostgreSQL synchronous_commit=off")
print("min / median / max over the rounds; 'vs sqlite' is each round's ratio to the SQLite row of the same round")
by = collections.defaultdict(list)
for r in rows: by[(r["setup"], r["row"])].append(r)
def spread(values, digits):
    values = [v for v in values if v is not None]
    if not values: return "-"
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} / {max(values):.{digits}f}"
def median(group, key):
    values = [r[key] for r in group if r[key] is not None]
    return f"{statistics.median(values):.2f}" if values else "-"
print(f"{'setup':<7}{'row':<20}{'req/s':>22}{'idp ms/req':>22}{'pg ms/req':>22}{'stmts/req':>10}{'commits/req':>12}{'err':>5}{'vs sqlite':>20}")
for setup in ("sqlite", "pg1", "pg2"):
    for row in ("refresh_ES256", "refresh_RS256", "client_credentials", "userinfo"):
        group = by.get((setup, row))
        if not group: continue
        base = {r["run"]: r["req_per_sec"] for r in by.get(("sqlite", row), [])}
        ratios = [r["req_per_sec"] / base[r["run"]] for r in group if base.get(r["run"])]
        print(f"{setup:<7}{row:<20}{spread([r['req_per_sec'] for r in group], 0):>22}{spread([r['idp_cpu_ms_per_req'] for r in group], 2):>22}"
              f"{spread([r['pg_cpu_ms_per_req'] for r in group], 2):>22}{median(group, 'statements_per_req'):>10}"
              f"{median(group, 'commits_per_req'):>12}{sum(r['errors'] for r in group):>5}{spread(ratios, 2):>20}")
print("idp ms/req: CPU of every node per request; pg ms/req: the PostgreSQL server's; stmts/req: statements the server ran per "
      "request (one round trip each, BEGIN/COMMIT included); commits/req: transactions committed per request")
PY
}
