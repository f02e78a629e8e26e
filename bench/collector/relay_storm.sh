#!/usr/bin/env bash
# The start-up storm through node relays (docs/live-at-scale.md, "Beyond one collector's connections"):
# one `meshscope serve` (fresh temporary database, default flags), R `meshscope relay` processes in front
# of it (each on its own port: R node relays serving many GPUs each), and `meshscope simulate --per-rank`
# with every rank its own keep-alive connection to relay r mod R, started within the window, from enough
# generator processes that each stays under the descriptor limit; a few WebSocket dashboards watch the
# collector. relay_storm_report.py samples the collector and the relays (CPU, RSS, the collector's
# sockets) and prints the figures (docs/benchmarks.md, "Relay: 65,536 ranks").
#
# Usage: relay_storm.sh BUILD_DIR [ranks=65536] [relays=8] [window=10]
# Environment: RELAY_STORM_STEADY_S (20), RELAY_STORM_ALLOWANCE_S (40: seconds the storm may take past the
# window), RELAY_STORM_DASHBOARDS (4), RELAY_STORM_PER_PROCESS (16384 ranks a generator process at most),
# RELAY_STORM_REQUEST_TIMEOUT (the ranks' per-request timeout; empty: simulate's 5 s, MESHSCOPE_TIMEOUT_S),
# RELAY_STORM_RELAY_FLAGS (extra `meshscope relay` flags, e.g. "--max-in-flight 4"), RELAY_STORM_RELAY_BIN (the
# relays' `meshscope` when it is not BUILD_DIR's: another build's relay against the same ranks and collector).
set -euo pipefail
build=${1:?usage: relay_storm.sh BUILD_DIR [ranks] [relays] [window]}
ranks=${2:-65536}
relays=${3:-8}
window=${4:-10}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT

port_of() {  # the "port" of the first stdout line `meshscope serve` / `relay` prints
  for _ in $(seq 150); do [[ -s "$1" ]] && break; sleep 0.1; done
  python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$1"
}

"$build/bin/meshscope" serve --listen 127.0.0.1:0 --db "$work/history.db" >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
pids+=("$serve_pid")
port=$(port_of "$work/serve.out") || { echo "the collector did not start:"; cat "$work/serve.err"; exit 1; }

relay_pids=() relay_urls=()
for i in $(seq "$relays"); do
  "${RELAY_STORM_RELAY_BIN:-$build/bin/meshscope}" relay --listen 127.0.0.1:0 --upstream "http://127.0.0.1:$port" ${RELAY_STORM_RELAY_FLAGS:-} \
    >"$work/relay$i.out" 2>"$work/relay$i.err" &
  relay_pids+=($!)
  pids+=($!)
  relay_port=$(port_of "$work/relay$i.out") || { echo "relay $i did not start:"; cat "$work/relay$i.err"; exit 1; }
  relay_urls+=("http://127.0.0.1:$relay_port")
done

echo "== $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$here/relay_storm_report.py" --meshscope "$build/bin/meshscope" --pid "$serve_pid" \
  --url "http://127.0.0.1:$port" --relay-pids "$(IFS=,; echo "${relay_pids[*]}")" \
  --relay-urls "$(IFS=,; echo "${relay_urls[*]}")" --ranks "$ranks" --window "$window" \
  --steady "${RELAY_STORM_STEADY_S:-20}" --storm-allowance "${RELAY_STORM_ALLOWANCE_S:-40}" \
  --dashboards "${RELAY_STORM_DASHBOARDS:-4}" --per-process "${RELAY_STORM_PER_PROCESS:-16384}" \
  ${RELAY_STORM_REQUEST_TIMEOUT:+--request-timeout "$RELAY_STORM_REQUEST_TIMEOUT"}
