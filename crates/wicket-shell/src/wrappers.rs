//! Seeing through wrapper programs. The hard question: which argv actually runs when a command
//! is `sudo -u root env FOO=1 timeout 5 rm -rf /`, `find . -exec rm {} ;` or
//! `bash -c 'rm -rf /'`? Only **deny** rules may use this view: an allow rule matches the
//! command as written ([`SimpleCommand::canonical`]), because `sudo rm` is not `rm`. When an
//! argument that decides what runs is not static (or a string cannot be re-parsed), the result
//! is not understood, so a caller can fail closed instead of missing a deny.

use std::collections::VecDeque;

use crate::types::*;
use crate::walk::{analyze, snippet};

/// How many times strings are re-parsed inside each other (`bash -c "sh -c '…'"`) before the
/// result is not understood ([`ProblemKind::TooDeep`]).
pub const MAX_REPARSE_DEPTH: u32 = 8;
/// At most this many argvs are produced for one command ([`ProblemKind::TooManyParts`]).
const MAX_ARGVS: usize = 256;

/// What [`strip_wrappers`] found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unwrapped {
    /// Every argv that could run, in discovery order: the command as written first, then each
    /// layer with one wrapper removed (`sudo env rm x` → `env rm x` → `rm x`), then the
    /// commands of re-parsed strings and their own layers. Deny rules should be checked against
    /// every entry.
    pub argvs: Vec<Vec<Word>>,
    /// The simple commands parsed out of strings (`bash -c`, `sh -c`, `eval`, `watch`,
    /// `flock -c`, `su -c`, `trap`, `env -S`), with [`Context::Nested`]. Their redirections are
    /// file writes like any other; their words are also in `argvs`.
    pub nested: Vec<SimpleCommand>,
    /// False when something that decides what runs could not be resolved statically: a
    /// non-static program or wrapper option, a string that does not parse, an unknown wrapper
    /// flag, or re-parsing deeper than [`MAX_REPARSE_DEPTH`]. A caller must then assume any
    /// deny rule may apply.
    pub understood: bool,
    /// Why `understood` is false.
    pub problems: Vec<Problem>,
}

impl Unwrapped {
    fn problem(&mut self, kind: ProblemKind, detail: String) {
        self.understood = false;
        let same_kind = self.problems.iter().filter(|p| p.kind == kind).count();
        if same_kind < 4 && !self.problems.iter().any(|p| p.kind == kind && p.detail == detail) {
            self.problems.push(Problem { kind, detail });
        }
    }
}

/// What one wrapper layer hides.
enum Inner {
    /// An argv that runs (same re-parse depth).
    Argv(Vec<Word>),
    /// An argv obtained by splitting a string (`env -S`): one re-parse level deeper.
    Resplit(Vec<Word>),
    /// A shell script string.
    Script(String),
}

type Step = Result<Vec<Inner>, (ProblemKind, String)>;

/// Every argv that could run when `cmd` runs, seeing through wrappers: `sudo`, `doas`, `env`,
/// `exec`, `command`, `builtin`, `nice`, `ionice`, `nohup`, `timeout`, `time`, `stdbuf`,
/// `setsid`, `watch`, `flock`, `xargs`, `coproc`, `find -exec/-execdir/-ok/-okdir`, and shell
/// strings of `bash|sh|zsh|dash|ksh|mksh -c`, `eval`, `su -c` and `trap`, which are re-parsed
/// with [`analyze`](crate::analyze) up to [`MAX_REPARSE_DEPTH`] levels.
///
/// Use this for **deny** rules only. Allow rules match [`SimpleCommand::canonical`], the
/// command as written.
///
/// ```
/// let a = wicket_shell::analyze("sudo -u root timeout 5 bash -c 'rm -rf /'");
/// let u = wicket_shell::strip_wrappers(&a.commands[0]);
/// assert!(u.understood);
/// let programs: Vec<&str> = u.argvs.iter().filter_map(|a| a[0].value.as_deref()).collect();
/// assert_eq!(programs, ["sudo", "timeout", "bash", "rm"]);
/// ```
pub fn strip_wrappers(cmd: &SimpleCommand) -> Unwrapped {
    let mut out = Unwrapped { understood: true, ..Unwrapped::default() };
    let mut queue: VecDeque<(Vec<Word>, u32)> = VecDeque::new();
    queue.push_back((cmd.words.clone(), 0));
    while let Some((argv, depth)) = queue.pop_front() {
        if argv.is_empty() {
            continue;
        }
        if out.argvs.len() >= MAX_ARGVS {
            out.problem(ProblemKind::TooManyParts, format!("more than {MAX_ARGVS} argvs behind wrappers"));
            break;
        }
        out.argvs.push(argv.clone());
        let Some(program) = argv[0].value.as_deref() else {
            let raw = snippet(&argv[0].raw);
            out.problem(ProblemKind::DynamicProgram, format!("the program `{raw}` is not known before running"));
            continue;
        };
        let name = program.rsplit('/').next().unwrap_or(program);
        match unwrap_one(name, &argv[1..]) {
            Err((kind, detail)) => out.problem(kind, detail),
            Ok(inners) => {
                for inner in inners {
                    match inner {
                        Inner::Argv(a) => queue.push_back((a, depth)),
                        Inner::Resplit(a) if depth < MAX_REPARSE_DEPTH => queue.push_back((a, depth + 1)),
                        Inner::Script(s) if depth < MAX_REPARSE_DEPTH => {
                            let analysis = analyze(&s);
                            if !analysis.understood {
                                out.understood = false;
                                for p in analysis.problems {
                                    out.problem(p.kind, p.detail);
                                }
                            }
                            for mut c in analysis.commands {
                                c.context = Context::Nested;
                                queue.push_back((c.words.clone(), depth + 1));
                                out.nested.push(c);
                            }
                        }
                        Inner::Resplit(_) | Inner::Script(_) => out.problem(
                            ProblemKind::TooDeep,
                            format!("strings re-parsed more than {MAX_REPARSE_DEPTH} levels deep"),
                        ),
                    }
                }
            }
        }
    }
    out
}

/// Option syntax of one wrapper.
struct Spec {
    /// Short flags without an argument.
    flags: &'static str,
    /// Short options that take an argument (joined or next word).
    with_arg: &'static str,
    /// Short options whose argument is optional and only ever joined (`xargs -i`, `-e`, `-l`).
    optional_joined: &'static str,
    /// Long options that take an argument (`--user root` or `--user=root`).
    long_with_arg: &'static [&'static str],
    /// Long options without an argument (with `=value` they are accepted too).
    long_flags: &'static [&'static str],
    /// `-NUMBER` is an option (`nice -10`).
    numeric: bool,
}

const NO_OPTS: Spec =
    Spec { flags: "", with_arg: "", optional_joined: "", long_with_arg: &[], long_flags: &[], numeric: false };

/// The result of reading options: index of the first operand and the options seen.
struct Parsed {
    operands: usize,
    seen: Vec<(String, Option<Word>)>,
}

impl Parsed {
    fn has(&self, opt: &str) -> bool {
        self.seen.iter().any(|(o, _)| o == opt)
    }

    fn value(&self, opt: &str) -> Option<&Word> {
        self.seen.iter().find(|(o, _)| o == opt).and_then(|(_, v)| v.as_ref())
    }
}

fn not_static(word: &Word) -> (ProblemKind, String) {
    let raw = snippet(&word.raw);
    (ProblemKind::DynamicProgram, format!("wrapper argument `{raw}` is not known before running"))
}

/// Reads options from `args` up to the first operand (options are not permuted after it).
fn options(program: &str, args: &[Word], spec: &Spec) -> Result<Parsed, (ProblemKind, String)> {
    let mut seen = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let Some(v) = word.value.as_deref() else {
            return Err(not_static(word));
        };
        if v == "--" {
            i += 1;
            break;
        }
        if !v.starts_with('-') || v == "-" {
            break;
        }
        if let Some(long) = v.strip_prefix("--") {
            let (name, joined) = match long.split_once('=') {
                Some((n, val)) => (n, Some(val)),
                None => (long, None),
            };
            let key = format!("--{name}");
            if spec.long_with_arg.contains(&name) {
                match joined {
                    Some(val) => seen.push((key, Some(literal_word(val)))),
                    None => {
                        let value = args.get(i + 1).cloned();
                        if value.is_none() {
                            return Err((ProblemKind::Unsupported, format!("`{program} --{name}` needs a value")));
                        }
                        seen.push((key, value));
                        i += 1;
                    }
                }
            } else if spec.long_flags.contains(&name) || (spec.numeric && name.bytes().all(|b| b.is_ascii_digit())) {
                seen.push((key, joined.map(literal_word)));
            } else {
                return Err((ProblemKind::Unsupported, format!("unknown option `--{name}` of `{program}`")));
            }
            i += 1;
            continue;
        }
        let cluster = &v[1..];
        if spec.numeric && cluster.bytes().all(|b| b.is_ascii_digit()) {
            seen.push(("-n".to_string(), Some(literal_word(cluster))));
            i += 1;
            continue;
        }
        let mut consumed_next = false;
        for (pos, c) in cluster.char_indices() {
            let rest = &cluster[pos + c.len_utf8()..];
            if spec.with_arg.contains(c) {
                if rest.is_empty() {
                    let Some(value) = args.get(i + 1) else {
                        return Err((ProblemKind::Unsupported, format!("`{program} -{c}` needs a value")));
                    };
                    seen.push((format!("-{c}"), Some(value.clone())));
                    consumed_next = true;
                } else {
                    seen.push((format!("-{c}"), Some(literal_word(rest))));
                }
                break;
            } else if spec.optional_joined.contains(c) {
                seen.push((format!("-{c}"), if rest.is_empty() { None } else { Some(literal_word(rest)) }));
                break;
            } else if spec.flags.contains(c) {
                seen.push((format!("-{c}"), None));
            } else {
                return Err((ProblemKind::Unsupported, format!("unknown option `-{c}` of `{program}`")));
            }
        }
        i += if consumed_next { 2 } else { 1 };
    }
    Ok(Parsed { operands: i.min(args.len()), seen })
}

fn literal_word(s: &str) -> Word {
    Word { value: Some(s.to_string()), raw: s.to_string(), quoted: false, glob: false }
}

fn is_env_assignment(word: &Word) -> bool {
    let Some(v) = word.value.as_deref() else {
        return false;
    };
    let Some((name, _)) = v.split_once('=') else {
        return false;
    };
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Skips `NAME=value` words.
fn skip_assignments(args: &[Word]) -> &[Word] {
    let n = args.iter().take_while(|w| is_env_assignment(w)).count();
    &args[n..]
}

fn run(args: &[Word]) -> Vec<Inner> {
    if args.is_empty() {
        Vec::new()
    } else {
        vec![Inner::Argv(args.to_vec())]
    }
}

fn script_of(word: &Word) -> Step {
    match word.value.as_deref() {
        Some(s) => Ok(vec![Inner::Script(s.to_string())]),
        None => Err(not_static(word)),
    }
}

/// Joins words into one script string (`eval a b`, `watch cmd args`).
fn joined_script(args: &[Word]) -> Step {
    let mut s = String::new();
    for (i, w) in args.iter().enumerate() {
        let Some(v) = w.value.as_deref() else {
            return Err(not_static(w));
        };
        if i > 0 {
            s.push(' ');
        }
        s.push_str(v);
    }
    if s.trim().is_empty() {
        Ok(Vec::new())
    } else {
        Ok(vec![Inner::Script(s)])
    }
}

/// One layer: what `name args…` runs, if `name` is a wrapper.
fn unwrap_one(name: &str, args: &[Word]) -> Step {
    match name {
        "sudo" => sudo(args),
        "doas" => {
            let spec = Spec { flags: "nsL", with_arg: "uC", ..NO_OPTS };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "env" => env(args),
        "exec" => {
            let p = options(name, args, &Spec { flags: "cl", with_arg: "a", ..NO_OPTS })?;
            Ok(run(&args[p.operands..]))
        }
        "command" => {
            let p = options(name, args, &Spec { flags: "pvV", ..NO_OPTS })?;
            if p.has("-v") || p.has("-V") {
                return Ok(Vec::new());
            }
            Ok(run(&args[p.operands..]))
        }
        "builtin" => {
            let p = options(name, args, &NO_OPTS)?;
            Ok(run(&args[p.operands..]))
        }
        "nohup" | "coproc" => {
            let p = options(name, args, &NO_OPTS)?;
            Ok(run(&args[p.operands..]))
        }
        "nice" => {
            let spec = Spec { with_arg: "n", long_with_arg: &["adjustment"], numeric: true, ..NO_OPTS };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "ionice" => {
            let spec = Spec {
                flags: "t",
                with_arg: "cnpPu",
                long_with_arg: &["class", "classdata", "pid", "pgid", "uid"],
                long_flags: &["ignore"],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            if ["-p", "-P", "-u", "--pid", "--pgid", "--uid"].iter().any(|o| p.has(o)) {
                return Ok(Vec::new());
            }
            Ok(run(&args[p.operands..]))
        }
        "timeout" => {
            let spec = Spec {
                flags: "v",
                with_arg: "ks",
                long_with_arg: &["kill-after", "signal"],
                long_flags: &["preserve-status", "foreground", "verbose"],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            // DURATION, then the command.
            Ok(run(args.get(p.operands + 1..).unwrap_or(&[])))
        }
        "time" => {
            let spec = Spec {
                flags: "pavq",
                with_arg: "of",
                long_with_arg: &["output", "format"],
                long_flags: &["append", "verbose", "quiet", "portability"],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "stdbuf" => {
            let spec = Spec { with_arg: "ioe", long_with_arg: &["input", "output", "error"], ..NO_OPTS };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "setsid" => {
            let spec = Spec { flags: "cfw", long_flags: &["ctty", "fork", "wait"], ..NO_OPTS };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "watch" => {
            let spec = Spec {
                flags: "bcCdegprtwx",
                with_arg: "nq",
                long_with_arg: &["interval", "equexit"],
                long_flags: &[
                    "beep",
                    "color",
                    "no-color",
                    "differences",
                    "errexit",
                    "chgexit",
                    "precise",
                    "no-rerun",
                    "no-title",
                    "no-wrap",
                    "exec",
                ],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            let rest = &args[p.operands..];
            if p.has("-x") || p.has("--exec") {
                Ok(run(rest))
            } else {
                joined_script(rest)
            }
        }
        "flock" => flock(args),
        "xargs" => xargs(args),
        "find" => Ok(find_exec(args)),
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "rbash" => shell(name, args),
        "eval" => {
            let p = options(name, args, &NO_OPTS)?;
            joined_script(&args[p.operands..])
        }
        "su" => su(args),
        "trap" => trap(args),
        _ => Ok(Vec::new()),
    }
}

fn sudo(args: &[Word]) -> Step {
    let spec = Spec {
        flags: "ABbEeHiKklNnPSsVv",
        with_arg: "CDghpRrtTUu",
        long_with_arg: &[
            "close-from",
            "chdir",
            "group",
            "host",
            "prompt",
            "chroot",
            "role",
            "type",
            "command-timeout",
            "other-user",
            "user",
        ],
        long_flags: &[
            "askpass",
            "background",
            "bell",
            "preserve-env",
            "edit",
            "set-home",
            "login",
            "remove-timestamp",
            "reset-timestamp",
            "list",
            "non-interactive",
            "preserve-groups",
            "stdin",
            "shell",
            "version",
            "validate",
            "help",
        ],
        ..NO_OPTS
    };
    let p = options("sudo", args, &spec)?;
    if p.has("-e") || p.has("--edit") {
        // sudoedit: the operands are files.
        return Ok(Vec::new());
    }
    Ok(run(skip_assignments(&args[p.operands..])))
}

fn env(args: &[Word]) -> Step {
    let spec = Spec {
        flags: "i0v",
        with_arg: "uCSP",
        long_with_arg: &["unset", "chdir", "split-string"],
        long_flags: &[
            "ignore-environment",
            "null",
            "debug",
            "block-signal",
            "default-signal",
            "ignore-signal",
            "list-signal-handling",
        ],
        ..NO_OPTS
    };
    let p = options("env", args, &spec)?;
    let mut rest = &args[p.operands..];
    if rest.first().is_some_and(|w| w.value.as_deref() == Some("-")) {
        rest = &rest[1..];
    }
    let rest = skip_assignments(rest);
    let split = p.value("-S").or_else(|| p.value("--split-string"));
    if let Some(s) = split {
        // `-S STRING` splits STRING into arguments that come before the remaining operands.
        let Some(text) = s.value.as_deref() else {
            return Err(not_static(s));
        };
        let analysis = analyze(text);
        let [only] = analysis.commands.as_slice() else {
            return Err((
                ProblemKind::Unsupported,
                format!("`env -S` string `{}` is not one simple command", snippet(text)),
            ));
        };
        if !analysis.understood || !only.redirects.is_empty() {
            return Err((
                ProblemKind::Unsupported,
                format!("`env -S` string `{}` cannot be split statically", snippet(text)),
            ));
        }
        let mut argv = vec![literal_word("env")];
        argv.extend(only.assignments.iter().map(|a| {
            let v = format!("{}={}", a.name, a.value.value.as_deref().unwrap_or(&a.value.raw));
            Word { value: a.value.value.as_ref().map(|_| v.clone()), raw: v, quoted: a.value.quoted, glob: false }
        }));
        argv.extend(only.words.iter().cloned());
        argv.extend(rest.iter().cloned());
        return Ok(vec![Inner::Resplit(argv)]);
    }
    Ok(run(rest))
}

fn flock(args: &[Word]) -> Step {
    let spec = Spec {
        flags: "sexunoFhV",
        with_arg: "wEc",
        long_with_arg: &["timeout", "wait", "conflict-exit-code", "command"],
        long_flags: &["shared", "exclusive", "unlock", "nonblock", "close", "no-fork", "verbose", "help", "version"],
        ..NO_OPTS
    };
    let p = options("flock", args, &spec)?;
    if let Some(cmd) = p.value("-c").or_else(|| p.value("--command")) {
        return script_of(cmd);
    }
    // LOCKFILE, then `-c STRING` or a command.
    let rest = args.get(p.operands + 1..).unwrap_or(&[]);
    match rest.first().map(|w| w.value.as_deref()) {
        Some(Some("-c" | "--command")) => match rest.get(1) {
            Some(s) => script_of(s),
            None => Err((ProblemKind::Unsupported, "`flock -c` without a command".to_string())),
        },
        Some(None) => Err(not_static(&rest[0])),
        _ => Ok(run(rest)),
    }
}

fn xargs(args: &[Word]) -> Step {
    let spec = Spec {
        flags: "0prtxo",
        with_arg: "IndPaEsL",
        optional_joined: "iel",
        long_with_arg: &[
            "arg-file",
            "delimiter",
            "max-args",
            "max-procs",
            "max-chars",
            "max-lines",
            "process-slot-var",
        ],
        long_flags: &[
            "null",
            "no-run-if-empty",
            "verbose",
            "interactive",
            "exit",
            "open-tty",
            "show-limits",
            "replace",
            "eof",
        ],
        ..NO_OPTS
    };
    let p = options("xargs", args, &spec)?;
    let rest = &args[p.operands..];
    if rest.is_empty() {
        return Ok(vec![Inner::Argv(vec![literal_word("echo")])]);
    }
    Ok(run(rest))
}

/// The commands of `-exec`, `-execdir`, `-ok` and `-okdir`, up to `;` or `{} +`.
fn find_exec(args: &[Word]) -> Vec<Inner> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let is_exec = matches!(args[i].value.as_deref(), Some("-exec" | "-execdir" | "-ok" | "-okdir"));
        i += 1;
        if !is_exec {
            continue;
        }
        let start = i;
        while i < args.len() {
            let v = args[i].value.as_deref();
            let ends = v == Some(";") || (v == Some("+") && i > start && args[i - 1].value.as_deref() == Some("{}"));
            if ends {
                break;
            }
            i += 1;
        }
        if i > start {
            found.push(Inner::Argv(args[start..i].to_vec()));
        }
        i += 1;
    }
    found
}

fn shell(name: &str, args: &[Word]) -> Step {
    let mut i = 0;
    let mut dash_c = false;
    while let Some(word) = args.get(i) {
        let Some(v) = word.value.as_deref() else {
            return Err(not_static(word));
        };
        if v == "--" || v == "-" {
            i += 1;
            break;
        }
        if let Some(long) = v.strip_prefix("--") {
            i += if matches!(long, "rcfile" | "init-file") { 2 } else { 1 };
            continue;
        }
        let Some(cluster) = v.strip_prefix('-').or_else(|| v.strip_prefix('+')) else {
            break;
        };
        let mut takes_next = 0;
        for c in cluster.chars() {
            match c {
                'c' => dash_c = true,
                'o' | 'O' => takes_next += 1,
                _ => {}
            }
        }
        i += 1 + takes_next;
    }
    if !dash_c {
        // A script file or standard input: what runs is that program itself.
        return Ok(Vec::new());
    }
    match args.get(i) {
        Some(s) => script_of(s),
        None => Err((ProblemKind::Unsupported, format!("`{name} -c` without a command string"))),
    }
}

fn su(args: &[Word]) -> Step {
    for (i, w) in args.iter().enumerate() {
        let Some(v) = w.value.as_deref() else {
            continue;
        };
        if matches!(v, "-c" | "--command" | "--session-command") {
            return match args.get(i + 1) {
                Some(s) => script_of(s),
                None => Err((ProblemKind::Unsupported, "`su -c` without a command".to_string())),
            };
        }
        if let Some(s) = v.strip_prefix("--command=").or_else(|| v.strip_prefix("--session-command=")) {
            return Ok(vec![Inner::Script(s.to_string())]);
        }
    }
    if args.iter().any(|w| w.value.is_none()) {
        return Err((ProblemKind::Unsupported, "`su` with arguments not known before running".to_string()));
    }
    Ok(Vec::new())
}

fn trap(args: &[Word]) -> Step {
    let args = match args.first().and_then(|w| w.value.as_deref()) {
        Some("--") => &args[1..],
        Some(v) if v.starts_with('-') && v != "-" => return Ok(Vec::new()),
        _ => args,
    };
    match args {
        [action, _signal, ..] => match action.value.as_deref() {
            Some("-" | "") => Ok(Vec::new()),
            _ => script_of(action),
        },
        _ => Ok(Vec::new()),
    }
}
