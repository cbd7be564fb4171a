#!/usr/bin/env bash
# `certsteward audit verify`: offline, the whole chain of a store the server wrote — intact
# (exit 0), with the head recorded from the API still there; then a field changed in the
# database (exit 1, the entry and the reason named), the tail cut below a recorded head (exit 1,
# head_missing), and refusals of bad options (exit 2).
set -euo pipefail
bin="$1"
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2> /dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$work/conf" <<CONF
server.listen = 127.0.0.1:0
store.url = sqlite://$work/db.sqlite
auth.bcrypt_cost = 10
jwt.secret = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
secrets.key = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
CONF
CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=root CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD="root password 1" \
  "$bin" serve --config "$work/conf" > "$work/log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$work/log" | grep -oE '[0-9]+$' || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "server did not start"
api="http://127.0.0.1:$port/api/v1"
token=$(curl -s -X POST "$api/auth/login" -H 'Content-Type: application/json' \
  -d '{"username":"root","password":"root password 1"}' | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
for i in 1 2 3; do
  curl -s -o /dev/null -X POST "$api/projects" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d "{\"name\":\"project $i\"}"
done
head=$(curl -s "$api/audit-logs/head" -H "Authorization: Bearer $token")
sequence=$(echo "$head" | sed -E 's/.*"sequence":([0-9]+).*/\1/')
checksum=$(echo "$head" | sed -E 's/.*"checksum":"([0-9a-f]+)".*/\1/')
[ "$sequence" -ge 5 ] || fail "too few audit entries: $head"
kill -TERM "$pid"; wait "$pid" || true; pid=""

"$bin" audit verify --config "$work/conf" --expected-sequence "$sequence" \
  --expected-checksum "$checksum" > "$work/out" || fail "intact chain refused: $(cat "$work/out")"
grep -q "audit log intact: $sequence entries verified, the recorded head is still there" \
  "$work/out" || fail "unexpected: $(cat "$work/out")"

# Bad options: exit 2, in words.
set +e
"$bin" audit verify --config "$work/conf" --expected-sequence 3 > /dev/null 2> "$work/err"
[ $? = 2 ] || fail "a lone --expected-sequence was accepted"
grep -q "together" "$work/err" || fail "unclear refusal: $(cat "$work/err")"
"$bin" audit verify --config "$work/conf" --expected-sequence x --expected-checksum y 2> /dev/null
[ $? = 2 ] || fail "a non-numeric sequence was accepted"
set -e

# A field the spec's checksum leaves out, changed in the database: the entry MAC breaks.
victim=$(sqlite3 "$work/db.sqlite" "SELECT id FROM audit_log WHERE action = 'project.create' ORDER BY seq LIMIT 1;")
sqlite3 "$work/db.sqlite" \
  "UPDATE audit_log SET doc = replace(doc, '\"ip\":\"127.0.0.1\"', '\"ip\":\"10.6.6.6\"') WHERE id = '$victim';"
set +e
"$bin" audit verify --config "$work/conf" > "$work/out"
status=$?
set -e
[ $status = 1 ] || fail "a changed entry gave exit $status: $(cat "$work/out")"
grep -q "audit log BROKEN" "$work/out" || fail "not reported: $(cat "$work/out")"
grep -q "entry_mac entry $victim" "$work/out" || fail "the entry is not named: $(cat "$work/out")"

# The newest entries cut away: the recorded head is missing.
sqlite3 "$work/db.sqlite" "DELETE FROM audit_log WHERE seq >= $((sequence - 1));"
set +e
"$bin" audit verify --config "$work/conf" --expected-sequence "$sequence" \
  --expected-checksum "$checksum" > "$work/out"
status=$?
set -e
[ $status = 1 ] || fail "a cut tail gave exit $status"
grep -q "head_missing" "$work/out" || fail "the cut is not named: $(cat "$work/out")"
echo "ok: audit verify intact, changed entry, cut tail, refusals"
