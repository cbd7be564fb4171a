#!/usr/bin/env bash
# `certsteward user create`: the password from stdin, clear refusals, and the user can log in
# to the packaged server afterwards; `user reset-password` gives a new one (the old one stops).
set -euo pipefail
bin="$1"
source "$(dirname "$0")/cli_common.sh"
echo "ops-password-1" | "$bin" user create --config "$work/conf" --username ops --role admin \
  | grep -q "created user ops (admin)" || fail "create"
if echo "short" | "$bin" user create --config "$work/conf" --username ops2 2> "$work/err"; then
  fail "a short password was accepted"
fi
grep -q "8 to 72" "$work/err" || fail "unclear refusal: $(cat "$work/err")"
if echo "ops-password-1" | "$bin" user create --config "$work/conf" --username ops 2> "$work/err"; then
  fail "a duplicate username was accepted"
fi
if echo "x-password-1" | "$bin" user create --config "$work/conf" --username x --role root 2> /dev/null; then
  fail "an unknown role was accepted"
fi
start_server
grep -q "created the owner" "$work/log" && fail "bootstrap ran although a user exists"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/api/v1/auth/login" \
  -H 'Content-Type: application/json' -d '{"username":"ops","password":"ops-password-1"}')
[ "$code" = 200 ] || fail "login answered $code"

# reset-password on the running server's store: the new password works, the old does not.
echo "ops-password-2" | "$bin" user reset-password --config "$work/conf" --username ops \
  | grep -q "new password set for ops" || fail "reset-password"
if echo "short" | "$bin" user reset-password --config "$work/conf" --username ops 2> "$work/err"; then
  fail "a short new password was accepted"
fi
if echo "x-password-1" | "$bin" user reset-password --config "$work/conf" --username ghost 2> /dev/null; then
  fail "an unknown user was reset"
fi
login() {
  curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/api/v1/auth/login" \
    -H 'Content-Type: application/json' -d "{\"username\":\"ops\",\"password\":\"$1\"}"
}
[ "$(login ops-password-2)" = 200 ] || fail "the new password does not log in"
[ "$(login ops-password-1)" = 401 ] || fail "the old password still logs in"
echo "ok: user create, refusals, login, reset-password"
