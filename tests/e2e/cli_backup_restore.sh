#!/usr/bin/env bash
# `certsteward backup` and `restore` on a SQLite store: a consistent copy taken while the
# server runs and writes; never over an existing file or through a link, always 0600; restore
# refused while a server uses the store, for a link, a file open to others and a file that is not
# a store; after a stop, restore brings the state of the backup back (a project made later is
# gone) and its audit chain verifies. The live store's files are private whatever the umask.
set -euo pipefail
bin="$1"
umask 022  # the usual umask: nothing the server writes may take its bits
source "$(dirname "$0")/cli_common.sh"
# The store in a directory the server creates itself.
sed -i -e "s|^store.url = .*|store.url = sqlite://$work/data/deeper/db.sqlite|" "$work/conf"
mode() { stat -c %a "$1"; }
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
for f in db.sqlite db.sqlite-wal db.sqlite-shm; do
  [ "$(mode "$work/data/deeper/$f")" = 600 ] || fail "$f is $(mode "$work/data/deeper/$f")"
done
[ "$(mode "$work/data")" = 700 ] || fail "the data directory is $(mode "$work/data")"
[ "$(mode "$work/data/deeper")" = 700 ] || fail "the store's directory is $(mode "$work/data/deeper")"

# A link at --to, dangling or not, is never followed: nothing is created at its target.
ln -s "$work/planted" "$work/dangling"
set +e
"$bin" backup --config "$work/conf" --to "$work/dangling" 2> "$work/err"
[ $? = 1 ] || fail "a backup went through a dangling link"
set -e
[ -e "$work/planted" ] && fail "the backup created the link's target"
grep -q "never overwrites" "$work/err" || fail "unclear: $(cat "$work/err")"

"$bin" backup --config "$work/conf" --to "$work/backup.sqlite" | grep -q "backed up the store" \
  || fail "backup while running"
[ -s "$work/backup.sqlite" ] || fail "empty backup"
[ "$(mode "$work/backup.sqlite")" = 600 ] || fail "the backup is $(mode "$work/backup.sqlite")"
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
chmod 600 "$work/junk"
set -e

[ "$(project third)" = 201 ] || fail "third project"
[ "$(projects)" = 3 ] || fail "three projects expected"
kill -TERM "$pid"; wait "$pid" || true; pid=""

set +e
"$bin" restore --config "$work/conf" --from "$work/junk" 2> "$work/err"
[ $? = 1 ] || fail "a junk file was restored"
grep -q "not a CertSteward store\|cannot read the backup" "$work/err" || fail "unclear: $(cat "$work/err")"
ln -s "$work/backup.sqlite" "$work/link.sqlite"
"$bin" restore --config "$work/conf" --from "$work/link.sqlite" 2> "$work/err"
[ $? = 1 ] || fail "a restore followed a link"
grep -q "symbolic link" "$work/err" || fail "unclear: $(cat "$work/err")"
cp "$work/backup.sqlite" "$work/open.sqlite" && chmod 644 "$work/open.sqlite"
"$bin" restore --config "$work/conf" --from "$work/open.sqlite" 2> "$work/err"
[ $? = 1 ] || fail "a backup readable by others was restored"
grep -q "chmod 600" "$work/err" || fail "unclear: $(cat "$work/err")"
set -e
"$bin" restore --config "$work/conf" --from "$work/backup.sqlite" | grep -q "restored the store" \
  || fail "restore after the stop"
"$bin" audit verify --config "$work/conf" | grep -q "audit log intact" || fail "restored chain"
[ "$(mode "$work/data/deeper/db.sqlite")" = 600 ] || fail "the restored store is $(mode "$work/data/deeper/db.sqlite")"
start_server
api="http://127.0.0.1:$port/api/v1"
token=$(login root "root password 1")
[ "$(projects)" = 2 ] || fail "the restore did not bring the backup's state back: $(projects)"
echo "ok: backup while running, refusals, restore after a stop"
