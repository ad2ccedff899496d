#!/usr/bin/env bash
# Install what the OTLP export tests decode with, pinned, into DIR (default target/otel-peers):
# the official Python OpenTelemetry protobuf bindings and gRPC, in a venv (DIR/venv), so the
# test receiver decodes wicket's requests with an implementation that is not wicket's. Does
# nothing when they are there already.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/otel-peers}
OTEL_PROTO=1.45.2
GRPCIO=1.85.4
PROTOBUF=7.36.2
stamp="$dir/.installed-proto$OTEL_PROTO-grpcio$GRPCIO-pb$PROTOBUF"
[ -f "$stamp" ] && exit 0

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
fi
rm -rf "$dir" && mkdir -p "$dir"
python3 -m venv "$dir/venv"
"$dir/venv/bin/python" -m pip install -q --disable-pip-version-check \
  "opentelemetry-proto==$OTEL_PROTO" "grpcio==$GRPCIO" "protobuf==$PROTOBUF"
touch "$stamp"
echo "OTLP peers installed in $dir"
