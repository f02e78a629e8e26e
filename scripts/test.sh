#!/usr/bin/env bash
# Sets up, builds and runs every test: core/ alone without Qt (-Werror), then the whole project (dev preset,
# warnings as errors) under ctest, headless, then each libFuzzer target for 60 s (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
jobs=$(nproc)

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
