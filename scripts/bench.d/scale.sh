# Sourced by scripts/bench: the "scale" row. Needs run_wrk, free_port, $bin, $work, $lua, pids.
#
# One daemon per database size (seeded by `bench seed`: N users, 10·N refresh-token families (one row each),
# N sessions, N audit events), all running at once; each round runs every row on every size, the
# sizes in alternating order, so the ratios to the smallest size are taken within one round.
# Rows: refresh (ES256, RS256) and /userinfo, /authorize (the login page) with wrk at
# BENCH_TOKEN_CONNECTIONS; the open-loop p99 of each at 50% of that round's wrk maximum; the full
# browser sign-in (password hash included) at 4 flows at once; bytes written per refresh; RSS and file sizes.

# "1k" → 1000, "100k" → 100000, "1m" → 1000000.
scale_users() { python3 -c "import sys; s=sys.argv[1].lower(); print(int(float(s[:-1]) * {'k': 1e3, 'm': 1e6}[s[-1]]) if s[-1] in 'km' else int(s))" "$1"; }

# Seeds (or reuses from BENCH_SEED_CACHE, seeding takes minutes at a million users) the database of one size.
# The cache names carry the token shape (BENCH_SEED_FORMAT: family, the default, or positioned/digest, the
# earlier ones) and this checkout's migration count, so a cache of another shape or schema is never reused (the
# daemon would migrate it at its start, minutes at a million users; binaries of another schema through
# BENCH_BIN want a BENCH_SEED_CACHE of their own); the family shape's key-encryption key
# (`<file>.kek`) goes beside the database, where the daemon reads it.
scale_seed() {
    local size=$1 users cache=${BENCH_SEED_CACHE:-$work/seeds} pool format=${BENCH_SEED_FORMAT:-family} name schema
    users=$(scale_users "$size")
    pool=$(( users >= 100000 ? 40000 : 4000 ))
    schema=$(find Migrations -maxdepth 1 -name '[0-9][0-9][0-9][0-9]_*.sql' | wc -l)
    name=seed-$format-m$schema-$size
    mkdir -p "$cache"
    if [ ! -f "$cache/$name.sqlite3" ]; then
        rm -f "$cache/$name.sqlite3.partial" "$cache/$name.sqlite3.partial.kek"
        "$bin/bench" seed --users "$users" --refresh-tokens $((users * 10)) --sessions "$users" --audit "$users" --token-format "$format" \
            --pool "$pool" --pool-out "$cache/$name-pool" --out "$cache/$name.sqlite3.partial" > "$cache/$name.json"
        [ -f "$cache/$name.sqlite3.partial.kek" ] && mv "$cache/$name.sqlite3.partial.kek" "$cache/$name.sqlite3.kek"
        mv "$cache/$name.sqlite3.partial" "$cache/$name.sqlite3"
    fi
    mkdir -p "$work/scale-$size/data"
    # Copied in 4 KiB writes, the size SQLite writes its pages in: `cp` writes in large blocks, and
    # the kernel (ext4 on Linux 6.x) then caches the copy in large folios, up to 2 MiB each. A page
    # SQLite later dirties in such a folio dirties all of it, and write-back writes all of it: with
    # `cp` a refresh at 1M sent 30-50 KB to storage instead of 7-10 (docs/bench/scale-1k-1m-session12.txt).
    # A database that SQLite wrote itself has small folios.
    dd if="$cache/$name.sqlite3" of="$work/scale-$size/data/idp.sqlite3" bs=4096 status=none
    if [ -f "$cache/$name.sqlite3.kek" ]; then install -m 600 "$cache/$name.sqlite3.kek" "$work/scale-$size/data/idp.sqlite3.kek"; fi
    cp -r "$cache/$name-pool" "$work/scale-$size/pool"
    # The copy leaves gigabytes of dirty pages at the large sizes; their write-back would run during
    # the start and the first rows and charge them the copy's I/O. Written out before anything is measured.
    sync
    cat "$cache/$name.json"
}

# Starts the daemon on a size's database; prints "pid port start_ms" (exec to the first 200 of /healthz).
# Its /metrics listener's port is in $work/scale-$size/admin_port.
scale_start() {
    local size=$1 port started pid admin_port
    port=$(free_port)
    admin_port=$(free_port)
    echo "$admin_port" > "$work/scale-$size/admin_port"
    started=$(date +%s%N)
    # The maintenance purge is off for the scale rows (SCALE_MAINTENANCE, default 0): a seed's dead
    # rows would be purged at the large sizes only, during the measurement; the soak runs it.
    (cd "$work/scale-$size" && IDP_LISTEN=127.0.0.1:$port IDP_ISSUER=http://127.0.0.1:$port/ IDP_LOG_LEVEL=warning \
        IDP_MAINTENANCE_INTERVAL=${SCALE_MAINTENANCE:-0} IDP_MAX_CONNECTIONS_PER_CLIENT=0 IDP_ADMIN_LISTEN=127.0.0.1:$admin_port exec "$bin/idp") > "$work/scale-$size/idp.out" 2> "$work/scale-$size/idp.err" &
    pid=$!
    pids+=($pid)
    for _ in $(seq 2000); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.005; done
    echo "$pid $port $(( ($(date +%s%N) - started) / 1000000 ))"
}

# Access tokens for /userinfo: one refresh per token of FILE (their successors are written back).
scale_access_tokens() {
    local port=$1 client=$2 file=$3 out=$4
    python3 - "http://127.0.0.1:$port/oauth/token" "$client" "$file" "$out" <<'PY'
import json, sys, requests
url, client, path, out = sys.argv[1:5]
tokens, access = open(path).read().split(), []
for index, token in enumerate(tokens):
    answer = requests.post(url, json={"grant_type": "refresh_token", "client_id": client, "refresh_token": token}).json()
    tokens[index] = answer["refresh_token"]
    access.append(answer["access_token"])
open(path, "w").write("\n".join(tokens) + "\n")
open(out, "w").write("\n".join(access) + "\n")
PY
}

# How many bytes of a file the page cache holds (util-linux's fincore), or null.
cached_bytes() { fincore --bytes --noheadings --output RES "$1" 2>/dev/null || echo null; }

bench_scale() {
    local sizes=${BENCH_SCALE_SIZES:-1k,100k,1m} runs=${BENCH_RUNS:-3} connections=${BENCH_TOKEN_CONNECTIONS:-16}
    local rows="$work/scale-rows.jsonl" size run list=() open_connections=16
    IFS=, read -r -a list <<< "$sizes"
    : > "$rows"
    declare -A pid port
    for size in "${list[@]}"; do
        echo "{\"kind\": \"seed\", \"size\": \"$size\", \"seed\": $(scale_seed "$size")}" >> "$rows"
        # The first start creates the signing keys; the cold start measured is the second one.
        read -r pid[$size] port[$size] start_ms < <(scale_start "$size")
        kill "${pid[$size]}"; while kill -0 "${pid[$size]}" 2>/dev/null; do sleep 0.05; done
        read -r pid[$size] port[$size] start_ms < <(scale_start "$size")
        pids+=("${pid[$size]}")
        sleep 1
        # shellcheck disable=SC1090
        source "$work/scale-$size/pool/env.sh"
        local pool=$work/scale-$size/pool per
        # Each round its own tokens: wrk slices (a big pool, so that each request finds another family
        # at the large sizes), one open-loop chain of 16, and 200 for the access tokens.
        for alg in RS256 ES256; do
            per=$(( ($(wc -l < "$pool/refresh_$alg.txt") - 200) / runs ))
            head -200 "$pool/refresh_$alg.txt" > "$pool/access_source_$alg.txt"
            for run in $(seq "$runs"); do
                sed -n "$((201 + (run - 1) * per)),$((200 + run * per - open_connections))p" "$pool/refresh_$alg.txt" > "$pool/wrk_$alg.$run"
                sed -n "$((200 + run * per - open_connections + 1)),$((200 + run * per))p" "$pool/refresh_$alg.txt" > "$pool/chain_$alg.$run"
            done
        done
        scale_access_tokens "${port[$size]}" "$ES256_CLIENT" "$pool/access_source_ES256.txt" "$pool/access.txt"
        echo "{\"kind\": \"start\", \"size\": \"$size\", \"start_ms\": $start_ms, \"idle_rss_kb\": $(awk '/VmRSS/ {print $2}' "/proc/${pid[$size]}/status"),
              \"wrk_pool\": $(wc -l < "$pool/wrk_ES256.1")}" | tr -d '\n' >> "$rows"
        echo >> "$rows"
    done
    local order=("${list[@]}")
    for run in $(seq "$runs"); do
        # Alternate the order of the sizes between rounds (load that drifts over a round hits each in turn).
        if [ $((run % 2)) -eq 0 ]; then order=(); for ((i=${#list[@]}-1; i>=0; i--)); do order+=("${list[$i]}"); done; else order=("${list[@]}"); fi
        for size in "${order[@]}"; do
            # shellcheck disable=SC1090
            source "$work/scale-$size/pool/env.sh"
            local pool=$work/scale-$size/pool p=${pid[$size]} u="http://127.0.0.1:${port[$size]}" load
            load=$(cut -d' ' -f1-3 /proc/loadavg)
            emit() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); r.update(kind="row", size=sys.argv[2], run=int(sys.argv[3]), load=sys.argv[4]); print(json.dumps(r))' "$1" "$size" "$run" "$load" >> "$rows"; }
            local written_before written_after json max rate warmed
            # BENCH_SCALE_WARM (default 1) reads the database through the page cache first, so that
            # a machine that pages out idle memory (page_reclaim_note) measures the server, not its
            # disk; how much was cached before that is reported (fincore), and 0 measures as found.
            warmed=null
            if [ "${BENCH_SCALE_WARM:-1}" != 0 ]; then
                warmed=$(cached_bytes "$work/scale-$size/data/idp.sqlite3")
                cat "$work/scale-$size/data/idp.sqlite3" > /dev/null
            fi
            for alg in ES256 RS256; do
                local client_var="${alg}_CLIENT"
                written_before=$(awk '/^write_bytes/ {print $2}' "/proc/$p/io")
                json=$(connections=$connections SERVER_PID=$p WRK_THREADS=2 POOL="$pool/wrk_$alg.$run" CLIENT=${!client_var} \
                    run_wrk "refresh_$alg" "$u" "$lua/refresh.lua")
                written_after=$(awk '/^write_bytes/ {print $2}' "/proc/$p/io")
                json=$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); r["written_bytes_per_req"]=round(int(sys.argv[2])/max(1,r["requests"])); print(json.dumps(r))' \
                    "$json" "$((written_after - written_before))")
                emit "$json"
                if [ "$alg" = ES256 ]; then
                    max=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["req_per_sec"])' "$json")
                    rate=$(python3 -c "print(max(10, round($max * 0.5)))")
                    emit "$("$bin/bench" openloop --url "$u/oauth/token" --rate "$rate" --seconds "$seconds" --connections "$open_connections" \
                        --chain-refresh "$pool/chain_ES256.$run" --client-id "$ES256_CLIENT" --label refresh_ES256_open50)"
                fi
            done
            json=$(connections=$connections SERVER_PID=$p POOL="$pool/access.txt" run_wrk userinfo "$u" "$lua/userinfo.lua")
            emit "$json"
            max=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["req_per_sec"])' "$json")
            emit "$("$bin/bench" openloop --url "$u/userinfo" --rate "$(python3 -c "print(max(10, round($max * 0.5)))")" --seconds "$seconds" \
                --connections "$open_connections" --header "Authorization: Bearer $(head -1 "$pool/access.txt")" --label userinfo_open50)"
            json=$(connections=$connections SERVER_PID=$p CLIENT=$ES256_CLIENT REDIRECT_URI=http%3A%2F%2F127.0.0.1%3A9%2Fcallback \
                run_wrk authorize "$u" "$lua/flood.lua")
            emit "$json"
            max=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["req_per_sec"])' "$json")
            emit "$("$bin/bench" openloop --url "$u/authorize?client_id=$ES256_CLIENT&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcallback&response_type=code&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=open" \
                --rate "$(python3 -c "print(max(10, round($max * 0.5)))")" --seconds "$seconds" --connections "$open_connections" --label authorize_open50)"
            local cpu_before cpu_after signin rss_before_signin
            rss_before_signin=$(awk '/VmRSS/ {print $2}' "/proc/$p/status")
            cpu_before=$(awk '{print $14+$15}' "/proc/$p/stat")
            signin=$(python3 "$lua/signin_flow.py" "$u/" "$ES256_CLIENT" "http://127.0.0.1:9/callback" 'user{i}@seed.example' "$SEED_PASSWORD" \
                "$SEED_USERS" 4 "$seconds" signin)
            cpu_after=$(awk '{print $14+$15}' "/proc/$p/stat")
            emit "$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); r["server_cpu_ms_per_flow"]=round(int(sys.argv[2])*1000/int(sys.argv[3])/max(1,r["flows"]),2); print(json.dumps(r))' \
                "$signin" "$((cpu_after - cpu_before))" "$(getconf CLK_TCK)")"
            local files
            files=$(python3 -c 'import os,sys; p=sys.argv[1]; print(sum(os.path.getsize(p+s) for s in ("", "-wal") if os.path.exists(p+s)))' "$work/scale-$size/data/idp.sqlite3")
            # How much of the database the page cache still holds after the round.
            local cached
            cached=$(cached_bytes "$work/scale-$size/data/idp.sqlite3")
            echo "{\"kind\": \"state\", \"size\": \"$size\", \"run\": $run, \"rss_kb\": $(awk '/VmRSS/ {print $2}' "/proc/$p/status"), \"rss_before_signin_kb\": $rss_before_signin, \"hwm_kb\": $(awk '/VmHWM/ {print $2}' "/proc/$p/status"), \"db_bytes\": $files, \"db_cached_bytes\": ${cached:-null}, \"db_cached_before_warming_bytes\": ${warmed:-null}}" >> "$rows"
        done
    done
    cp "$rows" "${BENCH_OUT:-/tmp}/gatehouse-bench-scale.jsonl" 2>/dev/null || true
    python3 "$lua/scale_report.py" "$rows"
    page_reclaim_note
}
