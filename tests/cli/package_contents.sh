#!/usr/bin/env bash
# The .deb packages as an operator installs them: `cpack` builds both, then their file lists and dependencies
# are checked. The headless package (head nodes, training nodes) must not pull in a GUI library.
# Usage: package_contents.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: package_contents.sh BUILD_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$build" && cpack -G DEB -B "$work" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }

fail=0
check() {  # check DEB PATH: the package holds the path
  dpkg-deb -c "$1" | awk '{print $6}' | grep -qx "./$2" || { echo "FAIL: $(basename "$1") lacks /$2"; fail=1; }
}
headless=$(ls "$work"/meshscope_*.deb)
check "$headless" usr/bin/meshscope
check "$headless" usr/bin/meshscope-probe
check "$headless" usr/share/meshscope/python/meshscope_report/__init__.py
check "$headless" usr/share/meshscope/python/autoattach/sitecustomize.py
check "$headless" usr/share/doc/meshscope/LICENSE
# The attach package is opt-in (PYTHONPATH): never a system-wide sitecustomize.
if dpkg-deb -c "$headless" | grep -E 'dist-packages|site-packages'; then
  echo "FAIL: the headless package installs into Python's system path"; fail=1
fi
depends=$(dpkg-deb -f "$headless" Depends)
echo "meshscope Depends: $depends"
if grep -Eq 'libqt6gui|libqt6qml|libqt6quick|libgl1|libegl|libopengl|libx11|libxcb' <<<"$depends"; then
  echo "FAIL: the headless package depends on a GUI library"; fail=1
fi

if dashboard=$(ls "$work"/meshscope-dashboard_*.deb 2>/dev/null); then
  check "$dashboard" usr/bin/meshscope-dashboard
  check "$dashboard" usr/share/applications/meshscope-dashboard.desktop
  check "$dashboard" usr/share/icons/hicolor/scalable/apps/meshscope.svg
  dpkg-deb -f "$dashboard" Depends | grep -q 'meshscope (= ' || { echo "FAIL: the dashboard does not depend on meshscope"; fail=1; }
fi
[[ $fail -eq 0 ]] && echo "ok: $(cd "$work" && ls *.deb | tr '\n' ' ')"
exit $fail
