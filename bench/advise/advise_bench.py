#!/usr/bin/env python3
"""meshscope advise as a user runs it, process start included: wall time of whole runs.

usage: advise_bench.py MESHSCOPE [--runs N]

Targets: 64 ranks of Qwen3-30B-A3B <= 50 ms; 131,072 ranks, every valid layout, <= 1 s (step time included:
compute, the overlap rules, a global batch that excludes the layouts it does not divide).
Prints one line per case: median and worst of N runs, and whether the target holds. Exit 1 when a median misses.
"""
import argparse
import statistics
import subprocess
import sys
import time

CASES = [
    ("qwen3-30b-a3b, 64 ranks, h200", ["--model", "qwen3-30b-a3b", "--world", "64", "--hardware", "h200"], 0.050),
    ("qwen3-30b-a3b, 131072 ranks, h200", ["--model", "qwen3-30b-a3b", "--world", "131072", "--hardware", "h200"], 1.0),
    ("qwen3-30b-a3b, 131072 ranks, h200, global batch 1048576, a2a overlap",
     ["--model", "qwen3-30b-a3b", "--world", "131072", "--hardware", "h200", "--global-batch", "1048576",
      "--micro-batch", "2", "--overlap-a2a"], 1.0),
    ("deepseek-v3, 131072 ranks, b200, json",
     ["--model", "deepseek-v3", "--world", "131072", "--hardware", "b200", "--format", "json", "--show", "1000"], 1.0),
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("meshscope")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    missed = False
    for name, flags, target in CASES:
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            done = subprocess.run([args.meshscope, "advise", *flags], stdout=subprocess.DEVNULL, check=True)
            times.append(time.perf_counter() - start)
            assert done.returncode == 0
        median = statistics.median(times)
        ok = median <= target
        missed |= not ok
        print(f"{name}: median {median * 1e3:.1f} ms, worst {max(times) * 1e3:.1f} ms over {args.runs} runs "
              f"(target {target * 1e3:.0f} ms: {'met' if ok else 'MISSED'})")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
