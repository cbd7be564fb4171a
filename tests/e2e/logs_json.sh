#!/usr/bin/env bash
# log.format = json: every line of the server's output is one JSON object; the API's access
# lines carry the request id, method, route pattern, status, duration and actor, and no
# password or token; log.access = false leaves them out. Text format keeps an access line too.
set -euo pipefail
bin="$1"
source "$(dirname "$0")/cli_common.sh"
echo "log.format = json" >> "$work/conf"
CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=root CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD="root password 1" \
  start_server
api="http://127.0.0.1:$port/api/v1"
answer=$(curl -s -X POST "$api/auth/login" -H 'Content-Type: application/json' \
  -H 'X-Request-ID: req-login-1' -d '{"username":"root","password":"root password 1"}')
token=$(echo "$answer" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
curl -s -o /dev/null "$api/projects" -H "Authorization: Bearer $token" -H 'X-Request-ID: req-list-2'
curl -s -o /dev/null "$api/projects/0123456789abcdef01234567" -H "Authorization: Bearer $token"
kill -TERM "$pid"; wait "$pid" || true; pid=""
python3 - "$work/log" "$token" <<'PY' || fail "json log check failed: $(head -c 2000 "$work/log")"
import json, sys
path, token = sys.argv[1], sys.argv[2]
access = []
for n, line in enumerate(open(path), 1):
    line = line.rstrip("\n")
    if not line:
        continue
    try:
        o = json.loads(line)
    except ValueError:
        sys.exit(f"line {n} is not JSON: {line[:200]}")
    assert "time" in o and "level" in o, line
    assert "root password 1" not in line and token not in line, f"a secret in line {n}"
    if o.get("log") == "access":
        access.append(o)
    else:
        assert isinstance(o.get("message"), str), line
login = [a for a in access if a["request_id"] == "req-login-1"]
assert login and login[0]["route"] == "/api/v1/auth/login" and login[0]["status"] == 200, access
assert login[0]["actor"] == "", login  # not authenticated by a token
listed = [a for a in access if a["request_id"] == "req-list-2"]
assert listed and listed[0]["method"] == "GET" and listed[0]["actor"] != "", access
assert isinstance(listed[0]["duration_ms"], (int, float)), listed
missing = [a for a in access if a["route"] == "/api/v1/projects/:project_id"]
assert missing and missing[0]["status"] == 404, access
PY

# Access lines off; text format has them by default.
sed -i 's/^log.format = json$/log.access = false/' "$work/conf"
start_server
curl -s -o /dev/null "http://127.0.0.1:$port/api/v1/auth/me" -H 'X-Request-ID: req-off-3'
kill -TERM "$pid"; wait "$pid" || true; pid=""
grep -q "req-off-3" "$work/log" && fail "an access line with log.access = false"
sed -i 's/^log.access = false$//' "$work/conf"
start_server
curl -s -o /dev/null "http://127.0.0.1:$port/api/v1/auth/me" -H 'X-Request-ID: req-text-4'
kill -TERM "$pid"; wait "$pid" || true; pid=""
grep -q "req-text-4 GET /api/v1/auth/me 401" "$work/log" || fail "no text access line: $(tail -5 "$work/log")"
echo "ok: json lines, access log fields, access log off, text access line"
