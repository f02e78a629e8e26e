#!/usr/bin/env bash
# The collector under the issue's load: 16,384 simulated ranks x 10 events over loopback, each request
# carrying one rank's pending events, against a real `meshscope serve` with a fresh SQLite history
# (WAL, synchronous=FULL). Checks that every event was acknowledged and is in the database and in the
# monitor, and prints the figures. Usage: run_collector_bench.sh BUILD_DIR [ranks] [events] [connections]
set -euo pipefail
build=${1:?usage: run_collector_bench.sh BUILD_DIR [ranks] [events] [connections]}
ranks=${2:-16384}
events=${3:-10}
connections=${4:-16}
work=$(mktemp -d)
trap 'kill $serve_pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

"$build/bin/meshscope" serve --listen 127.0.0.1:0 --db "$work/history.db" >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
for _ in $(seq 100); do [[ -s "$work/serve.out" ]] && break; sleep 0.1; done
port=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$work/serve.out")
url="http://127.0.0.1:$port"

echo "== load: $ranks ranks x $events events, $connections connections -> $url"
/usr/bin/time -f "load generator: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
  "$build/bin/collector_load" "$url" "$ranks" "$events" "$connections" "" bench | tee "$work/load.json"
job=bench
stored=$(python3 - "$work/history.db" "$job" <<'PY'
import sqlite3, sys
# meshscope.history/2: heartbeats are one summary row per rank, holding how many were stored
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select count(*) from events where job = ?", (sys.argv[2],)).fetchone()[0]
beats = db.execute("select coalesce(sum(count), 0) from heartbeats where job = ?", (sys.argv[2],)).fetchone()[0]
print(rows + beats)
PY
)
ingested=$(curl -s --noproxy '*' "$url/metrics" | awk '/^meshscope_events_ingested_total/ {print $2}')
commits=$(curl -s --noproxy '*' "$url/metrics" | awk '/^meshscope_store_commit_seconds_count/ {print $2}')
commit_sum=$(curl -s --noproxy '*' "$url/metrics" | awk '/^meshscope_store_commit_seconds_sum/ {print $2}')
echo "stored in SQLite: $stored; ingested by the monitor: $ingested; commits: $commits (total $commit_sum s)"
ps -o rss=,time= -p "$serve_pid" | awk '{print "collector: " $1 " KiB RSS, CPU time " $2}'
expected=$((ranks * events))
[[ "$stored" == "$expected" && "$ingested" == "$expected" ]] || { echo "LOST EVENTS: expected $expected"; exit 1; }
echo "OK: all $expected events acknowledged, stored and ingested"
