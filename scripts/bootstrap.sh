#!/usr/bin/env bash
# Installs what MeshScope's build and tests need on Debian 12, only when missing: a fast no-op otherwise.
# CUDA and NCCL are optional and never installed here (the probe builds when /usr/local/cuda has them).
# Usage: bootstrap.sh [extra ...]   extras, installed only by what uses them:
#   screens  xvfb, xauth, imagemagick (a real window under X, pictures converted for review)
#   web      chromium and Node.js/npm, then `npm ci` in tests/web (playwright-core, axe-core: pinned by its
#            package-lock.json; never a downloaded browser)
#   torch    the project-local virtual environment .venv with torch 2.x from PyPI and what it pulls, exactly as
#            tests/torch/requirements.txt pins them (the real-torch tests; meshscope-probe's NCCL backend builds
#            against the NCCL and CUDA runtime wheels in it). The run command needs none of it.
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config git
  mold                   # the linker of every tree when installed (cmake/linker.cmake): links are never cached
  ccache                 # scripts/test.sh and fuzz.sh compile through it when present (rebuilds, CI on a used machine)
  clang-format-14        # the format gate (scripts/format-check.sh)
  nlohmann-json3-dev libcli11-dev libbenchmark-dev libsqlite3-dev
  zlib1g-dev             # meshscope diagnose reads gzip'd NCCL logs (app/commands/record_files.cpp)
  libyaml-cpp-dev        # meshscope check reads LlamaFactory training YAML (app/commands/check_command.cpp)
  libcurl4-openssl-dev   # the C++ client (clients/cpp)
  libssl-dev openssl     # serve --tls-cert/--tls-key (OpenSSL via Boost.Asio); tests make a certificate with the CLI
  libgloo-dev            # meshscope-probe's gloo backend (probe/)
  libjemalloc-dev        # the collector's allocator (app/CMakeLists.txt, docs/libraries.md)
  libboost1.81-dev       # Asio + Beast: the collector's HTTP/WebSocket engine, the relay and the storm simulator
  clang-14 libclang-rt-14-dev llvm-14   # fuzz/: libFuzzer + ASan/UBSan runtimes, llvm-symbolizer (scripts/fuzz.sh)
  # Qt 6.4 (Debian 12)
  qt6-base-dev qt6-declarative-dev qt6-websockets-dev qt6-svg-dev
  qt6-httpserver-dev     # only bench/collector/qhttpserver_baseline
  libqt6sql6-sqlite qt6-qpa-plugins
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-templates
  qml6-module-qtquick-layouts qml6-module-qtquick-shapes qml6-module-qtquick-window
  qml6-module-qtqml qml6-module-qtqml-workerscript qml6-module-qtqml-models qml6-module-qttest
  qml6-module-qtquick-dialogs qml6-module-qt-labs-settings qml6-module-qtcore
  fonts-dejavu-core      # the dashboard's text in offscreen screenshots
  python3                # the Python reporter's unit tests (stdlib only); torch lives in .venv (extra `torch`)
)
for extra in "$@"; do
  case $extra in
    screens) packages+=(xvfb xauth imagemagick) ;;
    web) packages+=(chromium) ;;
    torch) ;;  # below, after the Debian packages
    *) echo "bootstrap: unknown extra '$extra' (known: screens, web, torch)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
torch_requirements="$root/tests/torch/requirements.txt"
venv_stamp="$venv/.meshscope-installed-requirements.txt"  # the requirements the last pip install installed
venv_python=""
if [[ " $* " == *" torch "* ]] && ! { [[ -x "$venv/bin/python" ]] && cmp -s "$torch_requirements" "$venv_stamp"; }; then
  # A Python that can make a virtual environment: MESHSCOPE_VENV_PYTHON, else python3 on PATH when it has venv
  # and ensurepip (a pyenv or python.org build), else Debian's /usr/bin/python3 with python3-venv.
  venv_python="${MESHSCOPE_VENV_PYTHON:-}"
  if [[ -z "$venv_python" ]]; then
    if command -v python3 >/dev/null 2>&1 && python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
      venv_python="$(command -v python3)"
    else
      venv_python=/usr/bin/python3
      packages+=(python3-venv)
    fi
  fi
fi

# One dpkg-query for all packages (one per package took over a second on a busy machine).
declare -A installed=()
while read -r name status; do
  [[ $status == "install ok installed" ]] && installed[$name]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
  [[ -n "${installed[$p]:-}" ]] || missing+=("$p")
done

# Node.js may come from elsewhere (NodeSource ships npm inside nodejs): only ask Debian when npm is absent.
if [[ " $* " == *" web "* ]]; then
  command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
fi

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The torch tests' virtual environment, exactly as pinned; again only when the requirements changed since the
# last install (a cmp of two small files otherwise). PIP_* settings (an index mirror, a wheel cache) apply.
if [[ -n "$venv_python" ]]; then
  echo "bootstrap: installing tests/torch/requirements.txt into .venv (torch from PyPI: about 2.7 GB the first time)" >&2
  [[ -x "$venv/bin/python" ]] || "$venv_python" -m venv "$venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q --no-deps -r "$torch_requirements"
  "$venv/bin/python" -c 'import torch.distributed as d; assert d.is_available() and d.is_gloo_available()'
  cp "$torch_requirements" "$venv_stamp"
fi

# The browser tests' npm packages, exactly as locked; again only when the lock changed since the last install.
if [[ " $* " == *" web "* ]]; then
  web_tests="$(cd "$(dirname "$0")/../tests/web" && pwd)"
  stamp="$web_tests/node_modules/.meshscope-installed-lock.json"  # the lock the last npm ci installed
  if ! cmp -s "$web_tests/package-lock.json" "$stamp" 2>/dev/null; then
    echo "bootstrap: npm ci in tests/web" >&2
    (cd "$web_tests" && npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
    cp "$web_tests/package-lock.json" "$stamp"
  fi
fi
