//! `cargo bench -p wicket-shell`: analysis time for realistic agent commands and for large inputs.

use divan::{black_box, Bencher};

fn main() {
    divan::main();
}

const AGENT_COMMANDS: &[&str] = &[
    "git status",
    "git diff --stat HEAD~1",
    "git log --oneline -n 20 -- src/",
    "git add -A && git commit -m \"fix: handle empty input\"",
    "cargo test -p wicket-shell 2>&1 | tail -n 50",
    "cargo build --release",
    "cargo clippy --all-targets -- -D warnings",
    "npm test",
    "pnpm install --frozen-lockfile && pnpm test",
    "npx tsc --noEmit",
    "ls -la src/",
    "cat package.json",
    "grep -rn \"TODO\" src/ | head -20",
    "rg -n 'fn analyze' crates/",
    "find . -name '*.rs' -not -path './target/*' | xargs wc -l",
    "find . -type f -name '*.pyc' -exec rm {} \\;",
    "python -m pytest tests/ -x -q",
    "python3 -c 'import sys; print(sys.version)'",
    "pip install -r requirements.txt",
    "docker build -t app . && docker run --rm app",
    "make -j$(nproc) all",
    "cd frontend && npm run build",
    "echo \"$(date +%Y-%m-%d)\" > build-date.txt",
    "for f in src/*.ts; do echo \"$f\"; done",
    "if [ -f .env ]; then source .env; fi",
    "curl -sSL https://example.com/install.sh | sh",
    "sed -i 's/foo/bar/g' src/main.rs",
    "mkdir -p build && cd build && cmake .. && make",
    "cat <<EOF > config.toml\n[server]\nport = 8080\nEOF",
    "FOO=1 BAR=\"x y\" ./scripts/run.sh --flag=value 2>/dev/null",
];

#[divan::bench]
fn agent_commands(bencher: Bencher) {
    bencher.bench(|| {
        for c in AGENT_COMMANDS {
            black_box(wicket_shell::analyze(black_box(c)));
        }
    });
}

#[divan::bench(args = AGENT_COMMANDS)]
fn one_command(bencher: Bencher, cmd: &str) {
    bencher.bench(|| wicket_shell::analyze(black_box(cmd)));
}

#[divan::bench]
fn five_parts(bencher: Bencher) {
    let cmd = "cd app && npm ci && npm run lint && npm test | tee out.log; echo done";
    bencher.bench(|| wicket_shell::analyze(black_box(cmd)));
}

/// A script of about `size` bytes made of the agent commands, one a line.
fn script(size: usize) -> String {
    let mut s = String::new();
    for c in AGENT_COMMANDS.iter().cycle() {
        if s.len() + c.len() + 1 > size {
            break;
        }
        s.push_str(c);
        s.push('\n');
    }
    s
}

#[divan::bench(args = [1024, 16 * 1024, 64 * 1024])]
fn large_input(bencher: Bencher, size: usize) {
    let s = script(size);
    bencher.counter(divan::counter::BytesCount::new(s.len())).bench(|| wicket_shell::analyze(black_box(&s)));
}

#[divan::bench]
fn strip_wrappers(bencher: Bencher) {
    let a = wicket_shell::analyze("sudo -u root env FOO=1 timeout 5 bash -c 'rm -rf /tmp/x; ls'");
    bencher.bench(|| wicket_shell::strip_wrappers(black_box(&a.commands[0])));
}
