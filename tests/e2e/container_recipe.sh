#!/usr/bin/env bash
# The Containerfile without a container engine (container_image.sh builds and runs it where one
# works): its structure, runtime packages and variables (container_recipe_check.py), then its
# configuration tried on the built binary: the image's CERTSTEWARD_* variables pass `config
# check` once the deployer's two secrets are added; without them `serve` refuses to start; the
# HEALTHCHECK command succeeds against a server started with the image's variables and fails
# once it stopped.
set -euo pipefail
bin="$1"
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
source "$here/cli_common.sh"
# The image's variables only: nothing from the calling environment.
clean_env=(env -i "PATH=$PATH" "HOME=$work")

"${clean_env[@]}" "$bin" config check > "$work/keys.out" 2>&1 || true
sed -n 's/^\([a-z_.]*\) = .*/\1/p' "$work/keys.out" > "$work/keys"
[ "$(wc -l < "$work/keys")" -gt 20 ] || fail "config check listed no keys: $(cat "$work/keys.out")"

python3 "$here/container_recipe_check.py" "$root/Containerfile" "$root/.dockerignore" "$bin" \
  "$work/keys" "$work/image.env" || fail "Containerfile (above)"
mapfile -t image_env < "$work/image.env"
health=$(cat "$work/image.env.health")

secret() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
secrets=("CERTSTEWARD_JWT_SECRET=$(secret)" "CERTSTEWARD_SECRETS_KEY=$(secret)")
"${clean_env[@]}" "${image_env[@]}" "${secrets[@]}" "$bin" config check > "$work/check" 2>&1 \
  || fail "the image's variables with the two secrets fail config check: $(cat "$work/check")"

# Outside a container: the store in the work directory and a free loopback port.
local_env=("CERTSTEWARD_STORE_URL=sqlite://$work/certsteward.db" "CERTSTEWARD_SERVER_LISTEN=127.0.0.1:0")
if "${clean_env[@]}" "${image_env[@]}" "${local_env[@]}" "$bin" serve > "$work/refused" 2>&1; then
  fail "serve started without the secrets"
fi
grep -q "CERTSTEWARD_JWT_SECRET" "$work/refused" || fail "unclear refusal: $(cat "$work/refused")"

# serve [VAR=value...]: the binary with the image's variables, the secrets and the local store
# (and these), in the background; sets $pid and waits (bounded: 10 s) for $port.
serve() {
  "${clean_env[@]}" "${image_env[@]}" "${secrets[@]}" "${local_env[@]}" "$@" "$bin" serve \
    > "$work/log" 2>&1 &
  pid=$!
  port=""
  for _ in $(seq 1 100); do
    port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$work/log" | grep -oE '[0-9]+$' || true)
    [ -n "$port" ] && break
    kill -0 "$pid" 2> /dev/null || fail "server exited: $(cat "$work/log")"
    sleep 0.1
  done
  [ -n "$port" ] || fail "server did not start: $(cat "$work/log")"
}
serve
grep -q '^{"time":' "$work/log" || fail "the image's log format is not JSON lines"
CERTSTEWARD_SERVER_LISTEN="127.0.0.1:$port" timeout 10 sh -c "$health" \
  || fail "the HEALTHCHECK command failed against a ready server: $health"
kill -TERM "$pid"
wait "$pid" || fail "exit status $? after SIGTERM"
pid=""
if CERTSTEWARD_SERVER_LISTEN="127.0.0.1:$port" timeout 10 sh -c "$health" 2> /dev/null; then
  fail "the HEALTHCHECK command succeeded with the server stopped"
fi

# The same server serving HTTPS (server.tls.* from the environment): the check still passes.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -keyout "$work/tls.key" -out "$work/tls.pem" 2> /dev/null
tls_env=("CERTSTEWARD_SERVER_TLS_CERTIFICATE_FILE=$work/tls.pem"
  "CERTSTEWARD_SERVER_TLS_KEY_FILE=$work/tls.key")
serve "${tls_env[@]}"
grep -q ', https)' "$work/log" || fail "not serving HTTPS: $(cat "$work/log")"
CERTSTEWARD_SERVER_LISTEN="127.0.0.1:$port" timeout 10 sh -c "$health" \
  || fail "the HEALTHCHECK command failed against a ready HTTPS server: $health"
kill -TERM "$pid"
wait "$pid" || fail "exit status $? after SIGTERM"
pid=""
echo "ok: Containerfile structure, runtime packages, variables, secrets refusal, health check (HTTP and HTTPS)"
