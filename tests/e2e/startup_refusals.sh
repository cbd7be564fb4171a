#!/usr/bin/env bash
# End to end: start-up refuses what would fail later, with exit code 2 and the key named — a
# licence key file that is not an Ed25519 public key, and keys set only in the environment
# (CERTSTEWARD_<KEY>) exactly as if they were in the file.
set -euo pipefail
bin="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$work/conf" <<CONF
server.listen = 127.0.0.1:0
store.url = sqlite://$work/db.sqlite
jwt.secret = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
secrets.key = $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
CONF

# expect_refusal <name> <key> [env assignments...]: serve must exit 2 naming <key>.
expect_refusal() {
  local name="$1" key="$2"
  shift 2
  set +e
  env "$@" timeout 20 "$bin" serve --config "$work/conf" > "$work/$name.log" 2>&1
  local code=$?
  set -e
  [ "$code" = 2 ] || fail "$name: exit code $code, expected 2: $(cat "$work/$name.log")"
  grep -q "$key" "$work/$name.log" || fail "$name: the message does not name $key: $(cat "$work/$name.log")"
}

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/ec.key" 2> /dev/null
openssl pkey -in "$work/ec.key" -pubout -out "$work/ec.pub"
echo "not a key" > "$work/garbage.pem"
openssl genpkey -algorithm ED25519 -out "$work/ed.key" 2> /dev/null
openssl pkey -in "$work/ed.key" -pubout -out "$work/ed.pub"

expect_refusal ec-key license.public_key_file CERTSTEWARD_LICENSE_PUBLIC_KEY_FILE="$work/ec.pub"
expect_refusal garbage license.public_key_file CERTSTEWARD_LICENSE_PUBLIC_KEY_FILE="$work/garbage.pem"
expect_refusal private-key license.public_key_file CERTSTEWARD_LICENSE_PUBLIC_KEY_FILE="$work/ed.key"
expect_refusal bcrypt auth.bcrypt_cost CERTSTEWARD_AUTH_BCRYPT_COST=9

# expect_start <name> [env assignments...]: serve must start and report its port.
expect_start() {
  local name="$1"
  shift
  env "$@" "$bin" serve --config "$work/conf" > "$work/$name.log" 2>&1 &
  local pid=$! started=""
  for _ in $(seq 1 100); do  # bounded: at most 10 s
    grep -q "listening on" "$work/$name.log" && { started=1; break; }
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  kill -TERM "$pid" 2> /dev/null || true
  wait "$pid" || true
  [ -n "$started" ] || fail "$name: did not start: $(cat "$work/$name.log")"
}

# Without a licence key, and with an Ed25519 public key, the server starts.
expect_start no-key
expect_start ed25519-key CERTSTEWARD_LICENSE_PUBLIC_KEY_FILE="$work/ed.pub"
echo "ok: non-Ed25519 licence keys and environment-only bad values stop start-up with exit 2"
