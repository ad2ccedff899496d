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

/// A pager (`less`, `more`, `cat`: the records that say `pages`) with plain flags (`less
/// -FRX`): it runs nothing else.
fn plain_pager(v: Option<&str>) -> bool {
    let Some(v) = v else { return false };
    let mut words = v.split_whitespace();
    words.next().is_some_and(|w| !w.contains('/') && wicket_programs::lookup(w).is_some_and(|p| p.pages))
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

/// Why an entry the repository controls makes some git sub-command run a program, beyond
/// what [`risky_entry`] finds for the read-only ones: `commit`, `tag -s`, `merge`, `rebase`,
/// `am` and `push --signed` run the signing program (and `log --show-signature`, `verify-*`
/// and `merge --verify-signatures` the verifying one) whether or not the configuration turns
/// signing on, since the line can; `commit` without `-m` runs the editor; `fetch`, `pull` and
/// `push` run an `ext::` transport's command when the URL git ends up with (after `insteadOf`)
/// starts with it. The repository chose the program, so an allow rule for the sub-command
/// must not cover it.
pub fn repository_program(e: &GitEntry) -> Option<&'static str> {
    let key = e.key.as_str();
    let value = e.value.as_deref();
    let (section, rest) = key.split_once('.')?;
    let (sub, var) = match rest.rsplit_once('.') {
        Some((sub, var)) => (Some(sub), var),
        None => (None, rest),
    };
    let ext = |v: &str| v.trim_start().get(..5).is_some_and(|p| p.eq_ignore_ascii_case("ext::"));
    match (section, sub, var) {
        ("gpg", _, "program" | "defaultkeycommand") => Some("a signing program git runs to sign or verify"),
        ("core" | "sequence", None, "editor") => Some("an editor git runs for commit, tag, merge or rebase messages"),
        // `ext::` is off unless allowed, but the user's own configuration may allow it.
        ("protocol", _, "allow") if !value.is_some_and(|v| v.trim().eq_ignore_ascii_case("never")) => (sub.is_none()
            || sub.is_some_and(|s| s.eq_ignore_ascii_case("ext")))
        .then_some("a protocol setting that lets ext:: URLs run commands"),
        ("remote", Some(_), "url" | "pushurl") if value.is_some_and(ext) => Some("an ext:: remote runs a command"),
        ("url", Some(base), "insteadof" | "pushinsteadof") if ext(base) => {
            Some("url.*.insteadOf rewrites a URL to an ext:: command")
        }
        ("submodule", Some(_), "update") if value.is_some_and(|v| v.trim_start().starts_with('!')) => {
            Some("submodule update runs a command")
        }
        ("trailer", Some(_), "command" | "cmd") => Some("a trailer command runs on commit --trailer"),
        ("difftool" | "mergetool" | "guitool" | "browser" | "man", Some(_), "cmd" | "path") => {
            Some("a tool program git runs")
        }
        ("hook", Some(_), "command") => Some("a configured hook command"),
        ("sendemail", _, "smtpserver" | "tocmd" | "cccmd" | "sendmailcmd") => Some("send-email runs a program"),
        _ => None,
    }
}

/// Does writing `key = value` into a git config file make git run code later? Judged by the
/// same allowlist as a config file the sandbox made ([`unsafe_config_key`]: a key wicket
/// does not know counts), and by what the read-only and other sub-commands run
/// ([`risky_entry`], [`repository_program`]), so `remote.o.url = ext::…` counts too. A key
/// git would refuse (no section or variable) counts.
pub fn config_write_runs_code(key: &str, value: Option<&str>) -> bool {
    let (Some((section, rest)), Some((_, var))) = (key.split_once('.'), key.rsplit_once('.')) else { return true };
    if section.is_empty() || var.is_empty() {
        return true;
    }
    let sub = rest.rsplit_once('.').map(|(sub, _)| sub.to_string());
    let (section, var) = (section.to_ascii_lowercase(), var.to_ascii_lowercase());
    let k = ConfigKey { section, sub, var, value: value.map(str::to_string) };
    let entry = GitEntry { scope: "local".into(), origin: String::new(), key: k.name(), value: k.value.clone() };
    unsafe_config_key(&k).is_some() || risky_entry(&entry, true).is_some() || repository_program(&entry).is_some()
}

/// The repository's own config file (as the line names it, `.git/config`, or
/// `.git/config.worktree` for `--worktree`) that a `git config` argv (program first) writes
/// code-running configuration to, or `None`. A write that names no single key (`--edit`, a
/// section renamed or removed) counts. Writes to a named file (`-f`) or the user's are the
/// program catalogue's write targets already; reads (`--get`, `--list`, `get`) write nothing.
pub fn code_running_config_write(words: &[&str]) -> Option<&'static str> {
    let c = wicket_programs::checkers::git::config_call(words.get(1..)?)?;
    if !c.write || c.file.is_some() || c.global || c.system {
        return None;
    }
    let target = if c.worktree { ".git/config.worktree" } else { ".git/config" };
    let runs_code = c.whole_file || c.key.as_deref().is_none_or(|k| config_write_runs_code(k, c.value.as_deref()));
    runs_code.then_some(target)
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

/// How deep git follows includes before it gives up (git's own limit).
const MAX_INCLUDE_DEPTH: usize = 10;

/// Read config files as git does when the edge did not ask git: each file parsed with git's
/// syntax ([`parse_config`]), and the files it includes (`include.path`, and
/// `includeIf.<cond>.path` whatever the condition, since a condition wicket misjudges must not
/// hide a file) read in its place, relative to the including file, `~/` in `home`. A missing
/// file is skipped, as git skips it; one that cannot be read or parsed is an error (the
/// caller counts it as risky). Entries carry `scope` and `file:<path>` as their origin.
pub fn read_files(
    files: &[std::path::PathBuf],
    scope: &str,
    home: Option<&std::path::Path>,
    read: &dyn Fn(&std::path::Path) -> std::io::Result<String>,
) -> Result<Vec<GitEntry>, String> {
    let mut out = Vec::new();
    for f in files {
        read_one(f, scope, home, read, 0, &mut out)?;
    }
    Ok(out)
}

/// [`read_files`] for the repository's files (scope `local`) and the user's (`global`), as one
/// view; unreadable when either is.
pub fn read_view(
    repository: &[std::path::PathBuf],
    user: &[std::path::PathBuf],
    home: Option<&std::path::Path>,
    read: &dyn Fn(&std::path::Path) -> std::io::Result<String>,
) -> GitConfigView {
    match (read_files(repository, "local", home, read), read_files(user, "global", home, read)) {
        (Ok(mut local), Ok(global)) => {
            local.extend(global);
            GitConfigView::Entries(local)
        }
        (Err(why), _) | (_, Err(why)) => GitConfigView::Unreadable(why),
    }
}

fn read_one(
    file: &std::path::Path,
    scope: &str,
    home: Option<&std::path::Path>,
    read: &dyn Fn(&std::path::Path) -> std::io::Result<String>,
    depth: usize,
    out: &mut Vec<GitEntry>,
) -> Result<(), String> {
    if depth > MAX_INCLUDE_DEPTH {
        return Err(format!("{} is included more than {MAX_INCLUDE_DEPTH} levels deep", file.display()));
    }
    let text = match read(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{} cannot be read ({e})", file.display())),
    };
    let keys = parse_config(&text).map_err(|e| format!("{} cannot be parsed as git config ({e})", file.display()))?;
    for k in keys {
        let key = k.name();
        let include = k.var == "path" && (k.section == "include" || (k.section == "includeif" && k.sub.is_some()));
        out.push(GitEntry {
            scope: scope.to_string(),
            origin: format!("file:{}", file.display()),
            key,
            value: k.value.clone(),
        });
        let (true, Some(value)) = (include, k.value.as_deref()) else { continue };
        let target = match value.strip_prefix("~/") {
            Some(rest) => match home {
                Some(h) => h.join(rest),
                None => return Err(format!("{} includes {value}, and there is no home folder", file.display())),
            },
            None => match file.parent() {
                Some(dir) => dir.join(value),
                None => std::path::PathBuf::from(value),
            },
        };
        read_one(&crate::paths::normalize(&target), scope, home, read, depth + 1, out)?;
    }
    Ok(())
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
    if risk.repository.is_none() {
        risk.repository = entries.iter().filter(|e| repository_scope(&e.scope)).find_map(|e| {
            let why = repository_program(e)?;
            Some(format!("{} sets {} ({why})", e.origin.strip_prefix("file:").unwrap_or(&e.origin), e.key))
        });
    }
    risk
}

/// One entry of a git config file as git's own parser reads it: section (lowercase),
/// subsection (as written), variable (lowercase), value (`None` for a bare key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigKey {
    /// The section, lowercase.
    pub section: String,
    /// The subsection, case kept (`[remote "origin"]`), or the lowercase rest of a legacy
    /// `[section.sub]` header.
    pub sub: Option<String>,
    /// The variable, lowercase.
    pub var: String,
    /// The value, unquoted and unescaped; `None` for a bare key (git reads it as `true`).
    pub value: Option<String>,
}

impl ConfigKey {
    /// `section.sub.var`, as git names the key.
    pub fn name(&self) -> String {
        match &self.sub {
            Some(sub) => format!("{}.{sub}.{}", self.section, self.var),
            None => format!("{}.{}", self.section, self.var),
        }
    }
}

/// Parse a git config file the way git's `config.c` does (headers `[s]`, `[s "sub"]`,
/// `[s.sub]`, `key = value` also after a header on its line, bare keys, quotes, the escapes
/// `\n \t \b \\ \"`, a backslash at the end of a line continuing the value, `#`/`;` comments).
/// Anything git would refuse is an error, with its line.
pub fn parse_config(text: &str) -> Result<Vec<ConfigKey>, String> {
    let chars: Vec<char> = text.strip_prefix('\u{feff}').unwrap_or(text).chars().collect();
    let mut i = 0;
    let mut line = 1;
    let mut section: Option<(String, Option<String>)> = None;
    let mut out = Vec::new();
    let err = |line: usize, what: &str| format!("line {line}: {what}");
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '#' || c == ';' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '[' {
            i += 1;
            let mut name = String::new();
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '-' || chars[i] == '.') {
                name.push(chars[i].to_ascii_lowercase());
                i += 1;
            }
            if name.is_empty() {
                return Err(err(line, "a section header without a name"));
            }
            let mut sub = None;
            if i < chars.len() && chars[i] == ']' {
                i += 1;
                // A legacy `[section.sub]`: the part after the first dot is the subsection.
                if let Some((s, rest)) = name.split_once('.') {
                    sub = Some(rest.to_string());
                    name = s.to_string();
                }
            } else {
                while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
                    i += 1;
                }
                if name.contains('.') || i >= chars.len() || chars[i] != '"' {
                    return Err(err(line, "a malformed section header"));
                }
                i += 1;
                let mut s = String::new();
                loop {
                    let Some(&ch) = chars.get(i) else { return Err(err(line, "an unterminated subsection")) };
                    i += 1;
                    match ch {
                        '"' => break,
                        '\n' => return Err(err(line, "a subsection across lines")),
                        '\\' => {
                            let Some(&next) = chars.get(i) else { return Err(err(line, "a bad escape")) };
                            if next == '\n' {
                                return Err(err(line, "a subsection across lines"));
                            }
                            s.push(next);
                            i += 1;
                        }
                        other => s.push(other),
                    }
                }
                if chars.get(i) != Some(&']') {
                    return Err(err(line, "a malformed section header"));
                }
                i += 1;
                sub = Some(s);
            }
            section = Some((name, sub));
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(err(line, &format!("an unexpected {c:?}")));
        }
        let Some((sec, sub)) = section.clone() else { return Err(err(line, "a key before any section")) };
        let mut var = String::new();
        while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '-') {
            var.push(chars[i].to_ascii_lowercase());
            i += 1;
        }
        while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
            i += 1;
        }
        let value = match chars.get(i) {
            None | Some('\n') => None,
            Some('#' | ';') => None,
            Some('=') => {
                i += 1;
                let (v, consumed_lines) = config_value(&chars, &mut i).map_err(|e| err(line, e))?;
                line += consumed_lines;
                Some(v)
            }
            Some(other) => return Err(err(line, &format!("an unexpected {other:?} after the key {var}"))),
        };
        out.push(ConfigKey { section: sec, sub, var, value });
    }
    Ok(out)
}

/// A value from just after its `=` to the end of its line (continuations followed); the
/// number of line ends inside it.
fn config_value(chars: &[char], i: &mut usize) -> Result<(String, usize), &'static str> {
    let mut v = String::new();
    let mut quoted = false;
    let mut lines = 0;
    // Unquoted whitespace is kept only between words.
    let mut pending_space = String::new();
    let mut started = false;
    while let Some(&c) = chars.get(*i) {
        match c {
            '\n' => {
                if quoted {
                    return Err("a quote not closed at the end of the line");
                }
                break;
            }
            ' ' | '\t' if !quoted => {
                if started {
                    pending_space.push(c);
                }
                *i += 1;
            }
            '#' | ';' if !quoted => {
                while *i < chars.len() && chars[*i] != '\n' {
                    *i += 1;
                }
                break;
            }
            '"' => {
                v.push_str(&std::mem::take(&mut pending_space));
                quoted = !quoted;
                started = true;
                *i += 1;
            }
            '\\' => {
                *i += 1;
                let Some(&e) = chars.get(*i) else { return Err("a backslash at the end of the file") };
                *i += 1;
                if e == '\n' {
                    lines += 1;
                    continue;
                }
                v.push_str(&std::mem::take(&mut pending_space));
                started = true;
                v.push(match e {
                    'n' => '\n',
                    't' => '\t',
                    'b' => '\u{8}',
                    '\\' => '\\',
                    '"' => '"',
                    _ => return Err("an escape git does not know"),
                });
            }
            other => {
                v.push_str(&std::mem::take(&mut pending_space));
                started = true;
                v.push(other);
                *i += 1;
            }
        }
    }
    if quoted {
        return Err("a quote not closed at the end of the file");
    }
    Ok((v, lines))
}

/// Git commands an alias in a repository the sandbox made may expand to, with plain arguments:
/// each takes only revisions, paths and names, and runs no program its arguments name (`submodule
/// foreach`, `bisect run`, `config`, `difftool` and every option are left out on purpose).
const ALIAS_COMMANDS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "branch",
    "checkout",
    "switch",
    "restore",
    "add",
    "rm",
    "mv",
    "commit",
    "reset",
    "stash",
    "tag",
    "fetch",
    "pull",
    "push",
    "merge",
    "rebase",
    "cherry-pick",
    "revert",
    "blame",
    "shortlog",
    "describe",
    "reflog",
    "ls-files",
    "rev-parse",
    "whatchanged",
    "grep",
];

/// Why an alias body (`alias.NAME`'s value) is not known to be safe, as git expands it: a
/// leading `!` is a shell command; otherwise the words (split as git's `split_cmdline` does)
/// are git's own arguments, where any option can run a program (`-c core.fsmonitor=…`,
/// `--upload-pack=…`, `rebase -x …`), so only an everyday command with plain words passes.
fn unsafe_alias(body: &str) -> Option<&'static str> {
    if body.trim_start().starts_with('!') {
        return Some("a shell alias");
    }
    let Some(words) = crate::gitalias::split_cmdline(body) else { return Some("an alias git cannot split") };
    match words.first() {
        None => None,
        Some(w) if !ALIAS_COMMANDS.contains(&w.as_str()) => Some("an alias to a command that may run a program"),
        Some(_) if words.iter().any(|w| w.starts_with('-')) => Some("an alias that passes options"),
        Some(_) => None,
    }
}

/// Variables that name a program (or a hook) in any section: never safe in a repository the
/// sandbox made.
pub const PROGRAM_VARS: &[&str] = &[
    "command",
    "cmd",
    "program",
    "helper",
    "hook",
    "hookspath",
    "editor",
    "pager",
    "driver",
    "textconv",
    "process",
    "clean",
    "smudge",
    "external",
    "sshcommand",
    "askpass",
    "gitproxy",
    "uploadpack",
    "receivepack",
    "packobjectshook",
    "difffilter",
    "alternaterefscommand",
    "vcs",
    "path",
    "worktree",
];

/// `core` variables that only tune git's own behaviour.
const CORE_SAFE: &[&str] = &[
    "repositoryformatversion",
    "filemode",
    "bare",
    "logallrefupdates",
    "ignorecase",
    "precomposeunicode",
    "symlinks",
    "autocrlf",
    "eol",
    "safecrlf",
    "quotepath",
    "compression",
    "loosecompression",
    "abbrev",
    "checkstat",
    "trustctime",
    "untrackedcache",
    "splitindex",
    "commentchar",
    "commentstring",
    "whitespace",
    "preloadindex",
    "sharedrepository",
    "warnambiguousrefs",
    "sparsecheckout",
    "sparsecheckoutcone",
    "multipackindex",
    "excludesfile",
    "attributesfile",
    "bigfilethreshold",
    "deltabasecachelimit",
    "packedgitlimit",
    "packedgitwindowsize",
    "fsync",
    "fsyncmethod",
    "longpaths",
    "protecthfs",
    "protectntfs",
    "checkroundtripencoding",
];

/// Sections whose every variable (but [`PROGRAM_VARS`]) only tunes git itself.
const SAFE_SECTIONS: &[&str] = &[
    "user",
    "author",
    "committer",
    "init",
    "gc",
    "pack",
    "fetch",
    "pull",
    "push",
    "color",
    "column",
    "status",
    "log",
    "commit",
    "tag",
    "rerere",
    "i18n",
    "index",
    "feature",
    "advice",
    "blame",
    "receive",
    "transfer",
    "fsck",
    "fetchfsck",
    "receivefsck",
    "rebase",
    "apply",
    "format",
    "checkout",
    "clone",
    "worktree",
    "branch",
    "remote",
    "extensions",
    "merge",
    "diff",
    "credential",
    "http",
    "submodule",
    "lfs",
    "safe",
    "am",
    "grep",
    "notes",
    "reset",
    "stash",
    "help",
    "maintenance",
    "repack",
    "splitindex",
    "versionsort",
];

/// Why this entry of a config file in a repository the sandbox made is not known to be safe
/// (`None`: it only tunes git itself). An allowlist, so a key wicket has never heard of counts
/// as unsafe: what `git init` and `git clone` write (and `user.*`, `remote.*.url`, `branch.*`,
/// `alias.x = status`) passes; every key that names a program, a hook folder, an included
/// file, a pager or editor, a worktree elsewhere, or a shell alias does not.
pub fn unsafe_config_key(k: &ConfigKey) -> Option<String> {
    let name = k.name();
    let value = k.value.as_deref();
    let why = |w: &str| Some(format!("{name} ({w})"));
    let var = k.var.as_str();
    match (k.section.as_str(), k.sub.as_deref()) {
        ("include" | "includeif", _) => return why("loads another config file"),
        ("core", None) if var == "fsmonitor" => {
            return (!is_false(value) && !is_true(value)).then(|| format!("{name} (runs a program as a hook)"))
        }
        ("alias", None) => return value.and_then(unsafe_alias).map(|w| format!("{name} ({w})")),
        ("submodule", Some(_)) if var == "path" => return None,
        ("submodule", Some(_)) if var == "update" => {
            return value.is_some_and(|v| v.trim_start().starts_with('!')).then(|| format!("{name} (runs a command)"))
        }
        ("diff" | "merge", Some(_)) => {
            // Drivers: only their tuning (`binary`, `xfuncname` …), never their programs.
            if PROGRAM_VARS.contains(&var) {
                return why("a driver that runs a program");
            }
            return None;
        }
        _ => {}
    }
    if PROGRAM_VARS.contains(&var) {
        return why("names a program, a hook or another file git follows");
    }
    let known = match k.section.as_str() {
        "core" => k.sub.is_none() && CORE_SAFE.contains(&var),
        "protocol" => k.sub.is_none() && var == "version",
        s => SAFE_SECTIONS.contains(&s),
    };
    if known {
        None
    } else {
        why("not a key wicket knows to be safe")
    }
}

/// Check a config file of a repository the sandbox made: `Err` names the first key that is
/// not known to be safe, or why the file does not parse (which counts as unsafe).
pub fn check_config_text(text: &str) -> Result<(), String> {
    let keys = parse_config(text).map_err(|e| format!("cannot be parsed as git config ({e})"))?;
    match keys.iter().find_map(unsafe_config_key) {
        Some(why) => Err(format!("sets {why}")),
        None => Ok(()),
    }
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

    #[test]
    fn programs_other_sub_commands_run_are_the_repositorys_risk_only() {
        let risky = [
            ("gpg.program", Some("./p")),
            ("gpg.ssh.program", Some("./p")),
            ("gpg.x509.program", Some("./p")),
            ("gpg.ssh.defaultkeycommand", Some("./p")),
            ("core.editor", Some("./p")),
            ("sequence.editor", Some("./p")),
            ("protocol.allow", Some("always")),
            ("protocol.ext.allow", Some("user")),
            ("remote.o.url", Some(" ext::sh -c x")),
            ("remote.o.pushurl", Some("EXT::x")),
            ("url.ext::sh -c x #.insteadof", Some("https://example.com/")),
            ("url.Ext::x.pushinsteadof", Some("https://example.com/")),
            ("trailer.sign.command", Some("./p")),
            ("hook.pre.command", Some("./p")),
        ];
        for (k, v) in risky {
            assert!(repository_program(&entry("local", k, v)).is_some(), "{k}");
            let r = assess(&GitConfigView::Entries(vec![entry("local", k, v)]));
            assert!(r.repository.is_some() && r.any.is_none(), "{k}: {r:?}");
            // The user's own choice stays the user's.
            assert_eq!(assess(&GitConfigView::Entries(vec![entry("global", k, v)])), GitRisk::default(), "{k}");
        }
        let plain = [
            ("protocol.ext.allow", Some("never")),
            ("protocol.file.allow", Some("always")),
            ("remote.o.url", Some("https://example.com/x.git")),
            ("url.git@github.com:.insteadof", Some("https://github.com/")),
            ("user.signingkey", Some("ABC")),
            ("commit.gpgsign", Some("true")),
        ];
        for (k, v) in plain {
            assert!(repository_program(&entry("local", k, v)).is_none(), "{k}");
        }
    }

    #[test]
    fn git_config_writes_of_code_running_keys_name_the_repositorys_file() {
        let w = |line: &str| code_running_config_write(&line.split(' ').collect::<Vec<_>>());
        for line in [
            "git config core.fsmonitor ./x",
            "git config Core.FSMonitor ./x",
            "git config set gpg.program ./p",
            "git config --add credential.helper x",
            "git config --type bool-or-str core.pager x",
            "git config --edit",
            "git config rename-section a core",
            "git config remote.o.url ext::x",
            "git config never.heard.of x",
            "git config nodot x",
            "git -C . config core.editor vi",
        ] {
            assert_eq!(w(line), Some(".git/config"), "{line}");
        }
        assert_eq!(w("git config --worktree core.fsmonitor ./x"), Some(".git/config.worktree"));
        for line in [
            "git config user.name A",
            "git config --get core.editor",
            "git config core.editor",
            "git config get core.fsmonitor",
            "git config --list",
            "git config remote.o.url https://example.com/x",
            "git config -f x.cfg core.fsmonitor ./x",
            "git config --global core.fsmonitor ./x",
            "git status",
        ] {
            assert_eq!(w(line), None, "{line}");
        }
    }

    #[test]
    fn config_files_are_read_with_their_includes() {
        let files: std::collections::HashMap<&str, &str> = [
            ("/r/.git/config", "[include]\n\tpath = ../team.cfg\n[includeIf \"onbranch:x\"]\n\tpath = ~/c.cfg\n"),
            ("/r/team.cfg", "[gpg]\n\tprogram = ./p\n[include]\n\tpath = missing.cfg\n"),
            ("/h/c.cfg", "[core]\n\teditor = ./e\n"),
            ("/r/bad.cfg", "[core\n"),
            ("/r/loop.cfg", "[include]\n\tpath = loop.cfg\n"),
        ]
        .into_iter()
        .collect();
        let read = |p: &std::path::Path| {
            files
                .get(p.to_str().unwrap_or(""))
                .map(|t| t.to_string())
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
        };
        let home = Some(std::path::Path::new("/h"));
        let got = read_files(&["/r/.git/config".into()], "local", home, &read).unwrap();
        let keys: Vec<&str> = got.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["include.path", "gpg.program", "include.path", "includeif.onbranch:x.path", "core.editor"]);
        assert_eq!(got[1].origin, "file:/r/team.cfg");
        assert!(read_files(&["/r/bad.cfg".into()], "local", home, &read).is_err());
        assert!(read_files(&["/r/loop.cfg".into()], "local", home, &read).is_err());
        assert_eq!(read_files(&["/nothing".into()], "local", home, &read).unwrap(), Vec::new());
    }

    /// What `git init` and `git clone` write, and ordinary settings, are safe; every key that
    /// makes git run or load code is not (one case a line).
    #[test]
    fn config_keys_in_a_new_repository_are_judged_by_an_allowlist() {
        let safe = [
            "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
            "[core]\n\tignorecase = true\n\tprecomposeunicode = true\n",
            "[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
            "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
            "[init]\n\tdefaultBranch = main\n[user]\n\tname = A\n\temail = a@b\n",
            "[alias]\n\tst = status\n\tco = checkout main\n\tlast = log HEAD\n",
            "[core]\n\tfsmonitor = false\n",
            "[diff \"pdf\"]\n\tbinary = true\n",
            "[submodule \"m\"]\n\turl = ../m\n\tactive = true\n\tupdate = rebase\n",
            "[extensions]\n\tobjectformat = sha256\n",
            "; comment\n# comment\n[gc] auto = 0\n",
            "",
        ];
        for text in safe {
            assert_eq!(check_config_text(text), Ok(()), "{text:?}");
        }
        let risky = [
            ("[core]\n\tfsmonitor = ./hook\n", "core.fsmonitor"),
            ("[core]\n\thooksPath = .h\n", "core.hookspath"),
            ("[core]\n\tsshCommand = x\n", "core.sshcommand"),
            ("[core]\n\tpager = less\n", "core.pager"),
            ("[core]\n\teditor = vi\n", "core.editor"),
            ("[core]\n\taskPass = x\n", "core.askpass"),
            ("[core]\n\tworktree = /home\n", "core.worktree"),
            ("[core]\n\tgitProxy = x\n", "core.gitproxy"),
            ("[sequence]\n\teditor = x\n", "sequence.editor"),
            ("[diff]\n\texternal = x\n", "diff.external"),
            ("[diff \"x\"]\n\ttextconv = x\n", "diff.x.textconv"),
            ("[diff \"x\"]\n\tcommand = x\n", "diff.x.command"),
            ("[filter \"x\"]\n\tclean = x\n", "filter.x.clean"),
            ("[filter \"x\"]\n\tsmudge = x\n", "filter.x.smudge"),
            ("[filter \"x\"]\n\tprocess = x\n", "filter.x.process"),
            ("[merge \"x\"]\n\tdriver = x\n", "merge.x.driver"),
            ("[credential]\n\thelper = store\n", "credential.helper"),
            ("[credential \"https://x\"]\n\thelper = x\n", "credential.https://x.helper"),
            ("[gpg]\n\tprogram = x\n", "gpg.program"),
            ("[gpg \"ssh\"]\n\tprogram = x\n", "gpg.ssh.program"),
            ("[uploadpack]\n\tpackObjectsHook = x\n", "uploadpack.packobjectshook"),
            ("[alias]\n\tst = !touch x\n", "alias.st"),
            ("[alias]\n\tst = \"  !touch x\"\n", "alias.st"),
            ("[alias]\n\tst = -c core.fsmonitor=./x status\n", "alias.st"),
            ("[alias]\n\tst = status -s\n", "alias.st"),
            ("[alias]\n\tf = fetch --upload-pack=./x\n", "alias.f"),
            ("[alias]\n\tr = rebase -x ./x main\n", "alias.r"),
            ("[alias]\n\tx = submodule foreach ./x\n", "alias.x"),
            ("[alias]\n\tx = config core.hooksPath h\n", "alias.x"),
            ("[alias]\n\tx = log \"--ext-diff\"\n", "alias.x"),
            ("[alias]\n\tx = log 'unclosed\n", "alias.x"),
            ("[include]\n\tpath = x.inc\n", "include.path"),
            ("[includeIf \"gitdir:/\"]\n\tpath = x.inc\n", "includeif.gitdir:/.path"),
            ("[hook \"h\"]\n\tcommand = x\n", "hook.h.command"),
            ("[pager]\n\tlog = x\n", "pager.log"),
            ("[interactive]\n\tdiffFilter = x\n", "interactive.difffilter"),
            ("[difftool \"x\"]\n\tcmd = x\n", "difftool.x.cmd"),
            ("[submodule \"m\"]\n\tupdate = !x\n", "submodule.m.update"),
            ("[remote \"o\"]\n\tuploadpack = x\n", "remote.o.uploadpack"),
            ("[protocol \"ext\"]\n\tallow = always\n", "protocol.ext.allow"),
            ("[trace2]\n\teventTarget = /x\n", "trace2.eventtarget"),
            ("[never.heard]\n\tof = x\n", "never.heard.of"),
            // git's syntax, not a line-by-line reading: a key after the header, a continued
            // value, a legacy subsection.
            ("[core] fsmonitor = x\n", "core.fsmonitor"),
            ("[core]\n\tfsmonitor = a\\\nb\n", "core.fsmonitor"),
            ("[Diff.X]\n\ttextconv = x\n", "diff.x.textconv"),
            ("[core]\n\tFSMonitor\t=  x  ; c\n", "core.fsmonitor"),
        ];
        for (text, key) in risky {
            let got = check_config_text(text);
            assert!(got.as_ref().is_err_and(|e| e.contains(&format!("sets {key} "))), "{text:?}: {got:?}");
        }
        // Git would refuse these: so do we (fail closed).
        for bad in [
            "[core\n",
            "key = x\n",
            "[core]\n\tx = \"open\n",
            "[core]\n\tx = a\\q\n",
            "[a \"b]\n",
            "[core]\n\t9x = 1\n",
        ] {
            assert!(check_config_text(bad).is_err_and(|e| e.contains("parsed")), "{bad:?}");
        }
        let keys = parse_config("[remote \"Or\\\"ig\"]\n\turl = \"a b\" c # x\n\tbare\n").expect("parses");
        assert_eq!(keys[0].name(), "remote.Or\"ig.url");
        assert_eq!(keys[0].value.as_deref(), Some("a b c"));
        assert_eq!((keys[1].var.as_str(), keys[1].value.as_deref()), ("bare", None));
    }
}
