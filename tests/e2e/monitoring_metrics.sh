#!/usr/bin/env bash
# The shipped dashboard and alert rules (docs/monitoring) against the packaged server: it starts
# on SQLite, elects itself scheduler leader (certsteward_scheduler_leader goes to 1) and is ready
# (certsteward_ready 1); every metric the dashboard's and the rules' expressions read is in its
# /metrics (tests/e2e/monitoring_check.py); the dashboard is importable; the rule file is a
# valid rule-group file (and, with promtool installed, passes `promtool check rules`, its unit
# tests in monitoring_alerts_test.yaml, and every dashboard expression parses as PromQL).
set -euo pipefail
bin="$1"
here="$(cd "$(dirname "$0")" && pwd)"
docs="$here/../../docs/monitoring"
source "$here/cli_common.sh"

python3 -c 'import yaml' 2> /dev/null || fail "python3-yaml is missing (scripts/setup installs it)"

export CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=admin
export CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD=monitoring-password-1
start_server
base="http://127.0.0.1:$port"

# The single instance leads the scheduler within a heartbeat (bounded: 10 s).
for _ in $(seq 1 100); do
  curl -sf "$base/metrics" > "$work/metrics" || fail "GET /metrics failed"
  grep -qx 'certsteward_scheduler_leader 1' "$work/metrics" && break
  sleep 0.1
done
grep -qx 'certsteward_scheduler_leader 1' "$work/metrics" \
  || fail "the only instance never became scheduler leader: $(grep leader "$work/metrics")"
grep -qx 'certsteward_ready 1' "$work/metrics" || fail "certsteward_ready is not 1"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ] || fail "/readyz"

# API requests, so the request counters and latency histograms have series.
code=$(curl -s -o "$work/login" -w '%{http_code}' -X POST "$base/api/v1/auth/login" \
  -H 'Content-Type: application/json' \
  -d '{"username":"admin","password":"monitoring-password-1"}')
[ "$code" = 200 ] || fail "login answered $code: $(cat "$work/log")"
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["access_token"])' "$work/login")
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
  "$base/api/v1/projects")" = 200 ] || fail "GET /api/v1/projects"
curl -sf "$base/metrics" > "$work/metrics" || fail "GET /metrics failed"

python3 "$here/monitoring_check.py" "$work/metrics" "$docs/grafana-dashboard.json" \
  "$docs/alerts.yaml" "$work/dashboard-rules.yaml" || fail "dashboard or alerts (above)"

if command -v promtool > /dev/null 2>&1; then
  promtool check rules "$docs/alerts.yaml" > "$work/promtool" 2>&1 \
    || fail "promtool check rules alerts.yaml: $(cat "$work/promtool")"
  promtool check rules "$work/dashboard-rules.yaml" > "$work/promtool" 2>&1 \
    || fail "a dashboard expression is no valid PromQL: $(cat "$work/promtool")"
  # The unit tests compare labels only: they run on a copy of the rules without annotations.
  mkdir "$work/rules"
  python3 - "$docs/alerts.yaml" "$work/rules/alerts.yaml" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for group in doc["groups"]:
    for rule in group["rules"]:
        rule.pop("annotations", None)
yaml.safe_dump(doc, open(sys.argv[2], "w"), sort_keys=False)
PY
  cp "$here/monitoring_alerts_test.yaml" "$work/rules/"
  (cd "$work/rules" && promtool test rules monitoring_alerts_test.yaml) > "$work/promtool" 2>&1 \
    || fail "promtool test rules monitoring_alerts_test.yaml: $(cat "$work/promtool")"
  echo "ok: promtool check rules, dashboard PromQL, promtool test rules"
else
  echo "note: promtool not installed (Debian package prometheus): PromQL syntax not checked"
fi
echo "ok: leader and readiness gauges at 1, every dashboard and alert metric in /metrics"
