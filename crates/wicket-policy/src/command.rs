//! A command line as the engine sees it: its parts, their wrapper-stripped forms for deny
//! rules, the files its redirections touch, and the arguments that look like paths.
//!
//! The hard question: what will this command line really run, and what can we not know? Allow
//! rules see each part as written; deny rules see through wrappers; anything the parser could
//! not resolve is listed in `doubts`, and a command with doubts is never auto-allowed.

use wicket_shell::{Analysis, RedirectOp, SimpleCommand, Word};

/// One simple command of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Assignments and words re-rendered with single spaces: what allow rules match.
    pub written: String,
    /// Every form a deny rule is matched against: as written, without assignments, each argv
    /// that runs after wrappers are stripped, and the program's base name for `/bin/rm`.
    pub deny_texts: Vec<String>,
    /// True when every word is known statically.
    pub is_static: bool,
    /// True when an allow rule may cover it: static, or its dynamic words are harmless.
    pub coverable: bool,
    /// For a part with dynamic words: the static words before the first dynamic one, each
    /// followed by a space (`git ` for `git $(echo push)`), so deny rules that could match
    /// cannot be ruled out.
    pub static_prefix: Option<String>,
    /// True when the part has leading `NAME=value` assignments.
    pub has_assignments: bool,
    /// Flags and variables that make this part run programs or write files (`-exec`,
    /// `NODE_OPTIONS=`): an allow rule must spell each one out.
    pub risky: Vec<String>,
    /// What runs inside it once wrappers are seen through (`sudo X`, `bash -c 'X; Y'`,
    /// `find -exec X`): each must be covered by an allow rule of its own.
    pub inner: Vec<Inner>,
}

/// A command that runs inside a part's wrapper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inner {
    /// The argv re-rendered with single spaces.
    pub written: String,
    /// Its risky flags.
    pub risky: Vec<String>,
}

/// A redirection's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectFile {
    /// The file as written (`~` not yet expanded).
    pub path: String,
    /// True for writes, false for reads.
    pub write: bool,
}

/// The engine's view of one command line.
#[derive(Debug, Clone)]
pub struct CommandView {
    /// The command line as given.
    pub command: String,
    /// The parser's analysis.
    pub analysis: Analysis,
    /// The simple commands.
    pub parts: Vec<Part>,
    /// Files redirected to or from.
    pub files: Vec<RedirectFile>,
    /// Static argument words, for the sensitive-path check, with whether each is a glob.
    pub args: Vec<(String, bool)>,
    /// Files the command writes through its arguments (`tee F`, `cp A F`, `sed -i … F`).
    pub writes: Vec<String>,
    /// Writes whose target is not known before the command runs (`> $OUT`, `cp a $DEST`):
    /// no rule can cover them; only the sandbox or a person can.
    pub unknown_writes: Vec<String>,
    /// Why the command can never be auto-allowed (parse problems, invisible characters,
    /// dynamic redirect targets). Empty for a fully understood command.
    pub doubts: Vec<String>,
    /// Script files a shell runs (`bash FILE`): code nobody has read. No allow rule but
    /// `tool(*)` covers it and no deny rule can be ruled out; the OS sandbox still confines it.
    pub unseen_scripts: Vec<String>,
}

impl CommandView {
    /// True when the parser understood every part.
    pub fn understood(&self) -> bool {
        self.analysis.understood
    }

    /// True for a single static command with no operators, redirections or assignments.
    pub fn is_simple(&self) -> bool {
        self.analysis.understood
            && !self.analysis.compound
            && self.parts.len() == 1
            && self.parts[0].is_static
            && !self.parts[0].has_assignments
            && self.parts[0].risky.is_empty()
            && self.files.is_empty()
            && self.writes.is_empty()
            && self.unknown_writes.is_empty()
    }
}

/// Files a redirection may name that are not files on disk.
fn is_device(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero")
        || path.starts_with("/dev/fd/")
}

/// The files a command's redirections read or write; a target not known statically is an
/// unknown write.
fn collect_files(redirects: &[wicket_shell::Redirect], files: &mut Vec<RedirectFile>, unknown: &mut Vec<String>) {
    for r in redirects {
        let write = r.op.writes();
        if !write && r.op != RedirectOp::Read {
            continue;
        }
        match &r.target.value {
            Some(p) if is_device(p) => {}
            Some(p) => files.push(RedirectFile { path: p.clone(), write }),
            None => {
                unknown.push(format!("the redirection target `{}` is not known before the command runs", r.target.raw))
            }
        }
    }
}

/// The risky flags of an argv (static words only; a dynamic word is already a doubt).
fn risky_of(words: &[Word]) -> Vec<String> {
    let texts: Vec<&str> = words.iter().map(|w| w.value.as_deref().unwrap_or(&w.raw)).collect();
    crate::flags::risky_flags(&texts)
}

/// The files an argv writes through its arguments.
fn collect_writes(words: &[Word], writes: &mut Vec<String>, unknown: &mut Vec<String>) {
    let values: Vec<Option<&str>> = words.iter().map(|w| w.value.as_deref()).collect();
    for w in crate::flags::write_args(&values) {
        match w {
            Some(p) if is_device(&p) => {}
            Some(p) => writes.push(p),
            None => unknown.push(format!(
                "`{}` writes a file whose name is not known before the command runs",
                values.first().copied().flatten().unwrap_or("the command")
            )),
        }
    }
}

/// At most 60 characters of a text, for reasons.
fn short_text(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn render(words: &[Word]) -> String {
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(w.value.as_deref().unwrap_or(&w.raw));
    }
    out
}

fn written(cmd: &SimpleCommand) -> String {
    let mut out = String::new();
    for a in &cmd.assignments {
        out.push_str(&a.name);
        out.push('=');
        out.push_str(a.value.value.as_deref().unwrap_or(&a.value.raw));
        out.push(' ');
    }
    out.push_str(&cmd.canonical());
    out.trim_end().to_string()
}

/// Shells that run a script read from stdin when given no `-c` and no script file.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "rbash"];

/// Programs whose arguments are only printed: a dynamic argument cannot make them do more.
const INERT_PROGRAMS: &[&str] = &["echo", "printf", "true", "false", ":"];

/// What the walk over a command line's simple commands collects.
#[derive(Default)]
struct Builder {
    parts: Vec<Part>,
    files: Vec<RedirectFile>,
    args: Vec<(String, bool)>,
    writes: Vec<String>,
    unknown_writes: Vec<String>,
    doubts: Vec<String>,
    unseen_scripts: Vec<String>,
}

/// How deep scripts fed to a shell on stdin are followed (`sh <<EOF … sh <<EOF2 …`).
const MAX_STDIN_SCRIPT_DEPTH: u32 = 4;

/// Build the view of a command line.
pub fn view(command: &str) -> CommandView {
    let analysis = wicket_shell::analyze(command);
    let mut b = Builder { doubts: analysis.problems.iter().map(|p| p.detail.clone()).collect(), ..Builder::default() };
    if let Some(found) = invisible_chars(command) {
        b.doubts.push(format!("the command holds invisible or control characters: {found}"));
    }
    if let Some(word) = confusable_word(command) {
        b.doubts.push(format!("`{word}` mixes look-alike letters from another script with ASCII"));
    }
    if analysis.commands.iter().any(|c| c.context == wicket_shell::Context::Function) {
        b.doubts.push("the command defines a shell function, which changes what later commands run".to_string());
    }
    for cmd in &analysis.commands {
        let part = b.add(cmd, 0);
        b.parts.push(part);
    }
    b.writes.sort();
    b.writes.dedup();
    // A secret's name inside a larger string (a `python3 -c` script, a URL, a here-doc).
    let texts = analysis.commands.iter().flat_map(|c| {
        c.words.iter().chain(c.assignments.iter().map(|a| &a.value)).chain(c.redirects.iter().map(|r| &r.target))
    });
    for w in texts {
        let text = w.value.as_deref().unwrap_or(&w.raw);
        if text.contains([' ', '\n', ';', '(', ':', '\'', '"', '$']) {
            if let Some(token) = crate::lists::secret_token_in(text) {
                b.doubts.push(format!("the text `{}` names the secret `{token}`", short_text(text)));
                break;
            }
        }
    }
    CommandView {
        command: command.to_string(),
        analysis,
        parts: b.parts,
        files: b.files,
        args: b.args,
        writes: b.writes,
        unknown_writes: b.unknown_writes,
        doubts: b.doubts,
        unseen_scripts: b.unseen_scripts,
    }
}

impl Builder {
    /// Collect one simple command's files, arguments and writes, and build its part.
    fn add(&mut self, cmd: &SimpleCommand, depth: u32) -> Part {
        collect_files(&cmd.redirects, &mut self.files, &mut self.unknown_writes);
        for w in cmd.words.iter().skip(1).chain(cmd.assignments.iter().map(|a| &a.value)) {
            if let Some(v) = &w.value {
                self.args.push((v.clone(), w.glob));
            }
        }
        collect_writes(&cmd.words, &mut self.writes, &mut self.unknown_writes);
        let mut risky = risky_of(&cmd.words);
        for a in &cmd.assignments {
            if crate::flags::risky_var(&a.name) {
                risky.push(format!("{}=", a.name));
            }
        }
        let text = written(cmd);
        let mut deny_texts = vec![text.clone()];
        let plain = cmd.canonical();
        if plain != text {
            deny_texts.push(plain);
        }
        let unwrapped = wicket_shell::strip_wrappers(cmd);
        if !unwrapped.understood {
            let (scripts, others): (Vec<_>, Vec<_>) =
                unwrapped.problems.iter().partition(|p| p.kind == wicket_shell::ProblemKind::RunsScriptFile);
            self.unseen_scripts.extend(scripts.iter().map(|p| p.detail.clone()));
            if !others.is_empty() || scripts.is_empty() {
                let why: Vec<&str> = others.iter().map(|p| p.detail.as_str()).collect();
                self.doubts.push(format!("cannot see everything `{}` runs ({})", cmd.source, why.join("; ")));
            }
        }
        let mut inner = Vec::new();
        for (k, argv) in unwrapped.argvs.iter().enumerate() {
            let text = render(argv);
            if k > 0 {
                inner.push(Inner { written: text.clone(), risky: risky_of(argv) });
                collect_writes(argv, &mut self.writes, &mut self.unknown_writes);
            }
            let values: Vec<&str> = argv.iter().map(|w| w.value.as_deref().unwrap_or(&w.raw)).collect();
            deny_texts.extend(crate::flags::git_deny_forms(&values));
            // A program with an option table: its options in normal form for deny rules, and
            // the files its options read for the sensitive-path check (`curl -d@.env`).
            if let Some((program, table)) = values.first().and_then(|p| Some((*p, crate::options::program(p)?))) {
                let parsed = table.parse(&values[1..]);
                let base = program.rsplit('/').next().unwrap_or(program);
                deny_texts.push(parsed.normal_form(base));
                self.args.extend(parsed.reads().into_iter().map(|r| (r, false)));
            }
            deny_texts.push(text);
        }
        // Strings run by `bash -c`, `eval` …: their redirections and arguments count too.
        for nested in &unwrapped.nested {
            collect_files(&nested.redirects, &mut self.files, &mut self.unknown_writes);
            self.args.extend(nested.words.iter().skip(1).filter_map(|w| w.value.clone().map(|v| (v, w.glob))));
        }
        // `sh <<EOF … EOF` and `bash <<< '…'`: the shell runs the text on its stdin.
        for script in self.stdin_scripts(cmd) {
            match script {
                None => self.doubts.push(format!("`{}` runs a script whose text is not known", cmd.source)),
                Some(body) if depth >= MAX_STDIN_SCRIPT_DEPTH => {
                    self.doubts.push(format!("scripts fed to a shell are nested too deeply ({})", short_text(&body)));
                }
                Some(body) => {
                    let a = wicket_shell::analyze(&body);
                    if !a.understood {
                        let why: Vec<&str> = a.problems.iter().map(|p| p.detail.as_str()).collect();
                        self.doubts.push(format!(
                            "the script on the stdin of `{}` is not understood ({})",
                            cmd.source,
                            why.join("; ")
                        ));
                    }
                    for c in &a.commands {
                        let sub = self.add(c, depth + 1);
                        deny_texts.extend(sub.deny_texts);
                        inner.push(Inner { written: sub.written, risky: sub.risky });
                        inner.extend(sub.inner);
                    }
                }
            }
        }
        // `/usr/bin/rm -rf x` must meet a deny rule for `rm`.
        let mut basenamed = Vec::new();
        for t in &deny_texts {
            let (prog, rest) = t.split_once(' ').unwrap_or((t.as_str(), ""));
            if let Some((_, base)) = prog.rsplit_once('/') {
                if !base.is_empty() {
                    basenamed.push(if rest.is_empty() { base.to_string() } else { format!("{base} {rest}") });
                }
            }
        }
        deny_texts.extend(basenamed);
        deny_texts.sort();
        deny_texts.dedup();
        let static_prefix = (!cmd.is_static()).then(|| {
            let mut prefix = String::new();
            for w in cmd.words.iter().take_while(|w| w.value.is_some()) {
                prefix.push_str(w.value.as_deref().unwrap_or(""));
                prefix.push(' ');
            }
            prefix
        });
        Part {
            written: text,
            deny_texts,
            is_static: cmd.is_static(),
            coverable: cmd.is_static() || inert_dynamic(cmd),
            static_prefix,
            has_assignments: !cmd.assignments.is_empty(),
            risky,
            inner,
        }
    }

    /// The scripts a shell reads on stdin from here-documents and here-strings (`None` for one
    /// whose text is not known statically). Empty unless the program is a shell with no `-c`
    /// and no script file.
    fn stdin_scripts(&self, cmd: &SimpleCommand) -> Vec<Option<String>> {
        let Some(program) = cmd.words.first().and_then(|w| w.value.as_deref()) else { return Vec::new() };
        let base = program.rsplit('/').next().unwrap_or(program);
        if !SHELLS.contains(&base) {
            return Vec::new();
        }
        let args: Vec<&str> = cmd.words.iter().skip(1).map(|w| w.value.as_deref().unwrap_or(&w.raw)).collect();
        let has_c = args.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'));
        let has_file = args.iter().any(|a| !a.starts_with('-') && !a.starts_with('+'));
        if has_c || (has_file && !args.contains(&"-s")) {
            return Vec::new();
        }
        cmd.redirects
            .iter()
            .filter(|r| matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString))
            .map(|r| r.target.value.clone())
            .collect()
    }
}

/// Are all of a command's dynamic words harmless to an allow rule? They are when each is one
/// whole double-quoted argument (no splitting, no globbing) that is a message (`-m "$(…)"`),
/// or when the program only prints its arguments (`echo "$x"`, `echo $i`).
fn inert_dynamic(cmd: &SimpleCommand) -> bool {
    let Some(program) = cmd.words.first().and_then(|w| w.value.as_deref()) else { return false };
    if !cmd.assignments.iter().all(|a| a.value.value.is_some())
        || !cmd.redirects.iter().all(|r| r.target.value.is_some())
    {
        return false;
    }
    let printer = INERT_PROGRAMS.contains(&program);
    cmd.words.windows(2).all(|pair| {
        let (prev, w) = (&pair[0], &pair[1]);
        if w.value.is_some() {
            return true;
        }
        let whole_quoted = w.raw.len() >= 2 && w.raw.starts_with('"') && w.raw.ends_with('"');
        let message = match program {
            "gh" => matches!(
                prev.value.as_deref(),
                Some("-m" | "--message" | "-b" | "--body" | "-t" | "--title" | "-n" | "--notes")
            ),
            _ => matches!(prev.value.as_deref(), Some("-m" | "--message")),
        };
        // `diff <(ls a) <(ls b)`: the word is a `/dev/fd/N` name; what runs inside is a part of
        // its own that needs its own rule.
        let process_substitution = (w.raw.starts_with("<(") || w.raw.starts_with(">(")) && w.raw.ends_with(')');
        printer || process_substitution || (whole_quoted && message)
    })
}

/// The invisible and control characters of a command or path (one definition for every
/// module: [`crate::text`]).
pub use crate::text::invisible_chars;

/// A word that mixes ASCII letters with letters that look like them (Cyrillic `а`, Greek `ο`,
/// fullwidth `ｇ`, mathematical `𝚐`), or that holds fullwidth or mathematical letters at all:
/// what a person reads as `curl` may be another program.
pub fn confusable_word(s: &str) -> Option<String> {
    for word in s.split(|c: char| {
        c.is_whitespace() || matches!(c, ';' | '|' | '&' | '(' | ')' | '\'' | '"' | '`' | '$' | '=' | '/')
    }) {
        let mut ascii = false;
        let mut lookalike = false;
        let mut exotic = false;
        for c in word.chars() {
            let cp = c as u32;
            ascii |= c.is_ascii_alphabetic();
            lookalike |= matches!(cp, 0x0370..=0x03ff | 0x0400..=0x052f | 0x0530..=0x058f | 0x13a0..=0x13ff | 0x1d00..=0x1dbf | 0x2100..=0x214f);
            exotic |= matches!(cp, 0xff01..=0xff5e | 0x1d400..=0x1d7ff | 0x2460..=0x24ff | 0xa4d0..=0xa4ff);
        }
        if exotic || (ascii && lookalike) {
            return Some(word.to_string());
        }
    }
    None
}

/// Exact read-only commands that run without a question (when the repository's git config
/// cannot make the git ones run code).
pub const SAFE_LIST: &[&str] =
    &["git status", "git log --oneline", "git branch", "pwd", "ls", "dir", "node --version", "npm --version"];

/// Interpreters, shells, downloaders, destructive and privilege tools: "always allow" stores
/// only the exact command for these, never a prefix.
pub const EXACT_ONLY: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "csh",
    "tcsh",
    "pwsh",
    "powershell",
    "cmd",
    "node",
    "nodejs",
    "deno",
    "bun",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "ruby",
    "perl",
    "php",
    "lua",
    "luajit",
    "R",
    "Rscript",
    "julia",
    "java",
    "jshell",
    "groovy",
    "scala",
    "osascript",
    "awk",
    "gawk",
    "mawk",
    "sed",
    "xargs",
    "find",
    "env",
    "eval",
    "exec",
    "npx",
    "pnpx",
    "bunx",
    "uvx",
    "pipx",
    "dlx",
    "curl",
    "wget",
    "aria2c",
    "scp",
    "sftp",
    "rsync",
    "ssh",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ftp",
    "git-remote",
    "rm",
    "rmdir",
    "dd",
    "mkfs",
    "shred",
    "truncate",
    "chmod",
    "chown",
    "chgrp",
    "mv",
    "ln",
    "kill",
    "pkill",
    "killall",
    "sudo",
    "doas",
    "su",
    "pkexec",
    "runas",
    "systemctl",
    "launchctl",
    "crontab",
    "at",
    "mount",
    "umount",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "make",
    "sqlite3",
    "psql",
    "mysql",
    "timeout",
    "nohup",
    "nice",
    "watch",
    "script",
    "tmux",
    "screen",
    "command",
    "builtin",
    "ionice",
    "stdbuf",
    "setsid",
    "flock",
    "time",
    "trap",
    "source",
    "alias",
];

/// The "always allow" rule pattern for a command, or `None` when only a one-time answer fits
/// (compound commands, doubts, sensitive arguments are checked by the caller).
pub fn always_pattern(view: &CommandView) -> Option<String> {
    if !view.is_simple() || !view.doubts.is_empty() {
        return None;
    }
    let cmd = view.analysis.commands.first()?;
    let words: Vec<&str> = cmd.words.iter().filter_map(|w| w.value.as_deref()).collect();
    let program = *words.first()?;
    let exact = view.parts[0].written.clone();
    let risky = !view.parts[0].risky.is_empty() || view.parts[0].inner.iter().any(|i| !i.risky.is_empty());
    if risky || program.contains('/') || EXACT_ONLY.contains(&program) || program.starts_with('.') {
        return Some(exact);
    }
    // A prefix: the program and up to two sub-command words (`npm run build`, `git commit`).
    let mut prefix = vec![program];
    for w in words.iter().skip(1).take(2) {
        let sub = w.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
        if !sub {
            break;
        }
        prefix.push(w);
        // Only `run`-style sub-commands take a second word.
        if !matches!(*w, "run" | "run-script" | "exec" | "x") {
            break;
        }
    }
    Some(format!("{} *", prefix.join(" ")))
}
