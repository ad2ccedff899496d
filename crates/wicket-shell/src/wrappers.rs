//! Seeing through wrapper programs. The hard question: which argv actually runs when a command
//! is `sudo -u root env FOO=1 timeout 5 rm -rf /`, `find . -exec rm {} ;` or
//! `bash -c 'rm -rf /'`? Only **deny** rules may use this view: an allow rule matches the
//! command as written ([`SimpleCommand::canonical`]), because `sudo rm` is not `rm`. When an
//! argument that decides what runs is not static (or a string cannot be re-parsed), the result
//! is not understood, so a caller can fail closed instead of missing a deny.

use std::collections::VecDeque;

use wicket_programs::{Arg, Effect, Launch, Program, Role, ShellScript, Start, SubRuns, Walker};

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
/// `setsid`, `watch`, `flock`, `xargs`, `coproc`, `find -exec/-execdir/-ok/-okdir`, and the
/// script strings of every shell in the program catalogue (`bash -c`, `ash -c`, `fish -c`,
/// `pwsh -Command` …), `eval`, `su -c` and `trap`, which are re-parsed
/// with [`analyze`](crate::analyze) up to [`MAX_REPARSE_DEPTH`] levels; and launchers
/// (`busybox`/`toybox` applets, `unshare`, `taskset`, `chrt`, `prlimit`, `setpriv`, `runuser`,
/// `nsenter`, `chroot`, `strace`, `ltrace`, `script -c`, `parallel`, `fd -x`, `npx`, `npm exec`,
/// `pnpm exec|dlx`, `yarn exec|dlx`, `uv run`, `poetry run`, `bundle exec` …), each read with
/// its own option grammar. Which program is which, and its grammar, come from
/// [`wicket_programs::lookup`]: this module names no program. `bash FILE`, `expect` and `gdb -ex` run code nobody can read: not
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
    // The command as written comes first (callers read `argvs[0]` as it), then what it runs.
    queue.push_back((cmd.words.clone(), 0));
    // `PS4='$(…)'`, `BASH_ENV=… bash`: values bash evaluates later are code too.
    for a in &cmd.assignments {
        let step = evaluated_value(&a.name, &a.value);
        take_step(&mut out, &mut queue, step, 0);
    }
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
        let name = match program.as_bytes().iter().rposition(|b| *b == b'/') {
            Some(i) => &program[i + 1..],
            None => program,
        };
        // `export PS4=…`, `declare`, `env BASH_ENV=… bash`, `sudo PS4=…`: a builtin that
        // assigns or a launcher that passes `NAME=value` words on.
        let record = wicket_programs::lookup(name);
        let assigns = record.is_some_and(|r| r.assigns || r.role.launch().is_some());
        if assigns {
            for w in &argv[1..] {
                // A value not known before running (`export PS4="$x"`) is read from the raw
                // text's name, and fails closed in `evaluated_value`.
                let text = w.value.as_deref().unwrap_or(&w.raw);
                let Some((var, rest)) = text.split_once('=') else { continue };
                if wicket_programs::evaluated(var).is_none() {
                    continue;
                }
                let value = match w.value {
                    Some(_) => literal_word(rest),
                    None => Word { value: None, ..w.clone() },
                };
                let step = evaluated_value(var, &value);
                take_step(&mut out, &mut queue, step, depth);
            }
        }
        let step = unwrap_one(name, record, &argv[1..]);
        take_step(&mut out, &mut queue, step, depth);
    }
    out
}

/// The code in a value bash evaluates (issue 39, class 9): a prompt string's expansions (as
/// the arguments of `:`, which runs nothing), a start-up file (its expansions, and the file
/// itself, which nobody has read), a command line. Other variables hold no code.
fn evaluated_value(name: &str, value: &Word) -> Step {
    use wicket_programs::Evaluated;
    let Some(how) = wicket_programs::evaluated(name) else { return Ok(Vec::new()) };
    let Some(v) = value.value.as_deref() else { return Err(not_static(value)) };
    match how {
        Evaluated::Expanded => Ok(vec![Inner::Script(format!(": {v}"))]),
        Evaluated::Command => Ok(vec![Inner::Script(v.to_string())]),
        Evaluated::StartupFile if v.trim().is_empty() => Ok(Vec::new()),
        Evaluated::StartupFile => Err((
            ProblemKind::RunsUnseenCode,
            format!("`{name}={}` makes a shell read a start-up file nobody has read", snippet(v)),
        )),
    }
}

/// Record what one step found: its argvs queued, its scripts parsed (their commands nested),
/// or its problem.
fn take_step(out: &mut Unwrapped, queue: &mut VecDeque<(Vec<Word>, u32)>, step: Step, depth: u32) {
    let inners = match step {
        Ok(inners) => inners,
        Err((kind, detail)) => return out.problem(kind, detail),
    };
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
                    // `bash -c "PS4='\$(…)'; set -x; …"`: the string's own assignments too.
                    for a in &c.assignments {
                        let step = evaluated_value(&a.name, &a.value);
                        take_step(out, queue, step, depth + 1);
                    }
                    queue.push_back((c.words.clone(), depth + 1));
                    out.nested.push(c);
                }
            }
            Inner::Resplit(_) | Inner::Script(_) => out
                .problem(ProblemKind::TooDeep, format!("strings re-parsed more than {MAX_REPARSE_DEPTH} levels deep")),
        }
    }
}

fn not_static(word: &Word) -> (ProblemKind, String) {
    let raw = snippet(&word.raw);
    (ProblemKind::DynamicProgram, format!("wrapper argument `{raw}` is not known before running"))
}

/// A wrapper's options, read with its record's grammar up to the first operand.
struct Read {
    /// Index of the first operand.
    operands: usize,
    /// Each option found, by the full name it was given, with its value (a glued value as a
    /// literal word, a next-word value as that word).
    seen: Vec<(&'static str, Option<Word>)>,
}

impl Read {
    fn has(&self, names: &[&str]) -> bool {
        self.seen.iter().any(|(o, _)| names.contains(o))
    }

    /// The first value of any of these options.
    fn value(&self, names: &[&str]) -> Option<&Word> {
        self.seen.iter().find(|(o, _)| names.contains(o)).and_then(|(_, v)| v.as_ref())
    }
}

/// Stands for a word not known before running: no static word holds a NUL, and it does not
/// start with `-`, so the grammar reads it as an operand (or as an option's value).
const HOLE: char = '\u{0}';

/// Reads `args` with `grammar`, as the program would, up to its first operand. An option the
/// grammar does not know, a missing value, or a dynamic word where an option or the command
/// must be is not understood: it may change what runs.
fn read(name: &str, grammar: &'static Program, args: &[Word]) -> Result<Read, (ProblemKind, String)> {
    let values: Vec<String> =
        args.iter().enumerate().map(|(i, w)| w.value.clone().unwrap_or_else(|| format!("{HOLE}{i}"))).collect();
    let hole = |v: &str| v.strip_prefix(HOLE).and_then(|i| i.parse::<usize>().ok()).and_then(|i| args.get(i));
    let parsed = grammar.parse(&values);
    if let Some(u) = parsed.unknown.first() {
        return Err((ProblemKind::Unsupported, format!("unknown option `{}` of `{name}`", snippet(u))));
    }
    let operands = args.len().saturating_sub(parsed.operands.len());
    let after_dashes = operands > 0 && args[operands - 1].value.as_deref() == Some("--");
    if let Some(first) = args.get(operands).filter(|w| w.value.is_none() && !after_dashes) {
        return Err(not_static(first));
    }
    let seen = parsed
        .found
        .into_iter()
        .map(|f| (f.name, f.value.map(|v| hole(&v).cloned().unwrap_or_else(|| literal_word(&v)))))
        .collect();
    Ok(Read { operands, seen })
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

/// One layer: what `name args…` runs, as the program catalogue describes `name`.
/// What one argv runs behind it, by its program's record (looked up once by the caller).
fn unwrap_one(name: &str, record: Option<&'static Program>, args: &[Word]) -> Step {
    let Some(record) = record else { return Ok(Vec::new()) };
    match &record.role {
        Role::Plain => Ok(Vec::new()),
        Role::Shell(ShellScript::FirstOperand) => shell(name, args),
        Role::Shell(ShellScript::Options(scripts)) => shell_options(name, record, scripts, args),
        Role::Launcher(launch) | Role::Privilege(launch) => match launch.start {
            Start::Walker(walker) => walk(walker, name, record, launch, args),
            start => launched(name, record, launch, start, args),
        },
    }
}

/// A launcher whose command is found from its options and operands alone (`sudo`, `nice`,
/// `timeout 5`, `chrt 0`, `eval`, `watch`, `script -c`, `xargs`).
fn launched(name: &str, record: &'static Program, launch: &Launch, start: Start, args: &[Word]) -> Step {
    let p = read(name, record, args)?;
    if p.has(launch.runs_nothing) {
        return Ok(Vec::new());
    }
    // Strings bash evaluates inside the builtin (issue 39, class 9): a callback runs with
    // words of its own appended, which nobody knows yet (`"$@"` stands for them, so a deny
    // rule for `rm *` meets `mapfile -C rm`); a word list is expanded as a command's
    // arguments are (`:` runs nothing, so only what the words run is judged).
    let mut evaluated = Vec::new();
    for (option, value) in &p.seen {
        let Some(value) = value else { continue };
        if launch.callback_options.contains(option) {
            let Some(v) = value.value.as_deref() else { return Err(not_static(value)) };
            evaluated.push(Inner::Script(format!("{v} \"$@\"")));
        } else if launch.word_options.contains(option) {
            let Some(v) = value.value.as_deref() else { return Err(not_static(value)) };
            evaluated.push(Inner::Script(format!(": {v}")));
        }
    }
    let mut out = evaluated;
    out.extend(launched_command(launch, start, args, &p)?);
    Ok(out)
}

/// The command a launcher runs from its operands, once its options are read.
fn launched_command(launch: &Launch, start: Start, args: &[Word], p: &Read) -> Step {
    if let Some(script) = p.value(launch.script_options) {
        return script_of(script);
    }
    let mut rest = &args[p.operands..];
    if launch.assignments {
        rest = skip_assignments(rest);
    }
    if p.has(launch.argv_options) {
        return Ok(run(rest));
    }
    let command = match start {
        Start::Nothing | Start::Walker(_) => return Ok(Vec::new()),
        Start::Joined => return joined_script(rest),
        Start::Operands(own) => rest.get(own..).unwrap_or(&[]),
        Start::AfterNumber => {
            let number =
                rest.first().and_then(|w| w.value.as_deref()).is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit()));
            &rest[usize::from(number)..]
        }
    };
    match launch.when_none {
        Some(program) if command.is_empty() => Ok(vec![Inner::Argv(vec![literal_word(program)])]),
        _ => Ok(run(command)),
    }
}

/// The launchers read by code of their own (see [`Walker`]).
fn walk(walker: Walker, name: &str, record: &'static Program, launch: &Launch, args: &[Word]) -> Step {
    match walker {
        Walker::Env => env(name, record, args),
        Walker::Flock => flock(name, record, launch, args),
        Walker::FindExec => Ok(find_exec(record, args)),
        Walker::FdExec => fd_exec(args),
        Walker::Su => su(args),
        Walker::Trap => trap(args),
        Walker::Applet => match args.first().and_then(|w| w.value.as_deref()) {
            Some(v) if v.starts_with('-') => Ok(Vec::new()),
            None if !args.is_empty() => Err(not_static(&args[0])),
            _ => Ok(run(args)),
        },
        Walker::Parallel => parallel(name, record, args),
        Walker::Unseen => {
            if args.iter().any(|w| w.value.as_deref().is_some_and(|v| launch.runs_nothing.contains(&v))) {
                return Ok(Vec::new());
            }
            Err((
                ProblemKind::RunsUnseenCode,
                format!("`{name}` runs code (Tcl's spawn, exec, system) the analysis cannot read"),
            ))
        }
        Walker::Debugger => debugger(name, record, args),
        Walker::Package => package(name, record, args),
        Walker::SubCommand => sub_command(name, launch, args),
    }
}

/// `npx PKG ARGS…`, `npx -c 'CMD'`, `npm exec -- PKG ARGS…`, `npx -p PKG CMD ARGS…`: the
/// package's program (the spec without scope and version) with its arguments, or the `-c`
/// string as a script.
fn package(tool: &str, grammar: &'static Program, args: &[Word]) -> Step {
    let p = read(tool, grammar, args)?;
    let launch = grammar.role.launch();
    if let Some(c) = launch.and_then(|l| p.value(l.script_options)) {
        return script_of(c);
    }
    let rest = &args[p.operands..];
    if launch.is_some_and(|l| p.has(l.package_options)) {
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

/// `npm exec …`, `pnpm exec`/`dlx`, `yarn exec`/`dlx`, `uv run`, `uv tool run`, `poetry run`,
/// `bundle exec` …: the launched program and its arguments. Options before the sub-command
/// are not read (they may take values), so a launching sub-command anywhere after them is not
/// understood.
fn sub_command(tool: &str, launch: &Launch, args: &[Word]) -> Step {
    let launches = |v: &str| launch.subs.iter().any(|s| s.path.first() == Some(&v));
    let Some(first) = args.first() else { return Ok(Vec::new()) };
    let Some(v) = first.value.as_deref() else { return Err(not_static(first)) };
    if v.starts_with('-') {
        if args.iter().any(|w| w.value.as_deref().is_some_and(launches)) {
            return Err((
                ProblemKind::Unsupported,
                format!("`{tool}` options before its subcommand are not read, so what it launches is not known"),
            ));
        }
        return Ok(Vec::new());
    }
    let chosen = launch
        .subs
        .iter()
        .find(|s| s.path.len() <= args.len() && s.path.iter().zip(args).all(|(p, w)| w.value.as_deref() == Some(*p)));
    let Some(sub) = chosen else { return Ok(Vec::new()) };
    let rest = &args[sub.path.len()..];
    match sub.runs {
        SubRuns::Package => package(tool, sub.grammar, rest),
        SubRuns::Operands => {
            let p = read(tool, sub.grammar, rest)?;
            Ok(run(&rest[p.operands..]))
        }
        SubRuns::OperandsOrShell(shell_flags) => {
            let p = read(tool, sub.grammar, rest)?;
            if p.has(shell_flags) {
                return joined_script(&rest[p.operands..]);
            }
            Ok(run(&rest[p.operands..]))
        }
        SubRuns::Verbatim => Ok(run(rest
            .get(usize::from(rest.first().is_some_and(|w| w.value.as_deref() == Some("--")))..)
            .unwrap_or(&[]))),
    }
}

/// GNU `parallel COMMAND ::: ARGS`: the command, joined, is a shell script; without one, the
/// arguments after `:::` are the commands; commands read from stdin or `::::` files are
/// not known.
fn parallel(name: &str, record: &'static Program, args: &[Word]) -> Step {
    let p = read(name, record, args)?;
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

/// `gdb`: the options its record knows are plain (one dash or two alike), the one that takes
/// the rest of the words (`--args PROG …`) names the program it runs, and any other runs gdb
/// commands (`-ex 'shell …'`, `-x FILE`) the analysis cannot read.
fn debugger(name: &str, record: &'static Program, args: &[Word]) -> Step {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let Some(v) = w.value.as_deref() else { return Err(not_static(w)) };
        if !v.starts_with('-') {
            i += 1;
            continue;
        }
        let single = format!("-{}", v.trim_start_matches('-'));
        match record.all_opts().find(|o| o.has(&single)).map(|o| o.arg) {
            Some(Arg::Last) => return Ok(run(&args[i + 1..])),
            Some(Arg::No | Arg::Optional) => i += 1,
            Some(_) => i += 2,
            None => {
                return Err((
                    ProblemKind::RunsUnseenCode,
                    format!("`{name} {}` may run gdb commands (`shell …`) the analysis cannot read", snippet(v)),
                ))
            }
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

fn env(name: &str, record: &'static Program, args: &[Word]) -> Step {
    let p = read(name, record, args)?;
    let mut rest = &args[p.operands..];
    if rest.first().is_some_and(|w| w.value.as_deref() == Some("-")) {
        rest = &rest[1..];
    }
    let rest = skip_assignments(rest);
    let split = p.value(&["-S", "--split-string"]);
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
        let mut argv = vec![literal_word(name)];
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

fn flock(name: &str, record: &'static Program, launch: &Launch, args: &[Word]) -> Step {
    let p = read(name, record, args)?;
    if let Some(cmd) = p.value(launch.script_options) {
        return script_of(cmd);
    }
    // LOCKFILE, then `-c STRING` or a command.
    let rest = args.get(p.operands + 1..).unwrap_or(&[]);
    match rest.first().map(|w| w.value.as_deref()) {
        Some(Some(v)) if launch.script_options.contains(&v) => match rest.get(1) {
            Some(s) => script_of(s),
            None => Err((ProblemKind::Unsupported, format!("`{name} -c` without a command"))),
        },
        Some(None) => Err(not_static(&rest[0])),
        _ => Ok(run(rest)),
    }
}

/// The commands of the expression's command primaries (`-exec`, `-execdir`, `-ok`, `-okdir`:
/// the record's options that take a command), up to `;` or `{} +`.
fn find_exec(record: &'static Program, args: &[Word]) -> Vec<Inner> {
    let takes_command = |v: &str| record.all_opts().any(|o| o.arg == Arg::Command && o.has(v));
    let mut found = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let is_exec = args[i].value.as_deref().is_some_and(takes_command);
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

/// A shell read the way sh reads its words: clusters of letters after `-` or `+`, a `c` among
/// them making the first operand the script.
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
            Some(file) if !reads_stdin => Err(script_file(name, file)),
            _ => Ok(Vec::new()),
        };
    }
    match args.get(i) {
        Some(s) => script_of(s),
        None => Err((ProblemKind::Unsupported, format!("`{name} -c` without a command string"))),
    }
}

fn script_file(name: &str, file: &Word) -> (ProblemKind, String) {
    (
        ProblemKind::RunsScriptFile,
        format!(
            "`{name} {}` runs a script file the analysis cannot see",
            snippet(file.value.as_deref().unwrap_or(&file.raw))
        ),
    )
}

/// A shell whose record's grammar reads its words (`fish -c A -C B`, `pwsh -Command …`): each
/// value of a script option is a script; one that takes the rest of the words joins them.
fn shell_options(name: &str, record: &'static Program, scripts: &[&str], args: &[Word]) -> Step {
    let p = read(name, record, args)?;
    let mut out = Vec::new();
    for (option, value) in &p.seen {
        let Some(opt) = record.all_opts().find(|o| o.has(option)) else { continue };
        match opt.effect {
            Effect::Exec => {
                return Err((
                    ProblemKind::RunsUnseenCode,
                    format!("`{name} {option}` runs code the analysis cannot read"),
                ))
            }
            Effect::ScriptFile => {
                return Err(script_file(name, value.as_ref().unwrap_or(&literal_word(option))));
            }
            _ => {}
        }
        if !opt.names().any(|n| scripts.contains(&n)) {
            continue;
        }
        let Some(value) = value else { continue };
        if opt.arg == Arg::Last {
            // The value and every later word, as the shell joins them.
            let mut words = vec![value.clone()];
            words.extend(args[p.operands..].iter().cloned());
            out.extend(joined_script(&words)?);
        } else {
            out.extend(script_of(value)?);
        }
    }
    if out.is_empty() {
        if let Some(file) = args.get(p.operands) {
            return Err(script_file(name, file));
        }
    }
    Ok(out)
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
