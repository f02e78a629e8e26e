#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang-14, ASan + UBSan, core and server/ included) in build-fuzz and
# runs each for SECONDS (default 60), one per core at a time, from a copy of its seed corpus: fuzz/corpus/ is never
# written. Fails on any crash, leak, sanitizer report or broken invariant, printing the reproducer; prints one line
# per target:
#   fuzz: fuzz_event_parser ok (123456 runs in 60 s)
# Usage: scripts/fuzz.sh [SECONDS]   (scripts/test.sh runs it with 60 after ctest)
#        scripts/fuzz.sh build       (builds the targets only; scripts/test.sh does it beside the dev tests)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[[ $seconds == build || $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [SECONDS | build]" >&2; exit 2; }

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# MESHSCOPE_FUZZ_HTTP: server/ is built too (Boost.Beast, SQLite), for fuzz_http_request and fuzz_url_parts.
cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DMESHSCOPE_FUZZ_HTTP=ON "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
[[ $seconds != build ]] || exit 0

# Reports must stop the run and name the line: UBSan aborts (the build has -fno-sanitize-recover) and both
# sanitizers symbolize with llvm-14's llvm-symbolizer.
symbolizer=$(command -v llvm-symbolizer-14 || true)
[[ -n $symbolizer ]] || symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
export ASAN_SYMBOLIZER_PATH=$symbolizer UBSAN_SYMBOLIZER_PATH=$symbolizer
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:symbolize=1}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work  # fuzz_http_request's collector database goes there, and with it
# One target: its line (and, on failure, the log's end and each reproducer) in $work/NAME/report.
fuzz_one() {
  local target=$1 name corpus artifacts log runs elapsed reproducer
  name=$(basename "$target")
  corpus="$work/$name/corpus"
  artifacts="build-fuzz/artifacts/$name/"  # kept after the run, outside the repo's corpus
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  [[ -d fuzz/corpus/$name ]] && cp fuzz/corpus/"$name"/* "$corpus"/
  log="$work/$name/log"
  # -timeout: one input may take at most 10 s (a hang is a bug too); -rss_limit_mb bounds memory.
  if "$target" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    elapsed=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    echo "fuzz: $name ok (${runs:-?} runs in ${elapsed:-$seconds} s)" >"$work/$name/report"
    return 0
  fi
  {
    echo "fuzz: $name FAILED"
    grep -v '^#[0-9]' "$log" | tail -n 60
    for reproducer in "$artifacts"*; do
      [[ -f $reproducer ]] || continue
      echo "fuzz: reproducer $reproducer ($(stat -c %s "$reproducer") bytes), base64:"
      base64 -w 0 "$reproducer"
      echo
      echo "fuzz: rerun with: $target $reproducer"
    done
  } >"$work/$name/report"
  return 1
}

# As many targets at a time as there are cores (each fuzzes on one); the reports follow in the targets' order.
targets=()
for target in build-fuzz/fuzz_*; do
  [[ -x $target && -f $target ]] && targets+=("$target")
done
pids=()
for target in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
  mkdir -p "$work/$(basename "$target")"
  fuzz_one "$target" &
  pids+=($!)
done
failed=0
for index in "${!targets[@]}"; do
  name=$(basename "${targets[$index]}")
  if wait "${pids[$index]}"; then
    cat "$work/$name/report"
  else
    failed=1
    cat "$work/$name/report" >&2
  fi
done
exit "$failed"
