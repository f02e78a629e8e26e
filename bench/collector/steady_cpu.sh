#!/usr/bin/env bash
# The collector's CPU in the steady state of a 16,384-rank job (16,384 heartbeats every 5 s over 16,384 keep-alive
# connections), read from /proc/PID/stat over 20 s once the storm is over, plus its RSS and the storm's summary.
# Usage: steady_cpu.sh BUILD_DIR [request_timeout=5]   (docs/benchmarks.md, "Collector start-up storm")
# STEADY_PROCESSES (2): generator processes, one per 8,192 ranks as in storm.sh (one alone is the bottleneck:
# its ranks' retries and timeouts would still be running in the measured window).
set -euo pipefail
build=${1:?usage: steady_cpu.sh BUILD_DIR [request_timeout]}
timeout=${2:-5}
meshscope="$build/bin/meshscope"
work=$(mktemp -d)
serve_pid=
trap '[[ -n $serve_pid ]] && kill $serve_pid 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT
"$meshscope" serve --listen 127.0.0.1:0 --db "$work/h.db" >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
for _ in $(seq 100); do [[ -s $work/serve.out ]] && break; sleep 0.1; done
port=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["port"])' "$work/serve.out")
"$meshscope" simulate --per-rank --target "http://127.0.0.1:$port" --job steady --dp 128 --cp 128 --ep 8 \
  --start-window 3 --duration 75 --dashboards 0 --request-timeout "$timeout" --processes "${STEADY_PROCESSES:-2}" >"$work/sim.out" 2>&1 &
sim_pid=$!
sleep 40  # the storm is over well before this on the 2-core VM (docs/benchmarks.md)
# utime + stime of the process and of each thread (named ms-network, ms-parse, ms-store, ms-monitor).
cpu_ticks() {
  awk '{print "total", $14 + $15}' "/proc/$serve_pid/stat"
  for task in /proc/"$serve_pid"/task/*; do echo "$(cat "$task/comm") $(awk '{print $14 + $15}' "$task/stat")"; done
}
cpu_ticks >"$work/t0"
sleep 20
cpu_ticks >"$work/t1"
python3 - "$work/t0" "$work/t1" "$(getconf CLK_TCK)" "$(grep VmRSS "/proc/$serve_pid/status")" <<'PY'
import sys
def read(path):
    out = {}
    for line in open(path):
        name, ticks = line.rsplit(" ", 1)
        out[name] = out.get(name, 0) + int(ticks)
    return out
before, after, hz = read(sys.argv[1]), read(sys.argv[2]), int(sys.argv[3])
share = lambda name: (after.get(name, 0) - before.get(name, 0)) * 100 / (20 * hz)
threads = ", ".join(f"{name} {share(name):.1f}%" for name in sorted(after) if name != "total" and share(name) > 0)
print(f"collector steady CPU: {share('total'):.1f}% of one core over 20 s ({threads}); {sys.argv[4]}")
PY
wait "$sim_pid" || true
tail -n 1 "$work/sim.out" | python3 -c 'import json,sys; s=json.loads(sys.stdin.read()); print({k: s.get(k) for k in ("ready_acked","first_connect_to_last_ready_s","timeouts","refusals","heartbeats")})'
