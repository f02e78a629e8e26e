#!/usr/bin/env bash
# A head node has no GUI: the process listening on the collector's port (`meshscope serve`) and the headless
# CLI must link no GUI library. Checks `ldd /proc/PID/exe` of a running `meshscope serve`, as an operator would.
# Usage: headless_links.sh path/to/meshscope
set -euo pipefail
meshscope=${1:?usage: headless_links.sh path/to/meshscope}
work=$(mktemp -d)
serve_pid=""
cleanup() {
  [[ -n $serve_pid ]] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$meshscope" serve --listen 127.0.0.1:0 --db "$work/history.db" >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
# Wait for the one JSON line `serve` prints once it listens (bounded: 600 x 0.1 s).
for _ in $(seq 600); do
  [[ -s $work/serve.out ]] && break
  kill -0 "$serve_pid" 2>/dev/null || { echo "FAIL: meshscope serve exited: $(cat "$work/serve.err")"; exit 1; }
  sleep 0.1
done
grep -q '"listening"' "$work/serve.out" || { echo "FAIL: meshscope serve printed no listening line"; exit 1; }

ldd "/proc/$serve_pid/exe" >"$work/ldd.txt"
forbidden='libQt6Gui|libQt6Quick|libQt6Qml|libQt6Widgets|libQt6OpenGL|libGL\.|libGLX|libEGL|libOpenGL|libxcb|libX11|libxkbcommon|libfontconfig|libfreetype'
if grep -E "$forbidden" "$work/ldd.txt"; then
  echo "FAIL: the collector's process ($(readlink "/proc/$serve_pid/exe")) links the GUI libraries above"
  exit 1
fi
echo "ok: $(readlink "/proc/$serve_pid/exe") (pid $serve_pid, listening) links $(wc -l <"$work/ldd.txt") libraries, none of them GUI:"
sed 's/^/  /' "$work/ldd.txt"
