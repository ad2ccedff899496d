//! git: the sub-commands that run programs by design, configuration writes (and the file they
//! go to), and the other forms of an argv that a deny rule must also see (global options left
//! out, `-c alias.NAME=…` expanded). The hard question: which git argv runs code, or writes
//! configuration that makes a later git run code?

use super::{stays_inside, Checker, Effects};
use crate::{lookup, Parsed};

/// What a git sub-command does on its own, beyond its options: sub-commands without a table
/// that run programs by design, a worktree written outside, a configuration write.
pub fn risky(parsed: &Parsed) -> Vec<String> {
    let ops = &parsed.operands;
    let first = ops.first().map(String::as_str);
    let mut out = Vec::new();
    match parsed.path.as_slice() {
        [] => {
            // Sub-commands without a table that run programs by design.
            if let Some(sub) = first {
                // … or print stored credentials (`credential fill`), serve the repository, or
                // install schedulers outside the project (`maintenance start`).
                if matches!(
                    sub,
                    "difftool"
                        | "mergetool"
                        | "filter-branch"
                        | "filter-repo"
                        | "send-email"
                        | "credential"
                        | "credential-store"
                        | "credential-cache"
                        | "daemon"
                        | "instaweb"
                        | "web--browse"
                        | "http-backend"
                        | "shell"
                        | "upload-pack"
                        | "receive-pack"
                        | "upload-archive"
                        | "p4"
                        | "svn"
                        | "cvsimport"
                        | "cvsserver"
                        | "archimport"
                        | "quiltimport"
                ) || (sub == "maintenance" && ops.get(1).is_some_and(|o| matches!(o.as_str(), "start" | "register")))
                {
                    out.push(sub.to_string());
                }
                // The risky word is the one that runs a command, so `git submodule*` does not
                // cover `git submodule foreach CMD` unless the rule spells `foreach` out.
                if sub == "submodule" && ops.iter().any(|o| o == "foreach") {
                    out.push("foreach".to_string());
                }
                if sub == "bisect" && ops.get(1).is_some_and(|o| o == "run") {
                    out.push("run".to_string());
                }
            }
        }
        // `git worktree add PATH`: a checkout written where PATH says.
        ["worktree", "add"] if !first.is_some_and(stays_inside) => {
            out.push("add".to_string());
        }
        ["config"] => {
            let has = |names: &[&str]| parsed.found.iter().any(|f| names.contains(&f.opt.name()));
            let reads = has(&["--get", "--get-all", "--get-regexp", "--list", "--get-urlmatch", "--show-origin"])
                || matches!(first, Some("get" | "list"));
            let writes_opt = has(&[
                "--unset",
                "--unset-all",
                "--edit",
                "--add",
                "--replace-all",
                "--remove-section",
                "--rename-section",
            ]);
            let writes_sub = matches!(first, Some("set" | "unset" | "edit" | "rename-section" | "remove-section"));
            if writes_opt || writes_sub || (!reads && ops.len() >= 2) {
                out.push("config".to_string());
            }
        }
        _ => {}
    }
    out
}

/// Git options that come before the sub-command and take a value as the next word.
pub const GLOBAL_WITH_VALUE: &[&str] =
    &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"];

/// Other forms of a git argv a deny rule must also see: without the global options
/// (`git -C . --no-pager push` is `git push`), and with a `-c alias.NAME=…` expanded (`git -c
/// alias.p=push p` is `git push`; `!cmd` aliases are the shell command `cmd`).
pub fn deny_forms(words: &[&str]) -> Vec<String> {
    if words.first().and_then(|p| lookup(p)).map(|p| p.checker) != Some(Checker::Git) {
        return Vec::new();
    }
    let mut aliases: Vec<(String, String)> = Vec::new();
    let mut i = 1;
    while let Some(w) = words.get(i) {
        if !w.starts_with('-') {
            break;
        }
        let value = if GLOBAL_WITH_VALUE.contains(w) {
            i += 1;
            words.get(i).copied()
        } else {
            w.strip_prefix("-c")
        };
        if matches!(*w, "-c") || w.starts_with("-c") && !w.starts_with("--") {
            if let Some((key, val)) = value.and_then(|v| v.split_once('=')) {
                if let Some(name) = key.to_ascii_lowercase().strip_prefix("alias.") {
                    aliases.push((name.to_string(), val.to_string()));
                }
            }
        }
        i += 1;
    }
    let rest = &words[i.min(words.len())..];
    let mut out = vec![std::iter::once("git").chain(rest.iter().copied()).collect::<Vec<_>>().join(" ")];
    if let Some(sub) = rest.first() {
        if let Some((_, val)) = aliases.iter().find(|(n, _)| n == sub) {
            let tail = rest[1..].join(" ");
            match val.strip_prefix('!') {
                Some(shell) => out.push(format!("{shell} {tail}").trim().to_string()),
                None => out.push(format!("git {val} {tail}").trim().to_string()),
            }
        }
    }
    out
}

/// What a `git config` argv does (git-config(1), both the option forms and the `set`/`get`
/// sub-command forms), read once for the write targets here and for the engine's judgment of
/// the key written.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ConfigCall {
    /// `-f FILE`, `--file FILE`, `--file=FILE`.
    pub file: Option<String>,
    /// `--global`, `--system`, `--worktree`.
    pub global: bool,
    /// `--system`.
    pub system: bool,
    /// `--worktree`.
    pub worktree: bool,
    /// The argv changes the file (`KEY VALUE`, `set`, `--add`, `--unset`, `--edit` …).
    pub write: bool,
    /// The write is not one named key: `--edit`/`edit` (the editor may write anything) or a
    /// section renamed or removed (`[x]` renamed to `[core]` holds keys nobody named).
    pub whole_file: bool,
    /// The key named (the first operand after a sub-command word), as written.
    pub key: Option<String>,
    /// The value written, when one is.
    pub value: Option<String>,
}

/// Options of `git config` that take the next word as their value.
const CONFIG_WITH_VALUE: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment", "--value", "--url"];

/// Read a git argv (program left out) that runs `git config`; `None` for any other.
pub fn config_call(args: &[&str]) -> Option<ConfigCall> {
    // Skip the global options and their values (`git -C dir config`).
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        if GLOBAL_WITH_VALUE.contains(&args[i]) {
            i += 1;
        }
        i += 1;
    }
    if args.get(i) != Some(&"config") {
        return None;
    }
    let rest = &args[i + 1..];
    let mut c = ConfigCall::default();
    let (mut operands, mut read, mut sub) = (Vec::new(), false, false);
    let mut k = 0;
    while let Some(w) = rest.get(k) {
        match *w {
            "-f" | "--file" => {
                c.file = rest.get(k + 1).map(|s| s.to_string());
                k += 1;
            }
            _ if CONFIG_WITH_VALUE.contains(w) => k += 1,
            _ if w.starts_with("--file=") => c.file = w.strip_prefix("--file=").map(str::to_string),
            "--global" => c.global = true,
            "--system" => c.system = true,
            "--worktree" => c.worktree = true,
            "--get" | "--get-all" | "--get-regexp" | "--list" | "-l" | "--get-urlmatch" | "--get-color"
            | "--get-colorbool" => read = true,
            "--unset" | "--unset-all" | "--add" | "--replace-all" => c.write = true,
            "--edit" | "-e" | "--rename-section" | "--remove-section" => {
                c.write = true;
                c.whole_file = true;
            }
            "get" | "list" if operands.is_empty() && !sub => {
                read = true;
                sub = true;
            }
            "set" | "unset" if operands.is_empty() && !sub => {
                c.write = true;
                sub = true;
            }
            "edit" | "rename-section" | "remove-section" if operands.is_empty() && !sub => {
                c.write = true;
                c.whole_file = true;
                sub = true;
            }
            _ if !w.starts_with('-') => operands.push(w.to_string()),
            _ => {}
        }
        k += 1;
    }
    if read {
        c.write = false;
        c.whole_file = false;
    } else if operands.len() >= 2 {
        c.write = true;
    }
    let mut operands = operands.into_iter();
    c.key = operands.next();
    c.value = operands.next();
    Some(c)
}

/// `git config` writes: the file a write goes to (`-f FILE`, `--global`) is a write target the
/// path checks see. (That a write needs a rule naming `config` is the git flag table's; which
/// keys make a write to the repository's own file code-running is the engine's.)
pub(crate) fn config_writes(args: &[&str], e: &mut Effects) {
    let Some(c) = config_call(args) else { return };
    if !c.write {
        return;
    }
    if let Some(f) = c.file {
        e.writes.push(f);
    } else if c.global {
        e.writes.push("~/.gitconfig".to_string());
        e.writes.push("~/.config/git/config".to_string());
    } else if c.system {
        // The system file every repository's git reads: `/etc/gitconfig`, or under git's own
        // prefix (`/usr/local/etc/gitconfig`); the engine counts either as code-running.
        e.writes.push("/etc/gitconfig".to_string());
    }
}

/// What git writes into the work tree from another tree, by the paths the line names (issue
/// 39, class 5): `git checkout [REV] [--] PATH…` and `git restore [--source=REV] PATH…` write
/// each path (a folder: everything the tree holds below it), `git mv SRC… DEST` writes
/// `DEST` (and `DEST/NAME` when it is a folder), `git apply` and `git am` write what their
/// patches name.
/// The written places are judged as writes, whatever rule allowed the sub-command.
pub(crate) fn tree_writes(args: &[&str], e: &mut Effects) {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        if GLOBAL_WITH_VALUE.contains(&args[i]) {
            i += 1;
        }
        i += 1;
    }
    let Some(sub) = args.get(i) else { return };
    let rest = &args[i + 1..];
    match *sub {
        "checkout" | "restore" => checkout_paths(sub, rest, e),
        "mv" => {
            let ops: Vec<&str> = super::operands(rest, &[]);
            if let Some((dest, srcs)) = ops.split_last() {
                if srcs.is_empty() {
                    return;
                }
                e.writes.push(dest.to_string());
                for s in srcs {
                    // Into a folder, the file keeps its name; the source is removed.
                    let name = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
                    e.writes.push(format!("{}/{name}", dest.trim_end_matches('/')));
                    e.writes.push(s.to_string());
                }
            }
        }
        "apply" => super::landings::git_apply(rest, e),
        "am" => super::landings::git_am(rest, e),
        // One file per commit, named by its subject, unless the patches go to stdout (the
        // last of `--stdout`/`--no-stdout` wins; checked with git 2.47.3).
        "format-patch" => {
            let last =
                rest.iter().take_while(|w| **w != "--").filter(|w| matches!(**w, "--stdout" | "--no-stdout")).last();
            if last != Some(&"--stdout") {
                e.unknown_writes.push(
                    "`git format-patch` without `--stdout` writes a file per commit, named by its subject".to_string(),
                );
            }
        }
        _ => {}
    }
}

/// The paths `git checkout` or `git restore` writes, and whether they come from another tree.
fn checkout_paths(sub: &str, rest: &[&str], e: &mut Effects) {
    // Options whose value is the next word (`-b NAME`, `-s REV`).
    const WITH_VALUE: &[&str] = &["-b", "-B", "--orphan", "-s", "--source", "--conflict", "--pathspec-from-file"];
    let (mut before, mut after, mut dashdash) = (Vec::new(), Vec::new(), false);
    let mut source = false;
    let mut k = 0;
    while let Some(w) = rest.get(k) {
        k += 1;
        if dashdash {
            after.push(*w);
            continue;
        }
        if *w == "--" {
            dashdash = true;
            continue;
        }
        if !w.starts_with('-') || *w == "-" {
            before.push(*w);
            continue;
        }
        let name = w.split_once('=').map_or(*w, |(n, _)| n);
        if name == "--pathspec-from-file" {
            e.unknown_writes.push(format!("`git {sub} --pathspec-from-file` writes the paths a file lists"));
        }
        if name == "-s" || name == "--source" || (w.starts_with("-s") && !w.starts_with("--")) {
            source = true;
        }
        if WITH_VALUE.contains(w) {
            k += 1;
        }
    }
    // `git checkout REV -- PATH…`, `git checkout REV PATH…`; `git restore PATH…`.
    let paths: Vec<&str> = if sub == "checkout" {
        match (dashdash, before.len()) {
            (true, n) => {
                source |= n > 0;
                after
            }
            (false, 0) => Vec::new(),
            // One operand is a branch to switch to, or a path restored from the index.
            (false, 1) => before,
            (false, _) => {
                source = true;
                before[1..].to_vec()
            }
        }
    } else {
        before.into_iter().chain(after).collect()
    };
    for p in paths {
        let whole = p == "." || p == "./" || p.starts_with(':') || p.contains(['*', '?', '[']);
        if source && whole {
            e.unknown_writes.push(format!(
                "`git {sub}` writes every file another tree holds under `{p}`, which nobody can see before it runs"
            ));
        } else if source {
            e.landings.push(super::landings::Landing::Tree { path: p.to_string() });
            e.writes.push(p.to_string());
        } else {
            e.writes.push(p.to_string());
        }
    }
}
