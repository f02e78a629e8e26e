#!/usr/bin/env bash
# Runs bench_device_mesh and PyTorch's own tensor path (torch_path.py, the project's .venv: bootstrap.sh torch) on the same
# 2^20-rank expert mesh, side by side, and prints the medians and the ratio.
# Usage: bench/core/compare.sh [path/to/bench_device_mesh] [repetitions]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bench="${1:-$here/../../build-release/bin/bench_device_mesh}"
reps="${2:-5}"
python="${PYTHON:-$here/../../.venv/bin/python}"  # a python with torch
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$bench" --benchmark_filter='^BM_(Coordinates|AllGroups|CoordinatesAndAllGroups|CoordinatesAndAllGroupsReused|FreshTableMemory)(/2[89])?$' \
  --benchmark_repetitions="$reps" --benchmark_format=json >"$tmp/cpp.json" 2>/dev/null
"$python" "$here/torch_path.py" "$reps" >"$tmp/torch.txt"

"$python" - "$tmp/cpp.json" "$tmp/torch.txt" <<'PY'
import json, statistics, sys
runs = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") == "iteration":
        runs.setdefault(b["run_name"], []).append(b["real_time"])  # ms (Unit kMillisecond)
torch = {}
for line in open(sys.argv[2]):
    name, best, median = line.split()
    torch[name] = (float(best), float(median))
pairs = [
    ("coordinates of every rank", "BM_Coordinates", "coordinates"),
    ("all groups, torch29 order", "BM_AllGroups/29", "all_groups_torch29"),
    ("all groups, torch28 order", "BM_AllGroups/28", "all_groups_torch28"),
    ("coordinates + all groups, torch29", "BM_CoordinatesAndAllGroups/29", "coordinates_and_all_groups_torch29"),
    ("coordinates + all groups, torch28", "BM_CoordinatesAndAllGroups/28", "coordinates_and_all_groups_torch28"),
    ("  the same into reused tables, torch29", "BM_CoordinatesAndAllGroupsReused/29", "coordinates_and_all_groups_torch29"),
    ("  the same into reused tables, torch28", "BM_CoordinatesAndAllGroupsReused/28", "coordinates_and_all_groups_torch28"),
]
print(f"{'2^20 ranks, expert mesh (1, 65536, 8, 2)':40} {'meshscope ms':>13} {'torch ms':>10} {'ratio':>8}")
for label, cpp_name, torch_name in pairs:
    cpp = statistics.median(runs[cpp_name])
    t = torch[torch_name][1]
    print(f"{label:40} {cpp:13.1f} {t:10.1f} {t / cpp:7.0f}x")
floor = statistics.median(runs["BM_FreshTableMemory"])
print(f"{'floor: 64 MB of fresh table memory, memset':40} {floor:13.1f}")
print("medians of the repetitions; meshscope: wall time per iteration (Google Benchmark), torch: time.perf_counter")
PY
