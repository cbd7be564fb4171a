# Sourced by the command-line e2e scripts: a work directory removed at exit (with the server
# started by start_server killed), fail, a SQLite configuration with fresh secrets in
# $work/conf, start_server, which runs `serve` on it and sets $pid and $port, and login and
# read_audit_head against that server.
# Expects $bin (the packaged binary).
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2> /dev/null || true; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$work/conf" <<CONF
server.listen = 127.0.0.1:0
store.url = sqlite://$work/db.sqlite
auth.bcrypt_cost = 10
jwt.secret = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
secrets.key = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
CONF

# start_server: `serve` in the background (environment passed through), waiting (bounded) for
# its port.
start_server() {
  "$bin" serve --config "$work/conf" > "$work/log" 2>&1 &
  pid=$!
  port=""
  for _ in $(seq 1 100); do
    port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$work/log" | grep -oE '[0-9]+$' || true)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || fail "server did not start: $(cat "$work/log")"
}

# login USER PASSWORD: prints the access token of a password login to that server (nothing
# when refused).
login() {
  curl -s --max-time 10 -X POST "http://127.0.0.1:$port/api/v1/auth/login" \
    -H 'Content-Type: application/json' -d "{\"username\":\"$1\",\"password\":\"$2\"}" |
    sed -nE 's/.*"access_token":"([^"]+)".*/\1/p'
}

# read_audit_head TOKEN: sets $sequence and $checksum from GET /audit-logs/head, at least 5
# entries in.
read_audit_head() {
  local head
  head=$(curl -s --max-time 10 "http://127.0.0.1:$port/api/v1/audit-logs/head" \
    -H "Authorization: Bearer $1")
  sequence=$(echo "$head" | sed -E 's/.*"sequence":([0-9]+).*/\1/')
  checksum=$(echo "$head" | sed -E 's/.*"checksum":"([0-9a-f]+)".*/\1/')
  [ "$sequence" -ge 5 ] || fail "too few audit entries: $head"
}
