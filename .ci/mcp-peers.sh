#!/usr/bin/env bash
# Install the real MCP peers the gateway tests and bench/mcp.sh drive, pinned, into DIR (default
# target/mcp-peers): the reference servers from npm (DIR/npm/node_modules/@modelcontextprotocol/…)
# and the official Python MCP SDK in a venv (DIR/venv). Does nothing when they are there already.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/mcp-peers}
SERVER_FILESYSTEM=2026.8.31
SERVER_EVERYTHING=2026.8.31
PYTHON_SDK=2.3.0
stamp="$dir/.installed-fs$SERVER_FILESYSTEM-ev$SERVER_EVERYTHING-sdk$PYTHON_SDK"
[ -f "$stamp" ] && exit 0

need=()
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
if [ "${#need[@]}" -gt 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

rm -rf "$dir" && mkdir -p "$dir"
npm install --prefix "$dir/npm" --no-audit --no-fund --loglevel=error \
  "@modelcontextprotocol/server-filesystem@$SERVER_FILESYSTEM" \
  "@modelcontextprotocol/server-everything@$SERVER_EVERYTHING" >/dev/null
python3 -m venv "$dir/venv"
"$dir/venv/bin/python" -m pip install -q --disable-pip-version-check "mcp==$PYTHON_SDK"
touch "$stamp"
echo "MCP peers installed in $dir"
