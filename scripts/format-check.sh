#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format (the repo's .clang-format, clang-format-14)
# makes of it, listing the files and a diff stat. `scripts/format-check.sh --fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || command -v clang-format || true)
[[ -n $format ]] || { echo "format-check: clang-format is not installed (scripts/bootstrap.sh installs it)"; exit 1; }
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.hpp' '*.cu' | grep -v -E '^(tests/python/fixtures|fuzz/corpus)/')
if [[ ${1:-} == --fix ]]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$format" "$f" | cmp -s - "$f"; then
    echo "format-check: $f differs ($("$format" "$f" | diff "$f" - | grep -c '^[<>]') lines)"
    bad=1
  fi
done
[[ $bad -eq 0 ]] && echo "format-check: ${#files[@]} files clang-formatted"
exit $bad
