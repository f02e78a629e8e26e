#!/usr/bin/env bash
# meshscope-probe with gloo on this host's CPUs, the two layouts of docs/benchmarks.md ("meshscope-probe with
# gloo"): (dp, cp, ep) = (4, 2, 2) on 8 ranks and (8, 2, 4) on 16, each measured together (the default) and
# --one-group-at-a-time. Prints, from the collector's GET /api/v1/jobs/{job}/communicators, per dim and
# collective the median / min / max group bus bandwidth at the largest size (each group's figure is its
# slowest member's) and the dim's create_seconds (median / min / max over its groups); VERBOSE=1 adds every group.
# Usage: bench/probe/gloo_groups.sh [BUILD_DIR] [SIZES] [ITERS]   (default build, 1K:4M, 10)
#        LAYOUTS="4 2 2;8 2 4" MODES="together alone" to choose.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
SIZES=${2:-1K:4M}
ITERS=${3:-10}
LAYOUTS=${LAYOUTS:-"4 2 2;8 2 4"}
MODES=${MODES:-"together alone"}
db=$(mktemp -d)
"$BUILD/bin/meshscope" serve --listen 127.0.0.1:0 --db "$db/h.db" >"$db/serve.out" 2>"$db/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null; rm -rf "$db"' EXIT
for _ in $(seq 100); do grep -q '"port"' "$db/serve.out" 2>/dev/null && break; sleep 0.1; done
cat >"$db/table.py" <<'PY'
import json
import os
import sys


def spread(values):
    values = sorted(values)
    n = len(values)
    median = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
    return median, values[0], values[-1]


doc = json.load(sys.stdin)
print("  | dim | collective | groups | size | busbw median | min | max (GB/s) | create_seconds median | min | max |")
print("  |---|---|---|---|---|---|---|---|---|---|")
for d in doc["dims"]:
    creates = [g["create_seconds"] for g in doc["groups"] if g["dim"] == d["dim"] and "create_seconds" in g]
    cm, cmin, cmax = spread(creates) if creates else (0, 0, 0)
    size = "%d MiB" % (d["bytes"] >> 20) if d["bytes"] % (1 << 20) == 0 else "%d KiB" % (d["bytes"] >> 10)
    print("  | %s | %s | %d | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
        d["dim"], d["collective"], d["groups"], size, d.get("median_busbw", 0), d.get("min_busbw", 0),
        d.get("max_busbw", 0), cm, cmin, cmax))
unmeasured = sorted({g["dim"] for g in doc["groups"]} - {d["dim"] for d in doc["dims"]})
for dim in unmeasured:
    creates = [g["create_seconds"] for g in doc["groups"] if g["dim"] == dim and "create_seconds" in g]
    cm, cmin, cmax = spread(creates) if creates else (0, 0, 0)
    count = sum(g["dim"] == dim for g in doc["groups"])
    print("  | %s | (not measured) | %d | | | | | %.3f | %.3f | %.3f |" % (dim, count, cm, cmin, cmax))
slow = ["%s %d" % (g["dim"], g["index"]) for g in doc["groups"] if g["slow"]]
print("  slow_group: %s" % (", ".join(slow) if slow else "none"))
if os.environ.get("VERBOSE") == "1":
    for g in doc["groups"]:
        if not g["results"]:
            continue
        top = max(r["bytes"] for r in g["results"])
        figures = "  ".join("%s %.3f" % (r["collective"], r["busbw"]) for r in g["results"] if r["bytes"] == top)
        print("    %-9s group %2d %-28s create %6.1f ms  %s%s" % (
            g["dim"], g["index"], g["members"], g.get("create_seconds", 0) * 1e3, figures,
            "  SLOW" if g["slow"] else ""))
PY
url="http://127.0.0.1:$(sed -n 's/.*"port": *\([0-9]*\).*/\1/p' "$db/serve.out" | head -1)"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
  "build $(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt"), commit $(git rev-parse --short HEAD)"
IFS=';' read -ra layouts <<<"$LAYOUTS"
for layout in "${layouts[@]}"; do
  read -r dp cp ep <<<"$layout"
  for mode in $MODES; do
    job="bench-$dp-$cp-$ep-$mode-$$"
    extra=()
    [[ $mode == alone ]] && extra=(--one-group-at-a-time)
    cmd=("$BUILD/bin/meshscope-probe" --local $((dp * cp)) --dp "$dp" --cp "$cp" --ep "$ep" --sizes "$SIZES"
      --iters "$ITERS" "${extra[@]}" --collector "$url" --job "$job")
    start=$(date +%s.%N)
    "${cmd[@]}" >"$db/$job.out"
    took=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
    # Every member of every group reported before the table is read (the ranks' last events are in flight).
    for _ in $(seq 100); do
      curl -s "$url/api/v1/jobs/$job/communicators" | python3 -c 'import json,sys; d=json.load(sys.stdin);
sys.exit(0 if d["groups"] and all(g["reported"] == len(g["members"]) for g in d["groups"]) else 1)' && break
      sleep 0.1
    done
    echo "== (dp, cp, ep) = ($dp, $cp, $ep), $((dp * cp)) ranks, $mode: ${took} s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "   ${cmd[*]}" | sed "s#$url#URL#"
    curl -s "$url/api/v1/jobs/$job/communicators" | python3 "$db/table.py"
  done
done
