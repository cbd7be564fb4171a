#!/usr/bin/env bash
# End to end on the SQLite store: the packaged binary creates and migrates the file (and its
# directory), answers /readyz, restarts on the same file, and refuses to start on a schema newer
# than it knows, with a clear message.
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

db="$work/nested/dir/certsteward.db"
cat > "$work/conf" <<CONF
server.listen = 127.0.0.1:0
store.url = sqlite://$db
jwt.secret = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
secrets.key = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
CONF

start() {
  : > "$work/log"
  "$bin" serve --config "$work/conf" > "$work/log" 2>&1 &
  pid=$!
  port=""
  for _ in $(seq 1 100); do  # bounded: at most 10 s
    port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$work/log" | grep -oE '[0-9]+$' || true)
    [ -n "$port" ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "server exited early"
    sleep 0.1
  done
  fail "server did not report its port"
}
stop() {
  kill -TERM "$pid"
  wait "$pid" || fail "non-zero exit after SIGTERM"
  pid=""
}

start
grep -q '(store sqlite)' "$work/log" || fail "not on the sqlite store"
[ -f "$db" ] || fail "database file not created"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$code" = 200 ] || fail "/readyz answered $code"
stop
applied=$(sqlite3 "$db" 'SELECT COUNT(*) FROM schema_migrations')
[ "$applied" -ge 1 ] || fail "no migration recorded"
[ "$(sqlite3 "$db" 'SELECT MAX(version) FROM schema_migrations')" = "$applied" ] || fail "versions not 1..N"
[ "$(sqlite3 "$db" 'PRAGMA journal_mode')" = wal ] || fail "not in WAL mode"

start  # the same file again: migrations are not re-applied
[ "$(sqlite3 "$db" 'SELECT COUNT(*) FROM schema_migrations')" = "$applied" ] || fail "migration re-applied"
stop

# The file deleted under the running server: writes would vanish at restart, so not ready.
start
cp "$db" "$work/saved.db"
rm -f "$db" "$db-wal" "$db-shm"
code=$(curl -s -o "$work/readyz" -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$code" = 503 ] || fail "/readyz answered $code after the file was deleted"
grep -q "removed or replaced" "$work/log" || fail "the log does not say why: $(cat "$work/log")"
# ... and replaced by another file at the same path: still not the file it opened.
cp "$work/saved.db" "$db"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")
[ "$code" = 503 ] || fail "/readyz answered $code after the file was replaced"
stop

# An older database (as release 1 left it: schema version 1) is migrated forward on start.
# Undo what migrations 2 to 10 made; all must come back.
[ "$applied" -ge 10 ] || fail "expected at least 10 migrations, found $applied"
sqlite3 "$db" "DELETE FROM schema_migrations WHERE version >= 2;
  DROP INDEX jobs_status_type;
  DROP TRIGGER certificates_generation_insert; DROP TRIGGER certificates_generation_update;
  DROP TRIGGER certificates_generation_delete; DROP TABLE certificate_generations;
  DROP TABLE events; DROP TABLE ca_activity;
  DROP INDEX resources_ref2; ALTER TABLE resources DROP COLUMN ref2;
  DROP INDEX certificates_expires; ALTER TABLE certificates DROP COLUMN names;
  DROP TABLE challenge_tokens;
  DROP INDEX certificates_renewal_info; ALTER TABLE certificates DROP COLUMN ari_poll_at;
  INSERT INTO certificates (id, project_id, status, issuer_type, common_name, auto_renew,
    created_at, distribution_pending, version, doc) VALUES ('c-old', 'p-old', 'renewal_failed', 'acme',
    'a.example', 0, 0, 0, 1, '{\"common_name\":\"a.example\",\"sans\":[\"a.example\",\"b.example\"]}');"
start
stop
# Migration 8 filled the names of a certificate stored before it.
[ "$(sqlite3 "$db" "SELECT replace(names, char(10), '|') FROM certificates WHERE id = 'c-old'")" = "a.example|b.example" ] \
  || fail "names not filled from the stored document"
sqlite3 "$db" "DELETE FROM certificates WHERE id = 'c-old'"
[ "$(sqlite3 "$db" 'SELECT MAX(version) FROM schema_migrations')" = "$applied" ] || fail "not migrated forward"
for name in jobs_status_type certificate_generations certificates_generation_update events \
  events_project_at ca_activity ca_activity_domain resources_ref2 certificates_expires \
  challenge_tokens challenge_tokens_expires certificates_renewal_info; do
  [ -n "$(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE name = '$name'")" ] \
    || fail "$name missing after migrating forward"
done

sqlite3 "$db" "INSERT INTO schema_migrations (version, applied_at) VALUES (99, 0)"
if "$bin" serve --config "$work/conf" > "$work/newer" 2>&1; then
  fail "started on a schema newer than it knows"
fi
grep -q "schema is version 99" "$work/newer" || fail "unclear message: $(cat "$work/newer")"
echo "ok: sqlite file created, migrated once, deleted or replaced file not ready, migrated forward, WAL, newer schema refused"
