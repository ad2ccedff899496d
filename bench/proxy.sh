#!/usr/bin/env bash
# The network proxy, loopback only: CONNECT tunnel throughput against a direct loopback copy
# (target >= 80 %), and the latency a tunnel adds per connection (target <= 0.3 ms), side by
# side with the HTTP proxy of Anthropic's sandbox runtime when node and npm are here.
#
#   bash bench/proxy.sh [MiB per run] [connections]     # defaults 2048 and 2000
#
# SRT_DIR: where @anthropic-ai/sandbox-runtime is (or gets) installed (default: a temp prefix).
# NO_SRT=1 skips the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
mib="${1:-2048}"
conns="${2:-2000}"
other=()
if [ -z "${NO_SRT:-}" ] && command -v node >/dev/null && command -v npm >/dev/null; then
  srt_dir="${SRT_DIR:-$(mktemp -d)}"
  pkg="$srt_dir/node_modules/@anthropic-ai/sandbox-runtime"
  [ -d "$pkg" ] || npm install --silent --no-audit --no-fund --prefix "$srt_dir" @anthropic-ai/sandbox-runtime >/dev/null
  echo "other proxy: @anthropic-ai/sandbox-runtime $(node -p "require('$pkg/package.json').version") (createHttpProxyServer, node $(node --version))"
  port_file="$(mktemp)"
  node bench/srt_proxy.mjs "$pkg" >"$port_file" &
  srt_pid=$!
  trap 'kill "$srt_pid" 2>/dev/null || true; rm -f "$port_file"' EXIT
  for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.1; done
  other=("127.0.0.1:$(cat "$port_file")")
fi
cargo run --release -q -p wicket-net --example proxy_bench -- "$mib" "$conns" "${other[@]}"
