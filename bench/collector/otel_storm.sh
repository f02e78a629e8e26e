#!/usr/bin/env bash
# The start-up storm through the OpenTelemetry tier (docs/live-at-scale.md, "Through OpenTelemetry";
# docs/benchmarks/otel.md): one `meshscope serve` (fresh temporary database, default flags), A OpenTelemetry
# Collector agents in front of it (the build of scripts/otelcol.sh; each on its own port, each standing for many
# nodes' agents: memory_limiter, batch, the otlp_http exporter with a sending queue and retry_on_failure to the
# collector's POST /v1/logs), and `meshscope simulate --per-rank --protocol otlp` with every rank its own
# keep-alive connection to agent r mod A, started within the window, from enough generator processes that each
# stays under the descriptor limit; a few WebSocket dashboards watch the collector. otel_storm_report.py samples
# the collector and the agents (CPU, RSS), polls the collector's job for the last ready it stored, counts the
# events stored against those the agents acknowledged, and prints the figures.
#
# Usage: otel_storm.sh BUILD_DIR [ranks=65536] [agents=8] [window=10]
# Environment: OTEL_STORM_STEADY_S (20), OTEL_STORM_ALLOWANCE_S (40: seconds the storm may take past the window),
# OTEL_STORM_DASHBOARDS (4), OTEL_STORM_PER_PROCESS (16384 ranks a generator process at most),
# OTEL_STORM_REQUEST_TIMEOUT (the ranks' per-request timeout; empty: simulate's 5 s), OTEL_STORM_DRAIN_S (120:
# seconds the agents may take after the run to deliver what they acknowledged), OTEL_STORM_LIMIT_MIB (1024: each
# agent's memory_limiter limit; one agent here carries ranks/A connections, a node's agent 8),
# OTEL_STORM_QUEUE (file: the sending queue on file_storage, as docs/live-at-scale.md configures it; memory: in
# memory), OTELCOL (the otelcol binary; default: what scripts/otelcol.sh prints).
set -euo pipefail
build=${1:?usage: otel_storm.sh BUILD_DIR [ranks] [agents] [window]}
ranks=${2:-65536}
agents=${3:-8}
window=${4:-10}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
otelcol=${OTELCOL:-$(bash "$root/scripts/otelcol.sh" | tail -n 1)}
[[ -x $otelcol ]] || { echo "no otelcol binary: $otelcol"; exit 1; }
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT

"$build/bin/meshscope" serve --listen 127.0.0.1:0 --db "$work/history.db" >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
pids+=("$serve_pid")
for _ in $(seq 150); do [[ -s "$work/serve.out" ]] && break; sleep 0.1; done
port=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$work/serve.out") ||
  { echo "the collector did not start:"; cat "$work/serve.err"; exit 1; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
listening() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.5)' "$1" 2>/dev/null; }

agent_pids=() agent_urls=() agent_logs=()
for i in $(seq "$agents"); do
  agent_port=$(free_port)
  mkdir -p "$work/queue$i"
  python3 "$here/otel_storm_report.py" --agent-config "$agent_port" "http://127.0.0.1:$port" "$work/queue$i" \
    "${OTEL_STORM_LIMIT_MIB:-1024}" "${OTEL_STORM_QUEUE:-file}" >"$work/agent$i.yaml"
  "$otelcol" --config "$work/agent$i.yaml" >"$work/agent$i.log" 2>&1 &
  agent_pids+=($!)
  pids+=($!)
  for _ in $(seq 600); do listening "$agent_port" && break; kill -0 "${agent_pids[-1]}" 2>/dev/null || break; sleep 0.1; done
  listening "$agent_port" || { echo "agent $i did not start:"; tail -20 "$work/agent$i.log"; exit 1; }
  agent_urls+=("http://127.0.0.1:$agent_port")
  agent_logs+=("$work/agent$i.log")
done

echo "== $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg); agents: $otelcol"
python3 "$here/otel_storm_report.py" --meshscope "$build/bin/meshscope" --pid "$serve_pid" \
  --url "http://127.0.0.1:$port" --db "$work/history.db" --agent-pids "$(IFS=,; echo "${agent_pids[*]}")" \
  --agent-urls "$(IFS=,; echo "${agent_urls[*]}")" \
  --agent-logs "$(IFS=,; echo "${agent_logs[*]}")" --ranks "$ranks" --window "$window" \
  --steady "${OTEL_STORM_STEADY_S:-20}" --storm-allowance "${OTEL_STORM_ALLOWANCE_S:-40}" \
  --dashboards "${OTEL_STORM_DASHBOARDS:-4}" --per-process "${OTEL_STORM_PER_PROCESS:-16384}" \
  --drain "${OTEL_STORM_DRAIN_S:-120}" \
  ${OTEL_STORM_REQUEST_TIMEOUT:+--request-timeout "$OTEL_STORM_REQUEST_TIMEOUT"} ||
  { status=$?; for i in $(seq "$agents"); do echo "-- agent $i log, past start-up (tail)"; grep -v "	info	" "$work/agent$i.log" | tail -n 5; done; exit $status; }
