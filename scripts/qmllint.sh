#!/usr/bin/env bash
# The qmllint gate. Every QML module of a configured build is linted with the import paths CMake derives
# from its qt_add_qml_module (the <module>_qmllint_json targets: the module graph its DEPENDENCIES/IMPORTS
# declare), then the Qt Quick Test files against the same build. Any finding (warnings and infos: unused
# imports count) fails the run unless qml/qmllint-baseline.txt lists it; that file holds only false positives
# of Qt 6.4's qmllint, each with its reason. A baseline entry that no longer shows up fails too, so the file
# stays true. Cheap: it reuses the build (the dev preset's `build` by default), nothing is recompiled.
#   scripts/qmllint.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
qmllint=/usr/lib/qt6/bin/qmllint
[[ -x $qmllint ]] || qmllint=$(command -v qmllint6 || command -v qmllint || true)
[[ -n $qmllint ]] || { echo "qmllint: not installed (scripts/bootstrap.sh installs qt6-declarative-dev-tools)"; exit 1; }
out=$build/qmllint
rm -rf "$out"
mkdir -p "$out"

# The modules: each target CMake made, each writes $build/<module>_qmllint.json. qmllint exits non-zero when
# it finds anything, so the build tool's status is not the verdict; the JSON is.
mapfile -t targets < <(cmake --build "$build" --target help | sed -n 's/^\([A-Za-z0-9_]*_qmllint_json\):.*/\1/p' |
                         grep -v '^all_' | sort -u)
[[ ${#targets[@]} -gt 0 ]] || { echo "qmllint: no QML module in $build (configure with MESHSCOPE_BUILD_DASHBOARD=ON)"; exit 1; }
for target in "${targets[@]}"; do
  cmake --build "$build" --target "$target" >"$out/${target%_json}.log" 2>&1 || true
  report=$build/${target%_json}.json
  [[ -s $report ]] || { echo "qmllint: $target wrote no report"; cat "$out/${target%_json}.log"; exit 1; }
  cp "$report" "$out/"
done

# The tests' QML imports the app's modules and the test helpers' (MeshScope.LiveTest) from the build.
mapfile -t tests < <(find tests -name '*.qml' | sort)
# One file at a time: Qt 6.4's qmllint now and then dies of a segmentation fault (signal 11) on a run it
# passes the next time (tests/live-ui/qml/tst_live_page.qml: 3 runs in 20 on a quiet machine, 3 in a row once
# right after a fresh clone's build); a crash is retried (at most 10 tries), a finding never is.
qt_qml=$(qtpaths6 --query QT_INSTALL_QML 2>/dev/null || echo /usr/lib/x86_64-linux-gnu/qt6/qml)
for test in "${tests[@]}"; do
  report="$out/test_$(basename "${test%.qml}")_qmllint.json"
  for attempt in $(seq 10); do
    status=0
    "$qmllint" --bare -I "$build/qml" -I "$qt_qml" --json "$report" "$test" >"$out/tests.log" 2>&1 || status=$?
    ((status < 128)) && break
    echo "qmllint: crashed on $test (status $status, try $attempt of 10)"
  done
  [[ -s $report ]] || { echo "qmllint: $test wrote no report"; cat "$out/tests.log"; exit 1; }
done

python3 - "$PWD" "$out" qml/qmllint-baseline.txt <<'EOF'
import json, pathlib, sys

root, out, baseline_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])

# Findings as "file: message" (no line numbers: an edit elsewhere in the file must not break the baseline).
found = {}
for report in sorted(out.glob("*_qmllint.json")):
    for entry in json.loads(report.read_text()).get("files", []):
        name = str(pathlib.Path(entry["filename"]).resolve())
        try:
            name = str(pathlib.Path(name).relative_to(root))
        except ValueError:
            pass
        for w in entry.get("warnings", []):
            message = " ".join(w.get("message", "").split())
            key = f"{name}: {message}"
            found.setdefault(key, f"{name}:{w.get('line', '?')}:{w.get('column', '?')}: {w.get('type', '')}: {message}")

# Baseline: "file: message" then " -- reason" on the same line; blank lines and # comments are skipped.
listed = {}
for number, line in enumerate(baseline_path.read_text().splitlines(), 1):
    if not line.strip() or line.lstrip().startswith("#"):
        continue
    key, _, reason = line.partition(" -- ")
    if not reason.strip():
        sys.exit(f"qmllint: {baseline_path}:{number}: an entry needs ' -- <why it is a false positive>'")
    listed[key.strip()] = reason.strip()

new = sorted(k for k in found if k not in listed)
gone = sorted(k for k in listed if k not in found)
for k in new:
    print(f"qmllint: new: {found[k]}")
for k in gone:
    print(f"qmllint: {baseline_path} lists what qmllint no longer reports (remove it): {k}")
files = sum(len(json.loads(r.read_text()).get("files", [])) for r in out.glob("*_qmllint.json"))
print(f"qmllint: {files} files, {len(found)} distinct findings, {len(found) - len(new)} of them reviewed "
      f"false positives of Qt 6.4 ({baseline_path}), {len(new)} new")
sys.exit(1 if new or gone else 0)
EOF
