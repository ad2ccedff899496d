#!/usr/bin/env bash
# The network proxy, loopback only: CONNECT tunnel throughput against a direct loopback copy
# (target >= 80 %), and the latency a tunnel adds per connection (target <= 0.3 ms).
#
#   bash bench/proxy.sh [MiB per run] [connections]     # defaults 2048 and 2000
#
# Not yet side by side with the proxy of Anthropic's sandbox runtime (issue 7 asks for the ratio).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -q -p wicket-net --example proxy_bench -- "$@"
