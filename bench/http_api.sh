#!/usr/bin/env bash
# HTTP benchmark: wrk on loopback against GET /api/v1/projects/<id>/certificates?page_size=20 with
# 100,000 certificates stored (SQLite), next to nginx serving a static JSON file of the same size
# in the same run. Prints requests/s and latency percentiles of both and the ratio.
# Then the same over TLS (server.tls.*), nginx with the same certificate, protocols and ciphers:
# keep-alive requests, and one full handshake per request (Connection: close).
# Usage: bench/http_api.sh [certificates] [seconds]   (run after scripts/bench built Release)
# PERF_OUT=file records a perf profile of the server during its run.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-100000}
seconds=${2:-10}
command -v wrk > /dev/null && command -v nginx > /dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends wrk nginx-light > /dev/null
}
bin=build/release/app/certsteward
seed=build/release/bench/certsteward_seed_certificates
work=$(mktemp -d)
server=""
nginx_pid=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2> /dev/null || true
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/conf" <<CONF
server.listen = 127.0.0.1:18443
store.url = sqlite://$work/db.sqlite
jwt.secret = bench-jwt-secret-with-at-least-32-characters
secrets.key = bench-secrets-key-with-at-least-32-characters
auth.bcrypt_cost = 10
log.level = warn
log.access = false
server.threads = ${THREADS:-0}
CONF
start() {  # [scheme]
  CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=bench CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD=bench-password \
    "$bin" serve --config "$work/conf" > "$work/log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do curl -sfk "${1:-http}://127.0.0.1:18443/healthz" > /dev/null && return; sleep 0.1; done
  echo "server did not start" >&2; cat "$work/log" >&2; exit 1
}
token() {
  curl -sf -X POST http://127.0.0.1:18443/api/v1/auth/login -H 'Content-Type: application/json' \
    -d '{"username":"bench","password":"bench-password"}' | sed 's/.*"access_token":"\([^"]*\)".*/\1/'
}
start
TOKEN=$(token)
project=$(curl -sf -X POST http://127.0.0.1:18443/api/v1/projects -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' -d '{"name":"bench"}' | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
kill "$server"; wait "$server" || true; server=""
echo "seeding $count certificates..."
"$seed" "$work/db.sqlite" "$project" "$count"
start
TOKEN=$(token)
url="http://127.0.0.1:18443/api/v1/projects/$project/certificates?page_size=20"
curl -sf "$url" -H "Authorization: Bearer $TOKEN" > "$work/page.json"
echo "API response: $(wc -c < "$work/page.json") bytes, total $(sed 's/.*"total":\([0-9]*\).*/\1/' "$work/page.json")"

mkdir -p "$work/www"
cp "$work/page.json" "$work/www/page.json"
# nginx started as root serves files as "nobody": mktemp's directory is 0700, so without this
# every request would be a 153-byte 403 page, not the same bytes (checked below).
chmod 755 "$work" "$work/www"
chmod 644 "$work/www/page.json"
cat > "$work/nginx.conf" <<NGINX
worker_processes ${NGINX_WORKERS:-1};
daemon off;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http {
  access_log off;
  default_type application/json;
  client_body_temp_path $work/tmp;
  proxy_temp_path $work/tmp;
  fastcgi_temp_path $work/tmp;
  uwsgi_temp_path $work/tmp;
  scgi_temp_path $work/tmp;
  server { listen 127.0.0.1:18444; root $work/www; }
  # The same file compressed per request as certsteward does it: gzip level 1 above 1 KiB.
  server { listen 127.0.0.1:18446; root $work/www; gzip on; gzip_comp_level 1;
           gzip_min_length 1024; gzip_types application/json; gzip_vary on; }
}
NGINX
mkdir -p "$work/tmp"
nginx -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
sleep 0.5
# The reference must serve the very bytes certsteward answers, plainly and compressed.
same() {  # what url [curl options]: fails the run unless the body equals page.json
  local what=$1
  shift
  curl -sf "$@" -o "$work/same.out" || { echo "$what: request failed: $*" >&2; exit 1; }
  cmp -s "$work/same.out" "$work/page.json" || { echo "$what: not the same bytes: $*" >&2; exit 1; }
}
same nginx http://127.0.0.1:18444/page.json
same "nginx (gzip)" --compressed http://127.0.0.1:18446/page.json
same certsteward "$url" -H "Authorization: Bearer $TOKEN"
same "certsteward (gzip)" --compressed "$url" -H "Authorization: Bearer $TOKEN"

# Cold pages: every request asks for a random page of the 100,000 (5,000 pages, more than the
# page cache holds), so nearly every answer is read from the store and rendered afresh.
cat > "$work/pages.lua" <<LUA
math.randomseed(os.time())
request = function()
  return wrk.format(nil, "/api/v1/projects/$project/certificates?page_size=20&page=" .. math.random(1, $((count / 20))))
end
LUA
run() {  # name url [header] [script]
  wrk -t2 -c32 -d"${seconds}s" --latency ${3:+-H "$3"} ${EXTRA_HEADER:+-H "$EXTRA_HEADER"} \
    ${4:+-s "$4"} "$2" > "$work/$1.txt"
  local rps p50 p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$work/$1.txt")
  p50=$(awk '$1 == "50%" {print $2}' "$work/$1.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$work/$1.txt")
  printf '%-12s %10s req/s   p50 %-8s p99 %s\n' "$1" "$rps" "$p50" "$p99"
  echo "$rps" > "$work/$1.rps"
}
if [ -n "${PERF_OUT:-}" ]; then perf record -F 499 ${PERF_CALLGRAPH:+--call-graph $PERF_CALLGRAPH} -g -p "$server" -o "$PERF_OUT" -- sleep "$seconds" > /dev/null 2>&1 & fi
run certsteward "$url" "Authorization: Bearer $TOKEN"
run nginx "http://127.0.0.1:18444/page.json"
# Reference points inside certsteward: the framework alone (/healthz) and an authenticated
# request that reads one small record (/api/v1/auth/me).
run cold-pages "http://127.0.0.1:18443" "Authorization: Bearer $TOKEN" "$work/pages.lua"
run healthz "http://127.0.0.1:18443/healthz"
run auth-me "http://127.0.0.1:18443/api/v1/auth/me" "Authorization: Bearer $TOKEN"
awk -v a="$(cat "$work/certsteward.rps")" -v b="$(cat "$work/nginx.rps")" \
  'BEGIN {printf "ratio certsteward/nginx: %.2f\n", a / b}'

# Compressed: both asked for gzip; certsteward keeps a cached page compressed, nginx compresses
# the file on every request at the same level.
gz() { curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$@"; }
echo "compressed: certsteward $(gz "$url" -H "Authorization: Bearer $TOKEN") bytes," \
  "nginx $(gz http://127.0.0.1:18446/page.json) bytes (of $(wc -c < "$work/page.json"))"
EXTRA_HEADER="Accept-Encoding: gzip" run gzip-certsteward "$url" "Authorization: Bearer $TOKEN"
EXTRA_HEADER="Accept-Encoding: gzip" run gzip-nginx "http://127.0.0.1:18446/page.json"
awk -v a="$(cat "$work/gzip-certsteward.rps")" -v b="$(cat "$work/gzip-nginx.rps")" \
  'BEGIN {printf "ratio certsteward/nginx, both compressing: %.2f\n", a / b}'
awk -v a="$(cat "$work/gzip-certsteward.rps")" -v b="$(cat "$work/certsteward.rps")" \
  'BEGIN {printf "certsteward compressed / plain: %.2f\n", a / b}'

# TLS: an ECDSA P-256 certificate; both servers TLS 1.2 + 1.3 with the same ciphers and curves.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost \
  -keyout "$work/tls.key" -out "$work/tls.pem" 2> /dev/null
ciphers="ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305"
kill "$nginx_pid"; wait "$nginx_pid" 2> /dev/null || true
sed -i "s|  server { listen 127.0.0.1:18444; root $work/www; }|&\\
  server { listen 127.0.0.1:18445 ssl; root $work/www; ssl_certificate $work/tls.pem; ssl_certificate_key $work/tls.key; ssl_protocols TLSv1.2 TLSv1.3; ssl_ciphers $ciphers; ssl_prefer_server_ciphers on; ssl_ecdh_curve X25519:prime256v1:secp384r1; ssl_session_cache shared:TLS:10m; }|" "$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
sleep 0.5
same "nginx (TLS)" -k https://127.0.0.1:18445/page.json
kill "$server"; wait "$server" || true
printf 'server.tls.certificate_file = %s\nserver.tls.key_file = %s\n' "$work/tls.pem" "$work/tls.key" >> "$work/conf"
start https
sleep 0.5
https_url="https://127.0.0.1:18443/api/v1/projects/$project/certificates?page_size=20"
same "certsteward (TLS)" -k "$https_url" -H "Authorization: Bearer $TOKEN"
run tls-certsteward "$https_url" "Authorization: Bearer $TOKEN"
run tls-nginx "https://127.0.0.1:18445/page.json"
run handshake-certsteward "https://127.0.0.1:18443/healthz" "Connection: close"
run handshake-nginx "https://127.0.0.1:18445/page.json" "Connection: close"
awk -v a="$(cat "$work/tls-certsteward.rps")" -v b="$(cat "$work/tls-nginx.rps")" \
  'BEGIN {printf "ratio certsteward/nginx over TLS (keep-alive): %.2f\n", a / b}'
awk -v a="$(cat "$work/handshake-certsteward.rps")" -v b="$(cat "$work/handshake-nginx.rps")" \
  'BEGIN {printf "ratio certsteward/nginx over TLS (a handshake per request): %.2f\n", a / b}'
# What each keeps of its plain-HTTP rate once TLS is on (the cost of TLS alone).
awk -v a="$(cat "$work/tls-certsteward.rps")" -v b="$(cat "$work/certsteward.rps")" \
  -v c="$(cat "$work/tls-nginx.rps")" -v d="$(cat "$work/nginx.rps")" \
  'BEGIN {printf "kept under TLS: certsteward %.2f, nginx %.2f\n", a / b, c / d}'
