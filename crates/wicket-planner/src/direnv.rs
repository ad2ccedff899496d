//! direnv: what an `.envrc` loads, which the host runs the moment the person enters the folder.
//!
//! The hard question: direnv runs an `.envrc` only once the person has allowed that exact text
//! (the sandbox keeps the root's `.envrc` read-only anyway), but what it loads is not checked:
//! `source_env .envrc.local`, `dotenv .env.dev`, `source ./env.sh`, and the folders it puts on
//! `PATH` (`PATH_add bin`, `layout python`'s virtualenv, `layout node`'s `node_modules/.bin`).
//! A command that can write those runs code on the host at the next `cd`. So every `.envrc`
//! direnv would run for the project (the root's, and each allowed one inside or above it, from
//! direnv's own allow list) is read as direnv's bash would run it, and each file it loads
//! becomes read-only (or, while missing, gets a placeholder); each folder it puts on `PATH` is
//! watched after the run (see [`crate::shadow`]).
//!
//! `layout` and `use` are followed as direnv's standard library defines them (`direnv stdlib`,
//! 2.32): `layout python` puts `.direnv/python-*/bin` on `PATH`, `use nix` evaluates
//! `shell.nix` or `default.nix`, `use flake` evaluates `flake.nix`. A function the person's own
//! direnv configuration (`direnvrc`, `lib/*.sh`) or a downloaded script defines instead is not
//! the standard one and cannot be followed.
//!
//! Fail closed: a line wicket cannot follow (a loop, `eval`, `cd`, a here-document, a path
//! built from a variable, an unknown `layout`/`use`) makes the `.envrc`'s folder read-only for
//! the run (the whole project for the root's), with a notice naming the line. `watch_file`
//! loads nothing (it only makes direnv reload the same `.envrc`), so it is not followed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use wicket_programs::Role;

use crate::pointers::{is_assignment, parse_shell, Command, Ctx, Found, Kind, Vars, Word, UNKNOWN};

/// At most this many entries of direnv's allow list are read.
const MAX_ALLOWED: usize = 10_000;

/// How deep files sourced by files sourced by an `.envrc` are followed.
const MAX_DEPTH: usize = 8;

/// Commands of bash and of direnv's standard library that load nothing and change no path,
/// besides the programs whose records say so (see [`inert_program`]).
const INERT: &[&str] = &[
    "log_status",
    "log_error",
    "has",
    "env_vars_required",
    "strict_env",
    "unstrict_env",
    "direnv_version",
    "on_git_branch",
    "expand_path",
    "user_rel_path",
    "find_up",
    "join_args",
    "semver_search",
    "watch_file",
    "watch_dir",
    "MANPATH_add",
    "PATH_rm",
    "path_rm",
    ":",
    "test",
    "[",
    "[[",
    "return",
    "exit",
    "set",
    "shopt",
    "unset",
    "shift",
    "read",
];

/// A program the catalogue says loads nothing and changes no path, unless through its
/// `NAME=value` words (read as assignments): one that only prints or ignores its words (`echo`,
/// `true`), or a builtin that runs nothing and only sets variables (`export`, `local`,
/// `declare`; `env` sets them too, but runs a command). Only a bare name: `./echo` is a file.
fn inert_program(name: &str) -> bool {
    !name.contains('/')
        && wicket_programs::lookup(name).is_some_and(|p| p.only_prints || (p.assigns && p.role == Role::Plain))
}

/// Words that start or end a compound command around simple ones (`if …; then …; fi`): both
/// branches are read, as if both ran.
const KEYWORDS: &[&str] = &["if", "then", "else", "elif", "fi", "{", "}", "!", "time"];

/// Commands whose effect on paths cannot be followed.
const OPAQUE: &[&str] = &[
    "eval", "cd", "pushd", "popd", "for", "while", "until", "case", "select", "alias", "trap", "coproc", "do", "done",
];

/// Protect what every `.envrc` direnv would run for the project at `root` loads.
pub(crate) fn protect(root: &Path, home: Option<&Path>, ctx: &Ctx<'_>, found: &mut Found) {
    let defined = user_functions(home);
    for envrc in envrc_files(root, home) {
        let Some(folder) = envrc.parent().map(Path::to_path_buf) else { continue };
        let mut cx = Envrc {
            home,
            ctx,
            found: Found::default(),
            layout_dir: folder.join(".direnv"),
            path_folders: Vec::new(),
            outside: defined.clone(),
            own: HashSet::new(),
            opaque: false,
            visited: HashSet::new(),
        };
        match cx.file(&envrc, &folder, 0) {
            Ok(()) => {
                let Envrc { found: f, path_folders, .. } = cx;
                for (p, dir) in f.read_only {
                    if !found.read_only.iter().any(|(q, _)| *q == p) {
                        found.read_only.push((p, dir));
                    }
                }
                for p in f.placeholders {
                    if !found.placeholders.contains(&p) {
                        found.placeholders.push(p);
                    }
                }
                for p in path_folders {
                    if !found.path_folders.contains(&p) {
                        found.path_folders.push(p);
                    }
                }
            }
            Err(why) => {
                // The folder direnv runs it for; one above the project guards the project.
                let guarded = if root.starts_with(&folder) { root.to_path_buf() } else { folder };
                found.guard(
                    &guarded,
                    format!(
                        "wicket cannot follow what {} loads ({why}), so {} is read-only in the sandbox; write that line with direnv's own functions (source_env, dotenv, PATH_add, layout) and literal paths",
                        envrc.display(),
                        if guarded == root { "the project".to_string() } else { guarded.display().to_string() }
                    ),
                );
            }
        }
    }
}

/// The `.envrc` files direnv would run for folders of the project: the root's, and every one
/// on direnv's allow list that lies inside the root or above it.
pub fn envrc_files(root: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let own = root.join(".envrc");
    if own.is_file() {
        out.push(own);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".local/share")));
    let Some(allow) = data.map(|d| d.join("direnv/allow")) else { return out };
    for e in std::fs::read_dir(allow).into_iter().flatten().flatten().take(MAX_ALLOWED) {
        // Each entry holds the path of one allowed `.envrc`.
        let Ok(text) = std::fs::read_to_string(e.path()) else { continue };
        let p = PathBuf::from(text.trim_end_matches(['\n', '\r']));
        let Some(dir) = p.parent() else { continue };
        if (dir.starts_with(root) || root.starts_with(dir)) && p.is_file() && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// Functions the person's direnv configuration defines (which replace the standard library's
/// of the same name), from `direnvrc`, `lib/*.sh` and what they source.
fn user_functions(home: Option<&Path>) -> HashSet<String> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.map(|h| h.join(".config")));
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(c) = &config {
        files.push(c.join("direnv/direnvrc"));
        let mut lib: Vec<PathBuf> = std::fs::read_dir(c.join("direnv/lib"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "sh"))
            .collect();
        lib.sort();
        files.extend(lib);
    }
    files.extend(home.map(|h| h.join(".direnvrc")));
    let mut names = HashSet::new();
    let mut seen = HashSet::new();
    while let Some(f) = files.pop() {
        if !seen.insert(f.clone()) || seen.len() > 64 {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        names.extend(defined_functions(&text));
        let pwd = f.parent().map(Path::to_path_buf);
        let script = parse_shell(&text, &Vars { home, pwd: pwd.as_deref() });
        for c in &script.commands {
            let w: Vec<&str> = c.words.iter().map(|w| w.text.as_str()).collect();
            match w.as_slice() {
                ["source" | "." | "source_env", target, ..] if !target.contains(UNKNOWN) => {
                    if let Some(p) = pwd.as_deref().and_then(|d| crate::pointers::resolve(target, d, home)) {
                        files.push(p);
                    }
                }
                // A downloaded script may define anything.
                ["source_url", ..] => {
                    names.insert("*".to_string());
                }
                _ => {}
            }
        }
    }
    names
}

/// The names of the functions `text` defines (`name() …`, `function name …`).
fn defined_functions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        let (keyword, rest) = match l.strip_prefix("function ") {
            Some(r) => (true, r.trim_start()),
            None => (false, l),
        };
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || "_-.:".contains(c))).unwrap_or(rest.len());
        let (name, after) = rest.split_at(end);
        let after = after.trim_start();
        if !name.is_empty() && (after.starts_with("()") || (keyword && (after.is_empty() || after.starts_with('{')))) {
            out.push(name.to_string());
        }
    }
    out
}

/// Reading one `.envrc` (and what it sources).
struct Envrc<'a> {
    home: Option<&'a Path>,
    ctx: &'a Ctx<'a>,
    found: Found,
    /// `direnv_layout_dir`: where `layout` keeps its environments.
    layout_dir: PathBuf,
    /// Folders put on `PATH` so far (a `*` in a component stands for any part of a name).
    path_folders: Vec<PathBuf>,
    /// Functions the person's direnv configuration defines, unread (`*`: anything may be).
    outside: HashSet<String>,
    /// Functions the files read here define (their bodies are read as if they ran).
    own: HashSet<String>,
    /// A script was loaded that wicket cannot read (`source_url`): any function may be redefined.
    opaque: bool,
    visited: HashSet<PathBuf>,
}

impl Envrc<'_> {
    /// Read the file `f`, run from the folder `pwd`.
    fn file(&mut self, f: &Path, pwd: &Path, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("{} sources files more than {MAX_DEPTH} deep", f.display()));
        }
        if !self.visited.insert(f.to_path_buf()) {
            return Ok(());
        }
        let text = std::fs::read_to_string(f).map_err(|e| format!("{} cannot be read: {e}", f.display()))?;
        self.own.extend(defined_functions(&text));
        let script = parse_shell(&text, &Vars { home: self.home, pwd: Some(pwd) });
        if let Some((line, what)) = script.problems.first() {
            return Err(format!("line {line} of {}: {what}", f.display()));
        }
        for c in &script.commands {
            self.command(c, pwd, depth).map_err(|why| format!("line {} of {}: {why}", c.line, f.display()))?;
        }
        Ok(())
    }

    fn protect(&mut self, p: &Path) {
        self.found.protect(p, Kind::File, true, self.ctx);
    }

    /// A literal path argument, from `pwd`.
    fn path(&self, w: &Word, pwd: &Path) -> Result<PathBuf, String> {
        if w.unknown {
            return Err(format!("the path {:?} holds a variable", w.text.replace(UNKNOWN, "$…")));
        }
        crate::pointers::resolve(&w.text, pwd, self.home)
            .ok_or_else(|| format!("the path {:?} cannot be known", w.text))
    }

    fn path_folder(&mut self, p: PathBuf) {
        if !self.path_folders.contains(&p) {
            self.path_folders.push(p);
        }
    }

    fn command(&mut self, c: &Command, pwd: &Path, depth: usize) -> Result<(), String> {
        let mut words: &[Word] = &c.words;
        while let Some((w, rest)) = words.split_first().filter(|(w, _)| is_assignment(w)) {
            self.assignment(w, pwd)?;
            words = rest;
        }
        while let Some((_, rest)) =
            words.split_first().filter(|(w, _)| w.quoted.is_none() && KEYWORDS.contains(&w.text.as_str()))
        {
            words = rest;
        }
        let Some((name, args)) = words.split_first() else { return Ok(()) };
        if name.unknown {
            return Err("a command whose name comes from a variable".into());
        }
        let n = name.text.as_str();
        if OPAQUE.contains(&n) {
            return Err(format!("`{n}` is not followed"));
        }
        let arg = |i: usize| args.get(i);
        match n {
            "function" => return Ok(()),
            "command" | "builtin" | "exec" => {
                let inner = Command { words: args.to_vec(), line: c.line };
                return self.command(&inner, pwd, depth);
            }
            "source_env" | "source_env_if_exists" => {
                let w = arg(0).ok_or("source_env without a file")?;
                let mut p = self.path(w, pwd)?;
                if p.is_dir() {
                    p = p.join(".envrc");
                }
                return self.source(&p, depth);
            }
            "source_up" | "source_up_if_exists" => {
                let name = match arg(0) {
                    Some(w) if w.unknown => return Err("source_up of a name held in a variable".into()),
                    Some(w) => w.text.clone(),
                    None => ".envrc".into(),
                };
                let mut dir = pwd.parent();
                while let Some(d) = dir {
                    let p = d.join(&name);
                    // find_up takes the first regular file: a placeholder (a folder) is passed over.
                    let here = p.is_file();
                    self.source(&p, depth)?;
                    if here {
                        break;
                    }
                    dir = d.parent();
                }
                return Ok(());
            }
            "source" | "." => {
                let w = arg(0).ok_or("source without a file")?;
                if w.unknown || w.text.contains('/') {
                    let p = self.path(w, pwd)?;
                    // bash's `source` keeps the folder it runs from.
                    return self.source_keep(&p, pwd, depth);
                }
                // A bare name: bash searches `PATH`, then the current folder.
                let mut places: Vec<PathBuf> =
                    self.path_folders.iter().filter(|f| !has_glob(f)).map(|f| f.join(&w.text)).collect();
                places.push(pwd.join(&w.text));
                for p in places {
                    self.source_keep(&p, pwd, depth)?;
                }
                return Ok(());
            }
            "dotenv" | "dotenv_if_exists" | "direnv_apply_dump" => {
                let mut p = match arg(0) {
                    Some(w) => self.path(w, pwd)?,
                    None => pwd.join(".env"),
                };
                if p.is_dir() {
                    p = p.join(".env");
                }
                self.protect(&p);
                return Ok(());
            }
            "PATH_add" => {
                for w in args {
                    let p = self.path(w, pwd)?;
                    self.path_folder(p);
                }
                return Ok(());
            }
            "path_add" => {
                if arg(0).is_some_and(|w| w.text == "PATH") {
                    for w in &args[1..] {
                        let p = self.path(w, pwd)?;
                        self.path_folder(p);
                    }
                } else if arg(0).is_none_or(|w| w.unknown) {
                    return Err("path_add of a variable that cannot be known".into());
                }
                return Ok(());
            }
            "load_prefix" => {
                let p = self.path(arg(0).ok_or("load_prefix without a folder")?, pwd)?;
                self.path_folder(p.join("bin"));
                return Ok(());
            }
            "layout" | "use" => {
                let kind = arg(0).ok_or_else(|| format!("{n} without a name"))?;
                if kind.unknown {
                    return Err(format!("{n} of a name held in a variable"));
                }
                return self.layout_or_use(n, &kind.text, &args[1..], pwd);
            }
            "source_url" | "fetchurl" => {
                // Checked against the hash given, but what it defines is not known here.
                self.opaque = true;
                return Ok(());
            }
            "rvm" => return Ok(()),
            _ => {}
        }
        if let Some(kind) = n.strip_prefix("layout_") {
            return self.layout_or_use("layout", kind, args, pwd);
        }
        if let Some(kind) = n.strip_prefix("use_") {
            return self.layout_or_use("use", kind, args, pwd);
        }
        if INERT.contains(&n) || inert_program(n) {
            for a in args.iter().filter(|a| is_assignment(a)) {
                self.assignment(a, pwd)?;
            }
            return Ok(());
        }
        if self.own.contains(n) || self.outside.contains(n) {
            // Its body is read where it is defined, as if it ran.
            return Ok(());
        }
        // Another program: one named by its path is loaded code; a bare name is searched on
        // `PATH`, where a folder this file put there may hold it.
        if n.contains('/') {
            let p = self.path(name, pwd)?;
            self.protect(&p);
        } else {
            let places: Vec<PathBuf> = self.path_folders.iter().filter(|f| !has_glob(f)).map(|f| f.join(n)).collect();
            for p in places {
                self.protect(&p);
            }
        }
        // Its arguments that name files of the project are read by it (a script for an
        // interpreter): read-only too.
        for a in args.iter().filter(|a| !a.unknown) {
            if let Some(p) = crate::pointers::resolve(&a.text, pwd, self.home) {
                if p.is_file() {
                    self.protect(&p);
                }
            }
        }
        Ok(())
    }

    /// Load `p` with `source_env`: it runs from its own folder.
    fn source(&mut self, p: &Path, depth: usize) -> Result<(), String> {
        let pwd = p.parent().map(Path::to_path_buf).unwrap_or_default();
        self.source_keep(p, &pwd, depth)
    }

    /// Load `p` as bash's `source` does: it runs from `pwd`.
    fn source_keep(&mut self, p: &Path, pwd: &Path, depth: usize) -> Result<(), String> {
        self.protect(p);
        if p.is_file() {
            return self.file(p, pwd, depth + 1);
        }
        Ok(())
    }

    fn assignment(&mut self, w: &Word, pwd: &Path) -> Result<(), String> {
        let Some((name, value)) = w.text.split_once('=') else { return Ok(()) };
        match name {
            "PATH" => {
                for part in value.split(':') {
                    if part.is_empty() || part == UNKNOWN.to_string() {
                        // `$PATH` itself (an empty element is the current folder: below).
                        if part.is_empty() {
                            self.path_folder(pwd.to_path_buf());
                        }
                        continue;
                    }
                    if part.contains(UNKNOWN) {
                        return Err("PATH is given a folder held in a variable".into());
                    }
                    let p = crate::pointers::resolve(part, pwd, self.home).ok_or("PATH cannot be known")?;
                    self.path_folder(p);
                }
            }
            "direnv_layout_dir" => {
                if value.contains(UNKNOWN) {
                    return Err("direnv_layout_dir is held in a variable".into());
                }
                self.layout_dir =
                    crate::pointers::resolve(value, pwd, self.home).ok_or("direnv_layout_dir cannot be known")?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `layout NAME …` and `use NAME …`, as direnv's standard library defines them.
    fn layout_or_use(&mut self, verb: &str, kind: &str, args: &[Word], pwd: &Path) -> Result<(), String> {
        let function = format!("{verb}_{kind}");
        if self.own.contains(&function) {
            // Defined in a file read here: its body was read with the rest.
            return Ok(());
        }
        if self.opaque || self.outside.contains(&function) || self.outside.contains("*") {
            return Err(format!("{verb} {kind} is defined outside direnv's standard library"));
        }
        let ld = self.layout_dir.clone();
        let literal = |i: usize| args.get(i).filter(|w| !w.unknown).map(|w| w.text.clone());
        match (verb, kind) {
            ("layout", "go") => self.path_folder(ld.join("go/bin")),
            ("layout", "node") | ("use", "nodenv") => self.path_folder(pwd.join("node_modules/.bin")),
            ("layout", "perl") => self.path_folder(ld.join("perl5/bin")),
            ("layout", "php") => self.path_folder(pwd.join("vendor/bin")),
            ("layout", "python" | "python2" | "python3" | "pyenv") => {
                self.path_folder(ld.join("python-*/bin"));
                self.path_folder(ld.join("virtualenv/bin"));
                if let Some(py) = literal(0).filter(|p| p.contains('/')) {
                    let p = crate::pointers::resolve(&py, pwd, self.home).ok_or("layout python's program")?;
                    self.protect(&p);
                }
            }
            ("layout", "ruby") => {
                self.path_folder(ld.join("ruby/bin"));
                self.path_folder(ld.join("ruby-*/bin"));
                self.path_folder(ld.join("bin"));
            }
            ("layout", "pipenv") => self.path_folder(pwd.join(".venv/bin")),
            ("layout", "anaconda") => {
                if let Some(prefix) = literal(0).filter(|p| p.starts_with('.') || p.starts_with('/')) {
                    let p = crate::pointers::resolve(&prefix, pwd, self.home).ok_or("layout anaconda's prefix")?;
                    self.path_folder(p.join("bin"));
                }
            }
            ("layout", "julia") | ("use", "node" | "julia" | "rbenv") => {}
            ("use", "nix") => {
                if args.is_empty() {
                    // nix-shell evaluates shell.nix, else default.nix (its shellHook runs).
                    self.protect(&pwd.join("shell.nix"));
                    self.protect(&pwd.join("default.nix"));
                }
                for a in args.iter().filter(|a| !a.unknown && !a.text.starts_with('-')) {
                    if let Some(p) = crate::pointers::resolve(&a.text, pwd, self.home).filter(|p| p.is_file()) {
                        self.protect(&p);
                    }
                }
            }
            ("use", "flake") => {
                let installable = literal(0).unwrap_or_else(|| ".".into());
                if installable.starts_with('.') || installable.starts_with('/') {
                    let dir = installable.split('#').next().unwrap_or(".");
                    let d = crate::pointers::resolve(dir, pwd, self.home).ok_or("use flake's folder")?;
                    self.protect(&d.join("flake.nix"));
                    self.protect(&d.join("flake.lock"));
                } else if args.first().is_some_and(|w| w.unknown) {
                    return Err("use flake of a name held in a variable".into());
                }
            }
            ("use", "guix") => {
                for a in args.iter().filter(|a| !a.unknown) {
                    let v = a.text.split_once('=').map_or(a.text.as_str(), |(_, v)| v);
                    if let Some(p) = crate::pointers::resolve(v, pwd, self.home).filter(|p| p.is_file()) {
                        self.protect(&p);
                    }
                }
            }
            ("use", "vim") => {
                let f = literal(0).unwrap_or_else(|| ".vimrc.local".into());
                let p = crate::pointers::resolve(&f, pwd, self.home).ok_or("use vim's file")?;
                self.protect(&p);
            }
            _ => return Err(format!("{verb} {kind} is not in direnv's standard library")),
        }
        Ok(())
    }
}

/// Does a folder pattern hold a `*`?
pub(crate) fn has_glob(p: &Path) -> bool {
    p.to_string_lossy().contains('*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(root: &Path, envrc: &str) -> Found {
        std::fs::write(root.join(".envrc"), envrc).expect("write");
        let writable = vec![root.to_path_buf()];
        let ctx = Ctx { writable: &writable };
        let mut found = Found::default();
        protect(root, None, &ctx, &mut found);
        found
    }

    /// The programs the reader passes over as loading nothing are the ones `direnv.rs` listed
    /// before their records held the facts; a program named by a path is never one.
    #[test]
    fn the_inert_programs_are_the_ones_listed_before() {
        let before = ["echo", "printf", "true", "false", "local", "declare", "typeset", "readonly", "export"];
        for p in before {
            assert!(inert_program(p), "{p}");
        }
        for p in ["./echo", "/usr/bin/export", "env", "cat", "source", "eval", "command", "nosuch", ""] {
            assert!(!inert_program(p), "{p}");
        }
    }

    /// What each `.envrc` line loads is protected; one case a line: (text, read-only paths,
    /// placeholders, PATH folders, guarded).
    #[test]
    fn what_an_envrc_loads_is_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("real");
        std::fs::create_dir_all(root.join("env")).expect("mkdir");
        std::fs::write(root.join("env/dev.sh"), "source_env_if_exists ../.envrc.private\nPATH_add tools\n")
            .expect("write");
        std::fs::write(root.join("shell.nix"), "").expect("write");
        std::fs::write(root.join("gen.sh"), "").expect("write");
        let r = |p: &str| root.join(p);
        type Case<'a> = (&'a str, Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>, bool);
        let cases: Vec<Case<'_>> = vec![
            ("source_env_if_exists .envrc.local", vec![], vec![r(".envrc.local")], vec![], false),
            ("source_env env/dev.sh", vec![r("env/dev.sh")], vec![r(".envrc.private")], vec![r("env/tools")], false),
            ("[ -f x ] && source ./lib/x.sh # comment", vec![], vec![r("lib")], vec![], false),
            ("dotenv_if_exists .env.dev\ndotenv", vec![], vec![r(".env.dev"), r(".env")], vec![], false),
            ("PATH_add bin\nmytool --init", vec![], vec![r("bin")], vec![r("bin")], false),
            ("export PATH=\"$PWD/bin:$PATH\"", vec![], vec![], vec![r("bin")], false),
            ("layout python3", vec![], vec![], vec![r(".direnv/python-*/bin"), r(".direnv/virtualenv/bin")], false),
            ("layout node\nuse nix", vec![r("shell.nix")], vec![r("default.nix")], vec![r("node_modules/.bin")], false),
            ("export V=$(./gen.sh)\nwatch_file package.json", vec![r("gen.sh")], vec![], vec![], false),
            (
                "if on_git_branch main; then\n  source_env .envrc.main\nfi",
                vec![],
                vec![r(".envrc.main")],
                vec![],
                false,
            ),
            ("for f in env/*.sh; do source \"$f\"; done", vec![], vec![], vec![], true),
            ("source_env \"$SOMEWHERE\"", vec![], vec![], vec![], true),
            ("layout my_own", vec![], vec![], vec![], true),
            ("eval \"$(thing)\"", vec![], vec![], vec![], true),
            ("cat <<EOF\nx\nEOF", vec![], vec![], vec![], true),
            ("use_flake() { source .direnv/cache.rc; }\nuse flake", vec![], vec![r(".direnv")], vec![], false),
        ];
        for (text, ro, holders, path, guarded) in cases {
            let f = read(&root, text);
            let ro_got: Vec<PathBuf> =
                f.read_only.iter().map(|(p, _)| p.clone()).filter(|p| !f.placeholders.contains(p)).collect();
            assert_eq!(ro_got, ro, "{text:?}: read-only");
            assert_eq!(f.placeholders, holders, "{text:?}: placeholders");
            assert_eq!(f.path_folders, path, "{text:?}: PATH folders");
            assert_eq!(!f.guarded.is_empty(), guarded, "{text:?}: guarded {:?}", f.guarded);
            if guarded {
                assert_eq!(f.guarded[0].0, root, "the root's .envrc guards the project");
            }
        }
    }

    #[test]
    fn allowed_envrc_files_inside_or_above_the_root_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(dir.path()).expect("real");
        let (root, home) = (base.join("w/proj"), base.join("home"));
        for d in ["w/proj/sub", "elsewhere", "home/.local/share/direnv/allow"] {
            std::fs::create_dir_all(base.join(d)).expect("mkdir");
        }
        for (f, allowed) in [("w/.envrc", true), ("w/proj/sub/.envrc", true), ("elsewhere/.envrc", true)] {
            std::fs::write(base.join(f), "").expect("write");
            if allowed {
                let name = f.replace('/', "_");
                std::fs::write(
                    home.join(".local/share/direnv/allow").join(name),
                    format!("{}\n", base.join(f).display()),
                )
                .expect("write");
            }
        }
        let mut got = envrc_files(&root, Some(&home));
        got.sort();
        assert_eq!(got, vec![base.join("w/.envrc"), base.join("w/proj/sub/.envrc")]);
        assert_eq!(
            defined_functions("use_x() {\nfunction layout_y {\n  not_one\nfunction z\n"),
            vec!["use_x", "layout_y", "z"]
        );
    }
}
