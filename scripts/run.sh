#!/usr/bin/env bash
# Sets up, builds (release) and runs MeshScope's main job: the dashboard on a built-in simulated cluster
# (an embedded collector and a simulated 64-GPU job with a few faults, Live page first).
# Extra arguments go to `meshscope` (e.g. `--page planner`, `--connect http://head:7077`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target meshscope
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && $# -eq 0 ]]; then
  # No screen (ssh, CI): render the same dashboard to pictures instead of opening a window.
  export QT_QPA_PLATFORM=offscreen
  build-release/bin/meshscope --screenshot meshscope-live.png --page live
  build-release/bin/meshscope --screenshot meshscope-planner.png --dp 32 --cp 2 --ep 8 --select-rank 21
  echo "no display: wrote meshscope-live.png and meshscope-planner.png (run with a display for the window)"
  exit 0
fi
exec build-release/bin/meshscope "$@"
