#!/usr/bin/env bash
# `certsteward config check`: the effective configuration with secrets and URL credentials
# masked and where each value comes from; every problem listed, not only the first; exit 0 / 1 /
# 2 (unreadable file).
set -euo pipefail
bin="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
jwt="jwt-secret-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cat > "$work/good" <<CONF
server.listen = 127.0.0.1:0
store.url = sqlite://$work/db.sqlite
jwt.secret = $jwt
secrets.key = secrets-key-with-at-least-32-characters-x
CONF
CERTSTEWARD_SERVER_SECURE_COOKIES=true "$bin" config check --config "$work/good" > "$work/out" \
  || fail "a good configuration was refused: $(cat "$work/out")"
grep -q "^no problems" "$work/out" || fail "no verdict: $(cat "$work/out")"
grep -q "^server.listen = 127.0.0.1:0    # file" "$work/out" || fail "file value not shown"
grep -q "^server.secure_cookies = true    # environment" "$work/out" || fail "env not shown"
grep -q "^worker.poll_interval = (default)" "$work/out" || fail "default not shown"
grep -q "^jwt.secret = \*\*\*\*\*\*\*\* (" "$work/out" || fail "the secret is not masked"
grep -q "$jwt" "$work/out" && fail "the secret was printed"
grep -q "secrets-key-with" "$work/out" && fail "secrets.key was printed"
grep -q "^warning:" "$work/out" && fail "a warning for a loopback listener: $(cat "$work/out")"

# Listening beyond loopback with whole ranges trusted as proxies: a warning, still exit 0.
sed -e 's/^server.listen = .*/server.listen = 0.0.0.0:0/' "$work/good" > "$work/broad"
echo "server.trusted_proxies = 10.0.0.0/8, 192.0.2.10" >> "$work/broad"
"$bin" config check --config "$work/broad" > "$work/out" || fail "a warning changed the exit status"
grep -q "^warning: server.trusted_proxies trusts 10.0.0.0/8" "$work/out" \
  || fail "no warning for a broad proxy range: $(cat "$work/out")"
grep -q "trusts 192.0.2.10 " "$work/out" && fail "a single proxy address was warned about"
echo "network.outbound_allow = 10.1.0.0/16, fd00::/8" >> "$work/broad"
"$bin" config check --config "$work/broad" > "$work/out" || fail "outbound_allow refused"
grep -q "^network.outbound_allow = 10.1.0.0/16, fd00::/8    # file" "$work/out" \
  || fail "outbound_allow not shown: $(grep outbound "$work/out")"

cat > "$work/bad" <<CONF
server.listen = nowhere
store.url = mongodb://admin:hunter2@127.0.0.1:27017/certsteward
worker.poll_interval = fast
network.outbound_allow = 10.0.0.0/33
jwt.secret = short
no.such.key = 1
CONF
set +e
"$bin" config check --config "$work/bad" > "$work/out"
status=$?
set -e
[ $status = 1 ] || fail "problems gave exit $status"
grep -q "problem(s):" "$work/out" || fail "no problem list: $(cat "$work/out")"
for word in server.listen worker.poll_interval jwt.secret no.such.key secrets.key \
  network.outbound_allow; do
  grep -q "  .*$word" "$work/out" || fail "$word not among the problems: $(cat "$work/out")"
done
grep -q "hunter2" "$work/out" && fail "the URL's password was printed"
grep -q "^store.url = mongodb://\*\*\*\*\*\*\*\*@127.0.0.1:27017/certsteward" "$work/out" \
  || fail "URL credentials not masked: $(grep store.url "$work/out")"

set +e
"$bin" config check --config "$work/missing" 2> "$work/err"
status=$?
set -e
[ $status = 2 ] || fail "an unreadable file gave exit $status"
grep -q "cannot read" "$work/err" || fail "unclear: $(cat "$work/err")"
echo "ok: config check masks secrets, names sources, lists every problem"
