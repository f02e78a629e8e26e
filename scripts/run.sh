#!/usr/bin/env bash
# Sets up, builds (release) and runs MeshScope's main job. Extra arguments go to `meshscope`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target meshscope
if (($#)); then
  exec build-release/bin/meshscope "$@"
fi
exec build-release/bin/meshscope plan --dp 16 --cp 1 --ep 8 --gpus-per-node 8
