#!/usr/bin/env bash
# Seeds the fuzz corpora (fuzz/corpus/<target>/, gitignored) from the test fixtures:
#   walker, differential: crates/wicket-shell/tests/cases/split.txt inputs,
#                         crates/wicket-shell/tests/cases/differential.txt lines,
#                         "input.command" strings of crates/wicket-policy/tests/cases/*.jsonl
#   rules:                rules (allow/deny/ask/rules/session_rules), capabilities, paths and
#                         URLs of crates/wicket-policy/tests/cases/*.jsonl, the inputs and
#                         patterns of crates/wicket-policy/tests/cases/hosts.txt
# One file per seed, named by its SHA-1 (as libFuzzer does). Needs python3. Safe to re-run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
mkdir -p "$here/corpus/walker" "$here/corpus/differential" "$here/corpus/rules"

python3 - "$root" "$here/corpus" <<'PY'
import hashlib, json, os, sys

root, out = sys.argv[1], sys.argv[2]
shell_cases = os.path.join(root, "crates/wicket-shell/tests/cases")
policy_cases = os.path.join(root, "crates/wicket-policy/tests/cases")

def put(target, text):
    data = text.encode("utf-8")
    if not data:
        return
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)

commands, rules = set(), set()

def fixture_lines(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.strip() and not line.startswith("#"):
                yield line

# split.txt: INPUT => EXPECTED, `⏎` is a newline.
for line in fixture_lines(os.path.join(shell_cases, "split.txt")):
    cut = line.rfind(" => ")
    src = line[:cut] if cut >= 0 else line[:-3] if line.endswith(" =>") else line
    commands.add(src.replace("⏎", "\n"))

# differential.txt: one command a line.
diff = os.path.join(shell_cases, "differential.txt")
if os.path.exists(diff):
    for line in fixture_lines(diff):
        commands.add(line.replace("⏎", "\n"))

def walk(v):
    """Every string in a JSON value."""
    if isinstance(v, str):
        yield v
    elif isinstance(v, list):
        for x in v:
            yield from walk(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from walk(x)

for name in sorted(os.listdir(policy_cases)):
    path = os.path.join(policy_cases, name)
    if name.endswith(".jsonl"):
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("//"):
                    continue
                case = json.loads(line)
                inp = case.get("input")
                if isinstance(inp, dict) and isinstance(inp.get("command"), str):
                    commands.add(inp["command"])
                for key in ("allow", "deny", "ask", "rules", "session_rules", "capabilities", "one"):
                    for s in walk(case.get(key)):
                        rules.add(s)
                for s in walk(inp):
                    rules.add(s)
    elif name.endswith(".txt"):
        for line in fixture_lines(path):
            for part in line.split(" | ")[:2]:
                part = part.strip()
                if part.startswith("host="):
                    part = part[len("host="):]
                if part and part != "-":
                    rules.add(part)

for c in commands:
    put("walker", c)
    put("differential", c)
for r in rules:
    put("rules", r)
# A few settings files for Settings::parse.
put("rules", '{"permissions":{"allow":["bash(git *)"],"deny":["read_file(.env)"]}}')
put("rules", '{"mode":"accept-edits","executor":"auto","permissions":{"allow":["bash(npm test*)"],'
    '"deny":["bash(git push*)"],"ask":[]},"sandbox":{"writePaths":["~/x"],"denyRead":["~/y"]},'
    '"env":{"allow":["NODE_ENV"]},"network":{"allow":["npm"]}}')
print(f"seeded {len(commands)} commands (walker, differential) and {len(rules)} rule strings (rules)")
PY
