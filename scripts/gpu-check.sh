#!/usr/bin/env bash
# GPU checks for a machine with an NVIDIA GPU, CUDA + NCCL and PyTorch 2.x (docs/probe.md, "gpu-check.sh").
# One short script, run from the repository root:
#   1. builds meshscope and meshscope-probe (headless; NCCL from /usr/local/cuda, NCCL_ROOT or the .venv's wheels);
#   2. starts `meshscope serve` on loopback (the probe's rendezvous and collector);
#   3. meshscope-probe --backend nccl at world size 1 (one GPU: NCCL refuses two ranks on one device), a smoke
#      test of the CUDA/NCCL path: every dim's collectives, checked, with bus bandwidth per group;
#   4. real init_device_mesh with gloo on 16 CPU ranks for several layouts, every group and the creation
#      order compared with `meshscope plan`, and the Python attach hook against the real DeviceMesh objects;
#   5. with 2 or more GPUs, a real NCCL job that hangs on purpose (scripts/gpu_records_job.py): its NCCL logs,
#      Flight Recorder dumps and NCCL RAS status read by `meshscope diagnose` and imported into the collector.
# Output goes to the terminal; paste the numbers into docs/benchmarks.md ("meshscope-probe").
# Env: BUILD (default build-gpu), SIZES (default 1M:256M), PYTHON (a python3 with torch 2.x; default the project's
# .venv, `scripts/bootstrap.sh torch`, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-gpu}
SIZES=${SIZES:-1M:256M}
if [[ -x .venv/bin/python ]]; then PYTHON=${PYTHON:-.venv/bin/python}; else PYTHON=${PYTHON:-python3}; fi

echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "nvidia-smi: none"
"$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' || true

echo "== build"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMESHSCOPE_BUILD_DASHBOARD=OFF \
  -DMESHSCOPE_BUILD_BENCH=OFF -DMESHSCOPE_BUILD_TESTS=OFF >"$BUILD.configure.log" 2>&1 ||
  { tail -30 "$BUILD.configure.log"; exit 1; }
grep "meshscope-probe: NCCL backend" "$BUILD.configure.log" || true
cmake --build "$BUILD" -j"$(nproc)" --target meshscope meshscope-probe >"$BUILD.build.log" 2>&1 ||
  { tail -40 "$BUILD.build.log"; exit 1; }
"$BUILD/bin/meshscope-probe" --version

echo "== collector"
db=$(mktemp -d)
"$BUILD/bin/meshscope" serve --listen 127.0.0.1:0 --db "$db/h.db" >"$db/serve.out" 2>"$db/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null; rm -rf "$db"' EXIT
for _ in $(seq 100); do grep -q '"port"' "$db/serve.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/.*"port": *\([0-9]*\).*/\1/p' "$db/serve.out" | head -1)
url="http://127.0.0.1:$port"
echo "meshscope serve at $url"

status=0
echo "== NCCL, world size 1 (sizes $SIZES)"
"$BUILD/bin/meshscope-probe" --backend nccl --local 1 --dp 1 --sizes "$SIZES" --iters 20 --timeout 120 \
  --collector "$url" --job gpu-check-nccl || status=$?
echo "exit status $status"
curl -s "$url/api/v1/jobs/gpu-check-nccl/communicators" | "$PYTHON" -m json.tool | head -60 || true

echo "== PyTorch DeviceMesh (gloo, 16 CPU ranks) against meshscope plan, and the attach hook"
mesh_status=0
"$PYTHON" scripts/gpu_check_mesh.py "$BUILD/bin/meshscope" "$url" --world 16 || mesh_status=$?
echo "exit status $mesh_status"

echo "== gloo probe, 16 CPU ranks (dp 8, cp 2, ep 4)"
gloo_status=0
"$BUILD/bin/meshscope-probe" --local 16 --dp 8 --cp 2 --ep 4 --sizes 1K:1M --iters 10 --collector "$url" \
  --job gpu-check-gloo | grep " 1 MiB:" || gloo_status=$?

echo "== NCCL's and PyTorch's own records of a real hang: NCCL logs, Flight Recorder, NCCL RAS (docs/records.md)"
# scripts/gpu_records_job.py on every GPU (2 to 8): the last rank skips one all_reduce, the others wait until the
# watchdog's timeout and dump Flight Recorder; RAS (on by default since NCCL 2.24, localhost:28028) is read while
# they wait. Then meshscope diagnose reads all three and meshscope import puts them into the collector.
records_status=0
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if ((gpus < 2)); then
  echo "records: $gpus GPU(s); the hang needs 2 or more (NCCL refuses two ranks on one device): skipped"
else
  ranks=$((gpus < 8 ? gpus : 8))
  rec="$db/records"
  mkdir -p "$rec/logs" "$rec/fr"
  NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$rec/logs/nccl.%h.%p.log" NCCL_RAS_ENABLE=1 TORCH_NCCL_DUMP_ON_TIMEOUT=1 \
    TORCH_FR_BUFFER_SIZE=2000 TORCH_FR_DUMP_TEMP_FILE="$rec/fr/nccl_trace_rank_" HANG_TIMEOUT_S=60 \
    timeout 240 "$PYTHON" -m torch.distributed.run --standalone --nproc-per-node "$ranks" \
    scripts/gpu_records_job.py >"$rec/job.log" 2>&1 &
  job=$!
  sleep 30  # the job hangs after its first collectives; RAS answers while it waits
  "$BUILD/bin/meshscope" ras 127.0.0.1:28028 --once --format json >"$rec/ras.json" 2>"$rec/ras.err" ||
    { echo "meshscope ras:"; cat "$rec/ras.err"; }
  "$BUILD/bin/meshscope" ras 127.0.0.1:28028 --once --format text >"$rec/ras.txt" 2>/dev/null || true
  wait $job || true  # the watchdog ends the waiting ranks with an error: that is the point
  tail -5 "$rec/job.log"
  ls "$rec/logs" "$rec/fr" | head -20
  found=("$rec/logs" "$rec/fr")
  [[ -s $rec/ras.json ]] && found+=("$rec/ras.json")
  "$BUILD/bin/meshscope" diagnose "${found[@]}" --dp "$ranks" || records_status=$?
  "$BUILD/bin/meshscope" import "${found[@]}" --dp "$ranks" --target "$url" --job gpu-check-records ||
    records_status=$?
  curl -s "$url/api/v1/jobs/gpu-check-records" | "$PYTHON" -m json.tool | head -40 || true
fi
echo "exit status $records_status"

[[ $status -eq 0 && ($mesh_status -eq 0 || $mesh_status -eq 77) && $gloo_status -eq 0 && $records_status -eq 0 ]]
