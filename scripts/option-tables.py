#!/usr/bin/env python3
"""Print option tables (Rust `Opt` lines for crates/wicket-programs/src/grammar/tables.rs) from a
program's own help text, so a table can be regenerated when the program changes:

    scripts/option-tables.py git status        # parse-options (`git status -h`, then the hidden
                                               # ones from `--git-completion-helper-all`)
    scripts/option-tables.py tar               # argp (`tar --help`)
    scripts/option-tables.py pip install       # optparse (`pip install --help`)

Effects are not in any help text: every option comes out `Plain` and the effects are set by
hand in the table (each table's comment says which were changed)."""
import re, subprocess, sys

def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.stdout + p.stderr

def opt_line(names, arg):
    return f'        o("{" ".join(names)}", {arg}, Plain),'

def git(sub):
    seen = set()
    for line in run(["git", sub, "-h"]).splitlines():
        m = re.match(r"^ {4}(?:(-[A-Za-z0-9@]), )?(--\S+|-[A-Za-z0-9@])(?: (<[^>]*>|\.\.\.))?", line)
        if not m:
            continue
        short, main, sep_val = m.group(1), m.group(2), m.group(3)
        names, arg = [], "NO"
        if short:
            names.append(short)
        if main.startswith("--"):
            base = main
            if "[=" in base:
                arg, base = "OPT", base[: base.index("[=")]
            elif "=" in base:
                arg, base = "REQ", base[: base.index("=")]
            negatable = "[no-]" in base
            base = base.replace("[no-]", "")
            names.append(base)
        else:
            negatable = False
            if main.endswith("[") or len(main) != 2:
                continue
            names.append(main)
        if sep_val and sep_val.startswith("<") and arg == "NO":
            arg = "REQ"
        if tuple(names) in seen:
            continue
        seen.add(tuple(names))
        print(opt_line(names, arg))
    # Options parse-options hides from `-h` (`git commit --allow-empty`, `ls-remote --exec`).
    longs = {n for key in seen for n in key if n.startswith("--")}
    for w in run(["git", sub, "--git-completion-helper-all"]).split():
        if w == "--":
            break
        if w.rstrip("=") not in longs:
            longs.add(w.rstrip("="))
            print(opt_line([w.rstrip("=")], "REQ" if w.endswith("=") else "NO"))

def argp(prog):
    for line in run([prog, "--help"]).splitlines():
        m = re.match(r"^\s+(-\w)?(?:, )?(--[\w-]+)?(\[?=[^\s]+)?(?:, (-\w)(?:\s(\S+))?)?", line)
        if not m or not (m.group(1) or m.group(2)):
            continue
        names = [n for n in (m.group(1), m.group(2)) if n]
        val = m.group(3) or ""
        arg = "OPT" if val.startswith("[") else "REQ" if val else "NO"
        print(opt_line(names, arg))

def optparse(argv):
    for line in run(argv + ["--help"]).splitlines():
        m = re.match(r"^\s+(-\w)?(?:, )?(--[\w-]+)?(?:[ =](<[^>]+>))?", line)
        if not m or not (m.group(1) or m.group(2)):
            continue
        names = [n for n in (m.group(1), m.group(2)) if n]
        print(opt_line(names, "REQ" if m.group(3) else "NO"))

if __name__ == "__main__":
    prog, rest = sys.argv[1], sys.argv[2:]
    if prog == "git":
        git(rest[0])
    elif prog in ("tar",):
        argp(prog)
    else:
        optparse([prog] + rest)
