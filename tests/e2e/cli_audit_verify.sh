#!/usr/bin/env bash
# `certsteward audit verify`: offline, the whole chain of a store the server wrote — intact
# (exit 0), with the head recorded from the API still there; then a field changed in the
# database (exit 1, the entry and the reason named), the tail cut below a recorded head (exit 1,
# head_missing), and refusals of bad options (exit 2).
set -euo pipefail
bin="$1"
source "$(dirname "$0")/cli_common.sh"
CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=root CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD="root password 1" \
  start_server
api="http://127.0.0.1:$port/api/v1"
token=$(login root "root password 1")
for i in 1 2 3; do
  curl -s -o /dev/null -X POST "$api/projects" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d "{\"name\":\"project $i\"}"
done
read_audit_head "$token"
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
