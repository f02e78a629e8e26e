#!/bin/bash
# Makes the Flight Recorder fixtures again with real torch and runs the readers' and the diagnosis' tests on them
# (the NCCL log and RAS fixtures are taken from the source tree). Usage: fr_from_torch.sh PYTHON SRC_DIR TESTS...
set -euo pipefail
python=$1 src=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" "$src/make_fr_fixtures.py" "$work/fr"
cp -r "$src/fixtures/nccl-logs" "$src/fixtures/ras" "$work/"
for test in "$@"; do
  MESHSCOPE_RECORDS_FIXTURES="$work" "$test"
done
