#!/usr/bin/env bash
# Install the real agent CLIs the integration tests drive, pinned, into DIR (default
# target/agents), in DIR/node_modules/.bin: Codex CLI (`codex app-server` confirms the hook
# trust `wicket init codex --trust` records), Gemini CLI and Claude Code (each driven through its
# hooks against a scripted local model, tests/agents/fake_gemini.py and fake_claude.py; Claude
# Code's native binary comes in an npm optional dependency). Does nothing when installed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/agents}
CODEX=0.171.0
GEMINI=0.61.0
CLAUDE=2.1.332
stamp="$dir/.installed-codex$CODEX-gemini$GEMINI-claude$CLAUDE"
[ -f "$stamp" ] && exit 0
command -v npm >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
rm -rf "$dir" && mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@openai/codex@$CODEX" "@google/gemini-cli@$GEMINI" \
  "@anthropic-ai/claude-code@$CLAUDE" >/dev/null
touch "$stamp"
echo "agent CLIs installed in $dir"
