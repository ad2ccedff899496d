#!/usr/bin/env bash
# Run every command of README.md and the guide (docs/*.md) as written, the way a reader on a fresh
# machine types them, and check the output the README and the quickstart show.
#
# What is run: each line of a ```sh block and each `$ ` line of a ```console block, in page
# order (found anew each run: a command added to a page is run without changing this script).
# Each page gets its own throwaway world, where its commands run one after the other as the
# reader's would (the quickstart's `wicket doctor` sees what its `wicket init claude` wrote):
#   - HOME a fresh folder, WICKET_HOME its .wicket (the default), nothing of the real home;
#   - the working folder a fresh sample project in that home: a git repository with a
#     package.json whose `test` script passes, scripts/migrate.py and a .env (what the pages'
#     examples assume a project has); commands that run `cargo` run in this checkout;
#   - `wicket` on PATH only once the page's `cargo install` line made it: that line runs as
#     written, with CARGO_TARGET_DIR=<checkout>/target (it reuses the release build of the
#     README's `cargo run --release` line) and CARGO_INSTALL_ROOT=<world home>/.cargo, so it
#     never writes the real ~/.cargo; the real CARGO_HOME and RUSTUP_HOME stay (the toolchain
#     and the crates already downloaded are the machine's, not the page's);
#   - the worlds live outside every temp folder (a sandboxed command would not see a project in
#     /tmp): in <checkout>/target, or with a checkout in a temp folder in $WICKET_ESCAPE_BASE or,
#     as root, /srv/wicket-tests, as the test suite does.
# What is checked: every command exits 0; the output lines a ```console block shows after a
# `$ ` line appear in that order in the command's output (JSON lines field by field); a
# ```console block without `$ ` lines shows the output of the command named by the first
# `code` of the paragraph above it, run earlier on the page. In expected lines `/home/you` is
# the world's home and `…` stands for any text (a line of only `…`, for any lines).
# A `wicket mcp` command is driven as its MCP client would: initialize, then tools/list, which
# must list tools. Without its `--network` (in a world of its own) the client must be told that
# the server had no network and how to give it some.
# Needs python3, git, npm and the network to the npm registry (the README's MCP server is
# fetched by `npx -y`). WICKET_DOCS_KEEP=1 keeps the worlds.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import json, os, re, select, shlex, shutil, subprocess, sys, tempfile, threading, time

REPO = os.getcwd()
# The README first (it installs wicket), then every page of the guide.
GUIDE_SKIPPED = {
    # A contributor's page: `cargo fuzz` needs a nightly toolchain and cargo-fuzz, and each
    # target runs until stopped.
    "docs/fuzzing.md": "the fuzzing commands need nightly Rust and cargo-fuzz, and run until stopped",
}
PAGES = ["README.md", "docs/quickstart.md"] + sorted(
    f"docs/{n}" for n in os.listdir(os.path.join(REPO, "docs"))
    if n.endswith(".md") and f"docs/{n}" not in ("docs/quickstart.md",) and f"docs/{n}" not in GUIDE_SKIPPED)
# The guide's other pages show illustrative output (a real log's times, ids and counts, a
# held change's id): their commands must run and succeed; their output is not compared.
ILLUSTRATIVE = {p for p in PAGES if p not in ("README.md", "docs/quickstart.md")}
# The README's install line puts wicket here; the guide's pages (which assume it is installed)
# run with it on PATH.
INSTALLED = []
# The agent CLIs the CI installs (`claude mcp add …` in the guide), when there.
AGENT_BIN = os.path.join(os.environ["WICKET_AGENTS"], "node_modules", ".bin") if os.environ.get("WICKET_AGENTS") else None

# Commands not run as written: as short as it can be, and each entry must still match a
# command of the pages (a stale entry fails the run).
SKIP = {
    # This script is one of its steps.
    "bash .ci/run": "this script runs inside it",
}
# Commands run as something else when the machine lacks what they need: command → (test, the
# command run instead, why).
STANDIN = {
    'claude mcp add fs -- "$(command -v wicket)" mcp --name fs --root "$PWD" -- mcp-server-filesystem "$PWD"': (
        lambda: shutil.which("claude", path=(AGENT_BIN or "") + os.pathsep + os.environ.get("PATH", "")) is None,
        "true",
        "Claude Code's CLI is not installed here (CI installs it: WICKET_AGENTS)",
    ),
    "wicket audit verify /var/lib/otelcol/wicket/": (
        lambda: not os.path.isdir("/var/lib/otelcol/wicket"),
        "wicket audit verify --help > /dev/null",
        "no OpenTelemetry Collector writes its file exporter's folder here (tests/otel.rs verifies real exported streams)",
    ),
    "wicket man | man -l -": (
        lambda: shutil.which("man") is None,
        "wicket man > /dev/null",
        "`man` is not installed here: the page is made but not shown",
    ),
}

ELLIPSIS = "…"
failures = []
timings = []


def fail(where, what):
    failures.append(f"{where}: {what}")
    print(f"FAIL {where}: {what}", flush=True)


def strip_comment(cmd):
    """The command without a trailing `# comment` (for naming it, never for running it): a `#`
    that starts a word outside quotes."""
    quote = None
    for i, ch in enumerate(cmd):
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or cmd[i - 1].isspace()):
            return cmd[:i].strip()
    return cmd.strip()


# ---------------------------------------------------------------------------------------------
# The pages' commands.

class Cmd:
    def __init__(self, page, line, text):
        self.page, self.line, self.text = page, line, text
        self.expect = []  # [(line, text)]
        self.out = None  # the output, once run

    @property
    def where(self):
        return f"{self.page}:{self.line}"

    @property
    def name(self):
        return strip_comment(self.text)


def parse(page):
    """The page's commands in order, and its output-only console blocks: (line, named
    command, expected lines)."""
    lines = open(os.path.join(REPO, page), encoding="utf-8").read().split("\n")
    cmds, outputs = [], []
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append((i + 1, lines[i]))
            i += 1
        i += 1
        if lang == "sh":
            pending = None
            for n, t in body:
                if "<<" in t:
                    fail(f"{page}:{n}", "a heredoc in a ```sh block: teach .ci/docs-examples.sh to read it")
                if pending:
                    pending.text += "\n" + t
                elif t.strip() and not t.lstrip().startswith("#"):
                    pending = Cmd(page, n, t)
                    cmds.append(pending)
                if not (pending and t.endswith("\\")):
                    pending = None
        elif lang == "console":
            current = None
            shown = []
            for n, t in body:
                if t.startswith("$ "):
                    current = Cmd(page, n, t[2:])
                    cmds.append(current)
                elif t.strip():
                    (current.expect if current else shown).append((n, t))
            if shown:
                # The paragraph above the block names the command whose output it shows.
                j = start - 2
                while j >= 0 and not lines[j].strip():
                    j -= 1
                para = []
                while j >= 0 and lines[j].strip() and not lines[j].startswith("```"):
                    para.insert(0, lines[j])
                    j -= 1
                spans = re.findall(r"`([^`]+)`", " ".join(para))
                outputs.append((start, spans[0] if spans else None, shown))
    return cmds, outputs


# ---------------------------------------------------------------------------------------------
# Worlds.

def under_temp(p):
    p = os.path.realpath(p)
    temps = {os.path.realpath(t) for t in ("/tmp", "/var/tmp", tempfile.gettempdir())}
    return any(p == t or p.startswith(t + "/") for t in temps)


def passable_in_sandbox(p):
    """As root (without capabilities inside the sandbox), can every folder on the way to `p` be
    searched by root as owner, root's group, or anyone? Another user's 0750 home cannot."""
    if os.geteuid() != 0:
        return True
    p = os.path.realpath(p)
    while True:
        try:
            st = os.stat(p)
        except FileNotFoundError:
            st = None
        if st is not None and not ((st.st_uid == 0 and st.st_mode & 0o100) or
                                   (st.st_gid == os.getegid() and st.st_mode & 0o010) or st.st_mode & 0o001):
            return False
        if p == "/":
            return True
        p = os.path.dirname(p)


def world_base():
    if os.environ.get("WICKET_ESCAPE_BASE"):
        base = os.environ["WICKET_ESCAPE_BASE"]
    elif not under_temp(os.path.join(REPO, "target")) and passable_in_sandbox(os.path.join(REPO, "target")):
        base = os.path.join(REPO, "target")
    elif os.geteuid() == 0:
        base = "/srv/wicket-tests"
    else:
        sys.exit("docs-examples: this checkout is in a temp folder: set WICKET_ESCAPE_BASE to a folder you own outside it")
    base = os.path.join(base, "docs-examples")
    if under_temp(base):
        sys.exit(f"docs-examples: {base} is in a temp folder: set WICKET_ESCAPE_BASE to another folder")
    # The worlds of runs that are gone (the base may be shared by several checkouts).
    for e in os.listdir(base) if os.path.isdir(base) else []:
        pid = e.removeprefix("run-")
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(os.path.join(base, e), ignore_errors=True)
    return os.path.join(base, f"run-{os.getpid()}")


BASE = world_base()
shutil.rmtree(BASE, ignore_errors=True)
os.makedirs(BASE)

REAL_HOME = os.path.expanduser("~")
# The machine's toolchain, wherever HOME points (rustup's proxies look in $HOME otherwise).
TOOLCHAIN = {}
for var, default in (("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")):
    v = os.environ.get(var) or os.path.join(REAL_HOME, default)
    if os.path.isdir(v):
        TOOLCHAIN[var] = v
# A fresh machine has none of these: wicket's, the agents' and npm's settings from this shell.
DROPPED = re.compile(r"^(WICKET_.*|CLAUDE_.*|CODEX_.*|GEMINI_.*|npm_config_.*|XDG_(CONFIG|DATA|CACHE|STATE)_HOME|BASH_ENV|ENV|CARGO_TARGET_DIR|CARGO_INSTALL_ROOT)$")


class World:
    def __init__(self, label):
        self.dir = os.path.realpath(tempfile.mkdtemp(prefix=label + "-", dir=BASE))
        self.home = os.path.join(self.dir, "home")
        self.project = os.path.join(self.home, "project")
        os.makedirs(os.path.join(self.project, "scripts"))
        write = lambda rel, text: open(os.path.join(self.project, rel), "w").write(text)
        write("package.json", json.dumps(
            {"name": "sample", "version": "1.0.0", "private": True,
             "scripts": {"test": "node -e \"console.log('tests pass')\""}}, indent=2) + "\n")
        write("scripts/migrate.py", "print('migrated')\n")
        write(".env", "API_KEY=not-a-real-key\n")
        write(".gitignore", ".env\n")
        env = {k: v for k, v in os.environ.items() if not DROPPED.match(k)}
        env.update(TOOLCHAIN)
        env["HOME"] = self.home
        env["WICKET_HOME"] = os.path.join(self.home, ".wicket")
        env["PATH"] = os.pathsep.join(
            [os.path.join(self.home, ".cargo", "bin")] + INSTALLED + ([AGENT_BIN] if AGENT_BIN else [])
            + [env.get("PATH", "")])
        self.env = env
        git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.invalid"]
        for argv in (["git", "init", "-q"], ["git", "add", "-A"], git + ["commit", "-q", "-m", "sample"]):
            subprocess.run(argv, cwd=self.project, env=env, check=True, stdin=subprocess.DEVNULL)
        self.installed = False

    def sub(self, text):
        return text.replace("/home/you", self.home)


# ---------------------------------------------------------------------------------------------
# Running.

def words(cmd):
    try:
        return shlex.split(strip_comment(cmd))
    except ValueError:
        return cmd.split()


def is_cargo(cmd):
    """Does the command run cargo (first, or after a pipe or `;`, `&&`)? It is about this
    checkout then, and runs there."""
    return re.search(r"(^|[|;&(]\s*)cargo\s", strip_comment(cmd)) is not None


def is_mcp(cmd):
    w = words(cmd)
    return len(w) > 2 and w[0] == "wicket" and w[1] == "mcp" and "--pin" not in w


def command_env(world, cmd):
    env = dict(world.env)
    if is_cargo(cmd):
        # The README's install line, as written, but on the release build already made and
        # into the world's home.
        env["CARGO_TARGET_DIR"] = os.path.join(REPO, "target")
        env["CARGO_INSTALL_ROOT"] = os.path.join(world.home, ".cargo")
    return env


def run_shell(cmd, world, timeout):
    cwd = REPO if is_cargo(cmd) else world.project
    start = time.monotonic()
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=command_env(world, cmd), stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or b"", (e.stderr or b"") + f"\n(killed after {timeout} s)".encode()
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - start


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "docs-examples", "version": "1"}}}


def drive_mcp(cmd, world, timeout=300):
    """Be the MCP client of `cmd`: initialize, then tools/list. The answers by id, the exit
    status, stderr, seconds."""
    start = time.monotonic()
    p = subprocess.Popen(["bash", "-c", cmd], cwd=world.project, env=command_env(world, cmd),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = []
    t = threading.Thread(target=lambda: err.append(p.stderr.read()), daemon=True)
    t.start()

    def send(m):
        p.stdin.write((json.dumps(m) + "\n").encode())
        p.stdin.flush()

    answers, buf = {}, b""
    send(INIT)
    deadline = start + timeout
    while time.monotonic() < deadline and 2 not in answers:
        r, _, _ = select.select([p.stdout], [], [], 1.0)
        if not r:
            continue
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                m = json.loads(line)
            except ValueError:
                answers.setdefault("unreadable", []).append(line.decode("utf-8", "replace"))
                continue
            if not isinstance(m, dict) or "id" not in m:
                continue
            answers[m["id"]] = m
            if m["id"] == 1 and "result" in m:
                send({"jsonrpc": "2.0", "method": "notifications/initialized"})
                send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        if 1 in answers and "error" in answers[1]:
            break
    try:
        p.stdin.close()
    except BrokenPipeError:
        pass
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "killed: it did not end 30 s after its client closed"
    t.join(5)
    stderr = b"".join(err).decode("utf-8", "replace")
    return answers, rc, stderr, time.monotonic() - start


# ---------------------------------------------------------------------------------------------
# Output checks.

def wild(expected, actual):
    """`expected` with `…` as any text, against the whole of `actual`."""
    rx = ".*".join(re.escape(part) for part in expected.split(ELLIPSIS))
    return re.fullmatch(rx, actual, re.S) is not None


def line_matches(expected, actual):
    e, a = expected.strip(), actual.strip()
    if e.startswith("{"):
        try:
            ev = json.loads(e)
        except ValueError:
            ev = None
        if isinstance(ev, dict):
            try:
                av = json.loads(a)
            except ValueError:
                return False
            if not isinstance(av, dict):
                return False
            same = lambda x, y: wild(x, y) if isinstance(x, str) and isinstance(y, str) else x == y
            return all(k in av and same(v, av[k]) for k, v in ev.items())
    return wild(e, a)


def check_output(where, cmd, expect, out, world):
    """The expected lines appear in this order among the output's lines."""
    actual = out.split("\n")
    pos = 0
    for n, exp in expect:
        if exp.strip() == ELLIPSIS:
            continue
        want = world.sub(exp)
        k = next((k for k in range(pos, len(actual)) if line_matches(want, actual[k])), None)
        if k is None:
            shown = "\n".join("    " + world.sub(t) for _, t in expect)
            got = "\n".join("    " + l for l in actual[pos:])
            fail(f"{where.split(':')[0]}:{n}", f"the output of `{cmd}` does not show this line (in this order)\n"
                 f"  expected:\n{shown}\n  missing: {want}\n  actual (from the last matched line on):\n{got}")
            return False
        pos = k + 1
    return True


# ---------------------------------------------------------------------------------------------

def run_page(page):
    cmds, outputs = parse(page)
    world = World(os.path.basename(page).split(".")[0])
    print(f"\n== {page}: {len(cmds)} commands, in {world.dir}", flush=True)
    for c in cmds:
        name = c.name
        if name in SKIP:
            print(f"skip {c.where}: {c.text.strip()}  ({SKIP[name]})", flush=True)
            used.add(name)
            continue
        text = c.text
        if name in STANDIN:
            used.add(name)
            needed, instead, why = STANDIN[name]
            if needed():
                print(f"instead {c.where}: {instead}  (for `{name}`: {why})", flush=True)
                text = instead
        if not is_cargo(text) and re.search(r"(^|[|;&(]\s*)wicket\b", text):
            found = shutil.which("wicket", path=world.env["PATH"])
            mine = os.path.join(world.home, ".cargo", "bin", "wicket")
            if found != mine and not (found and os.path.dirname(found) in INSTALLED):
                fail(c.where, f"`{name}` runs wicket, but the wicket on PATH is {found}, not the one the page's "
                     f"`cargo install` line put in {mine} (does the page install it first?)")
                continue
        if is_mcp(text):
            mcp(c, text, world)
            continue
        timeout = 3600 if is_cargo(text) else 300
        rc, out, err, secs = run_shell(text, world, timeout)
        timings.append((secs, c.where, name))
        c.out = out + err
        status = "ok" if rc == 0 else f"exit {rc}"
        print(f"{status:>4} {c.where} ({secs:.1f} s): {name}", flush=True)
        if rc != 0:
            fail(c.where, f"`{name}` exited with {rc}\n  stdout:\n{indent(out)}\n  stderr:\n{indent(err)}")
            continue
        if c.expect and page not in ILLUSTRATIVE:
            # stdout first: a command's result is there, its notices on stderr.
            check_output(c.where, name, c.expect, out + "\n" + err, world)
    for line, named, shown in ([] if page in ILLUSTRATIVE else outputs):
        where = f"{page}:{line}"
        ran = [c for c in cmds if c.name == named and c.out is not None]
        if not ran:
            fail(where, f"this output block shows the output of `{named}` (the first `code` above it), which the "
                 f"page did not run before it")
            continue
        if check_output(where, named, shown, ran[-1].out, world):
            print(f"  ok {where}: the output of `{named}` as shown", flush=True)
    return world


def indent(text, limit=4000):
    text = text if len(text) <= limit else "…" + text[-limit:]
    return "\n".join("    " + l for l in text.rstrip().split("\n"))


def mcp(c, text, world):
    answers, rc, err, secs = drive_mcp(text, world)
    timings.append((secs, c.where, c.name))
    tools = answers.get(2, {}).get("result", {}).get("tools")
    if not tools or rc != 0:
        fail(c.where, f"`{c.name}`, as an MCP client drives it (initialize, tools/list), listed no tools "
             f"(exit {rc})\n  answers: {json.dumps(answers)[:2000]}\n  stderr:\n{indent(err)}")
        return
    print(f"  ok {c.where} ({secs:.1f} s): {c.name}  (as an MCP client: {len(tools)} tools, e.g. "
          f"{', '.join(t.get('name', '?') for t in tools[:3])})", flush=True)
    w = words(text)
    if "--network" not in w:
        return
    # The way it fails without --network, in a world of its own (the first world pinned the
    # server with --network: a changed definition is refused before it starts).
    offline = World("mcp-offline")
    offline.env["PATH"] = os.path.join(world.home, ".cargo", "bin") + os.pathsep + offline.env["PATH"]
    without = [x for x in w if x != "--network"]
    if "npx" in without:
        # npm retries a registry it cannot resolve for over a minute before it gives up; the
        # gateway's message is the same either way.
        without.insert(without.index("npx") + 1, "--fetch-retries=0")
    without = " ".join(shlex.quote(x) for x in without)
    answers, rc, err, secs = drive_mcp(without, offline)
    timings.append((secs, c.where, without + "  (the failure path)"))
    said = answers.get(1, {}).get("error", {}).get("message", "")
    ok = rc != 0 and "no network" in said and "--network" in said and "no network" in err and "--network" in err
    if not ok:
        fail(c.where, f"without --network (`{without}`) the client and stderr must hear that the server had no "
             f"network and how to give it some (exit {rc})\n  initialize answered: {said!r}\n  stderr:\n{indent(err)}")
    else:
        print(f"  ok {c.where} ({secs:.1f} s): without --network the client hears: {said}", flush=True)


used = set()
worlds = []
start = time.monotonic()
for page in PAGES:
    worlds.append(run_page(page))
    if page == "README.md":
        INSTALLED.append(os.path.join(worlds[-1].home, ".cargo", "bin"))
for page, why in GUIDE_SKIPPED.items():
    print(f"skip {page}: {why}", flush=True)
for name in list(SKIP) + list(STANDIN):
    if name not in used:
        fail(".ci/docs-examples.sh", f"the skip/stand-in entry `{name}` matches no command of the pages: remove it")

print("\nslowest:", flush=True)
for secs, where, name in sorted(timings, reverse=True)[:5]:
    print(f"  {secs:7.1f} s  {where}: {name}")
print(f"docs examples: {len(timings)} commands in {time.monotonic() - start:.0f} s", flush=True)
if failures:
    print(f"\n{len(failures)} failure(s); the worlds are kept in {BASE}", file=sys.stderr)
    sys.exit(1)
if os.environ.get("WICKET_DOCS_KEEP") != "1":
    shutil.rmtree(BASE, ignore_errors=True)
PY
