#!/usr/bin/env bash
# Install the real agent CLIs the integration tests drive, pinned, into DIR (default
# target/agents), in DIR/node_modules/.bin: Codex CLI (`codex app-server` confirms the hook
# trust `wicket init codex --trust` records), Gemini CLI and Claude Code (each driven through its
# hooks against a scripted local model, tests/agents/fake_gemini.py and fake_claude.py; Claude
# Code's native binary comes in an npm optional dependency), and the agents of issue #41, each
# driven through its hook or plugin against tests/agents/fake_openai.py: Qwen Code, GitHub
# Copilot CLI (its native package unpacks itself into DIR/copilot-cache on first start, done
# here once), OpenCode and its fork Kilo (native binaries in npm optional dependencies), and
# Factory Droid, whose binary package is installed directly: `@factory/cli`'s own postinstall
# looks for the binary package of exactly its own version, which the registry may not carry.
# Does nothing when installed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/agents}
CODEX=0.171.0
GEMINI=0.61.0
CLAUDE=2.1.332
QWEN=0.24.4
COPILOT=1.0.102
OPENCODE=1.18.33
KILO=7.7.7
DROID=0.225.2
stamp="$dir/.installed-codex$CODEX-gemini$GEMINI-claude$CLAUDE-qwen$QWEN-copilot$COPILOT-opencode$OPENCODE-kilo$KILO-droid$DROID"
[ -f "$stamp" ] && exit 0
command -v npm >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
rm -rf "$dir" && mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@openai/codex@$CODEX" "@google/gemini-cli@$GEMINI" \
  "@anthropic-ai/claude-code@$CLAUDE" "@qwen-code/qwen-code@$QWEN" "@github/copilot@$COPILOT" "opencode-ai@$OPENCODE" \
  "@kilocode/cli@$KILO" "@factory/cli-linux-x64@$DROID" >/dev/null
COPILOT_CACHE_HOME="$dir/copilot-cache" HOME="$dir" "$dir/node_modules/.bin/copilot" --version >/dev/null
touch "$stamp"
echo "agent CLIs installed in $dir"
