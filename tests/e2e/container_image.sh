#!/usr/bin/env bash
# Builds the Containerfile's image and runs it, where a container engine works (docker or
# podman with a reachable daemon/runtime and base images it can pull); exits 77 (ctest:
# skipped) with the reason otherwise. The running image: refuses to start without the secrets;
# with them it answers /readyz through a published 127.0.0.1 port (bounded wait), runs as UID
# 10001, keeps its store in the volume, and its HEALTHCHECK reports healthy (docker).
# CERTSTEWARD_CONTAINER_ENGINE picks the engine (docker or podman).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

engine=""
reasons=()
for candidate in ${CERTSTEWARD_CONTAINER_ENGINE:-docker podman}; do
  if ! command -v "$candidate" > /dev/null 2>&1; then
    reasons+=("$candidate: not installed")
  elif out=$(timeout 30 "$candidate" info 2>&1); then
    engine="$candidate"
    break
  else
    reasons+=("$candidate: '$candidate info' failed: $(echo "$out" | grep -v '^\s*$' | tail -1)")
  fi
done
[ -n "$engine" ] || skip "no working container engine (${reasons[*]})"

tag="certsteward-test:$$"
name="certsteward-test-$$"
volume="certsteward-test-$$"
work=$(mktemp -d)
cleanup() {
  "$engine" rm -f "$name" > /dev/null 2>&1 || true
  "$engine" volume rm -f "$volume" > /dev/null 2>&1 || true
  "$engine" rmi -f "$tag" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# Base images that cannot be pulled (no registry reachable) are a missing precondition, not a
# broken recipe.
for image in debian:12 debian:12-slim; do
  "$engine" image inspect "$image" > /dev/null 2>&1 || "$engine" pull "$image" > "$work/pull" 2>&1 \
    || skip "$engine cannot pull $image: $(tail -1 "$work/pull")"
done
"$engine" build -f "$root/Containerfile" -t "$tag" "$root" > "$work/build" 2>&1 \
  || fail "image build failed: $(tail -30 "$work/build")"

secret() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
if timeout 60 "$engine" run --rm "$tag" > "$work/refused" 2>&1; then
  fail "the image started without CERTSTEWARD_JWT_SECRET and CERTSTEWARD_SECRETS_KEY"
fi
grep -q "jwt.secret" "$work/refused" || fail "unclear refusal: $(cat "$work/refused")"

"$engine" run -d --name "$name" -p 127.0.0.1::8080 -v "$volume:/var/lib/certsteward" \
  -e "CERTSTEWARD_JWT_SECRET=$(secret)" -e "CERTSTEWARD_SECRETS_KEY=$(secret)" \
  -e CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=admin \
  -e CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD=container-password-1 "$tag" > /dev/null
port=$("$engine" port "$name" 8080/tcp | head -1 | sed 's/.*://')
[ -n "$port" ] || fail "no published port"
ready=""
for _ in $(seq 1 120); do  # bounded: 60 s
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; then
    ready=1
    break
  fi
  sleep 0.5
done
[ -n "$ready" ] || fail "/readyz never answered 200: $("$engine" logs "$name" 2>&1 | tail -20)"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/api/v1/auth/login" \
  -H 'Content-Type: application/json' -d '{"username":"admin","password":"container-password-1"}')
[ "$code" = 200 ] || fail "login answered $code"
[ "$("$engine" exec "$name" id -u)" = 10001 ] || fail "the server does not run as UID 10001"
"$engine" exec "$name" test -s /var/lib/certsteward/certsteward.db || fail "no store in the volume"
if [ "$engine" = docker ]; then
  health=""
  for _ in $(seq 1 60); do  # bounded: start period 30 s + one interval
    health=$("$engine" inspect -f '{{.State.Health.Status}}' "$name")
    [ "$health" = healthy ] && break
    sleep 2
  done
  [ "$health" = healthy ] || fail "health status: $health"
fi
"$engine" stop -t 30 "$name" > /dev/null
status=$("$engine" inspect -f '{{.State.ExitCode}}' "$name")
[ "$status" = 0 ] || fail "exit status $status after stop (SIGTERM)"
echo "ok: image built with $engine, refused without secrets, ready on /readyz, non-root, volume, stop"
