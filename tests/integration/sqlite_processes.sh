#!/usr/bin/env bash
# Several processes on one SQLite file.
# 1. 4 threads in each of 2 processes claim 10,000 jobs: each is completed exactly once.
# 2. kill -9 a process holding claimed jobs: after the (shortened) lock TTL another process
#    completes them; no job is lost, none completes twice, the reclaimed ones show 2 attempts.
set -euo pipefail
worker="$1"
jobs=${CERTSTEWARD_PROCESS_TEST_JOBS:-10000}
work=$(mktemp -d)
holder=""
cleanup() {
  [ -n "$holder" ] && kill -9 "$holder" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
stat() { "$worker" stats "$1" | awk -v k="$2" '$1 == k {print $2}'; }

# --- 1: two processes, four threads each ---
db="$work/race.db"
"$worker" seed "$db" "$jobs"
"$worker" claim "$db" 4 procA 300000 > "$work/a" &
a=$!
"$worker" claim "$db" 4 procB 300000 > "$work/b" &
b=$!
wait "$a" || fail "process A failed"
wait "$b" || fail "process B failed"
total=$(cat "$work/a" "$work/b" | wc -l)
unique=$(cat "$work/a" "$work/b" | sort -u | wc -l)
[ "$total" = "$jobs" ] || fail "$total completions reported for $jobs jobs"
[ "$unique" = "$jobs" ] || fail "only $unique distinct jobs completed"
[ "$(stat "$db" completed)" = "$jobs" ] || fail "store shows $(stat "$db" completed) completed"
[ -s "$work/a" ] && [ -s "$work/b" ] || fail "one process did no work: not a race"
echo "race: $jobs jobs, A $(wc -l < "$work/a"), B $(wc -l < "$work/b"), each exactly once"

# --- 2: crash while holding jobs ---
db="$work/crash.db"
"$worker" seed "$db" 200
"$worker" hold "$db" 20 crasher 1500 > "$work/held" &
holder=$!
for _ in $(seq 1 200); do  # bounded: 20 s
  [ "$(grep -c '^held ' "$work/held" || true)" = 20 ] && break
  sleep 0.1
done
[ "$(grep -c '^held ' "$work/held")" = 20 ] || fail "holder did not claim 20 jobs"
kill -9 "$holder"
wait "$holder" 2>/dev/null || true
holder=""
[ "$(stat "$db" active)" = 20 ] || fail "the 20 held jobs are not active after the crash"
"$worker" claim "$db" 4 survivor 1500 > "$work/survivor" || fail "survivor failed"
[ "$(wc -l < "$work/survivor")" = 200 ] || fail "survivor completed $(wc -l < "$work/survivor")"
[ "$(sort -u "$work/survivor" | wc -l)" = 200 ] || fail "a job completed twice"
[ "$(stat "$db" completed)" = 200 ] || fail "store shows $(stat "$db" completed) completed"
[ "$(stat "$db" completed_attempts_2)" = 20 ] || fail "reclaimed jobs: $(stat "$db" completed_attempts_2)"
for id in $(awk '{print $2}' "$work/held"); do
  grep -qx "$id" "$work/survivor" || fail "held job $id was lost"
done
echo "crash: 20 held jobs reclaimed after the lock TTL, 200/200 completed once"
