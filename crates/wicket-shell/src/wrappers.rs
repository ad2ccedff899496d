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
/// with [`analyze`](crate::analyze) up to [`MAX_REPARSE_DEPTH`] levels; and launchers
/// (`busybox`/`toybox` applets, `unshare`, `taskset`, `chrt`, `prlimit`, `setpriv`, `runuser`,
/// `nsenter`, `chroot`, `strace`, `ltrace`, `script -c`, `parallel`, `fd -x`, `npx`, `npm exec`,
/// `pnpm exec|dlx`, `yarn exec|dlx`, `uv run`, `poetry run`, `bundle exec` …), each read with
/// its own option syntax. `bash FILE`, `expect` and `gdb -ex` run code nobody can read: not
/// understood.
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
        _ => launcher(name, args),
    }
}

/// Launchers and multiplexers: programs whose operands name another program that runs
/// (`busybox rm`, `unshare -r rm`, `taskset -c 0 rm`, `npx rimraf`, `uv run rm`), read with
/// each one's own option syntax so the launched program is found; an option the launcher's
/// parser is not known to take is not understood. Programs that run code the analysis
/// cannot read (`expect`, `gdb -ex`, a `parallel` reading commands from stdin) are not
/// understood either.
fn launcher(name: &str, args: &[Word]) -> Step {
    let unseen = |what: &str| Err((ProblemKind::RunsUnseenCode, format!("`{name}` {what}")));
    match name {
        "busybox" | "toybox" => match args.first().and_then(|w| w.value.as_deref()) {
            Some(v) if v.starts_with('-') => Ok(Vec::new()),
            None if !args.is_empty() => Err(not_static(&args[0])),
            _ => Ok(run(args)),
        },
        "unshare" => {
            let spec = Spec {
                flags: "frcV",
                with_arg: "RwSGl",
                optional_joined: "muinpUCT",
                long_with_arg: &[
                    "propagation",
                    "setgroups",
                    "root",
                    "wd",
                    "setuid",
                    "setgid",
                    "map-user",
                    "map-group",
                    "map-users",
                    "map-groups",
                    "monotonic",
                    "boottime",
                    "load-interp",
                ],
                long_flags: &[
                    "mount",
                    "uts",
                    "ipc",
                    "net",
                    "pid",
                    "user",
                    "cgroup",
                    "time",
                    "fork",
                    "kill-child",
                    "mount-proc",
                    "map-root-user",
                    "map-current-user",
                    "map-auto",
                    "keep-caps",
                    "mount-binfmt",
                    "help",
                    "version",
                ],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "taskset" => {
            let spec =
                Spec { flags: "apchV", long_flags: &["all-tasks", "pid", "cpu-list", "help", "version"], ..NO_OPTS };
            let p = options(name, args, &spec)?;
            if p.has("-p") || p.has("--pid") {
                return Ok(Vec::new());
            }
            // MASK, then the command.
            Ok(run(args.get(p.operands + 1..).unwrap_or(&[])))
        }
        "chrt" => {
            let spec = Spec {
                flags: "abdfiormpvRhV",
                with_arg: "TPD",
                long_with_arg: &["sched-runtime", "sched-period", "sched-deadline"],
                long_flags: &[
                    "all-tasks",
                    "batch",
                    "deadline",
                    "fifo",
                    "idle",
                    "other",
                    "rr",
                    "max",
                    "pid",
                    "verbose",
                    "reset-on-fork",
                    "help",
                    "version",
                ],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            if ["-p", "--pid", "-m", "--max"].iter().any(|o| p.has(o)) {
                return Ok(Vec::new());
            }
            // An optional PRIORITY, then the command.
            let mut rest = &args[p.operands..];
            if rest.first().and_then(|w| w.value.as_deref()).is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit())) {
                rest = &rest[1..];
            }
            Ok(run(rest))
        }
        "prlimit" => {
            let spec = Spec {
                flags: "hV",
                with_arg: "po",
                optional_joined: "cdefilmnqrstuvxy",
                long_with_arg: &["pid", "output"],
                long_flags: &[
                    "core",
                    "data",
                    "nice",
                    "fsize",
                    "sigpending",
                    "memlock",
                    "rss",
                    "nofile",
                    "msgqueue",
                    "rtprio",
                    "stack",
                    "cpu",
                    "nproc",
                    "as",
                    "locks",
                    "rttime",
                    "noheadings",
                    "raw",
                    "verbose",
                    "help",
                    "version",
                ],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            if p.has("-p") || p.has("--pid") {
                return Ok(Vec::new());
            }
            Ok(run(&args[p.operands..]))
        }
        "setpriv" => {
            let spec = Spec {
                flags: "dhV",
                long_with_arg: &[
                    "inh-caps",
                    "ambient-caps",
                    "bounding-set",
                    "groups",
                    "ruid",
                    "euid",
                    "rgid",
                    "egid",
                    "reuid",
                    "regid",
                    "securebits",
                    "pdeathsig",
                    "selinux-label",
                    "apparmor-profile",
                    "landlock-access",
                    "landlock-rule",
                ],
                long_flags: &[
                    "dump",
                    "nnp",
                    "no-new-privs",
                    "keep-groups",
                    "clear-groups",
                    "init-groups",
                    "reset-env",
                    "help",
                    "version",
                ],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            if p.has("-d") || p.has("--dump") {
                return Ok(Vec::new());
            }
            Ok(run(&args[p.operands..]))
        }
        "runuser" => {
            let spec = Spec {
                flags: "lmpfPhV",
                with_arg: "ucgGsw",
                long_with_arg: &[
                    "user",
                    "command",
                    "session-command",
                    "group",
                    "supp-group",
                    "shell",
                    "whitelist-environment",
                ],
                long_flags: &["login", "preserve-environment", "fast", "pty", "help", "version"],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            if let Some(c) = ["-c", "--command", "--session-command"].iter().find_map(|o| p.value(o)) {
                return script_of(c);
            }
            if p.has("-u") || p.has("--user") {
                // `runuser -u USER [--] COMMAND ARGS…`
                return Ok(run(&args[p.operands..]));
            }
            Ok(Vec::new())
        }
        "nsenter" => {
            let spec = Spec {
                flags: "aeFZchV",
                with_arg: "tSGW",
                optional_joined: "muinpUCTrw",
                long_with_arg: &["target", "setuid", "setgid", "wdns"],
                long_flags: &[
                    "all",
                    "mount",
                    "uts",
                    "ipc",
                    "net",
                    "pid",
                    "user",
                    "cgroup",
                    "time",
                    "root",
                    "wd",
                    "env",
                    "no-fork",
                    "follow-context",
                    "preserve-credentials",
                    "join-cgroup",
                    "user-parent",
                    "keep-caps",
                    "help",
                    "version",
                ],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "chroot" => {
            let spec = Spec {
                long_with_arg: &["userspec", "groups"],
                long_flags: &["skip-chdir", "help", "version"],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            // NEWROOT, then the command (or an interactive shell).
            Ok(run(args.get(p.operands + 1..).unwrap_or(&[])))
        }
        "strace" => {
            let spec = Spec {
                flags: "cCdDfFhiknqrtTvVwxyYzZ",
                with_arg: "abeEIoOpPsSuUX",
                long_with_arg: &[
                    "output",
                    "attach",
                    "trace",
                    "signal",
                    "status",
                    "string-limit",
                    "user",
                    "env",
                    "trace-path",
                    "summary-sort-by",
                    "columns",
                    "const-print-style",
                    "decode-fds",
                    "quiet",
                    "inject",
                    "fault",
                    "kvm",
                    "timestamps",
                    "absolute-timestamps",
                ],
                long_flags: &[
                    "follow-forks",
                    "output-separately",
                    "summary-only",
                    "summary",
                    "summary-wall-clock",
                    "syscall-times",
                    "relative-timestamps",
                    "no-abbrev",
                    "verbose",
                    "daemonize",
                    "seccomp-bpf",
                    "stack-trace",
                    "help",
                    "version",
                ],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "ltrace" => {
            let spec = Spec {
                flags: "bcCfhiLrStTV",
                with_arg: "aAeDFlnopsuwx",
                long_with_arg: &["align", "output", "library"],
                long_flags: &["demangle", "help", "version", "no-signals"],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            Ok(run(&args[p.operands..]))
        }
        "script" => {
            let spec = Spec {
                flags: "aefqhV",
                with_arg: "cEIOBTmo",
                optional_joined: "t",
                long_with_arg: &[
                    "command",
                    "echo",
                    "log-in",
                    "log-out",
                    "log-io",
                    "log-timing",
                    "logging-format",
                    "output-limit",
                ],
                long_flags: &["append", "return", "flush", "force", "quiet", "timing", "help", "version"],
                ..NO_OPTS
            };
            let p = options(name, args, &spec)?;
            match p.value("-c").or_else(|| p.value("--command")) {
                Some(c) => script_of(c),
                // An interactive shell on the terminal.
                None => Ok(Vec::new()),
            }
        }
        "parallel" | "sem" => parallel(name, args),
        "expect" => {
            if args.iter().any(|w| matches!(w.value.as_deref(), Some("-v" | "--version" | "-h" | "--help"))) {
                return Ok(Vec::new());
            }
            unseen("runs Tcl (spawn, exec, system) the analysis cannot read")
        }
        "gdb" | "gdb-multiarch" => gdb(args),
        "fd" | "fdfind" => fd_exec(args),
        "npx" | "bunx" => npx(name, args),
        "npm" | "pnpm" | "yarn" | "bun" | "uv" | "poetry" | "bundle" | "pipx" | "pdm" | "hatch" => {
            package_runner(name, args)
        }
        _ => Ok(Vec::new()),
    }
}

/// The subcommands that launch another program, per package tool.
fn launching_subcommands(tool: &str) -> &'static [&'static str] {
    match tool {
        "npm" => &["exec", "x"],
        "pnpm" => &["exec", "dlx"],
        "yarn" => &["exec", "dlx"],
        "bun" => &["x"],
        "uv" => &["run", "tool"],
        "poetry" | "pdm" | "hatch" | "pipx" => &["run"],
        "bundle" => &["exec"],
        _ => &[],
    }
}

/// `npm exec …`, `pnpm exec`/`dlx`, `yarn exec`/`dlx`, `uv run`, `poetry run`, `bundle exec` …:
/// the launched program and its arguments. Options before the subcommand are not read (they
/// may take values), so a launching subcommand anywhere after them is not understood.
fn package_runner(tool: &str, args: &[Word]) -> Step {
    let subs = launching_subcommands(tool);
    let Some(first) = args.first() else { return Ok(Vec::new()) };
    let Some(v) = first.value.as_deref() else { return Err(not_static(first)) };
    if v.starts_with('-') {
        if args.iter().any(|w| w.value.as_deref().is_some_and(|v| subs.contains(&v))) {
            return Err((
                ProblemKind::Unsupported,
                format!("`{tool}` options before its subcommand are not read, so what it launches is not known"),
            ));
        }
        return Ok(Vec::new());
    }
    if !subs.contains(&v) {
        return Ok(Vec::new());
    }
    let rest = &args[1..];
    match (tool, v) {
        ("npm", _) | ("pnpm" | "yarn", "dlx") | ("bun", "x") => npx(tool, rest),
        ("uv", "tool") => match rest.first().and_then(|w| w.value.as_deref()) {
            // `uv tool run` is `uvx`.
            Some("run") => simple_runner(tool, &rest[1..], UV_RUN),
            _ => Ok(Vec::new()),
        },
        ("uv", _) => simple_runner(tool, rest, UV_RUN),
        ("pnpm", _) => {
            let spec = Spec {
                flags: "rc",
                long_with_arg: &["filter", "workspace-concurrency", "dir"],
                long_flags: &["recursive", "parallel", "shell-mode", "no-bail", "report-summary", "resume-from"],
                ..NO_OPTS
            };
            let p = options(tool, rest, &spec)?;
            if p.has("-c") || p.has("--shell-mode") {
                return joined_script(&rest[p.operands..]);
            }
            Ok(run(&rest[p.operands..]))
        }
        ("yarn", _) => Ok(run(rest
            .get(usize::from(rest.first().is_some_and(|w| w.value.as_deref() == Some("--")))..)
            .unwrap_or(&[]))),
        ("bundle", _) => simple_runner(tool, rest, BUNDLE_EXEC),
        (_, _) => simple_runner(tool, rest, RUN_PLAIN),
    }
}

/// `uv run` options (those that take a value, and flags).
const UV_RUN: Spec = Spec {
    flags: "qvm",
    with_arg: "wp",
    long_with_arg: &[
        "with",
        "with-editable",
        "with-requirements",
        "python",
        "env-file",
        "project",
        "directory",
        "package",
        "extra",
        "group",
        "index",
        "index-url",
        "extra-index-url",
        "from",
        "config-file",
        "cache-dir",
    ],
    long_flags: &[
        "no-project",
        "frozen",
        "locked",
        "isolated",
        "no-sync",
        "script",
        "module",
        "all-extras",
        "all-packages",
        "no-dev",
        "dev",
        "quiet",
        "verbose",
        "offline",
        "no-cache",
        "active",
        "no-env-file",
    ],
    ..NO_OPTS
};
const BUNDLE_EXEC: Spec = Spec { long_with_arg: &["gemfile"], long_flags: &["keep-file-descriptors"], ..NO_OPTS };
const RUN_PLAIN: Spec = Spec { flags: "qv", long_flags: &["quiet", "verbose"], ..NO_OPTS };

fn simple_runner(tool: &str, args: &[Word], spec: Spec) -> Step {
    let p = options(tool, args, &spec)?;
    Ok(run(&args[p.operands..]))
}

/// `npx PKG ARGS…`, `npx -c 'CMD'`, `npm exec -- PKG ARGS…`, `npx -p PKG CMD ARGS…`: the
/// package's program (the spec without scope and version) with its arguments, or the `-c`
/// string as a script.
fn npx(tool: &str, args: &[Word]) -> Step {
    let spec = Spec {
        flags: "yqn",
        with_arg: "pc",
        long_with_arg: &["package", "call", "workspace", "registry", "cache"],
        long_flags: &[
            "yes",
            "no",
            "quiet",
            "ignore-existing",
            "no-install",
            "prefer-offline",
            "prefer-online",
            "workspaces",
        ],
        ..NO_OPTS
    };
    let p = options(tool, args, &spec)?;
    if let Some(c) = p.value("-c").or_else(|| p.value("--call")) {
        return script_of(c);
    }
    let rest = &args[p.operands..];
    if p.has("-p") || p.has("--package") {
        return Ok(run(rest));
    }
    let Some(first) = rest.first() else { return Ok(Vec::new()) };
    let Some(spec_text) = first.value.as_deref() else { return Err(not_static(first)) };
    let unscoped = match spec_text.strip_prefix('@') {
        Some(s) => s.split_once('/').map_or(s, |(_, name)| name),
        None => spec_text,
    };
    let bin = unscoped.split('@').next().unwrap_or(unscoped);
    let mut argv = vec![literal_word(bin)];
    argv.extend(rest[1..].iter().cloned());
    Ok(vec![Inner::Argv(argv)])
}

/// GNU `parallel COMMAND ::: ARGS`: the command, joined, is a shell script; without one, the
/// arguments after `:::` are the commands; commands read from stdin or `::::` files are
/// not known.
fn parallel(name: &str, args: &[Word]) -> Step {
    let spec = Spec {
        flags: "kq0vXmu",
        with_arg: "jPSnNI",
        long_with_arg: &[
            "jobs",
            "max-procs",
            "max-args",
            "delay",
            "timeout",
            "joblog",
            "results",
            "tag-string",
            "tmpdir",
        ],
        long_flags: &[
            "keep-order",
            "quote",
            "null",
            "will-cite",
            "bar",
            "progress",
            "tag",
            "halt-on-error",
            "dry-run",
            "line-buffer",
            "group",
            "ungroup",
            "verbose",
        ],
        ..NO_OPTS
    };
    let p = options(name, args, &spec)?;
    let rest = &args[p.operands..];
    let sep = rest.iter().position(|w| matches!(w.value.as_deref(), Some(":::" | "::::" | ":::+" | "::::+")));
    let (command, sources) = match sep {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, &[][..]),
    };
    if sources.iter().any(|w| matches!(w.value.as_deref(), Some("::::" | "::::+"))) {
        return Err((ProblemKind::RunsUnseenCode, format!("`{name} ::::` reads its arguments from files")));
    }
    if !command.is_empty() {
        return joined_script(command);
    }
    if sources.is_empty() {
        return Err((ProblemKind::RunsUnseenCode, format!("`{name}` without a command runs the lines of its stdin")));
    }
    let mut out = Vec::new();
    for w in sources.iter().skip(1) {
        if w.value.as_deref().is_some_and(|v| v.starts_with(":::")) {
            continue;
        }
        out.extend(script_of(w)?);
    }
    Ok(out)
}

/// `gdb`: `-ex`/`-iex`/`-x`/`-ix` (and their long forms, which gdb also takes abbreviated)
/// run gdb commands, `shell …` among them, that the analysis cannot read; `--args PROG …`
/// names the program it runs. Only a few plain options are understood.
fn gdb(args: &[Word]) -> Step {
    const PLAIN: &[&str] = &[
        "-q",
        "-quiet",
        "--quiet",
        "-silent",
        "--silent",
        "-batch",
        "--batch",
        "-nx",
        "--nx",
        "-n",
        "-nh",
        "--nh",
        "-tui",
        "--tui",
        "-version",
        "--version",
        "-help",
        "--help",
        "-readnow",
        "--readnow",
    ];
    const WITH_VALUE: &[&str] = &["-p", "-pid", "--pid", "-c", "-core", "--core", "-s", "-se", "-d", "-cd", "--cd"];
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let Some(v) = w.value.as_deref() else { return Err(not_static(w)) };
        if v == "--args" || v == "-args" {
            return Ok(run(&args[i + 1..]));
        }
        if !v.starts_with('-') {
            i += 1;
            continue;
        }
        if PLAIN.contains(&v) {
            i += 1;
        } else if WITH_VALUE.contains(&v) {
            i += 2;
        } else {
            return Err((
                ProblemKind::RunsUnseenCode,
                format!("`gdb {}` may run gdb commands (`shell …`) the analysis cannot read", snippet(v)),
            ));
        }
    }
    Ok(Vec::new())
}

/// `fd … -x CMD ARGS… [;]` and `-X`/`--exec`/`--exec-batch`: everything after the flag, up
/// to a `;`, is the command (fd takes every later word as its argument).
fn fd_exec(args: &[Word]) -> Step {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let Some(v) = w.value.as_deref() else { continue };
        let exec = matches!(v, "--exec" | "--exec-batch")
            || (v.starts_with('-') && !v.starts_with("--") && v.len() > 1 && v.ends_with(['x', 'X']));
        if let Some(joined) = v.strip_prefix("--exec=").or_else(|| v.strip_prefix("--exec-batch=")) {
            let mut argv = vec![literal_word(joined)];
            let end = args[i..].iter().position(|w| w.value.as_deref() == Some(";")).map_or(args.len(), |e| i + e);
            argv.extend(args[i..end].iter().cloned());
            out.push(Inner::Argv(argv));
            i = end + 1;
            continue;
        }
        if !exec {
            if v.starts_with('-') && !v.starts_with("--") && v.contains(['x', 'X']) {
                return Err((ProblemKind::Unsupported, format!("`fd {}`: an exec flag inside a cluster", snippet(v))));
            }
            continue;
        }
        let end = args[i..].iter().position(|w| w.value.as_deref() == Some(";")).map_or(args.len(), |e| i + e);
        if end > i {
            out.push(Inner::Argv(args[i..end].to_vec()));
        }
        i = end + 1;
    }
    Ok(out)
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
    let mut dash = false;
    while let Some(word) = args.get(i) {
        let Some(v) = word.value.as_deref() else {
            return Err(not_static(word));
        };
        if v == "--" || v == "-" {
            dash = v == "-";
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
        // Standard input (no operand, or `-s`) is read elsewhere; a script file is code the
        // analysis cannot see, like `source FILE`.
        let reads_stdin = dash
            || args[..i.min(args.len())].iter().any(|w| {
                w.value.as_deref().is_some_and(|v| v.starts_with('-') && !v.starts_with("--") && v.contains('s'))
            });
        return match args.get(i) {
            Some(file) if !reads_stdin => Err((
                ProblemKind::RunsScriptFile,
                format!(
                    "`{name} {}` runs a script file the analysis cannot see",
                    snippet(file.value.as_deref().unwrap_or(&file.raw))
                ),
            )),
            _ => Ok(Vec::new()),
        };
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
