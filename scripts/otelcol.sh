#!/usr/bin/env bash
# Builds a real OpenTelemetry Collector, otelcol-meshscope, from its Go modules with the collector builder
# (ocb), for the test that sends reporter events through it (tests/otel) and for trying the OTLP path by hand
# (docs/live-at-scale.md, "Through OpenTelemetry"). Components: the OTLP receiver, the batch and memory_limiter
# processors, the otlphttp and debug exporters, and contrib's file_storage extension.
#
#   scripts/otelcol.sh            # builds once, then prints the binary's path (a second run only prints it)
#   scripts/otelcol.sh --path     # prints where the binary is or will be; builds nothing
#
# Everything lives under one cache folder, $MESHSCOPE_OTELCOL_CACHE (default ~/.cache/meshscope/otelcol): the
# builder, Go's module cache and build cache, the generated sources and the binary. Needs Go and the Go module
# proxy (or a module cache that already holds the modules). The build runs under `nice -n 15`.
set -euo pipefail

core=v0.165.0      # go.opentelemetry.io/collector components and the builder
stable=v1.71.0     # go.opentelemetry.io/collector's stable modules (confmap providers)
contrib=v0.165.1   # opentelemetry-collector-contrib components

cache="${MESHSCOPE_OTELCOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/meshscope/otelcol}"
out="$cache/otelcol-meshscope-$core"
binary="$out/otelcol-meshscope"

if [[ "${1:-}" == "--path" ]]; then
  echo "$binary"
  exit 0
fi
if [[ -x "$binary" ]]; then
  echo "$binary"
  exit 0
fi
command -v go > /dev/null || { echo "otelcol.sh: go is not installed (https://go.dev/dl/)" >&2; exit 1; }

mkdir -p "$cache"
export GOMODCACHE="$cache/gomod" GOCACHE="$cache/gocache" GOPATH="$cache/gopath" GOTOOLCHAIN=local
export GOFLAGS="${GOFLAGS:-} -mod=mod"

builder="$GOPATH/bin/builder"
if [[ ! -x "$builder" ]]; then
  nice -n 15 go install "go.opentelemetry.io/collector/cmd/builder@$core" >&2
fi

manifest="$cache/manifest-$core.yaml"
cat > "$manifest" <<YAML
dist:
  name: otelcol-meshscope
  description: OpenTelemetry Collector for MeshScope's OTLP path (scripts/otelcol.sh)
  output_path: $out
receivers:
  - gomod: go.opentelemetry.io/collector/receiver/otlpreceiver $core
processors:
  - gomod: go.opentelemetry.io/collector/processor/batchprocessor $core
  - gomod: go.opentelemetry.io/collector/processor/memorylimiterprocessor $core
exporters:
  - gomod: go.opentelemetry.io/collector/exporter/otlphttpexporter $core
  - gomod: go.opentelemetry.io/collector/exporter/debugexporter $core
extensions:
  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage $contrib
providers:
  - gomod: go.opentelemetry.io/collector/confmap/provider/envprovider $stable
  - gomod: go.opentelemetry.io/collector/confmap/provider/fileprovider $stable
YAML

start=$(date +%s)
nice -n 15 "$builder" --config "$manifest" >&2
echo "otelcol.sh: built $binary in $(($(date +%s) - start)) s" >&2
echo "$binary"
