#!/usr/bin/env bash
# The network proxy, loopback only: CONNECT tunnel throughput against a direct loopback copy
# (target >= 80 %), the proxy's CPU time per GiB (splice and user-space copy), and the latency a
# tunnel adds per connection (target <= 0.3 ms). Side by side, when they are here:
# - the HTTP proxy of Anthropic's sandbox runtime (node and npm; installed into SRT_DIR);
# - HAProxy as a plain TCP forwarder with splice forced on (`haproxy` on PATH; Debian package
#   haproxy): what one proxy hop costs on this machine at best, with no policy at all.
#
#   bash bench/proxy.sh [MiB per run] [connections]     # defaults 2048 and 2000
#
# SRT_DIR: where @anthropic-ai/sandbox-runtime is (or gets) installed (default: a temp prefix).
# NO_SRT=1 / NO_HAPROXY=1 skip a comparison. ROUNDS (default 5) and ENDPOINT_CPUS/PROXY_CPUS
# (pinning) are passed on to crates/wicket-net/examples/proxy_bench.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
mib="${1:-2048}"
conns="${2:-2000}"
other=()
pids=()
tmp="$(mktemp -d)"
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

if [ -z "${NO_SRT:-}" ] && command -v node >/dev/null && command -v npm >/dev/null; then
  srt_dir="${SRT_DIR:-$tmp/srt}"
  pkg="$srt_dir/node_modules/@anthropic-ai/sandbox-runtime"
  [ -d "$pkg" ] || npm install --silent --no-audit --no-fund --prefix "$srt_dir" @anthropic-ai/sandbox-runtime >/dev/null
  echo "other proxy: @anthropic-ai/sandbox-runtime $(node -p "require('$pkg/package.json').version") (createHttpProxyServer, node $(node --version))"
  node bench/srt_proxy.mjs "$pkg" >"$tmp/srt.port" &
  pids+=($!)
  for _ in $(seq 100); do [ -s "$tmp/srt.port" ] && break; sleep 0.1; done
  other=("127.0.0.1:$(cat "$tmp/srt.port")")
fi

if [ -z "${NO_HAPROXY:-}" ] && command -v haproxy >/dev/null && command -v python3 >/dev/null; then
  SINK_PORT="$(free_port)"
  fwd_port="$(free_port)"
  cat >"$tmp/haproxy.cfg" <<EOF
global
    maxconn 100
defaults
    mode tcp
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    option splice-request
    option splice-response
frontend bench
    bind 127.0.0.1:$fwd_port
    default_backend sink
backend sink
    server sink 127.0.0.1:$SINK_PORT
EOF
  haproxy -db -f "$tmp/haproxy.cfg" >/dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do (echo >"/dev/tcp/127.0.0.1/$fwd_port") 2>/dev/null && break; sleep 0.1; done
  echo "plain forwarder: $(haproxy -v | head -n 1 | cut -d' ' -f1-3), TCP mode, splice-request and splice-response"
  export SINK_PORT FORWARDER="127.0.0.1:$fwd_port"
fi
cargo run --release -q -p wicket-net --example proxy_bench -- "$mib" "$conns" "${other[@]}"
