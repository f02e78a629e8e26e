#!/usr/bin/env bash
# Sets up, builds and runs every test (what CI runs): the format gate, core/ alone without Qt (-Werror), the
# whole project (dev preset, warnings as errors, benchmarks included), a check that the release preset has no
# target the dev build did not build, the qmllint gate on its QML modules (scripts/qmllint.sh),
# ctest, headless, each libFuzzer target for 60 s (scripts/fuzz.sh), then the core, collector, simulator and
# client tests again under ASan + UBSan with leak detection (asan preset: no dashboard). The two sanitizer trees
# build in the background at the lowest CPU priority while the dev tests run (those wait on processes and
# sockets much of the time, and run serially where they start real jobs). Each stage's seconds are printed at
# the end and written to build/test-stages.txt. Extra arguments go to the dev ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
# Stage timing: `stage NAME` closes the previous stage and opens NAME; `stage_report` prints them all.
stages=()
stage_name=""
stage_start=$SECONDS
stage() {
  [[ -z $stage_name ]] || stages+=("$(printf '%5d s  %s' $((SECONDS - stage_start)) "$stage_name")")
  stage_name=$1
  stage_start=$SECONDS
  [[ -z $stage_name ]] || echo "== $stage_name"
}
stage_report() {
  stage ""
  mkdir -p build
  printf '%s\n' "${stages[@]}" "$(printf '%5d s  total' "$SECONDS")" | tee build/test-stages.txt
}
sanitizer_build=""
finish() {
  local status=$?
  # A failed stage ends the run: the background build goes with it.
  [[ -z $sanitizer_build ]] || kill -- "-$sanitizer_build" 2>/dev/null || true
  stage_report
  exit "$status"
}
trap finish EXIT
stage "bootstrap (packages, .venv, npm)"
bash scripts/bootstrap.sh web torch   # web: chromium + tests/web's npm packages; torch: .venv (real-torch tests)
jobs=$(nproc)
# ccache (bootstrap installs it): a rebuild, or CI's clean clone on a machine that built before, compiles only
# what changed. BASEDIR and NOHASHDIR let a clone in another folder hit the same entries.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi

stage "format (clang-format-14, .clang-format)"
bash scripts/format-check.sh

stage "core/ alone, no Qt, -Wall -Wextra -Werror: each of its libraries built alone, and their direction"
# core's own flags (core/CMakeLists.txt) carry the warnings, in the dev tree's order: the dev tree's core objects are
# then the same compile, and ccache gives them from this one.
cmake -S core -B build-core -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS= "${launcher[@]}" >/dev/null
for library in mesh monitor records cost tour; do
  cmake --build build-core -j "$jobs" --target "meshscope_$library"
done
python3 scripts/core-layers.py

stage "whole project (dev preset)"
cmake --preset dev "${launcher[@]}" >/dev/null
cmake --build --preset dev -j "$jobs"

stage "the release preset's targets, every one built above (configured only: the dev tree compiles the same code)"
cmake --preset release "${launcher[@]}" >/dev/null
cmake_targets() { ninja -C "$1" -t targets all | grep ': phony$' | cut -d: -f1 | grep -v / | sort -u; }
only_release=$(comm -13 <(cmake_targets build) <(cmake_targets build-release))
if [ -n "$only_release" ]; then
  echo "the release preset builds targets the dev preset does not:" $only_release
  exit 1
fi

stage "qmllint (every QML module of the dev build; Qt 6.4's false positives: qml/qmllint-baseline.txt), their direction"
bash scripts/qmllint.sh build
python3 scripts/qml-layers.py

# The sanitizer trees (ASan tests, libFuzzer targets) build while the dev tests run: at nice 19 they take only the
# CPU the tests leave idle. Their output goes to a log printed if they fail.
sanitizer_log=build/sanitizer-trees.log
# setsid: its own process group, which finish() ends if a stage fails first.
setsid nice -n 19 bash -c 'cmake --preset asan "$@" >/dev/null && cmake --build --preset asan -j "$0" &&
  bash scripts/fuzz.sh build' "$jobs" "${launcher[@]}" >"$sanitizer_log" 2>&1 &
sanitizer_build=$!

stage "tests (dev tree; the sanitizer trees build beside them)"
export QT_QPA_PLATFORM=offscreen
ctest --preset dev -j "$jobs" --output-on-failure "$@"

stage "the sanitizer trees' build, what remains of it"
if ! wait "$sanitizer_build"; then
  sanitizer_build=""
  tail -n 100 "$sanitizer_log"
  echo "the ASan or fuzz tree failed to build (above; whole log: $sanitizer_log)"
  exit 1
fi
sanitizer_build=""

stage "fuzz (clang-14, ASan + UBSan, 60 s per target, one target per core at a time)"
bash scripts/fuzz.sh 60

stage "ASan + UBSan: core, collector, relay, simulator and C++ client tests (asan preset, no dashboard)"
# tests/security runs in the dev tree only: its memory ceilings are a plain build's (ASan's shadow memory and
# quarantine more than double the collector's resident set); the fuzz targets take the same hostile inputs under
# ASan. Memory errors, undefined behaviour and leaks fail the run; scripts/lsan.supp may list only Qt's exit-time
# singletons, each with its reason (reviewed; empty today).
# cli.package_contents is left to the dev tree: the .deb packages are the same bytes whatever the sanitizers.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions="$PWD/scripts/lsan.supp":print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --preset asan -j "$jobs" --output-on-failure -LE "python|torch|security" \
  -E '^cli\.package_contents$'
