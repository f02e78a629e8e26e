#!/usr/bin/env bash
# Runs one browser test file with Node's test runner; fails when the web tools are not installed (the test command
# installs them: a browser test that cannot run is a failure, never a skip).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null || [[ ! -d "$here/node_modules/playwright-core" ]] || [[ ! -x /usr/bin/chromium ]]; then
  echo "web tests need Node.js, chromium and tests/web/node_modules: run 'bash scripts/bootstrap.sh web'" >&2
  exit 1
fi
exec node --test --test-reporter=spec "$1"
