#!/usr/bin/env bash
# `certsteward migrate`: a SQLite store the server wrote is moved to MongoDB (the wire-compatible
# stand-in) and back to a new SQLite file; each move counts every kind in both stores and
# verifies the copied audit chain (exit 0). The server then runs on the result: the same people
# sign in with the same passwords, the projects are there, and `audit verify` still finds the
# head recorded before the move. Refused with exit 2: a running server's store, a target that
# holds anything, a missing source, memory:, one store named twice, missing flags. A
# configuration with another audit key: refused before anything is copied (exit 1).
# Exit 77 (skipped) when the stand-in cannot run here (no node/npm).
set -euo pipefail
bin="$1"
standin_cmd="$2"
source "$(dirname "$0")/cli_common.sh"
standin=""
trap 'cleanup; [ -n "$standin" ] && kill "$standin" 2> /dev/null || true' EXIT
source "$(dirname "$0")/standin_common.sh"
start_standin_on_a_free_port || fail "stand-in did not start"
mongo="mongodb://127.0.0.1:$standin_port/certsteward_migrate?serverSelectionTimeoutMS=2000"
sqlite="sqlite://$work/db.sqlite"
back="sqlite://$work/back/db.sqlite"

# Some data written through the API.
CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=root CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD="root password 1" \
  start_server
api="http://127.0.0.1:$port/api/v1"
token=$(login root "root password 1")
[ -n "$token" ] || fail "no login"
for i in 1 2 3; do
  curl -s -o /dev/null --max-time 10 -X POST "$api/projects" -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d "{\"name\":\"project $i\"}"
done
curl -s -o /dev/null --max-time 10 -X POST "$api/users" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' \
  -d '{"username":"carol","password":"carol password 1","org_role":"viewer"}'
read_audit_head "$token"

expect_exit() {  # status what command...: runs it, output in $work/out
  local want=$1 what=$2
  shift 2
  set +e
  "$@" > "$work/out" 2>&1
  local got=$?
  set -e
  [ "$got" = "$want" ] || fail "$what: exit $got, wanted $want: $(cat "$work/out")"
}

# While the server runs: refused, and nothing written.
expect_exit 2 "the running server's store" "$bin" migrate --config "$work/conf" --from "$sqlite" --to "$mongo"
grep -q "in use" "$work/out" || fail "unclear refusal: $(cat "$work/out")"
kill -TERM "$pid"; wait "$pid" || true; pid=""

# The flags.
expect_exit 2 "no --to" "$bin" migrate --config "$work/conf" --from "$sqlite"
grep -q -- "--from URL and --to URL are required" "$work/out" || fail "unclear: $(cat "$work/out")"
expect_exit 2 "one store twice" "$bin" migrate --config "$work/conf" --from "$sqlite" --to "$sqlite"
expect_exit 2 "memory:" "$bin" migrate --config "$work/conf" --from "$sqlite" --to memory:
expect_exit 2 "a missing source" "$bin" migrate --config "$work/conf" --from "sqlite://$work/none.db" --to "$mongo"
grep -q "no SQLite store" "$work/out" || fail "unclear: $(cat "$work/out")"
[ ! -e "$work/none.db" ] || fail "a missing source was created"

# SQLite -> MongoDB.
expect_exit 0 "sqlite to mongodb" "$bin" migrate --config "$work/conf" --from "$sqlite" --to "$mongo"
grep -q "users: 2 in the source, 2 in the target" "$work/out" || fail "users: $(cat "$work/out")"
grep -q "projects: 3 in the source, 3 in the target" "$work/out" || fail "projects: $(cat "$work/out")"
grep -q "audit log: intact in the target" "$work/out" || fail "chain: $(cat "$work/out")"
grep -q "^migration complete" "$work/out" || fail "not complete: $(cat "$work/out")"
grep -q "head $sequence $checksum" "$work/out" || fail "not the recorded head: $(cat "$work/out")"
# Into a target that is no longer empty: refused.
expect_exit 2 "a full target" "$bin" migrate --config "$work/conf" --from "$sqlite" --to "$mongo"
grep -q "not empty" "$work/out" || fail "unclear: $(cat "$work/out")"

# MongoDB -> a new SQLite file.
expect_exit 0 "mongodb to sqlite" "$bin" migrate --config "$work/conf" --from "$mongo" --to "$back"
grep -q "^migration complete" "$work/out" || fail "not complete: $(cat "$work/out")"
moved=$(sed -nE 's/^audit log: ([0-9]+) entries copied unchanged.*/\1/p' "$work/out")

# Another audit key: the copy cannot be verified.
{ cat "$work/conf"; echo "audit.signing_key = 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"; } \
  > "$work/other.conf"
expect_exit 1 "another audit key" "$bin" migrate --config "$work/other.conf" --from "$sqlite" \
  --to "sqlite://$work/other/db.sqlite"
grep -q "does not verify with this configuration's audit key.*nothing was copied" "$work/out" ||
  fail "unclear: $(cat "$work/out")"
[ ! -e "$work/other/db.sqlite" ] || fail "a target was written for a source that does not verify"
# An empty store as the source (a mistyped path that exists): refused.
: > "$work/empty.db"
expect_exit 2 "an empty source" "$bin" migrate --config "$work/conf" --from "sqlite://$work/empty.db" \
  --to "sqlite://$work/other/db.sqlite"
grep -q "source store is empty" "$work/out" || fail "unclear: $(cat "$work/out")"

# The server on the copy of the copy.
sed -i "s|^store.url = .*|store.url = $back|" "$work/conf"
expect_exit 0 "audit verify on the result" "$bin" audit verify --config "$work/conf" \
  --expected-sequence "$sequence" --expected-checksum "$checksum"
start_server
api="http://127.0.0.1:$port/api/v1"
token=$(login root "root password 1")
[ -n "$token" ] || fail "root cannot sign in on the migrated store"
[ -n "$(login carol "carol password 1")" ] || fail "carol cannot sign in on the migrated store"
projects=$(curl -s --max-time 10 "$api/projects" -H "Authorization: Bearer $token")
for i in 1 2 3; do
  echo "$projects" | grep -q "\"project $i\"" || fail "project $i missing: $projects"
done
echo "ok: sqlite -> mongodb -> sqlite ($moved audit entries), refusals, another key"
