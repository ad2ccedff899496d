//! Git aliases: `git ALIAS …` runs the alias's expansion, so it is judged as that expansion.
//!
//! The hard question: what does `git st` really run? An alias defined in any configuration
//! scope (system, the user's, the repository's, `-c alias.NAME=…` on the command line) can
//! expand to another git command (`p = push --force`) or, with a leading `!`, to a shell
//! command. Deny rules must see the expansion and allow rules must cover it. Git's rules are
//! followed: a built-in command is never an alias, lookup repeats on the expansion's first word,
//! and a loop is an error. The configuration comes from git itself (the edge lists it); this
//! module is pure.

use crate::gitconfig::GitConfigView;

/// Git's built-in commands (`git --list-cmds=builtins`, git 2.47): an alias of the same name is
/// ignored by git, so it is ignored here too.
const BUILTINS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout--worker",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "credential-cache",
    "credential-cache--daemon",
    "credential-store",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "fsck-objects",
    "fsmonitor--daemon",
    "gc",
    "get-tar-commit-id",
    "grep",
    "hash-object",
    "help",
    "hook",
    "index-pack",
    "init",
    "init-db",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-ours",
    "merge-recursive",
    "merge-recursive-ours",
    "merge-recursive-theirs",
    "merge-subtree",
    "merge-tree",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "pack-objects",
    "pack-redundant",
    "pack-refs",
    "patch-id",
    "pickaxe",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "range-diff",
    "read-tree",
    "rebase",
    "receive-pack",
    "reflog",
    "refs",
    "remote",
    "remote-ext",
    "remote-fd",
    "repack",
    "replace",
    "replay",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-pack",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule--helper",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "upload-archive",
    "upload-archive--writer",
    "upload-pack",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
];

/// Global options that take the next word as their value (`git -C DIR st`).
const GLOBAL_WITH_VALUE: &[&str] =
    &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source"];

/// The most alias expansions followed before giving up (git itself stops at a loop).
const MAX_DEPTH: usize = 16;

/// The aliases a configuration defines: `(name, value)`, names lowercase as git compares them,
/// the last definition winning.
pub fn aliases(view: &GitConfigView) -> Vec<(String, String)> {
    let GitConfigView::Entries(entries) = view else { return Vec::new() };
    let mut out: Vec<(String, String)> = Vec::new();
    for e in entries {
        let Some(name) = e.key.strip_prefix("alias.") else { continue };
        let value = e.value.clone().unwrap_or_default();
        out.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        out.push((name.to_ascii_lowercase(), value));
    }
    out
}

/// What a git argv runs once its aliases are expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expansion {
    /// A command line for bash to analyse: `git …` for a plain alias, the shell command with
    /// the remaining arguments for a `!` alias.
    Runs(String),
    /// Git refuses to run it (an alias loop); wicket cannot say what it means.
    Broken(String),
}

/// Split an alias value into words as git's `split_cmdline` does: blanks separate, single and
/// double quotes group, a backslash escapes the next character. `None` for an unclosed quote.
pub fn split_cmdline(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, ' ' | '\t' | '\n') => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => cur.push(c),
            (_, '\\') => {
                cur.push(chars.next()?);
                in_word = true;
            }
            (_, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

/// Does this git option (before the sub-command) take the next word as its value?
pub fn takes_value(option: &str) -> bool {
    GLOBAL_WITH_VALUE.contains(&option)
}

/// The sub-command of a git argv when it is not a built-in and the argv runs in another
/// repository than the root's: `git -C DIR NAME`, `--git-dir`/`--work-tree`, or (`moved`)
/// after a `cd` on the same line. That repository's aliases are not known.
pub fn elsewhere_unknown<'a>(words: &[&'a str], moved: bool) -> Option<&'a str> {
    let mut i = 1;
    let mut other = moved;
    while let Some(w) = words.get(i) {
        if !w.starts_with('-') || *w == "--" {
            break;
        }
        if matches!(*w, "-C" | "--git-dir" | "--work-tree")
            || w.starts_with("--git-dir=")
            || w.starts_with("--work-tree=")
        {
            other = true;
        }
        if GLOBAL_WITH_VALUE.contains(w) {
            i += 1;
        }
        i += 1;
    }
    let sub = *words.get(i)?;
    (other && !BUILTINS.contains(&sub)).then_some(sub)
}

/// The alias a git argv (program first) runs, expanded until a built-in or unknown command
/// remains; `None` when the sub-command is not an alias. Aliases given with `-c alias.NAME=…`
/// on the command line count, and win over the configuration's.
pub fn expand(words: &[&str], configured: &[(String, String)]) -> Option<Expansion> {
    let mut aliases: Vec<(String, String)> = configured.to_vec();
    let mut i = 1;
    while let Some(w) = words.get(i) {
        if !w.starts_with('-') || *w == "--" {
            break;
        }
        let value = if GLOBAL_WITH_VALUE.contains(w) {
            i += 1;
            words.get(i).copied()
        } else {
            None
        };
        if *w == "-c" {
            if let Some((key, val)) = value.and_then(|v| v.split_once('=')) {
                if let Some(name) = key.to_ascii_lowercase().strip_prefix("alias.") {
                    aliases.retain(|(n, _)| n != name);
                    aliases.push((name.to_string(), val.to_string()));
                }
            }
        }
        i += 1;
    }
    let mut argv: Vec<String> = words.get(i..)?.iter().map(|s| s.to_string()).collect();
    let mut seen: Vec<String> = Vec::new();
    loop {
        let sub = argv.first()?.clone();
        let lookup = sub.to_ascii_lowercase();
        let found = (!BUILTINS.contains(&sub.as_str()))
            .then(|| aliases.iter().rev().find(|(n, _)| *n == lookup).map(|(_, v)| v.clone()))
            .flatten();
        let Some(value) = found else {
            if seen.is_empty() {
                return None;
            }
            let line: Vec<String> = argv.iter().map(|w| crate::text::shell_quote(w)).collect();
            return Some(Expansion::Runs(format!("git {}", line.join(" "))));
        };
        if seen.contains(&lookup) || seen.len() >= MAX_DEPTH {
            return Some(Expansion::Broken(format!("the git alias `{sub}` expands to itself (git refuses it)")));
        }
        seen.push(lookup);
        let rest: Vec<String> = argv[1..].iter().map(|w| crate::text::shell_quote(w)).collect();
        if let Some(shell) = value.strip_prefix('!') {
            // Git runs `sh -c 'SHELL "$@"' SHELL ARGS…`: the arguments follow the command.
            return Some(Expansion::Runs(format!("{} {}", shell, rest.join(" ")).trim().to_string()));
        }
        let Some(mut new) = split_cmdline(&value) else {
            return Some(Expansion::Broken(format!("the git alias `{sub}` has an unclosed quote")));
        };
        if new.is_empty() {
            return Some(Expansion::Broken(format!("the git alias `{sub}` is empty")));
        }
        new.extend(argv.drain(1..));
        argv = new;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn aliases_expand_as_git_expands_them() {
        let al = a(&[
            ("p", "push --force"),
            ("pp", "p origin"),
            ("st", "status -sb"),
            ("x", "!rm -rf /tmp/x"),
            ("status", "push"),
            ("loop1", "loop2"),
            ("loop2", "loop1"),
            ("q", "log --format='%h %s'"),
        ]);
        let cases: &[(&str, Option<Expansion>)] = &[
            ("git p", Some(Expansion::Runs("git push --force".into()))),
            ("git pp main", Some(Expansion::Runs("git push --force origin main".into()))),
            ("git -C sub P", Some(Expansion::Runs("git push --force".into()))),
            ("git st", Some(Expansion::Runs("git status -sb".into()))),
            ("git x a b", Some(Expansion::Runs("rm -rf /tmp/x a b".into()))),
            // Built-ins cannot be overridden.
            ("git status", None),
            ("git push", None),
            ("git unknown", None),
            ("git", None),
            ("git loop1", Some(Expansion::Broken("the git alias `loop1` expands to itself (git refuses it)".into()))),
            ("git q", Some(Expansion::Runs("git log '--format=%h %s'".into()))),
            ("git -c alias.z=!id z", Some(Expansion::Runs("id".into()))),
            ("git -c alias.p=fetch p", Some(Expansion::Runs("git fetch".into()))),
        ];
        for (cmd, want) in cases {
            let words: Vec<&str> = cmd.split(' ').collect();
            assert_eq!(&expand(&words, &al), want, "{cmd}");
        }
    }

    #[test]
    fn unknown_sub_commands_in_another_repository() {
        assert_eq!(elsewhere_unknown(&["git", "-C", "/tmp/r", "p"], false), Some("p"));
        assert_eq!(elsewhere_unknown(&["git", "--git-dir=/tmp/r/.git", "p"], false), Some("p"));
        assert_eq!(elsewhere_unknown(&["git", "p"], true), Some("p"));
        assert_eq!(elsewhere_unknown(&["git", "p"], false), None);
        assert_eq!(elsewhere_unknown(&["git", "-C", "/tmp/r", "status"], false), None);
    }

    #[test]
    fn alias_values_split_like_git() {
        assert_eq!(split_cmdline(r#"log "a b" 'c d' e\ f"#).unwrap(), vec!["log", "a b", "c d", "e f"]);
        assert_eq!(split_cmdline("a 'b"), None);
        assert_eq!(split_cmdline("  "), Some(vec![]));
    }

    #[test]
    fn the_last_definition_wins() {
        let e = |scope: &str, key: &str, v: &str| crate::gitconfig::GitEntry {
            scope: scope.into(),
            origin: "file:x".into(),
            key: key.into(),
            value: Some(v.into()),
        };
        let view = GitConfigView::Entries(vec![
            e("global", "alias.p", "status"),
            e("local", "alias.p", "push"),
            e("local", "core.bare", "false"),
        ]);
        assert_eq!(aliases(&view), a(&[("p", "push")]));
    }
}
