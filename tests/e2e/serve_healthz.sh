#!/usr/bin/env bash
# End to end: the packaged binary starts on a free port, answers /healthz and /readyz over real
# HTTP with X-Request-ID, refuses bad configuration naming the key, and stops on SIGTERM with
# exit status 0.
set -euo pipefail
bin="$1"
work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$work/log" ] && cat "$work/log" >&2; exit 1; }

cat > "$work/conf" <<CONF
server.listen = 127.0.0.1:0
store.url = memory:
jwt.secret = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
secrets.key = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
CONF

# Bad configuration: a clear message naming the key, non-zero exit, no listener.
if CERTSTEWARD_JWT_ACCESS_TOKEN_TTL=2h "$bin" serve --config "$work/conf" > "$work/bad" 2>&1; then
  fail "an access token TTL over 1 h was accepted"
fi
grep -q "jwt.access_token_ttl" "$work/bad" || fail "error does not name the key: $(cat "$work/bad")"

"$bin" --version | grep -Eq '^certsteward [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version"
"$bin" --help | grep -q "serve" || fail "--help"

"$bin" serve --config "$work/conf" > "$work/log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 100); do  # bounded: at most 10 s
  port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$work/log" | grep -oE '[0-9]+$' || true)
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "server exited early"
  sleep 0.1
done
[ -n "$port" ] || fail "server did not report its port"

code=$(curl -s -o "$work/body" -D "$work/headers" -w '%{http_code}' "http://127.0.0.1:$port/healthz")
[ "$code" = 200 ] || fail "/healthz answered $code"
grep -q '"status":"ok"' "$work/body" || fail "/healthz body: $(cat "$work/body")"
grep -qi '^X-Request-ID: [0-9a-f]\{24\}' "$work/headers" || fail "no generated X-Request-ID"
grep -qi '^Content-Type: application/json' "$work/headers" || fail "not JSON"

curl -s -D "$work/headers2" -o /dev/null -H 'X-Request-ID: trace-42' "http://127.0.0.1:$port/readyz"
grep -qi '^X-Request-ID: trace-42' "$work/headers2" || fail "client X-Request-ID not echoed"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$code" = 200 ] || fail "/readyz answered $code"
code=$(curl -s -o "$work/body" -w '%{http_code}' "http://127.0.0.1:$port/api/v1/no/such/path")
[ "$code" = 404 ] || fail "unknown API path answered $code"
grep -q '"error"' "$work/body" || fail "404 body is not a JSON error"
# Outside /api/ every path is the web UI's (a client-side route), unless built without it.
code=$(curl -s -o "$work/body" -D "$work/headers3" -w '%{http_code}' "http://127.0.0.1:$port/no/such/path")
if [ "$code" = 200 ]; then
  grep -qi '^Content-Type: text/html' "$work/headers3" || fail "the UI's page is not HTML"
  grep -qi "^Content-Security-Policy: default-src 'self'" "$work/headers3" || fail "the UI's page has no CSP"
else
  [ "$code" = 404 ] || fail "unknown path answered $code"
  grep -q '"error"' "$work/body" || fail "404 body is not a JSON error"
fi
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/healthz")
[ "$code" = 405 ] || fail "POST /healthz answered $code"
# A request larger than server.max_request_bytes is refused with 413, and the server lives on.
code=$(head -c 2000000 /dev/zero | curl -s -o /dev/null -w '%{http_code}' -H 'Expect:' \
  -H 'Content-Type: application/json' --data-binary @- "http://127.0.0.1:$port/healthz")
[ "$code" = 413 ] || fail "oversized request answered $code"
# Keep-alive: two requests over one connection.
curl -s -o /dev/null -o /dev/null -w '%{num_connects}\n' "http://127.0.0.1:$port/healthz" \
  "http://127.0.0.1:$port/healthz" > "$work/connects"
[ "$(awk "{s+=\$1} END {print s}" "$work/connects")" = 1 ] || fail "connection not reused: $(cat "$work/connects")"

kill -TERM "$pid"
status=0
for _ in $(seq 1 100); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$pid" 2>/dev/null && fail "server still running 10 s after SIGTERM"
wait "$pid" || status=$?
pid=""
[ "$status" = 0 ] || fail "exit status $status after SIGTERM"
grep -q "stopped" "$work/log" || fail "no clean stop logged"
echo "ok: healthz, readyz, request ids, keep-alive, SIGTERM"
