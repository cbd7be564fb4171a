#!/usr/bin/env bash
# The web UI's budgets in headless Chromium (ui/tests/budget.mjs): compressed JavaScript of the
# first load, the time the certificates page takes to show a page after the API answered, on a
# project with 100,000 certificates (SQLite), and Lighthouse's scores of the sign-in page and four
# signed-in pages (ui/tests/lighthouse.mjs). Prints the figures; asserts nothing.
# Usage: bench/ui_budget.sh [certificates] [rounds]   (builds Release certsteward and the seeder)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-100000}
rounds=${2:-10}
scripts/setup
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build/release --parallel "$(nproc)" --target certsteward certsteward_seed_certificates
bin=build/release/app/certsteward
seed=build/release/bench/certsteward_seed_certificates
work=$(mktemp -d)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
port=$((20000 + RANDOM % 20000))
cat > "$work/conf" <<CONF
server.listen = 127.0.0.1:$port
store.url = sqlite://$work/db.sqlite
jwt.secret = bench-jwt-secret-with-at-least-32-characters
secrets.key = bench-secrets-key-with-at-least-32-characters
auth.bcrypt_cost = 10
log.level = warn
CONF
start() {
  CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=bench CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD=bench-password \
    "$bin" serve --config "$work/conf" > "$work/log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && return; sleep 0.1; done
  echo "server did not start" >&2; cat "$work/log" >&2; exit 1
}
start
token=$(curl -sf -X POST "http://127.0.0.1:$port/api/v1/auth/login" -H 'Content-Type: application/json' \
  -d '{"username":"bench","password":"bench-password"}' | sed 's/.*"access_token":"\([^"]*\)".*/\1/')
project=$(curl -sf -X POST "http://127.0.0.1:$port/api/v1/projects" -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' -d '{"name":"budget"}' | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
kill "$server"; wait "$server" || true; server=""
echo "seeding $count certificates..."
"$seed" "$work/db.sqlite" "$project" "$count"
start
CERTSTEWARD_URL="http://127.0.0.1:$port" CERTSTEWARD_ADMIN=bench CERTSTEWARD_ADMIN_PASSWORD=bench-password \
  PROJECT="$project" ROUNDS="$rounds" node ui/tests/budget.mjs
