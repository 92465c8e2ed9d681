#!/usr/bin/env bash
# The peer for scripts/bench: glewlwyd from Debian (C, SQLite; installed by scripts/bench with
# apt-get), a private instance on loopback with two ES256 OIDC instances, one that rotates refresh
# tokens like ours and one with its default reusable refresh tokens, and refresh tokens from its
# password grant (a pool for the first, one token for the second).
#   glewlwyd.sh start WORKDIR PORT      starts it (pid in WORKDIR/pid), provisions it, and writes
#                                       WORKDIR/refresh_ES256.txt, access_ES256.txt and env.sh
#   glewlwyd.sh tokens WORKDIR PORT N   a fresh pool of N refresh tokens
# Loopback only; the packaged system service (/etc/glewlwyd, port 4593) is neither used nor touched.
set -euo pipefail
what=$1 work=$2 port=$3
base="http://127.0.0.1:$port"
plugin=gatehousebench reuse_plugin=gatehousebenchreuse
client=bench-client secret=bench-secret-0123456789 user=bench-user password=bench-password-0123

# curl with the admin cookie; fails on anything but 200.
admin_api() {
    local method=$1 path=$2 body=${3:-} code
    code=$(curl -sS -o "$work/api.out" -w '%{http_code}' -b "$work/admin.jar" -c "$work/admin.jar" -X "$method" \
        -H 'Content-Type: application/json' ${body:+--data-binary "$body"} "$base$path")
    [ "$code" = 200 ] || { echo "glewlwyd.sh: $method $path -> $code $(cat "$work/api.out")" >&2; exit 1; }
}

tokens() {
    local count=$1 basic
    basic=$(printf '%s:%s' "$client" "$secret" | base64 -w0)
    : > "$work/refresh_ES256.txt"
    for _ in $(seq "$count"); do
        curl -sS -H "Authorization: Basic $basic" --data-urlencode grant_type=password --data-urlencode "username=$user" \
            --data-urlencode "password=$password" --data-urlencode "scope=openid scope1" "$base/api/$plugin/token" \
            | jq -er .refresh_token >> "$work/refresh_ES256.txt"
    done
    curl -sS -H "Authorization: Basic $basic" --data-urlencode grant_type=password --data-urlencode "username=$user" \
        --data-urlencode "password=$password" --data-urlencode "scope=openid scope1" "$base/api/$reuse_plugin/token" > "$work/reuse.json"
    jq -er .refresh_token "$work/reuse.json" > "$work/refresh_ES256_reuse.txt"
    # An access token for the userinfo endpoint of the same instance.
    jq -er .access_token "$work/reuse.json" > "$work/access_ES256.txt"
    printf 'GLEWLWYD_BASIC=%s\nGLEWLWYD_TOKEN_PATH=/api/%s/token\nGLEWLWYD_REUSE_TOKEN_PATH=/api/%s/token\nGLEWLWYD_USERINFO_PATH=/api/%s/userinfo\n' \
        "$basic" "$plugin" "$reuse_plugin" "$reuse_plugin" > "$work/env.sh"
}

start() {
    mkdir -p "$work"
    zcat /usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz | sqlite3 "$work/glewlwyd.db"
    # WAL, as ours: the package's database uses the rollback journal, which only slows it down.
    sqlite3 "$work/glewlwyd.db" 'PRAGMA journal_mode=WAL;' > /dev/null
    # The three secure_connection_* keys must be present even without TLS, or 2.7.5 refuses to start.
    cat > "$work/glewlwyd.conf" <<CONF
port=$port
bind_address="127.0.0.1"
external_url="$base/"
api_prefix="api"
login_url="login.html"
allow_origin="*"
log_mode="file"
log_level="ERROR"
log_file="$work/glewlwyd.log"
cookie_secure=0
session_key="GLEWLWYD2_SESSION_ID"
session_expiration=2419200
admin_session_authentication="cookie"
profile_session_authentication="cookie"
admin_scope="g_admin"
profile_scope="g_profile"
login_api_enabled=true
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
use_secure_connection=false
secure_connection_key_file="/nonexistent/key"
secure_connection_pem_file="/nonexistent/pem"
secure_connection_ca_file="/nonexistent/ca"
hash_algorithm="SHA512"
database = { type = "sqlite3"; path = "$work/glewlwyd.db"; };
CONF
    glewlwyd --config-file="$work/glewlwyd.conf" > "$work/stdout.log" 2>&1 &
    echo $! > "$work/pid"
    for _ in $(seq 500); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/config")" = 200 ] && break
        kill -0 "$(cat "$work/pid")" 2>/dev/null || { cat "$work/stdout.log" >&2; exit 1; }
        sleep 0.01
    done
    # The administrator comes from the package's init SQL.
    admin_api POST /api/auth/ '{"username":"admin","password":"password"}'
    admin_api POST /api/scope/ '{"name":"scope1","display_name":"bench","description":"bench","password_required":false,"scheme":{}}'
    admin_api POST /api/user/ "$(jq -cn --arg u "$user" --arg p "$password" \
        '{username:$u,password:$p,name:"bench",email:"bench@example.invalid",scope:["openid","g_profile","scope1"],enabled:true}')"
    admin_api POST /api/client/ "$(jq -cn --arg c "$client" --arg s "$secret" \
        '{client_id:$c,client_secret:$s,name:"bench",enabled:true,confidential:true,redirect_uri:["http://127.0.0.1:9/callback"],
          authorization_type:["code","password","refresh_token","client_credentials"],
          token_endpoint_auth_method:["client_secret_basic","client_secret_post"],scope:["scope1"]}')"
    rnbyc -j -g EC256 -k ec-1 -a ES256 -o "$work/ec.jwks" -p "$work/ec.pub.jwks" -n 0
    # ES256 tokens; refresh tokens used once (each refresh returns the successor), as ours rotate,
    # or reusable (glewlwyd's default, its fastest refresh).
    local name one_use
    for name in "$plugin" "$reuse_plugin"; do
        one_use=always
        [ "$name" = "$reuse_plugin" ] && one_use=never
        admin_api POST /api/mod/plugin/ "$(jq -cn --arg n "$name" --arg iss "$base/api/$name" --arg jwks "$(cat "$work/ec.jwks")" --arg once "$one_use" \
            '{module:"oidc",name:$n,display_name:"bench",order_rank:0,readonly:false,parameters:{
              iss:$iss,"jwks-private":$jwks,"default-kid":"ec-1","jwt-type":"ecdsa","jwt-key-size":"256","jwks-show":true,
              "access-token-duration":3600,"refresh-token-duration":1209600,"code-duration":600,"refresh-token-rolling":true,
              "refresh-token-one-use":$once,"allow-non-oidc":true,"auth-type-code-enabled":true,"auth-type-password-enabled":true,
              "auth-type-client-enabled":true,"auth-type-refresh-enabled":true,"auth-type-token-enabled":false,
              "auth-type-id-token-enabled":true,"auth-type-none-enabled":false,"auth-type-device-enabled":false,
              "allowed-scope":["openid"],scope:[]}}')"
    done
}

case "$what" in
    start) start; tokens "${4:-400}" ;;
    tokens) tokens "$4" ;;
    *) echo "usage: glewlwyd.sh start|tokens WORKDIR PORT [N]" >&2; exit 2 ;;
esac
