#!/usr/bin/env bash
# Installs what MeshScope's build and tests need on Debian 12, only when missing: a fast no-op otherwise.
# CUDA and NCCL are optional and never installed here (the probe builds when /usr/local/cuda has them).
set -euo pipefail

packages=(
  # build
  build-essential cmake ninja-build pkg-config git
  nlohmann-json3-dev libcli11-dev libbenchmark-dev libsqlite3-dev
  libcurl4-openssl-dev   # the C++ client (clients/cpp)
  libboost1.81-dev       # the collector's HTTP/WebSocket engine (Beast/Asio, header-only)
  # Qt 6.4 (Debian 12)
  qt6-base-dev qt6-declarative-dev qt6-websockets-dev qt6-svg-dev
  qt6-httpserver-dev     # only bench/collector/qhttpserver_baseline
  libqt6sql6-sqlite qt6-qpa-plugins
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-templates
  qml6-module-qtquick-layouts qml6-module-qtquick-shapes qml6-module-qtquick-window
  qml6-module-qtqml-workerscript qml6-module-qtqml-models qml6-module-qttest
  qml6-module-qtquick-dialogs qml6-module-qt-labs-settings qml6-module-qtcore
  # headless screens, pictures, browser tests
  xvfb xauth imagemagick fonts-dejavu-core chromium
  # real torch.distributed ranks (gloo, CPU) for the attach tests
  python3 python3-torch
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Node.js may come from elsewhere (NodeSource ships npm inside nodejs): only ask Debian when npm is absent.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
