#!/usr/bin/env bash
# The hang map on the desktop Live page, as docs/records-hang.md shows it: each real torch fault job of
# tests/records/fixtures/fr-verdict put into its own collector by `meshscope import --dp 16 --ep 4`, then
# `meshscope --connect ... --page live --screenshot` with the faulty rank (facts.json) selected; for skip also the
# place filter on the place the fault leaves its ep group waiting in (live-hang-skip-place.png).
#   scripts/hang-screenshots.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, docs/images)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
out=${2:-docs/images}
meshscope=$build/bin/meshscope
export QT_QPA_PLATFORM=offscreen
mkdir -p "$out"
tmp=$(mktemp -d)
serve_pid=
cleanup() {
  [[ -n $serve_pid ]] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
for job in skip die host; do
  fixture=tests/records/fixtures/fr-verdict/$job
  rank=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["fault"]["rank"])' "$fixture/facts.json")
  "$meshscope" serve --listen 127.0.0.1:0 --db "$tmp/$job.db" >"$tmp/$job.log" 2>&1 &
  serve_pid=$!
  # It says where it listens once it does.
  url=
  for _ in $(seq 100); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/$job.log" | head -1 || true)
    [[ -n $url ]] && break
    sleep 0.1
  done
  [[ -n $url ]] || { echo "hang-screenshots: the collector did not start"; cat "$tmp/$job.log"; exit 1; }
  "$meshscope" import "$fixture" --dp 16 --ep 4 --target "$url" --job "$job" 2>/dev/null
  "$meshscope" --connect "$url" --page live --select-rank "$rank" --size 1440x900 \
    --screenshot "$out/live-hang-$job.png"
  echo "$out/live-hang-$job.png: job $job, rank $rank selected"
  if [[ $job == skip ]]; then
    place=$(python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["fault"]
print("waiting in %s seq %d (%s)" % (f["dim"], f["seq"], f["op"]))' "$fixture/facts.json")
    "$meshscope" --connect "$url" --page live --place "$place" --size 1440x900 \
      --screenshot "$out/live-hang-$job-place.png"
    echo "$out/live-hang-$job-place.png: job $job, place \"$place\""
  fi
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=
done
