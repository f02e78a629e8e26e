#!/usr/bin/env bash
# The start-up storm against a collector (docs/live-at-scale.md, "The storm"): a real `meshscope serve`
# (fresh temporary database, default flags) or, with --baseline, the bare QHttpServer 6.4 that answers at
# once and stores nothing; then `meshscope simulate --per-rank`: every rank its own keep-alive connection,
# all starting within the window, one request per phase, heartbeats every 5 s for ~60 s after the storm,
# 20 WebSocket dashboards (none against the baseline, which has no stream). storm_report.py samples the
# collector's CPU and memory from /proc and prints the figures (docs/benchmarks.md).
#
# Usage: storm.sh [--baseline] BUILD_DIR [ranks=16384] [window=3]
# Environment: STORM_STEADY_S (60), STORM_ALLOWANCE_S (30: seconds the storm may take past the window),
# STORM_DASHBOARDS (20), STORM_PROCESSES (generator processes; one per 8,192 ranks: one process's event loop is
# saturated by 16,384 ranks on this machine, and its lag would be counted as the collector's), STORM_SERVE_FLAGS (extra `meshscope serve` flags,
# e.g. "--max-connections 19000"; empty: the defaults).
set -euo pipefail
baseline=0
args=()
for a in "$@"; do
  case $a in
    --baseline) baseline=1 ;;
    *) args+=("$a") ;;
  esac
done
build=${args[0]:?usage: storm.sh [--baseline] BUILD_DIR [ranks] [window]}
ranks=${args[1]:-16384}
window=${args[2]:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
serve_pid=
trap '[[ -n $serve_pid ]] && kill $serve_pid 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT

if (( baseline )); then
  "$build/bin/qhttpserver_baseline" 0 >"$work/serve.out" 2>"$work/serve.err" &
  serve_pid=$!
  for _ in $(seq 100); do [[ -s "$work/serve.out" ]] && break; sleep 0.1; done
  port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/serve.out")
else
  # shellcheck disable=SC2086 # STORM_SERVE_FLAGS is a list of words
  "$build/bin/meshscope" serve --listen 127.0.0.1:0 --db "$work/history.db" ${STORM_SERVE_FLAGS:-} \
    >"$work/serve.out" 2>"$work/serve.err" &
  serve_pid=$!
  for _ in $(seq 100); do [[ -s "$work/serve.out" ]] && break; sleep 0.1; done
  port=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$work/serve.out")
fi
[[ -n "$port" ]] || { echo "the collector did not start:"; cat "$work/serve.err"; exit 1; }

extra=()
(( baseline )) && extra+=(--baseline)
python3 "$here/storm_report.py" --meshscope "$build/bin/meshscope" --pid "$serve_pid" \
  --url "http://127.0.0.1:$port" --ranks "$ranks" --window "$window" \
  --steady "${STORM_STEADY_S:-60}" --storm-allowance "${STORM_ALLOWANCE_S:-30}" --dashboards "${STORM_DASHBOARDS:-20}" \
  --processes "${STORM_PROCESSES:-$(( (ranks + 8191) / 8192 ))}" "${extra[@]}"
