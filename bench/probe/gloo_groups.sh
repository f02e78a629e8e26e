#!/usr/bin/env bash
# meshscope-probe with gloo on this host's CPUs: the two layouts of docs/benchmarks.md ("meshscope-probe"),
# each group's bus bandwidth as the collector reports it (its slowest member's, at the largest size), and
# the per-dim medians. Usage: bench/probe/gloo_groups.sh [BUILD_DIR] [SIZES]   (default build-h, 1K:1M)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-h}
SIZES=${2:-1K:1M}
db=$(mktemp -d)
"$BUILD/bin/meshscope" serve --listen 127.0.0.1:0 --db "$db/h.db" >"$db/serve.out" 2>"$db/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null; rm -rf "$db"' EXIT
for _ in $(seq 100); do grep -q '"port"' "$db/serve.out" 2>/dev/null && break; sleep 0.1; done
cat >"$db/table.py" <<'PY'
import json
import sys

doc = json.load(sys.stdin)
for d in doc["dims"]:
    print("  %-9s %-14s %2d groups at %8d B: median %.3f  min %.3f  max %.3f GB/s" % (
        d["dim"], d["collective"], d["groups"], d["bytes"], d.get("median_busbw", 0), d.get("min_busbw", 0),
        d.get("max_busbw", 0)))
for g in doc["groups"]:
    if not g["results"]:
        continue
    top = max(r["bytes"] for r in g["results"])
    figures = "  ".join("%s %.3f" % (r["collective"], r["busbw"]) for r in g["results"] if r["bytes"] == top)
    print("    %-9s group %2d %-28s create %6.1f ms  %s" % (
        g["dim"], g["index"], g["members"], g.get("create_seconds", 0) * 1e3, figures))
PY
url="http://127.0.0.1:$(sed -n 's/.*"port": *\([0-9]*\).*/\1/p' "$db/serve.out" | head -1)"
for layout in "4 2 2" "8 2 4"; do
  read -r dp cp ep <<<"$layout"
  job="bench-$dp-$cp-$ep-$$"
  start=$(date +%s.%N)
  "$BUILD/bin/meshscope-probe" --local $((dp * cp)) --dp "$dp" --cp "$cp" --ep "$ep" --sizes "$SIZES" --iters 10 \
    --collector "$url" --job "$job" >"$db/$job.out"
  echo "== (dp, cp, ep) = ($dp, $cp, $ep), $((dp * cp)) ranks, sizes $SIZES: $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s"
  sleep 1
  curl -s "$url/api/v1/jobs/$job/communicators" | python3 "$db/table.py"
done
