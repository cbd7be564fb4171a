#!/usr/bin/env bash
# The certificates list as CSV, end to end on the packaged binary over real HTTP: 2,500
# certificates (seeded into its SQLite store, past the free plan's cap) are exported whole and in
# order, streamed (Transfer-Encoding: chunked, three store batches); the same rows gzip-compressed
# when asked, and as one body with a length to an HTTP/1.0 client; a search exports only what it
# matches; HEAD sends the headers alone.
set -euo pipefail
bin="$1"
seed="$2"
# shellcheck source=tests/e2e/cli_common.sh
. "$(dirname "$0")/cli_common.sh"
export CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=admin CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD=export-password
db="$work/db.sqlite"

start() {
  start_server
  token=$(login admin export-password)
  [ -n "$token" ] || fail "login failed: $(tail -5 "$work/log")"
}
stop() {
  kill -TERM "$pid"
  wait "$pid" || fail "non-zero exit after SIGTERM"
  pid=""
}
get() {  # get <out file> <header file> <query> [curl options...]
  local out="$1" head="$2" query="$3"
  shift 3
  curl -sS --max-time 60 -o "$out" -D "$head" -H "Authorization: Bearer $token" "$@" \
    "http://127.0.0.1:$port/api/v1/projects/$project/certificates?$query"
}
header() { grep -i "^$2:" "$1" | head -1 | cut -d: -f2- | tr -d ' \r'; }

start
project=$(curl -sf --max-time 10 -X POST "http://127.0.0.1:$port/api/v1/projects" \
  -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d '{"name":"export"}' |
  sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
[ -n "$project" ] || fail "project not created"
stop
"$seed" "$db" "$project" 2500 > /dev/null || fail "seeding failed"
start

# Every certificate, by common name: streamed in chunks, one header line and 2,500 rows.
get "$work/plain.csv" "$work/plain.head" "format=csv&sort=common_name&order=asc"
grep -q '^HTTP/1.1 200' "$work/plain.head" || fail "status: $(head -1 "$work/plain.head")"
[ "$(header "$work/plain.head" transfer-encoding)" = chunked ] || fail "not streamed"
[ -z "$(header "$work/plain.head" content-length)" ] || fail "a length on a streamed answer"
[ "$(header "$work/plain.head" x-total-count)" = 2500 ] || fail "X-Total-Count"
[ -z "$(header "$work/plain.head" x-truncated)" ] || fail "X-Truncated under the limit"
[ "$(wc -l < "$work/plain.csv")" = 2501 ] || fail "$(wc -l < "$work/plain.csv") lines"
head -1 "$work/plain.csv" | grep -q '^id,common_name,sans,status,days_left,' || fail "header line"
[ "$(tail -n +2 "$work/plain.csv" | cut -d, -f1 | sort -u | wc -l)" = 2500 ] ||
  fail "rows missing or repeated"
tail -n +2 "$work/plain.csv" | cut -d, -f2 > "$work/names"
LC_ALL=C sort -c "$work/names" || fail "not in common-name order"
grep -qv $'\r$' "$work/plain.csv" && fail "a line without CRLF"

# The same rows gzip-compressed when asked (curl decodes them).
get "$work/gz.csv" "$work/gz.head" "format=csv&sort=common_name&order=asc" --compressed
[ "$(header "$work/gz.head" content-encoding)" = gzip ] || fail "not compressed"
[ "$(header "$work/gz.head" transfer-encoding)" = chunked ] || fail "compressed, not streamed"
cmp -s <(cut -d, -f1-4 "$work/plain.csv") <(cut -d, -f1-4 "$work/gz.csv") ||
  fail "the compressed export differs"

# HTTP/1.0 has no chunks: the whole body, with its length.
get "$work/old.csv" "$work/old.head" "format=csv&sort=common_name&order=asc" --http1.0
[ -z "$(header "$work/old.head" transfer-encoding)" ] || fail "chunks to HTTP/1.0"
[ "$(header "$work/old.head" content-length)" = "$(wc -c < "$work/old.csv")" ] ||
  fail "Content-Length to HTTP/1.0"
cmp -s <(cut -d, -f1-4 "$work/plain.csv") <(cut -d, -f1-4 "$work/old.csv") ||
  fail "the HTTP/1.0 export differs"

# A search exports only its matches: host12, host120..129, host1200..1299.
get "$work/some.csv" "$work/some.head" "search=host12&sort=common_name&order=asc" \
  -H 'Accept: text/csv'
[ "$(header "$work/some.head" x-total-count)" = 111 ] || fail "search X-Total-Count"
[ "$(tail -n +2 "$work/some.csv" | grep -c '^[0-9a-f]*,host12[0-9]*\.example\.com,')" = 111 ] ||
  fail "search rows"

# HEAD: the headers a GET would send, no body.
get "$work/head.csv" "$work/head.head" "format=csv" -I
[ "$(header "$work/head.head" transfer-encoding)" = chunked ] || fail "HEAD headers"
# curl -I writes the headers as its output: nothing may follow them.
cmp -s "$work/head.csv" "$work/head.head" || fail "a body to HEAD"

stop
echo "csv export: 2,500 rows streamed, compressed, to HTTP/1.0, searched and HEAD"
