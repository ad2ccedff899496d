#!/usr/bin/env bash
# The fetch-time guard, loopback only: latency of one fetch over plain http and over https
# (full TLS handshake per fetch, certificate verified), and the cost of building the trust store.
#
#   bash bench/fetch.sh [fetches]     # default 1000 each way
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release -q --locked -p wicket-net --example fetch_bench -- "${1:-1000}"
