#!/usr/bin/env bash
# End to end on MongoDB (the wire-compatible stand-in): the packaged binary connects, creates
# its indexes and answers /readyz 200; while the database is down /readyz answers 503 and the
# server stays up; when the database returns, /readyz is 200 again without a restart.
# Exit 77 (skipped) when the stand-in cannot run here (no node/npm).
set -euo pipefail
bin="$1"
standin_cmd="$2"
work=$(mktemp -d)
pid=""
standin=""
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2> /dev/null || true
  [ -n "$standin" ] && kill "$standin" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$work/log" ] && cat "$work/log" >&2; exit 1; }

source "$(dirname "$0")/standin_common.sh"
start_standin_on_a_free_port || fail "stand-in did not start"

cat > "$work/conf" <<CONF
server.listen = 127.0.0.1:0
store.url = mongodb://127.0.0.1:$standin_port/certsteward_e2e?serverSelectionTimeoutMS=500&connectTimeoutMS=500
jwt.secret = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
secrets.key = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
CONF
"$bin" serve --config "$work/conf" > "$work/log" 2>&1 &
pid=$!
http=""
for _ in $(seq 1 100); do
  http=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$work/log" | grep -oE '[0-9]+$' || true)
  [ -n "$http" ] && break
  kill -0 "$pid" 2> /dev/null || fail "server exited early"
  sleep 0.1
done
[ -n "$http" ] || fail "server did not report its port"
grep -q '(store mongodb)' "$work/log" || fail "not on the mongodb store"
ready() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$http/readyz"; }
[ "$(ready)" = 200 ] || fail "/readyz not 200 with the database up"

kill "$standin"
wait "$standin" 2> /dev/null || true
standin=""
code=""
for _ in $(seq 1 20); do  # bounded
  code=$(ready)
  [ "$code" = 503 ] && break
  sleep 0.25
done
[ "$code" = 503 ] || fail "/readyz answered $code with the database down"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http/healthz")" = 200 ] || fail "healthz"

start_standin || fail "stand-in did not restart"
code=""
for _ in $(seq 1 40); do  # bounded: 10 s
  code=$(ready)
  [ "$code" = 200 ] && break
  sleep 0.25
done
[ "$code" = 200 ] || fail "/readyz answered $code after the database returned"
kill -TERM "$pid"
wait "$pid" || fail "non-zero exit after SIGTERM"
pid=""
echo "ok: readyz 200 -> 503 during the outage -> 200 after, no restart"
