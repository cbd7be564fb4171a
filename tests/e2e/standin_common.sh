# Sourced by the e2e scripts that run against the MongoDB wire-protocol stand-in
# (scripts/mongo-standin, named by $standin_cmd). Exits 77 (skipped) when it cannot be installed
# (no node/npm). start_standin runs it on $standin_port (bounded wait) and sets $standin, its pid;
# start_standin_on_a_free_port picks the port. The caller's EXIT trap kills $standin.
# Expects $work.
standin=""
"$standin_cmd" --install > /dev/null 2>&1 || { echo "SKIPPED: the MongoDB stand-in needs node and npm"; exit 77; }

start_standin() {
  "$standin_cmd" "$standin_port" > "$work/standin" 2>&1 &
  standin=$!
  for _ in $(seq 1 100); do  # bounded: 10 s
    grep -q "^ready $standin_port" "$work/standin" && return 0
    kill -0 "$standin" 2> /dev/null || return 1
    sleep 0.1
  done
  return 1
}

start_standin_on_a_free_port() {
  for _ in $(seq 1 20); do
    standin_port=$((20000 + RANDOM % 40000))
    start_standin && return 0
    standin=""
  done
  return 1
}
