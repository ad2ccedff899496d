//! Repository-controlled git configuration: can a read-only git command run a program?
//!
//! The hard question: does the configuration git will read for a command in this root make
//! `git status`, `git log` or `git diff` run a program (`core.fsmonitor`, `core.pager`,
//! `diff.external`, a textconv or filter driver, `gpg.program` with `log.showSignature` …)?
//! Git's lookup (system, global, the repository found by walking up, `config.worktree`,
//! `commondir`, includes and conditional includes, submodules) is git's to know, so the edge
//! asks git itself (`git config --list --show-scope --show-origin -z`, see
//! `wicket::gitconfig`) and hands the answer in as a [`GitConfigView`]; this module, pure,
//! only reads that answer. A configuration that could not be read counts as risky.

/// One configuration entry as git lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitEntry {
    /// `system`, `global`, `local`, `worktree`, `command`; `submodule` for entries read from a
    /// submodule's repository.
    pub scope: String,
    /// Where git read it (`file:.git/config`, `file:/home/u/.gitconfig`).
    pub origin: String,
    /// The key, with section and variable lowercase as git prints them (`diff.foo.textconv`).
    pub key: String,
    /// The value; `None` for a bare key (`[core] fsmonitor`), which git reads as `true`.
    pub value: Option<String>,
}

/// What the edge learnt of the git configuration for the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitConfigView {
    /// Every entry git reads for commands in the root (and its populated submodules).
    Entries(Vec<GitEntry>),
    /// Git could not tell (it failed or printed something unreadable): why.
    Unreadable(String),
}

/// Why a git configuration can make git run a program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitRisk {
    /// A risky key in any scope (the user's own configuration included): the safe list is off.
    pub any: Option<String>,
    /// A risky key the repository controls (its config, `config.worktree`, a parent
    /// repository's, a submodule's, or a file they include): allow rules for git are off.
    pub repository: Option<String>,
}

/// Parse the output of `git config --list --show-scope --show-origin -z`: records of
/// `scope NUL origin NUL key [LF value] NUL`. `submodule` marks every entry as read from a
/// submodule.
pub fn parse_list(out: &[u8], submodule: bool) -> Result<Vec<GitEntry>, String> {
    let text = std::str::from_utf8(out).map_err(|_| "git printed a configuration that is not UTF-8".to_string())?;
    let mut fields = text.split('\0');
    let mut entries = Vec::new();
    while let Some(scope) = fields.next() {
        if scope.is_empty() {
            // The trailing NUL after the last record.
            if fields.next().is_none() {
                break;
            }
            return Err("git printed an empty configuration scope".to_string());
        }
        let (Some(origin), Some(kv)) = (fields.next(), fields.next()) else {
            return Err(format!("git printed a cut-off configuration record (scope {scope:?})"));
        };
        let (key, value) = match kv.split_once('\n') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (kv, None),
        };
        if key.is_empty() {
            return Err(format!("git printed an entry without a key ({origin})"));
        }
        let scope = if submodule { "submodule" } else { scope };
        entries.push(GitEntry { scope: scope.to_string(), origin: origin.to_string(), key: key.to_string(), value });
    }
    Ok(entries)
}

/// Is `v` a git boolean `false` (so the key is off)?
fn is_false(v: Option<&str>) -> bool {
    matches!(v.map(|s| s.trim().to_ascii_lowercase()).as_deref(), Some("false" | "no" | "off" | "0" | ""))
}

/// Is `v` a git boolean `true`?
fn is_true(v: Option<&str>) -> bool {
    match v {
        None => true,
        Some(s) => matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "yes" | "on" | "1"),
    }
}

/// `less`, `more` or `cat` with plain flags (`less -FRX`): a pager that runs nothing else.
fn plain_pager(v: Option<&str>) -> bool {
    let Some(v) = v else { return false };
    let mut words = v.split_whitespace();
    matches!(words.next(), Some("less" | "more" | "cat"))
        && words.all(|w| w.len() > 1 && w.starts_with('-') && w[1..].bytes().all(|b| b.is_ascii_alphabetic()))
}

/// Why this entry makes a read-only git command (`status`, `log`, `diff`, `show`, `branch`,
/// `blame`, `grep`) run a program, or `None`. `show_signature`: `log.showSignature` is on
/// somewhere, so `gpg.program` runs on `git log`.
pub fn risky_entry(e: &GitEntry, show_signature: bool) -> Option<&'static str> {
    let key = e.key.as_str();
    let value = e.value.as_deref();
    let (section, rest) = key.split_once('.')?;
    let (sub, var) = match rest.rsplit_once('.') {
        Some((sub, var)) => (Some(sub), var),
        None => (None, rest),
    };
    match (section, sub, var) {
        // `true` starts git's own daemon; any other value is a hook program.
        ("core", None, "fsmonitor") => (!is_false(value) && !is_true(value)).then_some("core.fsmonitor runs a hook"),
        ("core", None, "pager") | ("pager", None, _) | ("pager", Some(_), _) => {
            (!is_false(value) && !plain_pager(value)).then_some("a pager program")
        }
        ("diff", None, "external") => Some("diff.external runs a diff program"),
        ("diff", Some(_), "textconv" | "command") => Some("a diff driver runs a program"),
        ("filter", Some(_), "clean" | "smudge" | "process") => Some("a filter driver runs a program"),
        ("merge", Some(_), "driver") => Some("a merge driver runs a program"),
        ("interactive", None, "difffilter") => Some("interactive.diffFilter runs a program"),
        ("gpg", _, "program") if show_signature => Some("gpg.program runs with log.showSignature"),
        ("core", None, "sshcommand" | "gitproxy" | "askpass" | "alternaterefscommand") => {
            Some("a program git runs for remotes or prompts")
        }
        ("credential", _, "helper") if !is_false(value) => Some("a credential helper program"),
        ("remote", Some(_), "uploadpack" | "receivepack") => Some("a remote program"),
        ("uploadpack", None, "packobjectshook") => Some("uploadpack.packObjectsHook runs a program"),
        ("alias", None, _) if value.is_some_and(|v| v.trim_start().starts_with('!')) => {
            Some("an alias runs a shell command")
        }
        _ => None,
    }
}

/// The files the repository's own configuration includes (`include.path`,
/// `includeIf.<cond>.path`), absolute: writing one of them changes what git runs, so such a
/// write is a code-running configuration write. `home` expands `~/`; a relative path is
/// relative to the including file (whose origin the edge made absolute).
pub fn included_files(view: &GitConfigView, home: Option<&std::path::Path>) -> Vec<std::path::PathBuf> {
    let GitConfigView::Entries(entries) = view else { return Vec::new() };
    let mut out = Vec::new();
    for e in entries.iter().filter(|e| repository_scope(&e.scope)) {
        let include = e.key == "include.path" || (e.key.starts_with("includeif.") && e.key.ends_with(".path"));
        let (true, Some(value)) = (include, e.value.as_deref()) else { continue };
        let target = match (value.strip_prefix("~/"), home) {
            (Some(rest), Some(h)) => h.join(rest),
            (Some(_), None) => continue,
            (None, _) if value.starts_with('/') => std::path::PathBuf::from(value),
            (None, _) => {
                let Some(origin) = e.origin.strip_prefix("file:") else { continue };
                let Some(dir) = std::path::Path::new(origin).parent() else { continue };
                dir.join(value)
            }
        };
        out.push(crate::paths::normalize(&target));
    }
    out
}

/// Scopes the repository controls: its own configuration and what it includes, a worktree's,
/// and a submodule's (a parent repository's is `local` too, as git reads it).
fn repository_scope(scope: &str) -> bool {
    matches!(scope, "local" | "worktree" | "submodule")
}

/// The risks in a configuration.
pub fn assess(view: &GitConfigView) -> GitRisk {
    let entries = match view {
        GitConfigView::Unreadable(why) => {
            let why = format!("the git configuration cannot be read ({why})");
            return GitRisk { any: Some(why.clone()), repository: Some(why) };
        }
        GitConfigView::Entries(e) => e,
    };
    let show_signature =
        entries.iter().rfind(|e| e.key == "log.showsignature").is_some_and(|e| is_true(e.value.as_deref()));
    let mut risk = GitRisk::default();
    for e in entries {
        let Some(why) = risky_entry(e, show_signature) else { continue };
        let text = format!("{} sets {} ({why})", e.origin.strip_prefix("file:").unwrap_or(&e.origin), e.key);
        if repository_scope(&e.scope) && risk.repository.is_none() {
            risk.repository = Some(text.clone());
        }
        risk.any.get_or_insert(text);
    }
    risk
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(scope: &str, key: &str, value: Option<&str>) -> GitEntry {
        GitEntry {
            scope: scope.into(),
            origin: "file:.git/config".into(),
            key: key.into(),
            value: value.map(Into::into),
        }
    }

    #[test]
    fn git_list_output_is_parsed_and_broken_output_is_an_error() {
        let out = b"global\0file:/h/.gitconfig\0user.name\nA B\0local\0file:.git/config\0core.fsmonitor\0local\0file:.git/config\0alias.x\n!sh -c 'a\nb'\0";
        let e = parse_list(out, false).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(
            e[0],
            GitEntry {
                scope: "global".into(),
                origin: "file:/h/.gitconfig".into(),
                key: "user.name".into(),
                value: Some("A B".into())
            }
        );
        assert_eq!(e[1].value, None);
        assert_eq!(e[2].value.as_deref(), Some("!sh -c 'a\nb'"));
        assert!(parse_list(b"local\0file:x\0", false).is_err());
        assert!(parse_list(b"local\0file:x", false).is_err());
        assert!(parse_list(b"\xff\0", false).is_err());
        assert_eq!(parse_list(b"", false).unwrap(), Vec::new());
    }

    #[test]
    fn keys_that_run_programs_are_risky_and_ordinary_keys_are_not() {
        let risky = [
            ("core.fsmonitor", Some("./hook.sh")),
            ("core.pager", Some("less; touch x")),
            ("pager.log", Some("evil")),
            ("core.pager", Some("less +!touch")),
            ("diff.external", Some("x")),
            ("diff.pdf.textconv", Some("x")),
            ("filter.lfs.smudge", Some("x")),
            ("filter.Evil.Name.process", Some("x")),
            ("core.sshcommand", Some("x")),
            ("alias.st", Some("!touch x")),
            ("credential.helper", Some("store")),
        ];
        for (k, v) in risky {
            assert!(risky_entry(&entry("local", k, v), false).is_some(), "{k}");
        }
        let plain = [
            ("core.fsmonitor", Some("true")),
            ("core.fsmonitor", Some("false")),
            ("core.pager", Some("")),
            ("core.pager", Some("less -FRX")),
            ("pager.log", Some("false")),
            ("core.hookspath", Some(".husky")),
            ("user.name", Some("x")),
            ("alias.st", Some("status -s")),
            ("gpg.program", Some("x")),
            ("diff.pdf.binary", Some("true")),
        ];
        for (k, v) in plain {
            assert!(risky_entry(&entry("local", k, v), false).is_none(), "{k}");
        }
        assert!(risky_entry(&entry("local", "gpg.program", Some("x")), true).is_some());
        assert!(risky_entry(&entry("local", "gpg.ssh.program", Some("x")), true).is_some());
    }

    #[test]
    fn files_the_repository_includes_are_found() {
        let mut inc = entry("local", "include.path", Some("../team.gitconfig"));
        inc.origin = "file:/w/p/.git/config".into();
        let mut cond = entry("local", "includeif.onbranch:main.path", Some("/etc/x.cfg"));
        cond.origin = "file:/w/p/.git/config".into();
        let home = entry("worktree", "include.path", Some("~/more.cfg"));
        let user = entry("global", "include.path", Some("/u/inc"));
        let view = GitConfigView::Entries(vec![inc, cond, home, user]);
        let files = included_files(&view, Some(std::path::Path::new("/h")));
        let want: Vec<std::path::PathBuf> =
            ["/w/p/team.gitconfig", "/etc/x.cfg", "/h/more.cfg"].iter().map(Into::into).collect();
        assert_eq!(files, want);
    }

    #[test]
    fn scopes_split_the_users_risk_from_the_repositorys() {
        let user = GitConfigView::Entries(vec![entry("global", "core.pager", Some("delta"))]);
        let r = assess(&user);
        assert!(r.any.is_some() && r.repository.is_none(), "{r:?}");
        for scope in ["local", "worktree", "submodule"] {
            let repo = GitConfigView::Entries(vec![entry(scope, "diff.external", Some("x"))]);
            assert!(assess(&repo).repository.is_some(), "{scope}");
        }
        let sig = GitConfigView::Entries(vec![
            entry("global", "log.showsignature", Some("true")),
            entry("local", "gpg.program", Some("./x")),
        ]);
        assert!(assess(&sig).repository.is_some());
        let bad = assess(&GitConfigView::Unreadable("boom".into()));
        assert!(bad.any.is_some() && bad.repository.is_some());
    }
}
