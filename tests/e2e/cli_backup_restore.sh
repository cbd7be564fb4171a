#!/usr/bin/env bash
# `certsteward backup` and `restore` on a SQLite store: a consistent copy taken while the
# server runs and writes; never over an existing file; restore refused while a server uses the
# store and for a file that is not a store; after a stop, restore brings the state of the backup
# back (a project made later is gone) and its audit chain verifies.
set -euo pipefail
bin="$1"
source "$(dirname "$0")/cli_common.sh"
CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=root CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD="root password 1" \
  start_server
api="http://127.0.0.1:$port/api/v1"
project() {
  curl -s -o /dev/null -w '%{http_code}' -X POST "$api/projects" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d "{\"name\":\"$1\"}"
}
projects() { curl -s "$api/projects" -H "Authorization: Bearer $token" | sed -E 's/.*"total":([0-9]+).*/\1/'; }
token=$(login root "root password 1")
[ "$(project first)" = 201 ] || fail "first project"
[ "$(project second)" = 201 ] || fail "second project"

"$bin" backup --config "$work/conf" --to "$work/backup.sqlite" | grep -q "backed up the store" \
  || fail "backup while running"
[ -s "$work/backup.sqlite" ] || fail "empty backup"
set +e
"$bin" backup --config "$work/conf" --to "$work/backup.sqlite" 2> "$work/err"
[ $? = 1 ] || fail "a backup overwrote a file"
grep -q "never overwrites" "$work/err" || fail "unclear: $(cat "$work/err")"
"$bin" backup --config "$work/conf" 2> /dev/null
[ $? = 2 ] || fail "backup without --to"
"$bin" restore --config "$work/conf" --from "$work/backup.sqlite" 2> "$work/err"
[ $? = 1 ] || fail "a restore ran under a running server"
grep -q "a server is using" "$work/err" || fail "unclear: $(cat "$work/err")"
echo "not a database" > "$work/junk"
set -e

[ "$(project third)" = 201 ] || fail "third project"
[ "$(projects)" = 3 ] || fail "three projects expected"
kill -TERM "$pid"; wait "$pid" || true; pid=""

set +e
"$bin" restore --config "$work/conf" --from "$work/junk" 2> "$work/err"
[ $? = 1 ] || fail "a junk file was restored"
grep -q "not a CertSteward store\|cannot read the backup" "$work/err" || fail "unclear: $(cat "$work/err")"
set -e
"$bin" restore --config "$work/conf" --from "$work/backup.sqlite" | grep -q "restored the store" \
  || fail "restore after the stop"
"$bin" audit verify --config "$work/conf" | grep -q "audit log intact" || fail "restored chain"
start_server
api="http://127.0.0.1:$port/api/v1"
token=$(login root "root password 1")
[ "$(projects)" = 2 ] || fail "the restore did not bring the backup's state back: $(projects)"
echo "ok: backup while running, refusals, restore after a stop"
