#!/usr/bin/env bash
# Install the real agent CLIs the integration tests drive, pinned, into DIR (default
# target/agents), in DIR/node_modules/.bin: Codex CLI (`codex app-server` confirms the hook
# trust `wicket init codex --trust` records) and Gemini CLI (driven through its hooks against a
# scripted local model, tests/agents/fake_gemini.py). Does nothing when installed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/agents}
CODEX=0.171.0
GEMINI=0.61.0
stamp="$dir/.installed-codex$CODEX-gemini$GEMINI"
[ -f "$stamp" ] && exit 0
command -v npm >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
rm -rf "$dir" && mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@openai/codex@$CODEX" "@google/gemini-cli@$GEMINI" >/dev/null
touch "$stamp"
echo "agent CLIs installed in $dir"
