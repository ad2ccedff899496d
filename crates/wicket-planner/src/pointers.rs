//! Pointers: what a protected file names, which the host will run or load later.
//!
//! The hard question: the sandbox keeps `.git/config`, `.git/hooks` and `.envrc` read-only, but
//! what they *point at* may lie in a folder the command can write. `core.hooksPath = tools/hooks`
//! makes git run hooks from `tools/hooks`; `filter.x.clean = ./scripts/clean.sh` runs that
//! script on `git add`; an alias `st = -c core.fsmonitor=./x status` runs `./x`; a hook in
//! `.git/hooks` may be a link to `../../scripts/pre-commit`; an include names another config
//! file. Each such target is protected like the file that names it: read-only when it exists,
//! an empty placeholder while the command runs when it does not (the root's repository only;
//! a nested repository's missing targets are fingerprinted instead, see [`crate::nested_git`]).
//!
//! Git's own reading is followed, not a list of names: every config file git reads for the
//! repository (system, global, the repository's, `config.worktree`, includes) is parsed as git
//! parses it; every key whose value git runs as a command (a driver, a filter, a hook program,
//! `core.fsmonitor`, `sshCommand`, `gpg.program`, a pager or editor, a credential helper, an
//! alias, any `!` value) is split as the shell splits it, and every word that names a path is a
//! target; `-c key=value` inside such a value is read as the config entry it is; a relative
//! path is taken from the work tree's top, where git runs these programs.
//!
//! A target is only as safe as the way to it: a folder on the way can be renamed and a new one
//! made in its place, so each folder between a writable path and a protected path is pinned
//! (bound on itself, which cannot be renamed or removed), and each link on the way is
//! remembered and checked after the run (see [`crate::shadow`]).
//!
//! Known limits (docs/sandbox.md): a word holding a variable other than `$HOME`/`$PWD` cannot be
//! known and is skipped; what a program named here reads by its own rules (a Python module, a
//! Makefile) is the project's code, as when the person runs it.

use std::path::{Path, PathBuf};

use wicket_policy::gitconfig::ConfigKey;

/// How deep nested commands (`sh -c '…'`, `$(…)`) and includes are followed.
const MAX_DEPTH: usize = 8;

/// What the pointers of the protected files ask of the sandbox.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    /// Paths to keep read-only, with whether each is a folder.
    pub read_only: Vec<(PathBuf, bool)>,
    /// Missing paths that get an empty placeholder for the run (also in `read_only`).
    pub placeholders: Vec<PathBuf>,
    /// Folders made read-only whole because a file that points into them could not be
    /// followed, with why (for the notice).
    pub guarded: Vec<(PathBuf, String)>,
    /// Folders that are put on `PATH` for the host (a `*` in a component stands for any part
    /// of a name): a new program in one that shadows a system program is moved aside after
    /// the run (see [`crate::shadow`]).
    pub path_folders: Vec<PathBuf>,
}

/// What a pointer names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A file that is run or loaded (a program, a script, an included config).
    File,
    /// A folder whose entries are run (a hooks folder).
    Folder,
}

/// Where pointers are protected.
pub(crate) struct Ctx<'a> {
    /// The paths the command may write.
    pub(crate) writable: &'a [PathBuf],
}

impl Ctx<'_> {
    /// Is `p` (or where it leads) inside a path the command may write?
    fn reachable(&self, p: &Path) -> bool {
        let inside = |q: &Path| self.writable.iter().any(|w| q.starts_with(w));
        let real_parent = || p.parent().and_then(crate::exec::real);
        inside(p) || crate::exec::real(p).is_some_and(|r| inside(&r)) || real_parent().is_some_and(|r| inside(&r))
    }
}

impl Found {
    fn ro(&mut self, p: PathBuf, dir: bool) {
        if !self.read_only.iter().any(|(q, _)| *q == p) {
            self.read_only.push((p, dir));
        }
    }

    /// Protect one target: read-only when it exists; when it does not, its first missing step
    /// gets a placeholder (if `placeholders`), so that nothing can be made there.
    pub(crate) fn protect(&mut self, p: &Path, kind: Kind, placeholders: bool, ctx: &Ctx<'_>) {
        let p = wicket_policy::paths::normalize(p);
        if !ctx.reachable(&p) {
            return;
        }
        match std::fs::metadata(&p) {
            Ok(m) if m.is_dir() => {
                // A folder named as a program runs nothing (`-C dir`, `--git-dir=…`).
                if kind == Kind::Folder {
                    self.ro(p, true);
                }
            }
            Ok(_) => self.ro(p, false),
            Err(_) if std::fs::symlink_metadata(&p).is_ok() => {
                // A dangling link: what it names must not appear either.
                self.ro(p.clone(), false);
                if let Ok(target) = std::fs::read_link(&p) {
                    let t = p.parent().map(|d| d.join(&target)).unwrap_or(target);
                    self.protect(&t, kind, placeholders, ctx);
                }
            }
            Err(_) if placeholders => {
                let mut first = p.clone();
                while let Some(parent) = first.parent() {
                    if std::fs::symlink_metadata(parent).is_ok() {
                        break;
                    }
                    first = parent.to_path_buf();
                }
                if !ctx.reachable(&first) || first.parent().is_some_and(|d| !d.is_dir()) {
                    return;
                }
                let dir = first != p || kind == Kind::Folder;
                if !self.placeholders.contains(&first) {
                    self.placeholders.push(first.clone());
                }
                self.ro(first, dir);
            }
            Err(_) => {}
        }
    }

    /// Make a whole folder read-only because what points into it could not be followed.
    pub(crate) fn guard(&mut self, folder: &Path, why: String) {
        if !self.guarded.iter().any(|(g, _)| g == folder) {
            self.guarded.push((folder.to_path_buf(), why));
        }
    }
}

// ---- Git ----

/// A git folder whose configuration's pointers are protected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    /// The git folder (real path).
    pub git_dir: PathBuf,
    /// The work tree's top, where git runs hooks and programs (the git folder itself when bare).
    pub top: PathBuf,
    /// Missing targets get placeholders (the root's repository); otherwise they are left to the
    /// check after the run.
    pub placeholders: bool,
}

/// The config files git reads for every repository: the system's and the user's (as git finds
/// them, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_GLOBAL` and `XDG_CONFIG_HOME` included), with the files
/// they include that exist.
pub fn global_config_files(home: Option<&Path>) -> Vec<PathBuf> {
    let mut start = vec![PathBuf::from("/etc/gitconfig")];
    let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty()).map(PathBuf::from);
    start.extend(var("GIT_CONFIG_SYSTEM"));
    if let Some(h) = home {
        start.push(h.join(".gitconfig"));
        start.push(h.join(".config/git/config"));
    }
    start.extend(var("XDG_CONFIG_HOME").map(|x| x.join("git/config")));
    start.extend(var("GIT_CONFIG_GLOBAL"));
    with_includes(start, home)
}

/// The config files git reads from the git folder `g` (its common folder's and its own, and
/// what they include), that exist.
pub fn repo_config_files(g: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let common = crate::gitdirs::common_dir(g).unwrap_or_else(|| g.to_path_buf());
    let start =
        vec![common.join("config"), g.join("config"), g.join("config.worktree"), common.join("config.worktree")];
    with_includes(start, home)
}

/// `files` and every file they include (`include.path`, `includeIf.*.path`), that exist.
fn with_includes(files: Vec<PathBuf>, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut queue: Vec<(PathBuf, usize)> = files.into_iter().rev().map(|f| (f, 0)).collect();
    while let Some((f, depth)) = queue.pop() {
        if depth > MAX_DEPTH || out.contains(&f) || !f.is_file() {
            continue;
        }
        out.push(f.clone());
        let base = f.parent().map(Path::to_path_buf).unwrap_or_default();
        for k in parsed(&f) {
            if is_include(&k) {
                if let Some(p) = k.value.as_deref().and_then(|v| resolve(v, &base, home)) {
                    queue.push((p, depth + 1));
                }
            }
        }
    }
    out
}

fn is_include(k: &ConfigKey) -> bool {
    matches!(k.section.as_str(), "include" | "includeif") && k.var == "path"
}

/// The entries of a config file, as git parses it (none when git would refuse the file: then
/// git runs nothing from it either).
fn parsed(f: &Path) -> Vec<ConfigKey> {
    let Ok(bytes) = std::fs::read(f) else { return Vec::new() };
    wicket_policy::gitconfig::parse_config(&String::from_utf8_lossy(&bytes)).unwrap_or_default()
}

/// The work tree's top for the git folder `g`: `core.worktree`, else the folder a linked
/// worktree's `gitdir` file names, else the parent of a `.git` folder, else `g` (bare).
pub fn top_of(g: &Path, home: Option<&Path>) -> PathBuf {
    for f in repo_config_files(g, home) {
        for k in parsed(&f) {
            if (k.section.as_str(), k.sub.as_deref(), k.var.as_str()) == ("core", None, "worktree") {
                if let Some(v) = k.value.as_deref().and_then(|v| resolve(v, g, home)) {
                    return v;
                }
            }
        }
    }
    if let Ok(text) = std::fs::read_to_string(g.join("gitdir")) {
        if let Some(parent) = Path::new(text.trim_end_matches(['\n', '\r'])).parent() {
            return wicket_policy::paths::normalize(parent);
        }
    }
    if g.file_name().is_some_and(|n| n == ".git") {
        if let Some(p) = g.parent() {
            return p.to_path_buf();
        }
    }
    g.to_path_buf()
}

/// Every target the configuration of `repo` (and the global files `globals`) points at, with
/// its kind, existing or not; and the hooks folders git runs from.
pub fn git_targets(repo: &Repo, globals: &[PathBuf], home: Option<&Path>) -> Vec<(PathBuf, Kind)> {
    let mut out = Vec::new();
    let mut files = globals.to_vec();
    files.extend(repo_config_files(&repo.git_dir, home));
    for f in &files {
        let base = f.parent().map(Path::to_path_buf).unwrap_or_default();
        for k in parsed(f) {
            key_targets(&k, &repo.top, &base, home, 0, &mut out);
        }
    }
    let common = crate::gitdirs::common_dir(&repo.git_dir).unwrap_or_else(|| repo.git_dir.clone());
    for hooks in [common.join("hooks"), repo.git_dir.join("hooks")] {
        hook_links(&hooks, &mut out);
    }
    let folders: Vec<PathBuf> = out.iter().filter(|(_, k)| *k == Kind::Folder).map(|(p, _)| p.clone()).collect();
    for f in folders {
        hook_links(&f, &mut out);
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|t| seen.insert(t.clone()));
    out
}

/// Hooks in `dir` that are links: git runs what they lead to.
fn hook_links(dir: &Path, out: &mut Vec<(PathBuf, Kind)>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_type().is_ok_and(|t| t.is_symlink()) {
            if let Ok(t) = std::fs::read_link(e.path()) {
                out.push((wicket_policy::paths::normalize(&dir.join(t)), Kind::File));
            }
        }
    }
}

/// Protect what the configuration of each repository points at (see the module comment).
pub(crate) fn protect_git(repos: &[Repo], home: Option<&Path>, ctx: &Ctx<'_>, found: &mut Found) {
    let globals = global_config_files(home);
    for r in repos {
        for (p, kind) in git_targets(r, &globals, home) {
            found.protect(&p, kind, r.placeholders, ctx);
        }
    }
}

/// Does git run this key's value as a command? Git's variables that name a program, in any
/// section (a driver, a filter, a tool, a hook program, a helper), `core.fsmonitor` when it is
/// not a boolean, a pager, and any value git runs through the shell (`!…`).
fn runs_program(k: &ConfigKey) -> bool {
    let v = k.value.as_deref().unwrap_or("");
    if v.trim_start().starts_with('!') {
        return true;
    }
    match (k.section.as_str(), k.var.as_str()) {
        ("include" | "includeif", _) | ("submodule", "path") | ("core", "worktree" | "hookspath") => false,
        ("core", "fsmonitor") => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
        ),
        ("pager", _) => true,
        (_, var) => {
            wicket_policy::gitconfig::PROGRAM_VARS.contains(&var)
                || matches!(var, "defaultkeycommand" | "sendmailcmd" | "smtpserver" | "httpd")
        }
    }
}

/// The targets of one config entry. `top`: where git runs programs; `base`: the folder of the
/// file that holds the entry (includes are relative to it).
fn key_targets(
    k: &ConfigKey,
    top: &Path,
    base: &Path,
    home: Option<&Path>,
    depth: usize,
    out: &mut Vec<(PathBuf, Kind)>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(value) = k.value.as_deref() else { return };
    if is_include(k) {
        out.extend(resolve(value, base, home).map(|p| (p, Kind::File)));
        return;
    }
    if (k.section.as_str(), k.sub.as_deref(), k.var.as_str()) == ("core", None, "hookspath") {
        out.extend(resolve(value, top, home).map(|p| (p, Kind::Folder)));
        return;
    }
    if k.section == "alias" && !value.trim_start().starts_with('!') {
        // Git's own arguments: `-c key=value` is a config entry, an option's value may name a
        // program (`--upload-pack=./x`, `-x ./check`).
        let Some(words) = wicket_policy::gitalias::split_cmdline(value) else { return };
        let mut after_option = false;
        for w in &words {
            if let Some(entry) = config_entry(w) {
                key_targets(&entry, top, base, home, depth + 1, out);
            } else if let Some((_, v)) = w.split_once('=').filter(|_| w.starts_with('-')) {
                candidate(v, top, home, true, out);
            } else if after_option && ["./", "../", "/", "~/"].iter().any(|pre| w.starts_with(pre)) {
                candidate(w, top, home, true, out);
            } else {
                executable(w, top, home, out);
            }
            after_option = w.starts_with('-') && !w.contains('=') && w != "--";
        }
        return;
    }
    if runs_program(k) {
        let cmd = value.trim_start().strip_prefix('!').unwrap_or(value);
        command_targets(cmd, top, home, depth + 1, out);
        return;
    }
    // Any other value: a word that names an executable file in the project is a program too.
    for w in value.split_whitespace() {
        executable(w.split_once('=').map_or(w, |(_, v)| v), top, home, out);
    }
}

/// `section[.sub].var=value` (what `-c` takes) as a config entry.
fn config_entry(w: &str) -> Option<ConfigKey> {
    let (key, value) = w.split_once('=')?;
    let (section, rest) = key.split_once('.')?;
    let (sub, var) = match rest.rsplit_once('.') {
        Some((s, v)) => (Some(s.to_string()), v),
        None => (None, rest),
    };
    let ident = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !ident(section) || !ident(var) || !var.as_bytes()[0].is_ascii_alphabetic() {
        return None;
    }
    Some(ConfigKey {
        section: section.to_ascii_lowercase(),
        sub,
        var: var.to_ascii_lowercase(),
        value: Some(value.to_string()),
    })
}

/// The targets of a command git runs through the shell, from `top`.
fn command_targets(cmd: &str, top: &Path, home: Option<&Path>, depth: usize, out: &mut Vec<(PathBuf, Kind)>) {
    if depth > MAX_DEPTH {
        return;
    }
    let script = parse_shell(cmd, &Vars { home, pwd: Some(top) });
    for c in &script.commands {
        let words: Vec<&Word> = c.words.iter().skip_while(|w| is_assignment(w)).collect();
        for (i, w) in words.iter().enumerate() {
            if w.unknown {
                continue;
            }
            let text = w.text.as_str();
            if let Some(entry) = config_entry(text) {
                key_targets(&entry, top, top, home, depth + 1, out);
            }
            let mut parts = vec![text];
            if let Some((_, v)) = text.split_once('=') {
                parts.push(v);
            }
            for part in parts {
                if part.contains(|c: char| c.is_whitespace() || matches!(c, ';' | '|' | '&')) {
                    // A command inside an argument (`sh -c '…'`, `-x "make check"`).
                    command_targets(part, top, home, depth + 1, out);
                } else {
                    candidate(part, top, home, i == 0, out);
                }
            }
        }
    }
}

/// A word that may name a file: with a `/` (or `~/`) it is a path, existing or not (a missing
/// one only counts as the program, or when written as a path: `./x`, `../x`, `/x`, `~/x`);
/// a bare word counts when it names an existing file from `top` (a script given to an
/// interpreter), never in the program's place, where the shell searches `PATH`.
fn candidate(word: &str, top: &Path, home: Option<&Path>, program: bool, out: &mut Vec<(PathBuf, Kind)>) {
    if word.is_empty() || (word.starts_with('-') && !word.contains('/')) {
        return;
    }
    let pathy = word.contains('/') || word == "~";
    if !pathy {
        if !program {
            let p = top.join(word);
            if std::fs::metadata(&p).is_ok_and(|m| m.is_file()) {
                out.push((p, Kind::File));
            }
        }
        return;
    }
    let Some(p) = resolve(word, top, home) else { return };
    let explicit = ["./", "../", "/", "~/"].iter().any(|pre| word.starts_with(pre));
    if program || explicit || std::fs::symlink_metadata(&p).is_ok() {
        out.push((p, Kind::File));
    }
}

/// A word that names an existing executable file (from `top`): a program wherever it appears.
fn executable(word: &str, top: &Path, home: Option<&Path>, out: &mut Vec<(PathBuf, Kind)>) {
    use std::os::unix::fs::PermissionsExt;
    if word.is_empty() || word.starts_with('-') {
        return;
    }
    let Some(p) = resolve(word, top, home) else { return };
    if std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0) {
        out.push((p, Kind::File));
    }
}

/// `~/…` from the home, an absolute path as is, anything else from `base`; normalized.
pub(crate) fn resolve(v: &str, base: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let v = v.trim();
    if v.is_empty() {
        return None;
    }
    let p = if v == "~" {
        home?.to_path_buf()
    } else if let Some(rest) = v.strip_prefix("~/") {
        home?.join(rest)
    } else if v.starts_with('~') {
        // `~user/`: another account's home, never a writable path here.
        return None;
    } else if Path::new(v).is_absolute() {
        PathBuf::from(v)
    } else {
        base.join(v)
    };
    Some(wicket_policy::paths::normalize(&p))
}

// ---- The shell's words ----

/// One word of a shell command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Word {
    /// The text, quotes removed and the expansions wicket knows (`$HOME`, `$PWD`, `~`)
    /// replaced.
    pub(crate) text: String,
    /// Holds an expansion wicket cannot know (another variable, a command's output); the text
    /// has [`UNKNOWN`] where it is.
    pub(crate) unknown: bool,
    /// Where in `text` the first quoted part starts (a quoted `if` is not a keyword, and
    /// `"A=b"` is no assignment, while `A="b"` is).
    pub(crate) quoted: Option<usize>,
}

/// Stands in a word's text for an expansion wicket cannot know.
pub(crate) const UNKNOWN: char = '\u{0}';

/// One simple command: its words and the line it starts on (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Command {
    pub(crate) words: Vec<Word>,
    pub(crate) line: usize,
}

/// A shell script split into simple commands (a command inside `$(…)` or backquotes is one of
/// them too).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Script {
    pub(crate) commands: Vec<Command>,
    /// What could not be followed (an unclosed quote, a here-document), with its line.
    pub(crate) problems: Vec<(usize, String)>,
}

/// The variables whose value is known where the script runs.
pub(crate) struct Vars<'a> {
    pub(crate) home: Option<&'a Path>,
    pub(crate) pwd: Option<&'a Path>,
}

impl Vars<'_> {
    fn get(&self, name: &str) -> Option<String> {
        let p = match name {
            "HOME" => self.home?,
            "PWD" => self.pwd?,
            _ => return None,
        };
        Some(p.to_string_lossy().into_owned())
    }
}

/// `NAME=…` before a command.
pub(crate) fn is_assignment(w: &Word) -> bool {
    let Some((name, _)) = w.text.split_once('=') else { return false };
    w.quoted.is_none_or(|q| q > name.len())
        && !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit()
}

/// Split `text` as the shell would (quotes, escapes, `;`, `&&`, `||`, `|`, `&`, parentheses,
/// new lines, comments, redirections, `$(…)` and backquotes, `$VAR`).
pub(crate) fn parse_shell(text: &str, vars: &Vars<'_>) -> Script {
    let chars: Vec<char> = text.chars().collect();
    let mut p = Parser {
        chars: &chars,
        i: 0,
        line: 1,
        vars,
        script: Script::default(),
        cmd: Command::default(),
        word: None,
        drop_next: false,
    };
    p.run();
    p.script
}

struct Parser<'a, 'b> {
    chars: &'a [char],
    i: usize,
    line: usize,
    vars: &'a Vars<'b>,
    script: Script,
    cmd: Command,
    word: Option<Word>,
    /// The next word is a redirection's file (read or written, never run).
    drop_next: bool,
}

impl Parser<'_, '_> {
    fn word(&mut self) -> &mut Word {
        self.word.get_or_insert_with(Word::default)
    }

    fn quote(&mut self) {
        let w = self.word();
        if w.quoted.is_none() {
            w.quoted = Some(w.text.len());
        }
    }

    fn unknown(&mut self) {
        let w = self.word();
        w.unknown = true;
        w.text.push(UNKNOWN);
    }

    fn end_word(&mut self) {
        if let Some(w) = self.word.take() {
            if std::mem::take(&mut self.drop_next) {
                return;
            }
            if self.cmd.words.is_empty() {
                self.cmd.line = self.line;
            }
            self.cmd.words.push(w);
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        self.drop_next = false;
        if !self.cmd.words.is_empty() {
            self.script.commands.push(std::mem::take(&mut self.cmd));
        }
    }

    fn problem(&mut self, what: &str) {
        self.script.problems.push((self.line, what.to_string()));
    }

    fn run(&mut self) {
        while let Some(&c) = self.chars.get(self.i) {
            match c {
                '\\' => {
                    match self.chars.get(self.i + 1) {
                        Some('\n') => self.line += 1,
                        Some(&n) => self.word().text.push(n),
                        None => {}
                    }
                    self.i += 2;
                }
                '\'' => {
                    self.quote();
                    self.i += 1;
                    loop {
                        match self.chars.get(self.i) {
                            None => {
                                self.problem("a quote that is not closed");
                                break;
                            }
                            Some('\'') => {
                                self.i += 1;
                                break;
                            }
                            Some(&ch) => {
                                if ch == '\n' {
                                    self.line += 1;
                                }
                                self.word().text.push(ch);
                                self.i += 1;
                            }
                        }
                    }
                }
                '"' => {
                    self.quote();
                    self.i += 1;
                    loop {
                        match self.chars.get(self.i) {
                            None => {
                                self.problem("a quote that is not closed");
                                break;
                            }
                            Some('"') => {
                                self.i += 1;
                                break;
                            }
                            Some('\\') => {
                                match self.chars.get(self.i + 1) {
                                    Some('\n') => self.line += 1,
                                    Some(&n @ ('$' | '`' | '"' | '\\')) => self.word().text.push(n),
                                    Some(&n) => {
                                        self.word().text.push('\\');
                                        self.word().text.push(n);
                                    }
                                    None => {}
                                }
                                self.i += 2;
                            }
                            Some('$') => self.dollar(),
                            Some('`') => self.backquote(),
                            Some(&ch) => {
                                if ch == '\n' {
                                    self.line += 1;
                                }
                                self.word().text.push(ch);
                                self.i += 1;
                            }
                        }
                    }
                }
                '$' => self.dollar(),
                '`' => self.backquote(),
                '#' if self.word.is_none() => {
                    while self.chars.get(self.i).is_some_and(|c| *c != '\n') {
                        self.i += 1;
                    }
                }
                '~' if self.word.is_none()
                    && matches!(self.chars.get(self.i + 1), None | Some('/' | ' ' | '\t' | '\n' | ';' | ':')) =>
                {
                    self.i += 1;
                    match self.vars.get("HOME") {
                        Some(h) => self.word().text.push_str(&h),
                        None => self.unknown(),
                    }
                }
                ' ' | '\t' => {
                    self.end_word();
                    self.i += 1;
                }
                '\n' => {
                    self.end_command();
                    self.line += 1;
                    self.i += 1;
                }
                ';' | '&' | '|' | '(' | ')' => {
                    self.end_command();
                    self.i += 1;
                }
                '<' | '>' => {
                    // A descriptor number before it belongs to the redirection.
                    if self.word.as_ref().is_some_and(|w| {
                        w.quoted.is_none() && !w.text.is_empty() && w.text.bytes().all(|b| b.is_ascii_digit())
                    }) {
                        self.word = None;
                    }
                    self.end_word();
                    if c == '<' && self.chars.get(self.i + 1) == Some(&'<') {
                        self.problem("a here-document");
                    }
                    self.i += 1;
                    while matches!(self.chars.get(self.i), Some('<' | '>' | '&' | '|')) {
                        self.i += 1;
                    }
                    self.drop_next = true;
                }
                _ => {
                    self.word().text.push(c);
                    self.i += 1;
                }
            }
        }
        self.end_command();
    }

    /// `$…` at `self.i`.
    fn dollar(&mut self) {
        let next = self.chars.get(self.i + 1).copied();
        match next {
            Some('(') if self.chars.get(self.i + 2) == Some(&'(') => {
                let end = self.matching(self.i + 1, '(', ')');
                self.i = end;
                self.unknown();
            }
            Some('(') => {
                let end = self.matching(self.i + 1, '(', ')');
                let inner: String =
                    self.chars[(self.i + 2).min(end)..end.saturating_sub(1).max(self.i + 2)].iter().collect();
                self.i = end;
                self.substitute(&inner);
            }
            Some('{') => {
                let end = self.matching(self.i + 1, '{', '}');
                let inner: String =
                    self.chars[(self.i + 2).min(end)..end.saturating_sub(1).max(self.i + 2)].iter().collect();
                self.i = end;
                match self.vars.get(&inner) {
                    Some(v) => self.word().text.push_str(&v),
                    None => self.unknown(),
                }
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let mut j = self.i + 1;
                let mut name = String::new();
                while let Some(&ch) = self.chars.get(j).filter(|ch| ch.is_ascii_alphanumeric() || **ch == '_') {
                    name.push(ch);
                    j += 1;
                }
                self.i = j;
                match self.vars.get(&name) {
                    Some(v) => self.word().text.push_str(&v),
                    None => self.unknown(),
                }
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.i += 2;
                self.unknown();
            }
            _ => {
                self.word().text.push('$');
                self.i += 1;
            }
        }
    }

    fn backquote(&mut self) {
        let start = self.i + 1;
        let mut j = start;
        while let Some(&c) = self.chars.get(j) {
            if c == '\\' {
                j += 2;
                continue;
            }
            if c == '`' {
                break;
            }
            j += 1;
        }
        if j >= self.chars.len() {
            self.problem("a backquote that is not closed");
        }
        let inner: String = self.chars[start.min(self.chars.len())..j.min(self.chars.len())].iter().collect();
        self.i = j + 1;
        self.substitute(&inner);
    }

    /// A command substitution: its commands run too; its output is unknown (but `pwd`'s).
    fn substitute(&mut self, inner: &str) {
        if inner.trim() == "pwd" {
            if let Some(v) = self.vars.get("PWD") {
                self.word().text.push_str(&v);
                return;
            }
        }
        let sub = parse_shell(inner, self.vars);
        let line = self.line;
        self.script.commands.extend(sub.commands.into_iter().map(|mut c| {
            c.line = line;
            c
        }));
        self.script.problems.extend(sub.problems.into_iter().map(|(_, w)| (line, w)));
        self.unknown();
    }

    /// The index just after the `close` that matches the `open` at `at` (quotes skipped).
    fn matching(&mut self, at: usize, open: char, close: char) -> usize {
        let mut depth = 0usize;
        let mut j = at;
        let mut quote: Option<char> = None;
        while let Some(&c) = self.chars.get(j) {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '\'' || c == '"' => quote = Some(c),
                None if c == '\\' => j += 1,
                None if c == open => depth += 1,
                None if c == close => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                None => {}
            }
            if c == '\n' {
                self.line += 1;
            }
            j += 1;
        }
        self.problem("a parenthesis that is not closed");
        self.chars.len()
    }
}

// ---- The way to a protected path ----

/// The folders to pin and the links to check after the run, for every protected path in
/// `paths`: each folder strictly between the deepest writable path that holds it (`bases`) and
/// the path, by its path and by its real path, unless a mount already fixes it (`bound`: the git
/// folders, bound on themselves; `frozen`: the read-only folders, in which nothing can be
/// renamed or replaced); each link on the way that could be replaced, with its text.
pub fn ways<'a>(
    paths: impl Iterator<Item = &'a Path>,
    bases: &[PathBuf],
    bound: &[PathBuf],
    frozen: &[PathBuf],
) -> (Vec<PathBuf>, Vec<(PathBuf, PathBuf)>) {
    let mut pins: Vec<PathBuf> = Vec::new();
    let mut links: Vec<(PathBuf, PathBuf)> = Vec::new();
    let within = |q: &Path, list: &[PathBuf]| list.iter().any(|f| q.starts_with(f));
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        let real = crate::exec::real(p).filter(|r| r != p);
        for p in std::iter::once(p.to_path_buf()).chain(real) {
            if !seen.insert(p.clone()) {
                continue;
            }
            let Some(base) =
                bases.iter().filter(|b| p.starts_with(b) && **b != p).max_by_key(|b| b.components().count())
            else {
                continue;
            };
            let Ok(rest) = p.strip_prefix(base) else { continue };
            let mut at = base.clone();
            for c in rest.components() {
                if within(&at, frozen) {
                    break;
                }
                at.push(c);
                let Ok(m) = std::fs::symlink_metadata(&at) else { break };
                if m.file_type().is_symlink() {
                    if let Ok(t) = std::fs::read_link(&at) {
                        if !links.iter().any(|(l, _)| *l == at) {
                            links.push((at.clone(), t));
                        }
                    }
                    // The rest of the way is the link's target: its real path is walked too.
                    break;
                }
                if at != p && m.is_dir() && !within(&at, bound) && !within(&at, frozen) && !pins.contains(&at) {
                    pins.push(at.clone());
                }
            }
        }
    }
    pins.sort_by_key(|p| p.components().count());
    (pins, links)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Vec<String>> {
        let s = parse_shell(text, &Vars { home: Some(Path::new("/h")), pwd: Some(Path::new("/p")) });
        s.commands.iter().map(|c| c.words.iter().map(|w| w.text.replace(UNKNOWN, "?")).collect()).collect()
    }

    #[test]
    fn the_shell_is_split_as_the_shell_splits_it() {
        assert_eq!(words("a 'b c' \"d $HOME\" e\\ f # g"), vec![vec!["a", "b c", "d /h", "e f"]]);
        assert_eq!(
            words("a; b && c || d | e & f\ng"),
            vec![vec!["a"], vec!["b"], vec!["c"], vec!["d"], vec!["e"], vec!["f"], vec!["g"]]
        );
        assert_eq!(words("x $(./gen.sh a) `y`"), vec![vec!["./gen.sh", "a"], vec!["y"], vec!["x", "?", "?"]]);
        assert_eq!(
            words("cat ~/x > out 2>&1 < in; ${PWD}/bin $(pwd)/c $FOO/x"),
            vec![vec!["cat", "/h/x"], vec!["/p/bin", "/p/c", "?/x"]]
        );
        assert_eq!(words("f() { ./x; }"), vec![vec!["f"], vec!["{", "./x"], vec!["}"]]);
        let s = parse_shell("a 'b", &Vars { home: None, pwd: None });
        assert_eq!(s.problems.len(), 1);
        assert_eq!(parse_shell("cat <<EOF\nx\nEOF", &Vars { home: None, pwd: None }).problems.len(), 1);
    }

    fn targets(config: &str, top: &Path) -> Vec<(PathBuf, Kind)> {
        let mut out = Vec::new();
        for k in wicket_policy::gitconfig::parse_config(config).expect("parses") {
            key_targets(&k, top, &top.join(".git"), Some(Path::new("/h")), 0, &mut out);
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|t| seen.insert(t.clone()));
        out
    }

    /// Each config entry that makes git run or load a file names it; one case a line.
    #[test]
    fn git_config_pointers_are_found_as_git_reads_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let top = std::fs::canonicalize(dir.path()).expect("real");
        std::fs::create_dir_all(top.join("scripts")).expect("mkdir");
        std::fs::write(top.join("scripts/tc.py"), "").expect("write");
        std::fs::write(top.join("tool.py"), "").expect("write");
        let f = |p: &str| (top.join(p), Kind::File);
        let cases: &[(&str, Vec<(PathBuf, Kind)>)] = &[
            ("[core]\n\thooksPath = tools/hooks\n", vec![(top.join("tools/hooks"), Kind::Folder)]),
            ("[core]\n\thooksPath = ~/hooks\n", vec![(PathBuf::from("/h/hooks"), Kind::Folder)]),
            ("[filter \"x\"]\n\tclean = ./scripts/clean.sh %f\n", vec![f("scripts/clean.sh")]),
            ("[diff \"x\"]\n\ttextconv = python3 scripts/tc.py\n", vec![f("scripts/tc.py")]),
            ("[diff \"x\"]\n\ttextconv = python3 tool.py\n", vec![f("tool.py")]),
            ("[merge \"x\"]\n\tdriver = sh -c './m.sh %O %A'\n", vec![f("m.sh")]),
            ("[core]\n\tfsmonitor = tools/fsm\n", vec![f("tools/fsm")]),
            ("[core]\n\tfsmonitor = true\n", vec![]),
            ("[core]\n\tsshCommand = ssh -F ./ssh/config\n", vec![f("ssh/config")]),
            ("[gpg]\n\tprogram = ./bin/gpg\n", vec![f("bin/gpg")]),
            ("[pager]\n\tlog = ./bin/pg\n", vec![f("bin/pg")]),
            ("[alias]\n\tst = -c core.fsmonitor=./tools/fsm status\n", vec![f("tools/fsm")]),
            ("[alias]\n\tst = -c core.hooksPath=h2 commit\n", vec![(top.join("h2"), Kind::Folder)]),
            ("[alias]\n\tf = fetch --upload-pack=./up\n", vec![f("up")]),
            ("[alias]\n\tr = rebase -x ./check main\n", vec![f("check")]),
            ("[alias]\n\tlint = !./scripts/lint.sh && git status\n", vec![f("scripts/lint.sh")]),
            ("[alias]\n\tx = !git -c diff.external=./d diff\n", vec![f("d")]),
            ("[alias]\n\tlg = log --oneline -- README.md\n", vec![]),
            ("[submodule \"m\"]\n\tupdate = !./up.sh\n", vec![f("up.sh")]),
            ("[credential]\n\thelper = store\n", vec![]),
            ("[include]\n\tpath = team.inc\n", vec![(top.join(".git/team.inc"), Kind::File)]),
            ("[user]\n\tname = scripts/tc.py\n", vec![]),
            ("[remote \"o\"]\n\tfetch = +refs/heads/*:refs/remotes/o/*\n", vec![]),
            ("[alias]\n\tpub = !git push -u origin $(git branch --show-current)\n", vec![]),
        ];
        for (config, want) in cases {
            assert_eq!(&targets(config, &top), want, "{config:?}");
        }
    }

    #[test]
    fn the_way_to_a_protected_path_is_pinned_and_its_links_remembered() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real");
        std::fs::create_dir_all(root.join("a/b/c")).expect("mkdir");
        std::fs::create_dir_all(root.join("real/hooks")).expect("mkdir");
        std::fs::create_dir_all(root.join(".git")).expect("mkdir");
        std::os::unix::fs::symlink("../real", root.join("a/link")).expect("link");
        let paths = [root.join("a/b/c/f"), root.join("a/link/hooks"), root.join(".git/x/y")];
        let (pins, links) =
            ways(paths.iter().map(PathBuf::as_path), std::slice::from_ref(&root), &[root.join(".git")], &[]);
        assert_eq!(pins, vec![root.join("a"), root.join("real"), root.join("a/b"), root.join("a/b/c")]);
        assert_eq!(links, vec![(root.join("a/link"), PathBuf::from("../real"))]);
        // Inside a read-only folder nothing can be renamed: nothing to pin there.
        let (pins, _) = ways(
            paths.iter().map(PathBuf::as_path),
            std::slice::from_ref(&root),
            &[root.join(".git")],
            &[root.join("a")],
        );
        assert_eq!(pins, vec![root.join("real")]);
    }

    /// The exec policy takes it all in: targets read-only or held by a placeholder, the way to
    /// them pinned, links remembered, an `.envrc` line that cannot be followed making the
    /// project read-only with a notice, the project's `PATH` folders watched.
    #[test]
    fn the_exec_policy_protects_pointers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real").join("proj");
        for d in [".git/objects", ".git/refs", "scripts", "cfg"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").expect("write");
        std::fs::write(root.join("scripts/clean.sh"), "").expect("write");
        std::fs::write(root.join("cfg/team.inc"), "").expect("write");
        std::fs::write(
            root.join(".git/config"),
            "[core]\n\thooksPath = tools/hooks\n[filter \"x\"]\n\tclean = ./scripts/clean.sh\n[include]\n\tpath = ../cfg/team.inc\n",
        )
        .expect("write");
        let inputs = crate::exec::ExecInputs { root: root.clone(), ..Default::default() };
        let p = crate::exec::exec_policy(&inputs).expect("policy");
        assert!(p.placeholders.contains(&root.join("tools")), "{:?}", p.placeholders);
        for f in ["scripts/clean.sh", "cfg/team.inc"] {
            assert!(p.read_only.contains(&(root.join(f), false)), "{f}: {:?}", p.read_only);
        }
        for d in ["scripts", "cfg"] {
            assert!(p.pinned.contains(&root.join(d)), "{d}: {:?}", p.pinned);
        }
        assert!(p.notices.is_empty());
        // A root inside the repository (a `.wicket` marker): the repository above still runs
        // what its config names in the project.
        let sub = root.join("scripts");
        let inner = crate::exec::ExecInputs { root: sub.clone(), ..Default::default() };
        let q = crate::exec::exec_policy(&inner).expect("policy");
        assert!(q.read_only.contains(&(sub.join("clean.sh"), false)), "{:?}", q.read_only);
        std::fs::write(root.join(".envrc"), "eval \"$(thing)\"\n").expect("write");
        let p = crate::exec::exec_policy(&inputs).expect("policy");
        assert!(p.read_only.contains(&(root.clone(), true)), "the project is read-only");
        assert!(p.pinned.is_empty(), "nothing to pin in a read-only project: {:?}", p.pinned);
        assert!(p.notices.iter().any(|n| n.contains("line 1") && n.contains("eval")), "{:?}", p.notices);
    }
}
