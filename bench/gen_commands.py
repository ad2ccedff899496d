#!/usr/bin/env python3
"""Writes crates/wicket-shell/benches/commands.txt: 1,200 realistic coding-agent commands.

Deterministic (fixed seed), so the benchmark input is reviewable and stable. Each line is one
command; newlines inside a command are written as the two characters \\n.
    python3 bench/gen_commands.py
"""
import random
from pathlib import Path

random.seed(7)
files = ["src/main.rs", "src/lib.rs", "src/app.ts", "src/index.js", "app/models.py", "tests/test_api.py",
         "cmd/server/main.go", "README.md", "docs/guide.md", "package.json", "Cargo.toml", "pyproject.toml"]
dirs = ["src", "tests", "app", "crates/core", "packages/web", "internal/api", "docs", "scripts", "lib", "."]
words = ["TODO", "FIXME", "handleRequest", "parse_config", "useState", "async fn", "def test_", "import os"]
branches = ["main", "feature/login", "fix/timeout", "release/1.2"]
msgs = ["fix: handle empty input", "feat: add retry && backoff", "chore: bump deps", "docs: explain | pipes",
        "refactor(core): split parser; keep api", "test: cover edge cases"]

templates = [
    lambda: f"git status",
    lambda: f"git status --short",
    lambda: f"git diff {random.choice(['', '--stat ', '--cached ', 'HEAD~1 -- '])}{random.choice(dirs)}",
    lambda: f"git log --oneline -n {random.randint(3, 50)}",
    lambda: f"git log --format='%h %s' -- {random.choice(files)}",
    lambda: f"git add {random.choice(files)} && git commit -m \"{random.choice(msgs)}\"",
    lambda: f"git checkout -b {random.choice(branches)}",
    lambda: f"git show HEAD:{random.choice(files)} | head -n {random.randint(10, 80)}",
    lambda: f"git stash && git pull --rebase origin {random.choice(branches)} && git stash pop",
    lambda: f"cargo test{random.choice(['', ' --all', ' -p core', ' -- --nocapture', ' --release'])}",
    lambda: f"cargo build --release 2>&1 | tail -n {random.randint(5, 40)}",
    lambda: f"cargo clippy --all-targets -- -D warnings",
    lambda: f"cargo fmt --all -- --check || cargo fmt --all",
    lambda: f"npm {random.choice(['test', 'run build', 'run lint', 'install', 'ci', 'run dev -- --port 3000'])}",
    lambda: f"npm test -- --testPathPattern={random.choice(['api', 'auth', 'ui'])} --coverage",
    lambda: f"pnpm install --frozen-lockfile && pnpm {random.choice(['test', 'build', 'lint'])}",
    lambda: f"yarn {random.choice(['test', 'build', 'tsc --noEmit'])}",
    lambda: f"npx tsc --noEmit -p {random.choice(['.', 'packages/web', 'tsconfig.build.json'])}",
    lambda: f"npx eslint {random.choice(dirs)} --ext .ts,.tsx --fix",
    lambda: f"python -m pytest {random.choice(['tests/', 'tests/test_api.py', '-k parse', '-x -q'])}",
    lambda: f"pytest -q tests/test_{random.choice(['api', 'models', 'cli'])}.py::test_{random.choice(['ok', 'error', 'retry'])}",
    lambda: f"python3 -c 'import sys; print(sys.version)'",
    lambda: f"pip install -r requirements{random.choice(['', '-dev'])}.txt",
    lambda: f"uv run pytest -x && uv run ruff check {random.choice(dirs)}",
    lambda: f"go test ./... -run {random.choice(['TestParse', 'TestServer', 'TestAuth'])} -v",
    lambda: f"go build -o bin/server ./cmd/server && ./bin/server --help",
    lambda: f"go vet ./... && golangci-lint run",
    lambda: f"make {random.choice(['', 'test', 'build', 'lint', '-j$(nproc) all'])}",
    lambda: f"mkdir -p build && cd build && cmake .. && make -j4",
    lambda: f"ls {random.choice(['', '-la ', '-R ', '-lh '])}{random.choice(dirs)}",
    lambda: f"cat {random.choice(files)}",
    lambda: f"head -n {random.randint(5, 100)} {random.choice(files)}",
    lambda: f"tail -f logs/app.log | grep --line-buffered ERROR",
    lambda: f"wc -l $(git ls-files '*.{random.choice(['rs', 'ts', 'py', 'go'])}') | sort -n | tail -5",
    lambda: f"grep -rn \"{random.choice(words)}\" {random.choice(dirs)} | head -20",
    lambda: f"rg -n '{random.choice(words)}' {random.choice(dirs)} --type {random.choice(['rust', 'ts', 'py'])}",
    lambda: f"find {random.choice(dirs)} -name '*.{random.choice(['rs', 'ts', 'py', 'md'])}' -type f | xargs wc -l",
    lambda: f"find . -path ./node_modules -prune -o -name '*.test.ts' -print",
    lambda: f"sed -n '{random.randint(1, 50)},{random.randint(51, 200)}p' {random.choice(files)}",
    lambda: f"sed -i 's/{random.choice(['foo', 'old_name', 'v1'])}/{random.choice(['bar', 'new_name', 'v2'])}/g' {random.choice(files)}",
    lambda: f"awk '{{print $1}}' {random.choice(files)} | sort | uniq -c | sort -rn | head",
    lambda: f"echo \"{random.choice(msgs)}\" > /tmp/msg.txt",
    lambda: f"for f in {random.choice(dirs)}/*.{random.choice(['ts', 'py'])}; do echo \"$f\"; wc -l \"$f\"; done",
    lambda: f"if [ -f {random.choice(files)} ]; then cat {random.choice(files)}; else echo missing; fi",
    lambda: f"diff -u {random.choice(files)} {random.choice(files)} || true",
    lambda: f"docker compose up -d && docker compose logs --tail=50 {random.choice(['web', 'db', 'api'])}",
    lambda: f"curl -sS https://api.github.com/repos/rust-lang/rust | jq '.stargazers_count'",
    lambda: f"jq '.scripts' package.json",
    lambda: f"tar -czf dist.tgz dist/ && ls -lh dist.tgz",
    lambda: f"cat <<'EOF' > notes.md\\n# Notes\\n- {random.choice(msgs)}\\nEOF",
    lambda: f"python3 - <<EOF\\nimport json\\nprint(json.load(open('package.json'))['name'])\\nEOF",
    lambda: f"export RUST_LOG=debug && cargo run -- --config config.toml",
    lambda: f"time cargo test --release -- --test-threads={random.randint(1, 8)}",
    lambda: f"(cd {random.choice(dirs)} && npm test)",
    lambda: f"{{ echo start; cargo test; echo done; }} 2>&1 | tee /tmp/test.log",
    lambda: f"node --version && npm --version && git --version",
    lambda: f"pwd",
    lambda: f"du -sh {random.choice(dirs)} node_modules 2>/dev/null | sort -h",
    lambda: f"kill $(lsof -t -i:{random.choice([3000, 8080, 5173])}) 2>/dev/null || true",
    lambda: f"test -d .venv || python3 -m venv .venv && . .venv/bin/activate && pip install -e .",
]

out = set()
while len(out) < 1200:
    out.add(random.choice(templates)().replace("  ", " ").strip())
lines = sorted(out)
path = Path(__file__).resolve().parent.parent / "crates/wicket-shell/benches/commands.txt"
path.write_text("\n".join(lines) + "\n")
print(f"wrote {len(lines)} commands to {path}")
