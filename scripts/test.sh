#!/usr/bin/env bash
# Sets up, builds and runs every test (what CI runs): the format gate, core/ alone without Qt (-Werror), the
# whole project (dev preset, warnings as errors) under ctest, headless, each libFuzzer target for 60 s
# (scripts/fuzz.sh), then the core, collector, simulator and client tests again under ASan + UBSan (asan
# preset: no dashboard). Extra arguments go to the dev ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh web   # web: chromium + tests/web's npm packages (browser tests)
jobs=$(nproc)

echo "== format (clang-format-14, .clang-format)"
bash scripts/format-check.sh

echo "== core/ alone, no Qt, -Wall -Wextra -Werror"
cmake -S core -B build-core -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >/dev/null
cmake --build build-core -j "$jobs"

echo "== whole project (dev preset)"
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$jobs"

echo "== tests"
export QT_QPA_PLATFORM=offscreen
ctest --preset dev -j "$jobs" "$@"

echo "== fuzz (clang-14, ASan + UBSan, 60 s per target)"
bash scripts/fuzz.sh 60

echo "== ASan + UBSan: core, collector, relay, simulator and C++ client tests (asan preset, no dashboard)"
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
# Memory errors and undefined behaviour fail the run; leak reports are off (Qt's test binaries keep process-wide
# singletons alive at exit, which LeakSanitizer would list as leaks).
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset asan -j "$jobs" -LE "python|torch"
