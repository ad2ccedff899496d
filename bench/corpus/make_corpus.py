#!/usr/bin/env python3
"""Writes agent_calls.jsonl: everyday tool calls of coding agents (Claude Code, Cursor, Aider
style), one a line, as they send them. Written by hand across Rust, Node, Python and Go work in
one project (see asks.sh for the project the calls run in); no call is an attack. Run it again
after editing the lists: `python3 bench/corpus/make_corpus.py`."""
import json, os

HEREDOC_COMMIT = 'git commit -m "$(cat <<\'EOF\'\n{msg}\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)"'
PR_BODY = 'gh pr create --title "{t}" --body "$(cat <<\'EOF\'\n## Summary\n- {t}\n\n## Test plan\n- [ ] cargo test\nEOF\n)"'

bash = [
    # --- git, read-only
    "git status", "git status --short", "git status -sb", "git diff", "git diff --stat", "git diff --cached",
    "git diff HEAD~1", "git diff main...HEAD --stat", "git diff --name-only", "git diff --name-status origin/main",
    "git diff --diff-filter=M --name-only", "git diff -- src/lib.rs", "git diff --word-diff src/parser.rs",
    "git log --oneline -20", "git log --oneline -n 10", "git log -5 --stat", "git log --format='%h %s' -n 30",
    "git log -p -3 -- src/main.rs", "git log --since=\"2 weeks ago\" --oneline", "git log --author=alice --oneline | head -20",
    "git log --graph --oneline --all | head -40", "git show HEAD", "git show --stat HEAD~2", "git show HEAD:src/main.rs",
    "git branch", "git branch -a", "git branch --show-current", "git remote -v", "git rev-parse HEAD",
    "git rev-parse --abbrev-ref HEAD", "git rev-parse --show-toplevel", "git blame src/lib.rs", "git blame -L 10,40 src/lib.rs",
    "git blame --date=short src/parser.rs | head -30", "git ls-files", "git ls-files | wc -l", "git ls-files '*.rs' | head -50",
    "git ls-files .env", "git check-ignore -v .env", "git stash list", "git tag --list", "git describe --tags",
    "git shortlog -sn | head", "git grep -n TODO", "git grep -n 'fn parse' -- '*.rs'", "git config user.name",
    "git merge-base HEAD origin/main", "git cat-file -p HEAD", "git reflog | head -20", "git clean -n",
    "git apply --check /tmp/fix.patch", "git format-patch -1 --stdout | head -50", "git log --oneline main..HEAD",
    "git diff --check", "git worktree list", "git stash show -p stash@{0}",
    # substitutions agents write inside git's words
    "git diff $(git merge-base HEAD origin/main) --stat", "git log --since=\"$(date -d '1 week ago' +%F)\" --oneline",
    "git show $(git rev-parse --short HEAD) --stat", "git log $(git describe --tags --abbrev=0)..HEAD --oneline",
    # --- git, writes
    "git add -A", "git add src/lib.rs tests/test_api.py", "git add .", "git add -p src/parser.rs",
    HEREDOC_COMMIT.format(msg="Fix off-by-one in tokenizer"),
    HEREDOC_COMMIT.format(msg="Add retry to HTTP client\n\nThe client now retries idempotent requests twice."),
    HEREDOC_COMMIT.format(msg="Refactor config loading"),
    "git commit -m 'Bump version to 0.4.1'", "git commit -am \"fix lint\"", "git commit --amend --no-edit",
    "git checkout -b feature/retry", "git checkout main", "git switch -c fix/parser", "git switch main",
    "git stash", "git stash pop", "git pull --rebase", "git fetch origin", "git rebase origin/main",
    "git restore src/lib.rs", "git restore --staged .", "git merge --no-ff feature/retry", "git cherry-pick abc1234",
    "git push -u origin feature/retry", "git push", "git reset HEAD~1", "git mv src/old.rs src/new.rs", "git rm --cached out.log",
    "git add -A && " + HEREDOC_COMMIT.format(msg="Add pagination to list endpoint"),
    "git add src/ && git commit -m 'wip'",
    PR_BODY.format(t="Add retry to HTTP client"), PR_BODY.format(t="Fix parser panic on empty input"),
    "gh pr view 42", "gh pr list", "gh pr checks", "gh issue view 17", "gh pr diff 42 | head -100", "gh run list --limit 5",
    "gh api repos/acme/app/pulls/42/comments",
    # --- listing and reading
    "ls", "ls -la", "ls -la src/", "ls src tests", "ls -R crates | head -50", "ls -lah ~/.cargo/bin", "ls /tmp",
    "tree -L 2", "tree src -I node_modules", "pwd", "cat Cargo.toml", "cat package.json", "cat src/main.rs | head -50",
    "cat -n src/lib.rs | sed -n '20,60p'", "head -40 README.md", "head -n 100 src/parser.rs", "tail -n 50 out.log",
    "tail -f /dev/null & sleep 0", "wc -l src/*.rs", "wc -l src/**/*.ts", "wc -l $(git ls-files '*.py')",
    "du -sh node_modules", "du -sh target 2>/dev/null", "file target/debug/app", "stat Cargo.lock", "which cargo",
    "which python3 node go", "type pytest", "command -v rg", "echo $PATH", "env | grep -i ^cargo", "printenv HOME",
    "uname -a", "date", "whoami", "nproc", "df -h .", "free -m",
    "sed -n '1,80p' src/server.ts", "awk 'NR>=10 && NR<=30' src/lib.rs", "diff src/a.rs src/b.rs", "cmp out1.bin out2.bin",
    "sort -u names.txt | head", "cut -d, -f1 data.csv | sort | uniq -c | sort -rn | head", "jq '.dependencies' package.json",
    "jq -r '.scripts | keys[]' package.json", "realpath src/../README.md", "basename $(pwd)", "dirname src/lib.rs",
    "md5sum Cargo.lock", "sha256sum dist/app.tar.gz", "xxd target/out.bin | head",
    # --- search
    "grep -rn 'TODO' src/", "grep -rn \"fn main\" --include='*.rs' .", "grep -l serde */Cargo.toml", "grep -c unwrap src/*.rs",
    "grep -rn 'useEffect' web/src | head -20", "grep -n 'import' app/main.py", "grep -rE 'password|secret' src/ --include=*.py",
    "rg 'fn parse' src", "rg -n 'TODO|FIXME'", "rg --files | head -100", "rg -l 'async fn' crates/", "rg -t py 'def test_' tests",
    "find . -name '*.rs' | head -50", "find . -name '*.py' -not -path './.venv/*'", "find src -type f | wc -l",
    "find . -name node_modules -prune -o -name '*.ts' -print | head", "find . -maxdepth 2 -type d", "find tests -name 'test_*.py'",
    "find . -name '*.rs' -exec wc -l {} +", "find . -name '*.py' -exec grep -l 'import requests' {} \\;",
    "find . -type f -name '*.go' | xargs grep -n 'func main'", "find src -name '*.ts' | xargs wc -l | sort -n | tail",
    "find . -name '*.orig' -delete", "find . -name __pycache__ -type d -exec rm -rf {} +", "ls | grep .env",
    "git ls-files | grep -E '\\.(ts|tsx)$' | xargs wc -l | tail -1", "ls src/*.rs | xargs -n1 basename",
    "grep -rl 'old_name' src | xargs sed -i 's/old_name/new_name/g'",
    # --- Rust
    "cargo build", "cargo build --release", "cargo test", "cargo test --all", "cargo test -- --nocapture",
    "cargo test parser::tests::empty -- --exact", "cargo test -p core 2>&1 | tail -30", "cargo check", "cargo check --all-targets",
    "cargo clippy --all-targets -- -D warnings", "cargo fmt", "cargo fmt --all -- --check", "cargo run -- --help",
    "cargo run --bin app -- serve --port 8080", "cargo doc --no-deps", "cargo tree -d", "cargo update -p serde",
    "cargo add tokio --features full", "cargo bench --no-run", "cargo metadata --format-version 1 | jq '.packages | length'",
    "cargo test 2>&1 | grep -E 'test result|FAILED'", "cargo build 2>&1 | head -50", "RUST_BACKTRACE=1 cargo test failing_case",
    "RUST_LOG=debug cargo run", "cargo nextest run", "rustc --version", "cargo --version",
    # --- Node
    "npm install", "npm ci", "npm test", "npm run build", "npm run lint", "npm run lint -- --fix", "npm run dev &", "npm run typecheck",
    "npm test -- --watch=false", "npm test -- src/utils.test.ts", "npm ls react", "npm outdated", "npm install --save-dev vitest",
    "npx tsc --noEmit", "npx eslint src --ext .ts,.tsx", "npx prettier --write src/", "npx prettier --check .", "npx vitest run",
    "npx jest src/api.test.ts", "npx playwright test", "node -v", "node scripts/gen.js", "node -e \"console.log(require('./package.json').version)\"",
    "yarn test", "yarn build", "pnpm install", "pnpm test", "pnpm run build", "bun test",
    "npm run build 2>&1 | tail -20", "cd web && npm test", "cd web && npm run build", "cd web && npx tsc --noEmit",
    # --- Python
    "pytest", "pytest -q", "pytest tests/", "pytest -x -k test_parse", "pytest tests/test_api.py::test_get -v",
    "pytest --cov=app tests/", "python -m pytest -q", "python3 -m pytest tests -x", "python3 -m venv .venv",
    "source .venv/bin/activate && pip install -r requirements.txt", "pip install -e .", "pip install requests", "pip list | grep -i django",
    "python3 -c 'import sys; print(sys.version)'", "python3 manage.py migrate", "python3 manage.py test", "python3 scripts/seed.py",
    "ruff check .", "ruff check --fix app/", "ruff format .", "black app tests", "mypy app", "flake8 app",
    "uv run pytest", "uv sync", "poetry install", "poetry run pytest", "tox -e py311",
    "cd app && pytest", "cd app && python -m pytest -q", "cd app && pytest tests/test_models.py", "cd app && ruff check .",
    "pytest ${ARGS:-tests}", "pytest 2>&1 | tail -30", "python3 -m json.tool package.json | head",
    # --- Go
    "go build ./...", "go test ./...", "go test -run TestParse ./internal/...", "go test -v -race ./...", "go vet ./...",
    "go mod tidy", "go mod download", "go fmt ./...", "gofmt -l .", "go run ./cmd/server", "go version", "go env GOPATH",
    "golangci-lint run", "cd go && go test ./...", "cd go && go build ./...",
    # --- make, docker, misc builds
    "make", "make test", "make -j4 build", "make -j$(nproc)", "make lint", "cmake -S . -B build && cmake --build build", "docker ps",
    "docker build -t app .", "docker compose up -d", "docker compose logs --tail 50 api",
    # --- files and folders
    "mkdir -p src/utils", "mkdir -p tests/fixtures && touch tests/fixtures/.gitkeep", "touch src/new.rs", "cp src/a.rs src/b.rs",
    "cp -r templates/ out/", "cp dir/* out/", "mv src/old.ts src/new.ts", "rm out.log", "rm -rf dist", "rm -rf target/debug/incremental",
    "rm -f /tmp/fix.patch", "chmod +x scripts/build.sh", "ln -s ../shared shared", "tar czf /tmp/src.tgz src",
    "echo 'node_modules/' >> .gitignore", "echo '.env.local' >> .gitignore", "echo 'export PATH=$PATH:~/bin' > /tmp/env.sh",
    "cat > /tmp/test_input.json <<'EOF'\n{\"a\": 1}\nEOF", "printf 'a\\nb\\n' > /tmp/lines.txt", "sed -i 's/foo/bar/g' src/lib.rs",
    "sed -i '' 's/v1/v2/' README.md", "perl -pi -e 's/old/new/' src/*.py", "patch -p1 < /tmp/fix.patch", "unzip -l release.zip",
    "cat .env.example", "cp .env.example .env", "cat ~/.ssh/id_ed25519.pub", "ls -la ~/.ssh",
    # --- shell forms
    "for f in src/*.rs; do echo \"$f\"; wc -l \"$f\"; done", "for d in crates/*/; do (cd \"$d\" && cargo check); done",
    "for d in crates/*/; do echo $d; done", "while read -r f; do echo \"$f\"; done < <(git ls-files)",
    "git ls-files | while read f; do wc -l \"$f\"; done | sort -n | tail", "if [ -f Cargo.toml ]; then cargo check; fi",
    "test -d node_modules || npm ci", "[ -f .env ] && echo exists", "time cargo build", "time npm test",
    "sleep 2 && curl -s localhost:8080/health", "curl -s http://localhost:3000/api/items | jq .", "curl -sI https://example.com",
    "echo done", "echo $?", "true", "set -e; cargo build; cargo test", "export NODE_ENV=test && npm test",
    "NODE_ENV=test npm test", "cd src && ls", "cd .. && ls", "cd /tmp && ls", "cd crates/core && cargo test",
    "timeout 60 cargo test", "nohup npm run dev > /tmp/dev.log 2>&1 &", "kill %1", "ps aux | grep node | head", "lsof -i :3000",
    "git log --since \"$(date -d '7 days ago' +%F)\" --oneline", "echo \"$(git rev-parse --short HEAD)\"",
    "diff <(sort a.txt) <(sort b.txt)", "cat package.json | jq .version", "history | tail -5", "read -r x <<< 'hello'; echo $x",
]

reads = [
    "src/main.rs", "src/lib.rs", "src/parser.rs", "src/server.ts", "Cargo.toml", "Cargo.lock", "package.json", "README.md",
    "tsconfig.json", "app/main.py", "app/models.py", "tests/test_api.py", "go/main.go", "go/go.mod", "web/src/App.tsx",
    "web/src/index.ts", "crates/core/src/lib.rs", "crates/cli/Cargo.toml", "docs/guide.md", ".gitignore", ".env.example",
    ".github/workflows/ci.yml", "Makefile", "Dockerfile", "requirements.txt", "pyproject.toml", "out.log",
    "/tmp/dev.log", "/tmp/test_input.json", "/tmp/fix.patch", "~/.cargo/config.toml", "/usr/include/stdio.h",
    "node_modules/react/package.json", "target/debug/build/app-1/output", "src/utils/mod.rs", "CHANGELOG.md",
    "src/parser.rs", "src/lib.rs", "src/main.rs", "tests/test_models.py", "app/views.py", "web/src/api.ts", "web/package.json",
]
writes = [
    ("edit_file", "src/lib.rs"), ("edit_file", "src/parser.rs"), ("edit_file", "src/main.rs"), ("edit_file", "app/models.py"),
    ("edit_file", "tests/test_api.py"), ("edit_file", "web/src/App.tsx"), ("edit_file", "go/main.go"), ("edit_file", "README.md"),
    ("edit_file", "Cargo.toml"), ("edit_file", "package.json"), ("edit_file", "src/server.ts"), ("edit_file", "crates/core/src/lib.rs"),
    ("write_file", "src/utils/retry.rs"), ("write_file", "tests/test_retry.py"), ("write_file", "web/src/hooks/useFetch.ts"),
    ("write_file", "docs/retry.md"), ("write_file", "/tmp/scratch.py"), ("write_file", "/tmp/notes.md"),
    ("edit_file", ".gitignore"), ("write_file", ".env.example"), ("edit_file", "CHANGELOG.md"), ("edit_file", "app/views.py"),
    ("edit_file", "src/parser.rs"), ("edit_file", "src/lib.rs"), ("write_file", "go/internal/retry/retry.go"),
]
searches = [
    ("grep", {"pattern": "fn parse", "path": "src"}), ("grep", {"pattern": "TODO"}), ("grep", {"pattern": "import React", "path": "web/src"}),
    ("grep", {"pattern": "def test_", "path": "tests"}), ("grep", {"pattern": "unwrap\\(\\)", "glob": "*.rs"}),
    ("glob", {"pattern": "**/*.rs"}), ("glob", {"pattern": "src/**/*.ts"}), ("glob", {"pattern": "tests/test_*.py"}),
    ("glob", {"pattern": "**/Cargo.toml"}), ("glob", {"pattern": "**/*.go", "path": "go"}), ("grep", {"pattern": "API_URL"}),
    ("glob", {"pattern": "*.md"}),
]
fetches = [
    "https://docs.rs/serde/latest/serde/", "https://doc.rust-lang.org/std/vec/struct.Vec.html", "https://react.dev/reference/react/useEffect",
    "https://docs.python.org/3/library/pathlib.html", "https://pkg.go.dev/net/http", "https://github.com/tokio-rs/tokio/issues/1234",
    "https://developer.mozilla.org/en-US/docs/Web/API/fetch", "https://www.npmjs.com/package/vitest",
]

out = []
for c in bash:
    out.append({"tool": "bash", "input": {"command": c}})
for p in reads:
    out.append({"tool": "read_file", "input": {"path": p}})
for tool, p in writes:
    out.append({"tool": tool, "input": {"path": p, "content": "x"} if tool == "write_file" else {"path": p, "old_string": "a", "new_string": "b"}})
for tool, inp in searches:
    out.append({"tool": tool, "input": inp})
for u in fetches:
    out.append({"tool": "web_fetch", "input": {"url": u}})
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "agent_calls.jsonl"), "w") as f:
    for call in out:
        f.write(json.dumps(call) + "\n")
print(f"{len(out)} calls ({len(bash)} commands)")
