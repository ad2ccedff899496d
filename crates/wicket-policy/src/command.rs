//! A command line as the engine sees it: its parts, their wrapper-stripped forms for deny
//! rules, the files its redirections touch, and the arguments that look like paths.
//!
//! The hard question: what will this command line really run, and what can we not know? Allow
//! rules see each part as written; deny rules see through wrappers; anything the parser could
//! not resolve is listed in `doubts`, and a command with doubts is never auto-allowed.

use std::collections::HashMap;
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
    /// The part without its leading assignments, when each sets a variable that only tunes
    /// output (`RUST_BACKTRACE=1`, `NODE_ENV=test`; `wicket_programs::only_tunes_output`) to a
    /// static value: an allow rule may cover it as if they were not there.
    pub bare: Option<String>,
    /// Flags and variables that make this part run programs or write files (`-exec`,
    /// `NODE_OPTIONS=`): an allow rule must spell each one out.
    pub risky: Vec<String>,
    /// What runs inside it once wrappers are seen through (`sudo X`, `bash -c 'X; Y'`,
    /// `find -exec X`): each must be covered by an allow rule of its own.
    pub inner: Vec<Inner>,
    /// True when the part changes nothing and runs nothing whatever its words hold (`true`,
    /// `pwd`, `test -f x`, `echo "$x"`, `break`, `cat` fed a known here-document): it needs no
    /// rule of its own (decisions.md, "Parts that change nothing").
    pub inert: bool,
    /// True when the part only reads: its program's record says so (`wc`, `diff`, `uname`),
    /// every word is static, no option is risky and nothing runs inside it. The engine lets it
    /// pass without a rule only when none of the line's words reaches outside the project
    /// (decisions.md, "Programs that only read").
    pub reads_only: bool,
    /// For a static `cd DIR` the folder tracking could follow: where it goes, joined to the
    /// folder before (relative to the root unless absolute). The engine lets it pass without a
    /// rule only when that folder resolves inside the root.
    pub enters: Option<String>,
    /// True when the part's program is a wrapper that adds nothing to what it runs (`time`,
    /// `timeout 60`, `nice -n 5`; `wicket_programs::adds_nothing`): the command inside, which
    /// is its first [`Inner`], needs a rule, the wrapper does not.
    pub transparent: bool,
    /// True for a plain `find … -exec PROG` (static start points, only tests and printing, no
    /// `-o`, no link following): find hands PROG the files below its start points, which the
    /// engine checks as files PROG reads. Where every word of the line stays in the project,
    /// PROG needs a rule and find none (decisions.md, "find runs a reader").
    pub hands_files: bool,
    /// For a shell given a script file and nothing else before it (`bash scripts/test.sh`,
    /// `sh ./build.sh ARGS`): the shell and the file as written. The script is unseen code,
    /// as a program run by its path is (`./scripts/test.sh`): an allow rule that spells out
    /// both covers it, a rule for the shell alone does not (decisions.md, "Script files").
    pub runs_file: Option<String>,
    /// True when the part is such a `find` without `-exec`, piped straight into a launcher
    /// that hands its names on (`find src -type f | xargs wc -l`): the same, with xargs.
    pub feeds_names: bool,
    /// True when the part only reads and is a git query that prints object or ref names
    /// (`git rev-parse HEAD`, `git merge-base A B`): what it prints may stand in another
    /// command's words only where such names are harmless (decisions.md, "Known values as
    /// words"), so it needs no rule wherever the line's words stay in the project.
    pub prints_revisions: bool,
}

/// A command that runs inside a part's wrapper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inner {
    /// The argv re-rendered with single spaces.
    pub written: String,
    /// Its risky flags.
    pub risky: Vec<String>,
    /// True when it is itself a wrapper that adds nothing to the next inner command.
    pub transparent: bool,
    /// True when it is a command of find's plain form, run on any file find hands it in
    /// place of `{}` (decisions.md, "find runs a reader"), or the command `xargs` runs with
    /// names from its input: its rule must cover any word there.
    pub handed: bool,
    /// True when the names handed to it come from where nobody can tell (`echo X | xargs
    /// cat`, `xargs cat < list`): only a rule for every command covers it (decisions.md,
    /// "xargs runs a command").
    pub unknown_names: bool,
    /// True when it is a bare program whose words only reach its output (`echo`, `basename`),
    /// every word static and none risky: whatever names a launcher adds, it reads, writes and
    /// runs nothing, so it needs no rule (decisions.md, "Launchers of programs that only print").
    pub prints_only: bool,
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
    /// Static words a program only names and never opens (`ls .env`, grep's pattern): checked
    /// only as folders whose names it may list, and against read deny rules.
    pub named: Vec<(String, bool)>,
    /// Files the command writes through its arguments (`tee F`, `cp A F`, `sed -i … F`).
    pub writes: Vec<String>,
    /// Writes whose target is not known before the command runs (`> $OUT`, `cp a $DEST`):
    /// no rule can cover them; only the sandbox or a person can.
    pub unknown_writes: Vec<String>,
    /// Why the command can never be auto-allowed (parse problems, invisible characters,
    /// dynamic redirect targets). Empty for a fully understood command.
    pub doubts: Vec<String>,
    /// Relative paths nobody can check because a `cd` went where the view cannot follow
    /// (`cd "$d" && cargo check`): a doubt for a command on the host. Wicket's sandbox hides
    /// the secrets and keeps the protected paths read-only in whatever folder a command is, so
    /// there it is none (decisions.md, "A folder nobody can follow, in the sandbox").
    pub path_doubts: Vec<String>,
    /// Script files a shell runs (`bash FILE`): code nobody has read. No allow rule but
    /// `tool(*)` covers it and no deny rule can be ruled out; the OS sandbox still confines it.
    pub unseen_scripts: Vec<String>,
    /// Why the command reads the environment of processes (`ps e`, `/proc/*/environ`): a
    /// secret read.
    pub environment: Vec<String>,
    /// Why the command changes wicket's own gate (`wicket trust approve`, `wicket run
    /// --no-sandbox`): denied like a write of wicket's settings.
    pub gate_changes: Vec<String>,
    /// Folders read with everything below them (`grep -r x DIR`, `tar c DIR`), as written and
    /// joined to every folder a `cd` may have made current, with whether dot files are
    /// skipped, and the name patterns every file handed on matches (find's plain `-name`;
    /// empty: any).
    pub recursive: Vec<(String, bool, Vec<String>)>,
    /// Those of [`Self::recursive`] whose names a launcher hands on split at blanks and
    /// quotes (`find . -name '*.py' | xargs cat`; an unquoted `$(git ls-files)`, which bash
    /// also globs): a name below holding such a character becomes other names, which may be
    /// any file (`./.env x.py` is `./.env` and `x.py` to xargs).
    pub split_reads: Vec<String>,
    /// Where a git command runs when that is not the line's own folder (`git -C DIR`,
    /// `--git-dir`, `--work-tree`, or after a `cd`): the repository there has its own
    /// configuration, which can make git run programs and which wicket has not read.
    pub git_elsewhere: Vec<String>,
    /// Input that names the files the command writes (a patch, a folder copied, a tree git
    /// writes from): read at decision time, since the names are only known when it runs.
    pub landings: Vec<wicket_programs::checkers::landings::Landing>,
    /// Arguments of programs the catalogue has no record of (`gcc -o F`, `ed F`, `yq -i … F`),
    /// with the program's base name: the gate cannot tell which of them it writes, so each
    /// may be a write.
    pub maybe_writes: Vec<(String, String)>,
}

/// What the engine knows of its configuration when it views a command: the git aliases
/// defined in any scope.
#[derive(Debug, Clone, Default)]
pub struct ViewContext {
    /// `(name, value)` of every git alias, names lowercase.
    pub git_aliases: Vec<(String, String)>,
    /// For a command wicket's sandbox runs: the names of the variables its short environment
    /// may hold (bash's own aside). Any other variable the line never sets is unset there, so
    /// `${NAME:-word}` is `word` (decisions.md, "Known values as words"). `None`: not known
    /// (a command on the host runs in the person's environment).
    pub sandbox_env: Option<Vec<String>>,
}

/// The views of the last few distinct command lines a policy looked at: an agent's stream
/// (`check --jsonl`, `serve`) repeats its commands (`npm test`, `git status`), and a view is
/// a function of the text and the [`ViewContext`] alone, which a policy never changes, so a
/// repeated line is not parsed again. Nothing on disk goes into a view (the engine looks at
/// the disk for every call afresh), so nothing a command does between calls can make a kept
/// view wrong.
#[derive(Debug, Default)]
pub struct RecentViews {
    /// Newest first; at most [`RecentViews::KEEP`].
    seen: std::sync::Mutex<std::collections::VecDeque<std::sync::Arc<CommandView>>>,
}

impl RecentViews {
    /// How many distinct lines are kept.
    const KEEP: usize = 32;
    /// A longer line is viewed afresh each time (and not kept: memory stays small).
    const LONGEST: usize = 4096;

    /// The view of `command` under `ctx`: kept from an earlier call of the same text, or made
    /// now. Every call on one `RecentViews` must pass the same `ctx`.
    pub fn view(&self, command: &str, ctx: &ViewContext) -> std::sync::Arc<CommandView> {
        if command.len() > Self::LONGEST {
            return std::sync::Arc::new(view_with(command, ctx));
        }
        if let Ok(mut seen) = self.seen.lock() {
            if let Some(i) = seen.iter().position(|v| v.command == command) {
                if let Some(hit) = seen.remove(i) {
                    seen.push_front(std::sync::Arc::clone(&hit));
                    return hit;
                }
            }
        }
        // Made outside the lock: another thread deciding meanwhile need not wait for it.
        let made = std::sync::Arc::new(view_with(command, ctx));
        if let Ok(mut seen) = self.seen.lock() {
            seen.push_front(std::sync::Arc::clone(&made));
            seen.truncate(Self::KEEP);
        }
        made
    }
}

impl Clone for RecentViews {
    /// A copy starts empty: the views are a cache, not state.
    fn clone(&self) -> Self {
        RecentViews::default()
    }
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

/// Files a redirection may name that are not files on disk: the one rule, in the catalogue.
use wicket_programs::checkers::Checker;
use wicket_programs::{is_device, Writes};

/// The risky flags of an argv (static words only; a dynamic word is already a doubt).
fn risky_of(words: &[Word]) -> Vec<String> {
    let texts: Vec<&str> = words.iter().map(|w| w.value.as_deref().unwrap_or(&w.raw)).collect();
    crate::flags::risky_flags(&texts)
}

/// The most words one brace expansion may make before wicket gives up on it.
const MAX_BRACE_WORDS: usize = 256;

/// The words bash makes of an unquoted word by brace expansion (`a{b,c}d` is `abd acd`,
/// `x{1..3}` is `x1 x2 x3`), or `None` when the word holds quotes, escapes or expansions wicket
/// does not follow, or would make too many words.
pub fn expand_braces(raw: &str) -> Option<Vec<String>> {
    if raw.contains(['\\', '\'', '"', '$', '`']) {
        return None;
    }
    let mut out = Vec::new();
    expand_into(raw, &mut out)?;
    Some(out)
}

fn expand_into(s: &str, out: &mut Vec<String>) -> Option<()> {
    let b = s.as_bytes();
    // The first `{` whose matching `}` encloses a top-level `,` or a `..` sequence.
    for open in (0..b.len()).filter(|&i| b[i] == b'{') {
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut close = None;
        for (k, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(k);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(k),
                _ => {}
            }
        }
        let Some(close) = close else { continue };
        let (pre, body, post) = (&s[..open], &s[open + 1..close], &s[close + 1..]);
        let alternatives: Vec<String> = if !commas.is_empty() {
            let mut parts = Vec::new();
            let mut start = open + 1;
            for &c in &commas {
                parts.push(s[start..c].to_string());
                start = c + 1;
            }
            parts.push(s[start..close].to_string());
            parts
        } else if let Some((from, to)) = body.split_once("..") {
            sequence(from, to)?
        } else {
            continue;
        };
        for alt in alternatives {
            expand_into(&format!("{pre}{alt}{post}"), out)?;
            if out.len() > MAX_BRACE_WORDS {
                return None;
            }
        }
        return Some(());
    }
    out.push(s.to_string());
    Some(())
}

/// `{1..3}`, `{a..c}`, `{10..1}` (an increment part is not followed).
fn sequence(from: &str, to: &str) -> Option<Vec<String>> {
    if let (Ok(a), Ok(z)) = (from.parse::<i64>(), to.parse::<i64>()) {
        if a.abs_diff(z) > MAX_BRACE_WORDS as u64 {
            return None;
        }
        let r: Vec<i64> = if a <= z { (a..=z).collect() } else { (z..=a).rev().collect() };
        return Some(r.into_iter().map(|n| n.to_string()).collect());
    }
    let (mut fc, mut tc) = (from.chars(), to.chars());
    match (fc.next(), fc.next(), tc.next(), tc.next()) {
        (Some(a), None, Some(z), None) if a.is_ascii_alphabetic() && z.is_ascii_alphabetic() => {
            let (lo, hi) = (a.min(z) as u8, a.max(z) as u8);
            let mut v: Vec<String> = (lo..=hi).map(|c| (c as char).to_string()).collect();
            if a > z {
                v.reverse();
            }
            Some(v)
        }
        _ => None,
    }
}

/// `dir/p`, without doubling slashes.
fn join_dir(dir: &str, p: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{p}")
    } else {
        format!("{dir}/{p}")
    }
}

/// A path as written with `.` and `..` folded lexically (`a/./b/../c` is `a/c`), for comparing
/// names on one line.
fn normal_rel(p: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." if out.last().is_some_and(|l| *l != "..") => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if p.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
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

/// Most commands one command in `for` loops is judged as (the product of its loop words'
/// values); past it the loop variable stays a dynamic word.
const MAX_LOOP_EXPANSIONS: usize = 32;

/// A command in a `for NAME in WORDS` loop, once per value its loop words take (issue 14,
/// class 9): `for f in *.rs; do wc -l "$f"; done` is judged as `wc -l *.rs`, and `for b in a
/// c; do git log "$b"; done` as `git log a` and `git log c`. The walker only records loop
/// words that nothing else on the line can set (see [`wicket_shell::LoopWord`]).
fn loop_expansions(cmd: &SimpleCommand) -> Vec<std::borrow::Cow<'_, SimpleCommand>> {
    use std::borrow::Cow;
    let total = cmd.loop_words.iter().try_fold(1usize, |n, l| n.checked_mul(l.values.len()));
    if cmd.loop_words.is_empty() || total.is_none_or(|n| n == 0 || n > MAX_LOOP_EXPANSIONS) {
        return vec![Cow::Borrowed(cmd)];
    }
    let mut out: Vec<SimpleCommand> = vec![SimpleCommand { loop_words: Vec::new(), ..cmd.clone() }];
    for l in &cmd.loop_words {
        out = out
            .into_iter()
            .flat_map(|c| {
                l.values.iter().map(move |v| {
                    let mut c = c.clone();
                    if let Some(w) = c.words.get_mut(l.index) {
                        *w = v.clone();
                    }
                    c
                })
            })
            .collect();
    }
    out.into_iter().map(Cow::Owned).collect()
}

/// Whether a program's arguments are only printed or ignored, so a dynamic argument cannot make
/// it do more: its record says so (`only_prints`: `echo`, `true` …), or it is `:`, bash's own
/// null command (no program of that name exists, so the catalogue has no record of it). Only a
/// bare name: `./echo` is the project's own program.
fn only_prints(program: &str) -> bool {
    program == ":" || (!program.contains('/') && wicket_programs::lookup(program).is_some_and(|p| p.only_prints))
}

/// What a command reads on stdin, when the line says.
enum Stdin {
    /// A `< FILE` redirection.
    File(String),
    /// A here-document or here-string whose text is known.
    Text(String),
}

/// What the walk over a command line's simple commands collects.
#[derive(Default)]
struct Builder {
    parts: Vec<Part>,
    files: Vec<RedirectFile>,
    args: Vec<(String, bool)>,
    named: Vec<(String, bool)>,
    writes: Vec<String>,
    unknown_writes: Vec<String>,
    doubts: Vec<String>,
    path_doubts: Vec<String>,
    unseen_scripts: Vec<String>,
    environment: Vec<String>,
    gate_changes: Vec<String>,
    recursive: Vec<(String, bool, Vec<String>)>,
    split_reads: Vec<String>,
    git_elsewhere: Vec<String>,
    landings: Vec<wicket_programs::checkers::landings::Landing>,
    maybe_writes: Vec<(String, String)>,
    ctx: ViewContext,
    /// Folders a `cd`/`pushd` earlier on the line may have made current (besides the root):
    /// relative paths are checked against each.
    dirs: Vec<String>,
    /// The current folder as tracked (`None`: the root) and the `pushd` stack.
    cwd: Option<String>,
    stack: Vec<Option<String>>,
    /// Why the current folder is not known (`cd "$X"`, `cd -`, `cd` into a link made on the line).
    cwd_unknown: Option<String>,
    /// Names a link or folder made earlier on the line has (`ln -s T L`, `mkdir D`): a write
    /// under one goes where nobody can see before the line runs.
    created: Vec<String>,
    /// For the command being added, when it is `xargs` (or another program that adds words
    /// from its input to the command it runs): whether those names come from a source whose
    /// names the engine checks (a plain `find`, `git ls-files`) right before it in a pipe.
    handed_known: bool,
    /// Whether the line mentions `IFS`: bash's field splitting of an unquoted substitution
    /// is then not known.
    ifs_on_line: bool,
}

/// How deep scripts fed to a shell on stdin are followed (`sh <<EOF … sh <<EOF2 …`).
const MAX_STDIN_SCRIPT_DEPTH: u32 = 4;

/// Build the view of a command line.
pub fn view(command: &str) -> CommandView {
    view_with(command, &ViewContext::default())
}

/// Build the view of a command line, knowing the git aliases.
pub fn view_with(command: &str, ctx: &ViewContext) -> CommandView {
    let mut analysis = wicket_shell::analyze(command);
    if let Some(env) = &ctx.sandbox_env {
        resolve_unset_defaults(command, &mut analysis, env);
    }
    let mut b = Builder {
        // A script file run by name (`source FILE`) is unseen code the sandbox confines, not a
        // doubt about what the line says.
        doubts: analysis
            .problems
            .iter()
            .filter(|p| p.kind != wicket_shell::ProblemKind::RunsScriptFile)
            .map(|p| p.detail.clone())
            .collect(),
        unseen_scripts: analysis
            .problems
            .iter()
            .filter(|p| p.kind == wicket_shell::ProblemKind::RunsScriptFile)
            .map(|p| p.detail.clone())
            .collect(),
        ctx: ctx.clone(),
        ifs_on_line: command.contains("IFS"),
        ..Builder::default()
    };
    if let Some(found) = invisible_chars(command) {
        b.doubts.push(format!("the command holds invisible or control characters: {found}"));
    }
    if let Some(word) = confusable_word(command) {
        b.doubts.push(format!("`{word}` mixes look-alike letters from another script with ASCII"));
    }
    if analysis.commands.iter().any(|c| c.context == wicket_shell::Context::Function) {
        b.doubts.push("the command defines a shell function, which changes what later commands run".to_string());
    }
    // Where each `xargs` gets its names (worked out once: its parts and the recursive reads
    // below both need it).
    let handed: Vec<Option<Handed>> =
        (0..analysis.commands.len()).map(|i| handed_source(command, &analysis.commands, i)).collect();
    let set_here = set_on_line(command, &analysis);
    for (i, cmd) in analysis.commands.iter().enumerate() {
        let handed_known = handed[i].is_some();
        for one in loop_expansions(cmd) {
            b.handed_known = handed_known;
            let mut part = b.add(&one, 0);
            part.feeds_names = matches!(handed.get(i + 1), Some(Some(Handed::Find { plain: true, .. })));
            part.reads_only = only_reads(&one, &part);
            part.prints_revisions = part.reads_only && one.is_static() && {
                let w: Vec<&str> = one.words.iter().filter_map(|w| w.value.as_deref()).collect();
                one.assignments.is_empty()
                    && one.redirects.is_empty()
                    && matches!(
                        wicket_programs::answers::answer(&w),
                        Some(
                            wicket_programs::answers::Answer::ObjectNames(_)
                                | wicket_programs::answers::Answer::RefNames
                        )
                    )
            };
            part.inert = (changes_nothing(&one, &part) && prints_no_secret(&one, i, &set_here))
                || (part.reads_only && (reads_no_file(&one) || filters_its_input(&one)))
                || launches_printer(&one, &part);
            b.parts.push(part);
        }
        let followed = b.cwd_unknown.is_none();
        b.track_folder(cmd);
        // A plain `cd DIR` (one static operand, no assignment or redirection) whose folder the
        // tracking still knows: the engine checks where it lands.
        let program = cmd.words.first().and_then(|w| w.value.as_deref());
        if program == Some(CD)
            && followed
            && b.cwd_unknown.is_none()
            && cmd.words.len() == 2
            && cmd.is_static()
            && cmd.assignments.is_empty()
            && cmd.redirects.is_empty()
            && cmd.words[1].value.as_deref().is_some_and(|v| !v.starts_with(['-', '~']) && !v.is_empty())
        {
            if let Some(part) = b.parts.last_mut() {
                part.enters = b.cwd.clone();
            }
        }
    }
    // `find … | xargs cat`, `git ls-files | xargs wc -l`: the names the source prints are
    // read by the program xargs runs, so what lies below the source's start points is read.
    // Unless xargs reads NUL-ended names, it splits them at blanks and quotes.
    for (i, source) in handed.into_iter().enumerate() {
        let splits = analysis.commands.get(i).is_some_and(|c| !nul_ended(c));
        let folders = match source {
            Some(Handed::Find { starts, names, .. }) => starts.into_iter().map(|s| (s, names.clone())).collect(),
            Some(Handed::Tracked) => vec![(".".to_string(), Vec::new())],
            Some(Handed::ProcessIds) | None => Vec::new(),
        };
        for (folder, names) in folders {
            if splits {
                b.split_reads.push(folder.clone());
            }
            b.recursive.push((folder, false, names));
        }
    }
    b.writes.sort();
    b.writes.dedup();
    // A secret's name inside a larger string (a `python3 -c` script, a URL, a here-doc). A
    // word its program never opens (grep's pattern `^.env$`, `ls` names) only names it; what
    // a printer prints may be a script another program runs (`echo 'cat .env' | sh`).
    let texts = analysis.commands.iter().flat_map(|c| {
        let words: Vec<&str> = c.words.iter().filter_map(|w| w.value.as_deref()).collect();
        let printer = words.first().is_some_and(|p| only_prints(p));
        let unread =
            if c.is_static() && !printer { wicket_programs::checkers::unread_words(&words) } else { Vec::new() };
        c.words
            .iter()
            .enumerate()
            .filter(move |(k, _)| !unread.contains(k))
            .map(|(_, w)| w)
            .chain(c.assignments.iter().map(|a| &a.value))
            .chain(c.redirects.iter().map(|r| &r.target))
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
        named: b.named,
        writes: b.writes,
        unknown_writes: b.unknown_writes,
        doubts: b.doubts,
        path_doubts: b.path_doubts,
        unseen_scripts: b.unseen_scripts,
        environment: b.environment,
        gate_changes: b.gate_changes,
        recursive: b.recursive,
        split_reads: b.split_reads,
        git_elsewhere: b.git_elsewhere,
        landings: b.landings,
        maybe_writes: b.maybe_writes,
    }
}

impl Builder {
    /// Collect one simple command's files, arguments and writes, and build its part.
    fn add(&mut self, cmd: &SimpleCommand, depth: u32) -> Part {
        // Only the command of the line it was worked out for: not what it runs nested.
        let handed_known = std::mem::take(&mut self.handed_known);
        self.collect_files(&cmd.redirects);
        // Words that only name a file (`ls .env`, `grep .env`, `echo .env.local`) are not
        // reads of it (decisions.md, "Naming a file is not reading it"); only a fully static
        // argv is read that way, and a program run by path counts as unknown.
        let unread: Vec<usize> = match cmd.words.iter().map(|w| w.value.as_deref()).collect::<Option<Vec<&str>>>() {
            Some(values) => match values.first() {
                Some(p) if p.contains('/') => Vec::new(),
                Some(p) if NAMING_BUILTINS.contains(p) => (1..values.len()).collect(),
                Some(_) => wicket_programs::checkers::unread_words(&values),
                None => Vec::new(),
            },
            None => Vec::new(),
        };
        for k in &unread {
            if let Some(w) = cmd.words.get(*k) {
                if let Some(v) = &w.value {
                    for p in self.variants(v) {
                        self.named.push((p, w.glob));
                    }
                }
            }
        }
        let words = cmd.words.iter().enumerate().skip(1).filter(|(k, _)| !unread.contains(k)).map(|(_, w)| w);
        for w in words.chain(cmd.assignments.iter().map(|a| &a.value)) {
            if let Some(v) = &w.value {
                self.push_arg(v, w.glob);
            } else if !w.raw.contains(['$', '`']) && w.raw.contains('{') {
                // Brace expansion (`{.env,a.txt}`, `.e{n,x}v`): each word bash makes is checked.
                match expand_braces(&w.raw) {
                    Some(words) => {
                        for v in words {
                            let glob = v.contains(['*', '?', '[']);
                            self.push_arg(&v, glob);
                        }
                    }
                    None => self.doubts.push(format!(
                        "the word `{}` expands in a way wicket cannot follow, so the paths it names cannot be checked",
                        short_text(&w.raw)
                    )),
                }
            }
        }
        self.collect_writes(&cmd.words);
        let mut risky = risky_of(&cmd.words);
        for a in &cmd.assignments {
            let harmless = adds_nothing(a, cmd);
            if crate::flags::risky_var(&a.name) && !harmless {
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
        let mut runs_file = None;
        if !unwrapped.understood {
            let (scripts, others): (Vec<_>, Vec<_>) =
                unwrapped.problems.iter().partition(|p| p.kind == wicket_shell::ProblemKind::RunsScriptFile);
            // Only `SHELL FILE …`: a bare shell name, the file right after it, every word static.
            let words: Vec<&str> = cmd.words.iter().map_while(|w| w.value.as_deref()).collect();
            if scripts.len() == 1
                && others.is_empty()
                && cmd.assignments.is_empty()
                && words.len() == cmd.words.len()
                && words.first().is_some_and(|p| !p.contains('/') && wicket_programs::is_shell(p))
                && words.get(1).is_some_and(|f| !f.is_empty() && !f.starts_with(['-', '+']))
            {
                runs_file = Some(format!("{} {}", words[0], words[1]));
            }
            self.unseen_scripts.extend(scripts.iter().map(|p| p.detail.clone()));
            if !others.is_empty() || scripts.is_empty() {
                let why: Vec<&str> = others.iter().map(|p| p.detail.as_str()).collect();
                self.doubts.push(format!("cannot see everything `{}` runs ({})", cmd.source, why.join("; ")));
            }
        }
        let mut inner = Vec::new();
        // The stdin a patch may come from: a `< FILE` redirection's file, or the text of a
        // here-document or here-string known on the line (a pipe, or text with expansions, is
        // neither).
        let stdin = cmd
            .redirects
            .iter()
            .rev()
            .find(|r| matches!(r.op, RedirectOp::Read | RedirectOp::HereDoc | RedirectOp::HereString))
            .and_then(|r| match (&r.op, &r.target.value) {
                (RedirectOp::Read, Some(f)) => Some(Stdin::File(f.clone())),
                (RedirectOp::HereDoc | RedirectOp::HereString, Some(t)) => Some(Stdin::Text(t.clone())),
                _ => None,
            });
        // Does argv `k` only wrap argv `k + 1` (static words, a wrapper that adds nothing)?
        let wraps = |k: usize| {
            let (Some(outer), Some(next)) = (unwrapped.argvs.get(k), unwrapped.argvs.get(k + 1)) else {
                return false;
            };
            let words = |a: &[Word]| a.iter().map(|w| w.value.clone()).collect::<Option<Vec<String>>>();
            let (Some(outer), Some(next)) = (words(outer), words(next)) else { return false };
            let outer: Vec<&str> = outer.iter().map(String::as_str).collect();
            let next: Vec<&str> = next.iter().map(String::as_str).collect();
            unwrapped.understood && wicket_programs::adds_nothing(&outer, &next)
        };
        let transparent = cmd.assignments.is_empty() && wraps(0);
        for (k, argv) in unwrapped.argvs.iter().enumerate() {
            let text = render(argv);
            let values: Vec<&str> = argv.iter().map(|w| w.value.as_deref().unwrap_or(&w.raw)).collect();
            self.maybe_writes(argv);
            let found = self.effects(&values, stdin.as_ref());
            if k > 0 {
                let mut r = risky_of(argv);
                r.extend(found);
                let prints_only = r.is_empty()
                    && argv.iter().all(|w| w.value.is_some())
                    && argv.first().and_then(|w| w.value.as_deref()).is_some_and(only_prints);
                inner.push(Inner {
                    written: text.clone(),
                    risky: r,
                    transparent: transparent && wraps(k),
                    handed: false,
                    unknown_names: false,
                    prints_only,
                });
                self.collect_writes(argv);
            } else {
                risky.extend(found);
            }
            deny_texts.extend(crate::flags::git_deny_forms(&values));
            let git =
                values.first().and_then(|p| wicket_programs::lookup(p)).is_some_and(|p| p.checker == Checker::Git);
            if git {
                self.note_git_folders(&values);
                // `git config KEY VALUE` writes the repository's config file, which the line
                // does not name: a code-running key makes that file a write target, so the
                // protection of `.git/config` applies even under `bash(git config*)`.
                if let Some(target) = crate::gitconfig::code_running_config_write(&values) {
                    self.push_write(target);
                }
            }
            // `git ALIAS …` runs the alias's expansion: judged as that command line.
            if argv.iter().all(|w| w.value.is_some()) && git {
                match crate::gitalias::expand(&values, &self.ctx.git_aliases) {
                    Some(crate::gitalias::Expansion::Runs(line)) if depth < MAX_STDIN_SCRIPT_DEPTH => {
                        let a = wicket_shell::analyze(&line);
                        if !a.understood {
                            let why: Vec<&str> = a.problems.iter().map(|p| p.detail.as_str()).collect();
                            self.doubts.push(format!(
                                "the git alias in `{}` runs `{}`, which is not understood ({})",
                                cmd.source,
                                short_text(&line),
                                why.join("; ")
                            ));
                        }
                        self.fold_in(&a, depth, &mut deny_texts, &mut inner);
                    }
                    Some(crate::gitalias::Expansion::Runs(line)) => {
                        self.doubts.push(format!("git aliases are nested too deeply ({})", short_text(&line)));
                    }
                    Some(crate::gitalias::Expansion::Broken(why)) => self.doubts.push(why),
                    None => {
                        // In another repository (`git -C DIR`, or after a `cd`), that
                        // repository's own aliases apply, and wicket has not read them.
                        if let Some(sub) = crate::gitalias::elsewhere_unknown(&values, !self.dirs.is_empty()) {
                            self.doubts.push(format!(
                                "`git {sub}` is not a git command, and it runs where another repository's aliases may apply"
                            ));
                        }
                    }
                }
            }
            // A program with an option table: its options in normal form for deny rules, and
            // the files its options read for the sensitive-path check (`curl -d@.env`).
            if let Some((program, table)) = values.first().and_then(|p| Some((*p, crate::options::program(p)?))) {
                let parsed = table.parse(&values[1..]);
                let base = program.rsplit('/').next().unwrap_or(program);
                deny_texts.push(parsed.normal_form(base));
                self.args.extend(parsed.reads().into_iter().map(|r| (r, false)));
            }
            deny_texts.extend(options_set_aside(&values));
            deny_texts.push(text);
        }
        // Strings run by `bash -c`, `eval` …: their redirections and arguments count too.
        // A `cd` inside the string moves that shell only: the folders it may enter add checks,
        // and the outer line's folder is restored after.
        let saved = (self.cwd.clone(), self.stack.clone());
        for nested in &unwrapped.nested {
            self.collect_files(&nested.redirects);
            for w in nested.words.iter().skip(1) {
                if let Some(v) = &w.value {
                    self.push_arg(v, w.glob);
                }
            }
            self.track_folder(nested);
        }
        (self.cwd, self.stack) = saved;
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
                    self.fold_in(&a, depth, &mut deny_texts, &mut inner);
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
        // `… | xargs PROG`: PROG gets names from xargs's input (decisions.md, "xargs runs a
        // command"). Its rule must cover any name there; names from a source nobody can check
        // leave it to a rule for every command; and a name it may write is a write nobody can
        // name.
        let hands = unwrapped.understood
            && unwrapped
                .argvs
                .first()
                .and_then(|a| a.first())
                .and_then(|w| w.value.as_deref())
                .and_then(wicket_programs::lookup)
                .and_then(|p| p.role.launch())
                .is_some_and(|l| l.reads_arguments);
        // Its own words add nothing when they are static options its table knows to do nothing
        // more (`-n1`, `-0`, `-P 4`): the command it runs needs the rule, not xargs.
        let hands_plainly = hands
            && cmd.assignments.is_empty()
            && unwrapped.argvs.first().is_some_and(|a| {
                a.iter().all(|w| w.value.is_some()) && risky_of(a).is_empty() && {
                    let words: Vec<&str> = a.iter().filter_map(|w| w.value.as_deref()).collect();
                    crate::options::program(words[0]).is_some_and(|t| {
                        let parsed = t.parse(&words[1..]);
                        parsed.unknown.is_empty()
                            && parsed.found.iter().all(|f| f.opt.effect == wicket_programs::Effect::Plain)
                    })
                }
            });
        if hands {
            if let (Some(first), Some(argv)) = (inner.first_mut(), unwrapped.argvs.get(1)) {
                first.handed = true;
                // Names only printed are no secret read and no file written.
                first.unknown_names = !handed_known && !first.prints_only;
                let mut values: Vec<Option<&str>> = argv.iter().map(|w| w.value.as_deref()).collect();
                let program = values.first().copied().flatten();
                values.push(None);
                let writes = crate::flags::write_args(&values).iter().any(Option::is_none)
                    || !program.is_some_and(|p| !p.contains('/') && wicket_programs::lookup(p).is_some());
                if writes {
                    self.unknown_writes.push(format!(
                        "`{}` hands `{}` names read from its input, and it may write them",
                        cmd.words.first().and_then(|w| w.value.as_deref()).unwrap_or("the launcher"),
                        program.unwrap_or("the command")
                    ));
                }
            }
        }
        let find_exec = plain_find_exec(&unwrapped, &inner);
        if find_exec {
            risky.retain(|r| !matches!(r.as_str(), "-exec" | "-execdir"));
            for i in &mut inner {
                i.handed = true;
            }
        }
        deny_texts.extend(basenamed);
        deny_texts.sort();
        deny_texts.dedup();
        // A git query that prints a word it cannot resolve as it is (`git rev-parse X`) may hand
        // git that word, which git then reads as a path: checked as one.
        let dynamic = if cmd.is_static() { None } else { inert_dynamic(cmd, !self.ifs_on_line) };
        let dynamic_ok = dynamic.is_some();
        let dynamic = dynamic.unwrap_or_default();
        for w in &dynamic.echoed {
            self.push_arg(w, false);
        }
        if let Some(splits) = dynamic.reads_tracked {
            if let Some(why) = &self.cwd_unknown {
                self.path_doubts
                    .push(format!("{why}, so the files below it that `git ls-files` names cannot be checked"));
            }
            for v in self.variants(".") {
                if splits {
                    self.split_reads.push(v.clone());
                }
                self.recursive.push((v, false, Vec::new()));
            }
        }
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
            coverable: cmd.is_static() || static_but_pipes(cmd) || dynamic_ok,
            static_prefix,
            has_assignments: !cmd.assignments.is_empty(),
            bare: if cmd.assignments.iter().all(|a| adds_nothing(a, cmd)) {
                without_leading_options(&cmd.words)
                    .or_else(|| (!cmd.assignments.is_empty() && !cmd.words.is_empty()).then(|| cmd.canonical()))
            } else {
                None
            },
            risky,
            inner,
            inert: false,
            reads_only: false,
            enters: None,
            transparent: transparent || hands_plainly,
            hands_files: find_exec,
            feeds_names: false,
            prints_revisions: false,
            runs_file,
        }
    }

    /// A path as written and joined to every folder a `cd` may have made current. Absolute
    /// and `~` paths stay as they are.
    fn variants(&self, p: &str) -> Vec<String> {
        let mut out = vec![p.to_string()];
        if !p.starts_with(['/', '~']) {
            out.extend(self.dirs.iter().map(|d| join_dir(d, p)));
        }
        out
    }

    /// A static argument, for the sensitive-path check, in every folder it may be relative to.
    /// After a `cd` to a folder nobody can know, a relative argument cannot be checked.
    fn push_arg(&mut self, v: &str, glob: bool) {
        if let Some(why) = &self.cwd_unknown {
            if !v.starts_with(['/', '~', '-']) && !v.is_empty() {
                let d = format!("{why}, so the relative path `{}` cannot be checked", short_text(v));
                if !self.path_doubts.contains(&d) {
                    self.path_doubts.push(d);
                }
            }
        }
        for p in self.variants(v) {
            self.args.push((p, glob));
        }
    }

    /// A file the command writes: checked in every folder it may be relative to; a write
    /// under a name a link or folder made earlier on the line has, or after a `cd` nobody can
    /// follow, is a write nobody can name.
    fn push_write(&mut self, p: &str) {
        if is_device(p) {
            return;
        }
        if let Some(why) = &self.cwd_unknown {
            if !p.starts_with(['/', '~']) {
                self.unknown_writes.push(format!("{why}, so the file `{}` it writes cannot be known", short_text(p)));
                return;
            }
        }
        for v in self.variants(p) {
            let norm = normal_rel(&v);
            if let Some(c) = self.created.iter().find(|c| norm == **c || norm.starts_with(&format!("{c}/"))) {
                self.unknown_writes.push(format!(
                    "`{}` is written under `{c}`, which the same line makes, so where it lands is not known",
                    short_text(p)
                ));
                return;
            }
        }
        self.writes.extend(self.variants(p));
    }

    /// The files a command's redirections read or write. A target not known statically, or a
    /// glob (bash expands it against the disk when the line runs), is an unknown write.
    fn collect_files(&mut self, redirects: &[wicket_shell::Redirect]) {
        for r in redirects {
            let write = r.op.writes();
            if !write && r.op != RedirectOp::Read {
                continue;
            }
            match &r.target.value {
                Some(p) if is_device(p) => {}
                Some(p) if r.target.glob && write => self.unknown_writes.push(format!(
                    "the redirection target `{}` is a pattern bash expands when the line runs",
                    r.target.raw
                )),
                Some(p) if r.target.glob => self.push_arg(p, true),
                Some(p) if write && self.cwd_unknown.is_some() && !p.starts_with(['/', '~']) => self.push_write(p),
                Some(p) => {
                    let created = write && {
                        let vs = self.variants(p);
                        vs.iter().any(|v| {
                            let n = normal_rel(v);
                            self.created.iter().any(|c| n == *c || n.starts_with(&format!("{c}/")))
                        })
                    };
                    if created {
                        self.push_write(p);
                        continue;
                    }
                    if !write && self.cwd_unknown.is_some() {
                        self.push_arg(p, false);
                    }
                    for v in self.variants(p) {
                        self.files.push(RedirectFile { path: v, write });
                    }
                }
                // `done < <(git ls-files)`: a read of a pipe, not of a file; the command inside
                // is a part of its own that needs its own rule (decisions.md, "A pipe is no file").
                None if r.op == RedirectOp::Read && wicket_shell::whole_process_substitution(&r.target.raw) => {}
                None => self
                    .unknown_writes
                    .push(format!("the redirection target `{}` is not known before the command runs", r.target.raw)),
            }
        }
    }

    /// The files an argv writes through its arguments.
    fn collect_writes(&mut self, words: &[Word]) {
        let values: Vec<Option<&str>> = words.iter().map(|w| w.value.as_deref()).collect();
        for w in crate::flags::write_args(&values) {
            match w {
                Some(p) => self.push_write(&p),
                None => self.unknown_writes.push(format!(
                    "`{}` writes a file whose name is not known before the command runs",
                    values.first().copied().flatten().unwrap_or("the command")
                )),
            }
        }
    }

    /// What an argv does beyond its options (`crate::effects`): its writes, reads and
    /// recursive reads are recorded; the words a rule must spell out are returned.
    fn effects(&mut self, values: &[&str], stdin: Option<&Stdin>) -> Vec<String> {
        let e = crate::effects::of(values);
        for w in &e.writes {
            self.push_write(w);
        }
        for mut l in e.landings {
            use wicket_programs::checkers::landings::Landing;
            if let Landing::Patch { file: file @ None, text, .. } = &mut l {
                match stdin {
                    Some(Stdin::File(f)) => *file = Some(f.clone()),
                    Some(Stdin::Text(t)) => *text = Some(t.clone()),
                    None => {}
                }
            }
            // After a `cd`, the relative names in the input land in a folder this view does
            // not pin down: the engine could read the wrong patch or folder, so nobody can
            // name the writes.
            if !self.dirs.is_empty() || self.cwd_unknown.is_some() {
                self.unknown_writes.push(format!(
                    "`{}` writes what its input names, after a change of folder wicket does not follow into it",
                    values.first().copied().unwrap_or("the command")
                ));
                continue;
            }
            self.landings.push(l);
        }
        self.unknown_writes.extend(e.unknown_writes);
        self.environment.extend(e.environment);
        self.gate_changes.extend(e.gate_changes);
        for f in &e.recursive {
            for v in self.variants(f) {
                self.recursive.push((v, e.skips_hidden, e.recursive_names.clone()));
            }
        }
        e.risky
    }

    /// A program the catalogue has no record of (no write table, not known to only read):
    /// each static argument may be a file it writes (`gcc -o F`, `ed F`, `split IN PREFIX`),
    /// so the engine judges each one that lands in a protected place or under a deny rule.
    fn maybe_writes(&mut self, argv: &[Word]) {
        let Some(Some(program)) = argv.first().map(|w| w.value.as_deref()) else { return };
        if wicket_programs::lookup(program).is_some() {
            return;
        }
        let base = program.rsplit('/').next().unwrap_or(program).to_string();
        let words: Vec<String> = argv.iter().skip(1).filter_map(|w| w.value.clone()).collect();
        // The configuration file a tool is told to use is read, not written (`jest --config F`).
        let read: Vec<usize> = if words.len() == argv.len() - 1 {
            let all: Vec<&str> = words.iter().map(String::as_str).collect();
            wicket_programs::config_values(&base, &all)
        } else {
            Vec::new()
        };
        for (i, w) in words.into_iter().enumerate() {
            if read.contains(&i) {
                continue;
            }
            for v in self.variants(&w) {
                self.maybe_writes.push((base.clone(), v));
            }
        }
    }

    /// Follow `cd`, `pushd` and `popd` (and names `ln`/`mkdir` make) for the commands after
    /// this one.
    /// Fold the commands of a line a command runs (a git alias's expansion, a script fed to a
    /// shell) into that command: their deny texts meet its deny rules, and each needs a rule.
    fn fold_in(
        &mut self,
        a: &wicket_shell::Analysis,
        depth: u32,
        deny_texts: &mut Vec<String>,
        inner: &mut Vec<Inner>,
    ) {
        for c in &a.commands {
            let sub = self.add(c, depth + 1);
            deny_texts.extend(sub.deny_texts);
            inner.push(Inner {
                written: sub.written,
                risky: sub.risky,
                transparent: false,
                handed: false,
                unknown_names: false,
                prints_only: false,
            });
            inner.extend(sub.inner);
        }
    }

    /// The folders a git argv runs in, when not the line's own: each `-C DIR` (relative ones
    /// compose, as git applies them in order), `--git-dir` and `--work-tree`, on top of the
    /// folder a `cd` earlier on the line entered.
    fn note_git_folders(&mut self, words: &[&str]) {
        let mut dir = self.cwd.clone();
        let mut i = 1;
        while let Some(w) = words.get(i) {
            if !w.starts_with('-') || *w == "--" {
                break;
            }
            let (name, value, used) = match w.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v), 1),
                _ if *w == "-C" || *w == "--git-dir" || *w == "--work-tree" => (*w, words.get(i + 1).copied(), 2),
                _ => (*w, None, if crate::gitalias::takes_value(w) { 2 } else { 1 }),
            };
            match (name, value) {
                // `-C ''` keeps the folder, as git does.
                ("-C", Some(v)) if !v.is_empty() => {
                    dir = Some(match (&dir, v.starts_with(['/', '~'])) {
                        (Some(d), false) => join_dir(d, v),
                        _ => v.to_string(),
                    });
                }
                ("--git-dir" | "--work-tree", Some(v)) => {
                    let at = match (&dir, v.starts_with(['/', '~'])) {
                        (Some(d), false) => join_dir(d, v),
                        _ => v.to_string(),
                    };
                    self.git_elsewhere.push(at);
                }
                _ => {}
            }
            i += used;
        }
        if let Some(d) = dir {
            self.git_elsewhere.push(d);
        }
    }

    fn track_folder(&mut self, cmd: &SimpleCommand) {
        let words: Vec<Option<&str>> = cmd.words.iter().map(|w| w.value.as_deref()).collect();
        let Some(Some(program)) = words.first().copied() else { return };
        let args: Vec<Option<&str>> = words[1..].to_vec();
        let operands: Vec<Option<&str>> =
            args.iter().copied().filter(|a| a.is_none_or(|s| !s.starts_with('-') || s == "-")).collect();
        let unknown = |b: &mut Builder, why: String| {
            b.cwd_unknown.get_or_insert(why);
        };
        // Programs that make folders or links a later `cd` may enter, by their records.
        let makes = wicket_programs::lookup(program).map(|p| p.writes);
        match program {
            "cd" | "pushd" => {
                let target = match operands.first().copied() {
                    None if program == "cd" => Some("~".to_string()),
                    None => return unknown(self, "`pushd` swaps to a folder wicket does not follow".to_string()),
                    Some(None) => {
                        return unknown(self, format!("`{}` changes to a folder only known when it runs", cmd.source))
                    }
                    Some(Some("-")) => {
                        return unknown(self, format!("`{}` goes back to a folder wicket does not follow", cmd.source))
                    }
                    Some(Some(t)) if program == "pushd" && t.starts_with(['+', '-']) => {
                        return unknown(self, format!("`{}` rotates the folder stack", cmd.source))
                    }
                    Some(Some(t)) if t.starts_with('~') && !t.starts_with("~/") && t != "~" => {
                        return unknown(self, format!("`{}` names a folder wicket cannot expand", cmd.source))
                    }
                    Some(Some(t)) => Some(t.to_string()),
                };
                let Some(t) = target else { return };
                let new = if t.starts_with(['/', '~']) {
                    t
                } else {
                    match &self.cwd {
                        Some(c) => join_dir(c, &t),
                        None => t,
                    }
                };
                let n = normal_rel(&new);
                if self.created.iter().any(|c| n == *c || n.starts_with(&format!("{c}/"))) && self.created_links(&n) {
                    return unknown(self, format!("`{}` enters a link the same line makes", cmd.source));
                }
                if program == "pushd" {
                    self.stack.push(self.cwd.clone());
                }
                if !self.dirs.contains(&new) {
                    self.dirs.push(new.clone());
                }
                self.cwd = Some(new);
            }
            "popd" => match self.stack.pop() {
                Some(prev) => self.cwd = prev,
                None => unknown(self, "`popd` returns to a folder wicket does not follow".to_string()),
            },
            _ if matches!(makes, Some(Writes::Link | Writes::Folders)) => {
                let ops: Vec<&str> = operands.iter().flatten().copied().collect();
                let made: Vec<&str> = match makes {
                    Some(Writes::Folders) => ops,
                    _ => match args.iter().position(|a| *a == Some("-t") || *a == Some("--target-directory")) {
                        Some(k) => args.get(k + 1).copied().flatten().into_iter().collect(),
                        None if ops.len() == 1 => {
                            ops.first().map(|t| t.rsplit('/').next().unwrap_or(t)).into_iter().collect()
                        }
                        None => ops.last().copied().into_iter().collect(),
                    },
                };
                for m in made {
                    for v in self.variants(m) {
                        let n = normal_rel(&v);
                        let tag = if makes == Some(Writes::Link) { format!("{n}\u{0}link") } else { n.clone() };
                        if !self.created.contains(&n) {
                            self.created.push(n);
                        }
                        if makes == Some(Writes::Link) && !self.created.contains(&tag) {
                            self.created.push(tag);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Was this name (or a folder above it) made by `ln` on this line?
    fn created_links(&self, n: &str) -> bool {
        self.created
            .iter()
            .filter_map(|c| c.strip_suffix("\u{0}link"))
            .any(|c| n == c || n.starts_with(&format!("{c}/")))
    }

    /// The scripts a shell reads on stdin from here-documents and here-strings (`None` for one
    /// whose text is not known statically). Empty unless the program is a shell with no `-c`
    /// and no script file.
    fn stdin_scripts(&self, cmd: &SimpleCommand) -> Vec<Option<String>> {
        let Some(program) = cmd.words.first().and_then(|w| w.value.as_deref()) else { return Vec::new() };
        let base = program.rsplit('/').next().unwrap_or(program);
        // A shell runs a script read from stdin when given no `-c` and no script file.
        if !wicket_programs::is_shell(base) {
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

/// bash's `cd` builtin (not a program: the catalogue has no record of it).
const CD: &str = "cd";

/// bash builtins that change nothing whatever their words hold: they test, print the folder
/// or leave a loop (`read` sets only variables; the shell reader refuses a name that is not
/// known or whose subscript runs code, and the engine refuses the variables that make
/// programs run, below). None of them is a program on the PATH bash would look up first.
const NO_EFFECT_BUILTINS: &[&str] = &["pwd", "test", "[", "break", "continue", "read"];

/// bash's `read` builtin: it sets the variables its words name.
const READ: &str = "read";

/// bash's `getopts` builtin: its second word names the variable it sets.
const GETOPTS: &str = "getopts";

/// The builtins of [`NO_EFFECT_BUILTINS`] whose words name files without opening them
/// (`test -f .env`, `[ -e .env ]`).
const NAMING_BUILTINS: &[&str] = &["test", "["];

/// Does this simple command change nothing and run nothing, so that it needs no rule of its
/// own? Only a bare name with no assignment, nothing run inside it and no risky word: a
/// builtin of [`NO_EFFECT_BUILTINS`], a program whose record says it only prints (`echo`,
/// `true`, `:`), or one that only copies its stdin (`cat`) with no argument, fed a
/// here-document or here-string whose text is known. Its redirections are still checked as
/// the files they are, and a `read` into a variable that changes what programs run
/// (`read PATH`) is not inert.
fn changes_nothing(cmd: &SimpleCommand, part: &Part) -> bool {
    // `NODE_ENV=test` alone sets a shell variable that only tunes output.
    if cmd.words.is_empty() {
        return !cmd.assignments.is_empty() && cmd.redirects.is_empty() && tunes_output_only(&cmd.assignments);
    }
    let Some(program) = cmd.words.first().and_then(|w| w.value.as_deref()) else { return false };
    if cmd.assignments.is_empty() && part.inner.is_empty() && cmd.is_static() && !program.contains('/') {
        let words: Vec<&str> = cmd.words.iter().skip(1).filter_map(|w| w.value.as_deref()).collect();
        // `export NODE_ENV=test`: only such variables, exported.
        let exports = wicket_programs::lookup(program).is_some_and(|p| p.assigns && p.role.launch().is_none())
            && !words.is_empty()
            && words
                .iter()
                .all(|w| w.split_once('=').is_some_and(|(name, v)| wicket_programs::harmless_assignment(name, v)));
        if exports || (program == SET && set_changes_nothing(&words)) {
            return true;
        }
    }
    if !cmd.assignments.is_empty() || !part.inner.is_empty() || !part.risky.is_empty() || program.contains('/') {
        return false;
    }
    if !part.coverable {
        return false;
    }
    if NO_EFFECT_BUILTINS.contains(&program) {
        let names_ok = program != "read"
            || cmd
                .words
                .iter()
                .skip(1)
                .all(|w| w.value.as_deref().is_some_and(|v| v.starts_with('-') || !crate::flags::risky_var(v)));
        return (cmd.is_static() || static_but_pipes(cmd)) && names_ok;
    }
    if only_prints(program) {
        return true;
    }
    let copies = wicket_programs::lookup(program).is_some_and(|p| p.copies_stdin);
    copies
        && cmd.words.len() == 1
        && cmd
            .redirects
            .iter()
            .all(|r| matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString) && r.target.value.is_some())
        && cmd.redirects.iter().any(|r| matches!(r.op, RedirectOp::HereDoc | RedirectOp::HereString))
}

/// Do the words of command `at` expand only variables that hold no secret
/// (`wicket_programs::holds_no_secret`: `$HOME`, `$PWD`, `$NODE_ENV`) or that the line itself
/// set before it ([`set_on_line`])? A command that changes nothing may still print a variable:
/// `echo $GITHUB_TOKEN` on the host puts the person's token in the model's context as `cat
/// .env` would (decisions.md, "Variables that may hold a secret").
fn prints_no_secret(cmd: &SimpleCommand, at: usize, set_here: &HashMap<String, usize>) -> bool {
    cmd.words.iter().chain(cmd.assignments.iter().map(|a| &a.value)).all(|w| {
        w.value.is_some()
            || wicket_shell::expanded_names(&w.raw).is_some_and(|names| {
                names
                    .iter()
                    .all(|n| wicket_programs::holds_no_secret(n) || set_here.get(n).is_some_and(|from| *from <= at))
            })
    })
}

/// The variables a command line sets in its own shell, each with the index of the first
/// command that sees it set: bare assignments, the `NAME=value` operands of a record that
/// `assigns` (`export X=1`, not `export X`, nothing under `-n`), the variable a record says it
/// sets (`mapfile`'s last operand, `printf -v`), `read`'s names (not its options' values: `read
/// -p PROMPT x`), `getopts`'s, and the variable of a `for NAME in LIST` or `select` loop whose
/// list expands only such variables (a list with `$GITHUB_TOKEN` would hand the token on).
/// Only commands of the line's own shell count: none inside `( )`, `$( )`, `<( )`, and none at
/// all on a line with a pipe or a command in the background, where bash runs commands in
/// subshells (`echo x | read GITHUB_TOKEN` sets nothing after it).
fn set_on_line(line: &str, analysis: &Analysis) -> HashMap<String, usize> {
    let mut set: HashMap<String, usize> = HashMap::new();
    if wicket_shell::has_subshell_operator(line) {
        return set;
    }
    let valid = |n: &str| {
        n.bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
            && n.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
    };
    let note = |set: &mut HashMap<String, usize>, name: &str, from: usize| {
        if valid(name) {
            let e = set.entry(name.to_string()).or_insert(from);
            *e = (*e).min(from);
        }
    };
    for (i, cmd) in analysis.commands.iter().enumerate() {
        if cmd.context != wicket_shell::Context::Top {
            continue;
        }
        // A prefix assignment (`X=1 cmd`) is the command's environment, not the shell's.
        if cmd.words.is_empty() {
            for a in &cmd.assignments {
                note(&mut set, &a.name, i + 1);
            }
        }
        let words: Vec<&str> = cmd.words.iter().map(|w| w.value.as_deref().unwrap_or("")).collect();
        let Some((program, args)) = words.split_first() else { continue };
        if let Some(record) = wicket_programs::lookup(program) {
            // `NAME=value` operands only (`export GITHUB_TOKEN` exports the person's value), and
            // none under `-n` (`declare -n r=GITHUB_TOKEN` makes `$r` the token).
            let nameref = args.iter().any(|a| a.starts_with(['-', '+']) && a.contains('n'));
            if record.assigns && record.role.launch().is_none() && !nameref {
                for a in args.iter().filter(|a| !a.starts_with(['-', '+'])) {
                    if let Some((name, _)) = a.split_once('=') {
                        note(&mut set, name, i + 1);
                    }
                }
            }
            match record.sets_variable {
                wicket_programs::SetsVariable::Nothing => {}
                wicket_programs::SetsVariable::LastOperand(default) => {
                    let parsed = crate::options::program(program).map(|t| t.parse(args));
                    let last = parsed.as_ref().and_then(|p| p.operands.last().map(String::as_str));
                    note(&mut set, last.unwrap_or(default), i + 1);
                }
                wicket_programs::SetsVariable::OptionValue(opt) => {
                    let name = match args.first() {
                        Some(first) if *first == opt => args.get(1).copied(),
                        Some(first) => first.strip_prefix(opt),
                        None => None,
                    };
                    if let Some(name) = name {
                        note(&mut set, name, i + 1);
                    }
                }
            }
            continue;
        }
        // bash's `read` and `getopts` (builtins with no program file): the option letters that
        // take a value, and the one whose value is a name (`read -a NAME`).
        let (valued, naming) = match *program {
            READ => ("adinNptu", "a"),
            GETOPTS => ("", ""),
            _ => continue,
        };
        let mut operands = Vec::new();
        let mut k = 0;
        while let Some(w) = args.get(k) {
            k += 1;
            let Some(letters) = w.strip_prefix('-').filter(|l| !l.is_empty()) else {
                operands.push(*w);
                continue;
            };
            for (at, c) in letters.char_indices() {
                if valued.contains(c) {
                    let glued = &letters[at + c.len_utf8()..];
                    let value = if glued.is_empty() {
                        k += 1;
                        args.get(k - 1).copied().unwrap_or("")
                    } else {
                        glued
                    };
                    if naming.contains(c) {
                        note(&mut set, value, i + 1);
                    }
                    break;
                }
            }
        }
        let names = if *program == READ { &operands[..] } else { operands.get(1..2).unwrap_or(&[]) };
        for n in names {
            note(&mut set, n, i + 1);
        }
    }
    // `for NAME in LIST` and `select NAME in LIST`, as the parser found them, in order: the
    // variable is set from the first command after the loop's head when every word of the
    // list expands only such variables set before it (none written: the positional words).
    let mut loops: Vec<&wicket_shell::LoopVariable> =
        analysis.loop_variables.iter().filter(|l| l.context == wicket_shell::Context::Top).collect();
    loops.sort_by_key(|l| l.first_command);
    for l in loops {
        let list_ok = l.words.iter().all(|w| {
            w.value.is_some()
                || wicket_shell::expanded_names(&w.raw).is_some_and(|names| {
                    names.iter().all(|n| {
                        wicket_programs::holds_no_secret(n) || set.get(n).is_some_and(|from| *from <= l.first_command)
                    })
                })
        });
        if list_ok {
            note(&mut set, &l.name, l.first_command);
        }
    }
    set
}

/// Is this simple command a launcher that adds nothing (`timeout 5`, an `xargs` whose own
/// options only shape how it hands names on) around a program whose words only reach its
/// output (`xargs -n1 basename`)? Whatever names reach that program, the line reads, writes
/// and runs nothing more than its redirections, which are checked as the files they are
/// (decisions.md, "Launchers of programs that only print").
fn launches_printer(cmd: &SimpleCommand, part: &Part) -> bool {
    part.transparent
        && cmd.assignments.is_empty()
        && cmd.is_static()
        && part.risky.is_empty()
        && part.inner.last().is_some_and(|i| i.prints_only)
        && part.inner.iter().all(|i| i.prints_only || i.transparent)
}

/// Does this simple command only read (decisions.md, "Programs that only read")? A bare
/// program name whose record says it only reads, no assignment before it, every word static
/// (a `<` read of a process substitution aside), no risky option and nothing run inside it.
/// Where its words lead is for the engine to judge.
fn only_reads(cmd: &SimpleCommand, part: &Part) -> bool {
    let Some(program) = cmd.words.first().and_then(|w| w.value.as_deref()) else { return false };
    // The cheap tests first: this runs for every part of every command line.
    if !cmd.assignments.is_empty() || !part.inner.is_empty() || !part.risky.is_empty() || program.contains('/') {
        return false;
    }
    let Some(record) = wicket_programs::lookup(program) else { return false };
    // A word that is one whole `<(…)` is a pipe from a command that is a part of its own
    // (`diff <(sort a) <(sort b)`).
    let pipe = |w: &Word| w.value.is_none() && wicket_shell::whole_process_substitution(&w.raw);
    if !cmd.words.iter().all(|w| w.value.is_some() || pipe(w)) || !cmd.redirects.iter().all(static_or_pipe) {
        return false;
    }
    let words: Vec<&str> = cmd.words.iter().filter_map(|w| w.value.as_deref()).collect();
    if !record.reads_only(words.get(1..).unwrap_or(&[])) {
        return false;
    }
    // awk can print its environment (`ENVIRON["TOKEN"]`) or read files its script names
    // (`ARGV[1]="/etc/hostname"`).
    if record.scripts == wicket_programs::Scripts::Awk
        && words.iter().any(|w| wicket_programs::checkers::awk::reaches_beyond_operands(w))
    {
        return false;
    }
    let values: Vec<Option<&str>> = words.iter().map(|w| Some(*w)).collect();
    // What its record and checker say it writes beyond the options (`uniq IN OUT` writes OUT).
    let e = wicket_programs::checkers::effects(&words);
    crate::flags::write_args(&values).is_empty()
        && e.risky.is_empty()
        && e.writes.is_empty()
        && e.unknown_writes.is_empty()
        && e.environment.is_none()
        && e.landings.is_empty()
        && e.gate_changes.is_empty()
}

/// Does a part that only reads read no file at all: its record says it reads none but through
/// options (`date`, `uname`, `which`), and no option of its table names one (`date -r F`)?
fn reads_no_file(cmd: &SimpleCommand) -> bool {
    let words: Vec<&str> = cmd.words.iter().filter_map(|w| w.value.as_deref()).collect();
    let Some((program, args)) = words.split_first() else { return false };
    if !wicket_programs::lookup(program).is_some_and(|p| p.reads_no_files) {
        return false;
    }
    crate::options::program(program).is_none_or(|table| {
        let parsed = table.parse(args);
        parsed.unknown.is_empty() && parsed.found.iter().all(|f| f.opt.effect == wicket_programs::Effect::Plain)
    })
}

/// Does a part that only reads read nothing but its input (`tail -20`, `grep -E "ok|FAILED"`,
/// `wc -l`, `sort | uniq -c`): an option table that knows every option, none that reads a
/// file (`grep -f F`), no operand but those it never opens (grep's pattern), and no `<` read
/// of a file? It reads no file, so it adds nothing to what the line's other parts do: what
/// comes to it through a pipe they printed already (decisions.md, "Filters of a pipe").
fn filters_its_input(cmd: &SimpleCommand) -> bool {
    let words: Vec<&str> = cmd.words.iter().filter_map(|w| w.value.as_deref()).collect();
    words.len() == cmd.words.len()
        && cmd.assignments.is_empty()
        && !cmd.redirects.iter().any(|r| r.op == RedirectOp::Read || r.op.writes())
        && wicket_programs::checkers::reads_only_input(&words)
}

/// One command substitution in a word, with the static text around it: `"$(B)"`,
/// `--since="$(B)"`, `"--since=$(B)"`, `-j$(B)`, `$(B)..HEAD`.
struct Substituted<'a> {
    prefix: &'a str,
    body: &'a str,
    suffix: &'a str,
    /// Inside double quotes: one field, never split or globbed.
    quoted: bool,
}

/// The word as one command substitution with static text around it, when it is one. The text
/// around it holds only letters, digits and `-_=.,/~^@+:` (no quote, blank, glob or further
/// expansion); a word with two substitutions (`$(a)..$(b)`) does not parse as one body.
fn substituted(raw: &str) -> Option<Substituted<'_>> {
    let whole = raw.len() >= 2 && raw.starts_with('"') && raw.ends_with('"');
    let inner = if whole { &raw[1..raw.len() - 1] } else { raw };
    let open = inner.find("$(")?;
    let close = inner.rfind(')')?;
    if close < open + 2 {
        return None;
    }
    let (mut prefix, body, mut suffix) = (&inner[..open], &inner[open + 2..close], &inner[close + 1..]);
    let mut quoted = whole;
    if !whole {
        if let (Some(p), Some(s)) = (prefix.strip_suffix('"'), suffix.strip_prefix('"')) {
            (prefix, suffix, quoted) = (p, s, true);
        }
    }
    let plain = |t: &str| t.chars().all(|c| c.is_ascii_alphanumeric() || "-_=.,/~^@+:".contains(c));
    (plain(prefix) && plain(suffix)).then_some(Substituted { prefix, body, suffix, quoted })
}

/// What a command substitution prints, as far as the engine can know before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Printed {
    /// The system's state: text no file holds and the model did not choose, of any shape
    /// (`date -d '7 days ago' +%F`, `uname -r`).
    State,
    /// What the catalogue knows the command answers (a count, git's object or ref names).
    Known(wicket_programs::answers::Answer),
}

/// What one substitution's commands print ([`Printed`]), when every command is known: static
/// words, no assignment or redirection, nothing risky.
fn printed(body: &str) -> Option<Printed> {
    let analysis = wicket_shell::analyze(body);
    if !analysis.understood || analysis.commands.is_empty() {
        return None;
    }
    let plain = |c: &SimpleCommand| c.assignments.is_empty() && c.redirects.is_empty() && c.is_static();
    let words = |c: &SimpleCommand| c.words.iter().filter_map(|w| w.value.clone()).collect::<Vec<String>>();
    if let [one] = analysis.commands.as_slice() {
        let w = words(one);
        let w: Vec<&str> = w.iter().map(String::as_str).collect();
        if plain(one) {
            if let Some(a) = wicket_programs::answers::answer(&w) {
                return Some(Printed::Known(a));
            }
        }
    }
    let state = analysis.commands.iter().all(|c| {
        let w = words(c);
        let w: Vec<&str> = w.iter().map(String::as_str).collect();
        plain(c)
            && w.first().is_some_and(|p| !p.contains('/'))
            && reads_no_file(c)
            && crate::flags::risky_flags(&w).is_empty()
            && wicket_programs::checkers::effects(&w).risky.is_empty()
    });
    state.then_some(Printed::State)
}

/// Is the dynamic word at `index` the value of one of its program's options that takes a
/// value and does nothing more with it (`git log --since`, `make -j`), given by one command
/// substitution whose output the engine knows in kind ([`Printed`]): in its own word after
/// the option, or glued to it (`--since="$(…)"`, `-j$(nproc)`)? The program reads it as that
/// option's value, never as an option or an operand; unquoted, only output that is one field
/// (a count, names git prints) qualifies, since bash splits and globs the rest.
fn plain_option_value(cmd: &SimpleCommand, index: usize, ifs_free: bool) -> bool {
    const HOLE: &str = "wicket-dynamic-value";
    let Some(sub) = cmd.words.get(index).and_then(|w| substituted(&w.raw)) else { return false };
    if !sub.suffix.is_empty() || !(sub.prefix.is_empty() || sub.prefix.starts_with('-')) {
        return false;
    }
    let Some(kind) = printed(sub.body) else { return false };
    // Process ids are one field each, and there may be several.
    if !sub.quoted
        && (kind == Printed::State || kind == Printed::Known(wicket_programs::answers::Answer::ProcessIds) || !ifs_free)
    {
        return false;
    }
    let Some(program) = cmd.words.first().and_then(|w| w.value.as_deref()) else { return false };
    let Some(table) = crate::options::program(program) else { return false };
    let glued = format!("{}{HOLE}", sub.prefix);
    let mut words = Vec::with_capacity(cmd.words.len());
    for (k, w) in cmd.words.iter().enumerate().skip(1) {
        match (&w.value, k == index) {
            (_, true) => words.push(glued.as_str()),
            (Some(v), false) => words.push(v.as_str()),
            // Another dynamic word: where options end may depend on it.
            (None, false) => return false,
        }
    }
    let parsed = table.parse(&words);
    parsed.unknown.is_empty()
        && parsed.found.iter().any(|f| {
            f.value.as_deref() == Some(HOLE)
                && (f.opt.arg == wicket_programs::Arg::Required || !sub.prefix.is_empty())
                && f.opt.effect == wicket_programs::Effect::Plain
        })
}

/// Is the dynamic word at `index` a revision of a git command that reads revisions
/// (`git diff "$(git merge-base HEAD main)"`, `git log $(git describe --tags --abbrev=0)..HEAD`):
/// one substitution of a git query whose output is object or ref names ([`git_query`]), with
/// at most a revision suffix (`~1`, `^`) or a range (`..HEAD`, `HEAD...`) around it, an operand
/// before any `--`? Git reads a name that resolves as that revision, never as a path. A ref
/// name may begin with `-`, so it must not begin the word. The words such a query prints
/// as they are (`git rev-parse X`) are returned, to be checked as the paths git may take them
/// for; `None` when the word is no such revision.
fn git_revision(cmd: &SimpleCommand, index: usize, ifs_free: bool) -> Option<Vec<String>> {
    use wicket_programs::answers::{self, Answer};
    let values: Vec<Option<&str>> = cmd.words.iter().map(|w| w.value.as_deref()).collect();
    let (Some(program), Some(sub_cmd)) = (values.first().copied().flatten(), values.get(1).copied().flatten()) else {
        return None;
    };
    let table = answers::revision_table(program, sub_cmd)?;
    if values.get(2..index).unwrap_or(&[]).contains(&Some("--")) {
        return None;
    }
    let sub = substituted(&cmd.words.get(index)?.raw)?;
    let echoed = match printed(sub.body)? {
        Printed::Known(Answer::ObjectNames(e)) => e,
        Printed::Known(Answer::RefNames) if !sub.prefix.is_empty() => Vec::new(),
        _ => return None,
    };
    if !sub.quoted && !ifs_free {
        return None;
    }
    // `..REV`, `...REV`, `REV..`, revision suffixes: revision syntax only, no path.
    let range_side = |t: &str| t.is_empty() || answers::revision_word(t);
    let suffix_ok = {
        let t = sub.suffix.trim_start_matches(|c: char| c == '~' || c == '^' || c.is_ascii_digit());
        t.is_empty() || t.strip_prefix("...").or_else(|| t.strip_prefix("..")).is_some_and(range_side)
    };
    let prefix_ok = sub.prefix.is_empty()
        || sub.prefix.strip_suffix("...").or_else(|| sub.prefix.strip_suffix("..")).is_some_and(range_side);
    // The word must be an operand, not an option's value: the table parses it as one.
    // Another dynamic word is judged on its own; here it stands as another operand.
    const HOLE: &str = "0000000000000000000000000000000000000000";
    const OTHER: &str = "1111111111111111111111111111111111111111";
    let mut words = Vec::with_capacity(cmd.words.len());
    for (k, v) in values.iter().enumerate().skip(1) {
        words.push(match (v, k == index) {
            (_, true) => HOLE,
            (Some(v), false) => v,
            (None, false) => OTHER,
        });
    }
    let parsed = table.parse(&words);
    let operand = parsed.unknown.is_empty()
        && parsed.operands.iter().any(|o| o == HOLE)
        && !parsed.found.iter().any(|f| f.value.as_deref() == Some(HOLE));
    (suffix_ok && prefix_ok && operand).then_some(echoed)
}

/// The variables bash sets itself in a `bash -c` (`env -i bash -c 'compgen -v'`, bash 5.2)
/// and as it runs: never known to be unset.
fn set_by_bash(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "DIRSTACK",
        "EPOCHREALTIME",
        "EPOCHSECONDS",
        "EUID",
        "GROUPS",
        "HOSTNAME",
        "HOSTTYPE",
        "IFS",
        "LINENO",
        "MACHTYPE",
        "OPTERR",
        "OPTIND",
        "OSTYPE",
        "PATH",
        "PPID",
        "PWD",
        "RANDOM",
        "SECONDS",
        "SHELL",
        "SHELLOPTS",
        "SHLVL",
        "SRANDOM",
        "TERM",
        "UID",
        "_",
        "FUNCNAME",
        "PIPESTATUS",
        "OLDPWD",
        "REPLY",
        "OPTARG",
        "MAPFILE",
        "COPROC",
        "COLUMNS",
        "LINES",
        "HOME",
        "CDPATH",
        "GLOBIGNORE",
        "POSIXLY_CORRECT",
        "ENV",
        "TMOUT",
    ];
    NAMES.contains(&name) || ["BASH", "COMP", "HIST", "READLINE", "PS", "PROMPT"].iter().any(|p| name.starts_with(p))
}

/// Is `name` unset when the line runs in the sandbox: not in its environment, not one of
/// bash's own, and never anything on the line but the plain expansions `$NAME` and
/// `${NAME…}` without an assignment (`read NAME`, `NAME=1`, `${NAME:=x}`, `${!NAME}`,
/// `declare -n r=NAME` all name it otherwise)?
fn unset_in_sandbox(name: &str, line: &str, env: &[String]) -> bool {
    if env.iter().any(|e| e == name) || set_by_bash(name) {
        return false;
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(at) = line[from..].find(name).map(|i| i + from) {
        let end = at + name.len();
        from = end;
        let before = line[..at].chars().next_back();
        let after = line[end..].chars().next();
        if before.is_some_and(ident) || after.is_some_and(ident) {
            continue;
        }
        let plain = line[..at].ends_with('$') && !line[..at].ends_with("$$");
        let braced = line[..at].ends_with("${")
            && !line[end..].starts_with(":=")
            && !line[end..].starts_with('=')
            && !line[end..].starts_with('[');
        if !(plain || braced) {
            return false;
        }
    }
    true
}

/// The value bash gives a word whose only expansions are `${NAME:-WORD}` and `${NAME-WORD}`
/// of variables unset in the sandbox ([`unset_in_sandbox`]), with `WORD` plain text, when it
/// is one field: unquoted, the default must hold no blank or glob character (bash would
/// split or glob it). `None` for any other word.
fn default_value(raw: &str, unset: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut out = String::new();
    let mut chars = raw.char_indices().peekable();
    let mut double = false;
    let mut expanded = false;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if !double => out.push(chars.next()?.1),
            '\\' => {
                let (_, n) = chars.next()?;
                if !matches!(n, '$' | '`' | '"' | '\\') {
                    out.push('\\');
                }
                out.push(n);
            }
            '\'' if !double => loop {
                match chars.next()? {
                    (_, '\'') => break,
                    (_, q) => out.push(q),
                }
            },
            '"' => double = !double,
            '$' if raw[i + 1..].starts_with('{') => {
                let close = raw[i..].find('}')? + i;
                let inner = &raw[i + 2..close];
                let name_end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len());
                let (name, op) = inner.split_at(name_end);
                let word = op.strip_prefix(":-").or_else(|| op.strip_prefix('-'))?;
                if name.is_empty()
                    || name.starts_with(|c: char| c.is_ascii_digit())
                    || word.chars().any(|c| matches!(c, '$' | '`' | '\'' | '"' | '\\' | '{' | '}' | '(' | ')'))
                    || (!double
                        && (word.is_empty() || word.chars().any(|c| c.is_whitespace() || matches!(c, '*' | '?' | '['))))
                    || !unset(name)
                {
                    return None;
                }
                out.push_str(word);
                expanded = true;
                while chars.peek().is_some_and(|(j, _)| *j <= close) {
                    chars.next();
                }
            }
            '$' | '`' => return None,
            c => out.push(c),
        }
    }
    (expanded && !double).then_some(out)
}

/// Give each word whose only expansions are defaults of variables unset in the sandbox the
/// value bash gives it there ([`default_value`]): `pytest ${ARGS:-tests}` is `pytest tests`.
/// Only when every dynamic word of the line is such a default (a name built when the line runs,
/// `command export "${V}B=x"`, could set any variable), no static word names the variable after
/// quote removal (`export S"U"B=push` sets `SUB`), and the line does not mention `IFS`.
fn resolve_unset_defaults(line: &str, analysis: &mut Analysis, env: &[String]) {
    if line.contains("IFS") {
        return;
    }
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut named: std::collections::HashSet<String> = std::collections::HashSet::new();
    for cmd in &analysis.commands {
        named.extend(cmd.assignments.iter().map(|a| a.name.clone()));
        let words = cmd
            .words
            .iter()
            .chain(cmd.assignments.iter().map(|a| &a.value))
            .chain(cmd.redirects.iter().map(|r| &r.target));
        for v in words.filter_map(|w| w.value.as_deref()) {
            named.extend(v.split(|c: char| !ident(c)).filter(|t| !t.is_empty()).map(str::to_string));
        }
    }
    let unset = |name: &str| !named.contains(name) && unset_in_sandbox(name, line, env);
    let mut values = Vec::new();
    for (i, cmd) in analysis.commands.iter().enumerate() {
        let words = cmd
            .words
            .iter()
            .chain(cmd.assignments.iter().map(|a| &a.value))
            .chain(cmd.redirects.iter().map(|r| &r.target));
        for (j, w) in words.enumerate() {
            if w.value.is_none() {
                match default_value(&w.raw, &unset) {
                    Some(v) => values.push((i, j, v)),
                    None => return,
                }
            }
        }
    }
    for (i, j, v) in values {
        let cmd = &mut analysis.commands[i];
        let (nw, na) = (cmd.words.len(), cmd.assignments.len());
        let w = if j < nw {
            &mut cmd.words[j]
        } else if j < nw + na {
            &mut cmd.assignments[j - nw].value
        } else {
            &mut cmd.redirects[j - nw - na].target
        };
        w.value = Some(v);
    }
}

/// Where the names `xargs` hands on come from, when the engine can check them.
enum Handed {
    /// A `find` of static start points: its `-name` patterns (plain form; empty: any file),
    /// and whether it is in the plain form (only tests and printing).
    Find { starts: Vec<String>, names: Vec<String>, plain: bool },
    /// `git ls-files`: the tracked files, any of them below the line's folder.
    Tracked,
    /// Process ids (`lsof -t`, `pgrep`), handed to `kill`: no file at all.
    ProcessIds,
}

/// Is command `i` a program that adds names from its input to the command it runs (`xargs`),
/// piped straight from a source whose names the engine can check: a `find` with static words,
/// or `git ls-files`? `None` for any other source (`echo X`, `cat list`, a file) or command.
fn handed_source(line: &str, commands: &[SimpleCommand], i: usize) -> Option<Handed> {
    let cmd = commands.get(i)?;
    let record = |c: &SimpleCommand| c.words.first().and_then(|w| w.value.as_deref()).and_then(wicket_programs::lookup);
    record(cmd)?.role.launch().filter(|l| l.reads_arguments)?;
    // Its names come from its input only when no option reads them from elsewhere (`-a F`).
    let own: Vec<&str> = cmd.words.iter().map_while(|w| w.value.as_deref()).collect();
    let table = own.first().and_then(|p| crate::options::program(p))?;
    let parsed = table.parse(own.get(1..).unwrap_or(&[]));
    if !parsed.unknown.is_empty() || parsed.found.iter().any(|f| f.opt.effect != wicket_programs::Effect::Plain) {
        return None;
    }
    let source = commands.get(i.checked_sub(1)?)?;
    if source.context != cmd.context || !source.is_static() || !source.redirects.is_empty() {
        return None;
    }
    // Straight from it: only a `|` between the two, as written.
    let at = line.find(source.source.as_str())?;
    let after = &line[at + source.source.len()..];
    let next = after.find(cmd.source.as_str())?;
    if after[..next].trim() != "|" {
        return None;
    }
    let words: Vec<&str> = source.words.iter().filter_map(|w| w.value.as_deref()).collect();
    // `lsof -t -i:3000 | xargs kill`: ids, which `kill` takes as processes only.
    let runs = parsed.operands.first().map(String::as_str);
    if runs.is_some_and(wicket_programs::answers::takes_process_ids)
        && wicket_programs::answers::answer(&words) == Some(wicket_programs::answers::Answer::ProcessIds)
    {
        return Some(Handed::ProcessIds);
    }
    let source_record = record(source)?;
    if source_record.checker == Checker::FindExec {
        let args = &words[1..];
        if args.iter().any(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir")) {
            return None;
        }
        let mut probe: Vec<&str> = args.to_vec();
        probe.extend(["-exec", "wicket-probe", "{}", "+"]);
        let plain = wicket_programs::checkers::plain_find_exec(&probe);
        let names = plain.clone().unwrap_or_default();
        let starts: Vec<String> = args
            .iter()
            .take_while(|w| !w.starts_with('-') && !matches!(**w, "(" | "!"))
            .map(|w| w.to_string())
            .collect();
        let starts = if starts.is_empty() { vec![".".to_string()] } else { starts };
        return Some(Handed::Find { starts, names, plain: plain.is_some() });
    }
    if source_record.checker == Checker::Git && source_record.parse(&words[1..]).path.as_slice() == ["ls-files"] {
        return Some(Handed::Tracked);
    }
    None
}

/// The command without the options written before its sub-command, when each is one an allow
/// rule need not care about, for allow rules (issue 40): `git --no-pager log` as `git log`,
/// `mvn -q test` as `mvn test`, `npm --silent test` as `npm test`. The same options after the
/// sub-command are already covered by a rule for it (`bash(git log*)` covers `git log
/// --no-pager`-style words); before it they were not, one question per call. Set aside: the
/// options the program's table knows as `Plain` (nothing an allow rule has to care about),
/// with their values, and folder options: `git -C DIR … SUB …` as `git SUB …`, `npm --prefix
/// DIR SUB …` as `npm SUB …` (the program works in `DIR` as after a `cd` there). git's `-C`
/// folder outside the project or in a repository nested in it is judged apart (its
/// configuration was never read: only `bash(*)` covers it); a package manager's (its table's
/// `Workdir` options: npm's `--prefix`, pnpm's `--dir`, yarn's `--cwd`) that may lie outside
/// stays a risky word the rule must spell out. Every word static; an option the table does not
/// know, or any other effect (`git -c`, `git --bare`, `docker -H`), keeps the command as written.
fn without_leading_options(words: &[Word]) -> Option<String> {
    let vals: Vec<&str> = words.iter().map(|w| w.value.as_deref()).collect::<Option<_>>()?;
    let program = *vals.first()?;
    let table = wicket_programs::program(program)?;
    let git = table.checker == Checker::Git;
    let set_aside = |words: &[&str]| {
        let p = table.parse(words);
        p.unknown.is_empty()
            && p.operands.is_empty()
            && p.path.is_empty()
            && p.found.len() == 1
            && match p.found[0].opt.effect {
                wicket_programs::Effect::Plain => true,
                // git's `-C` is its own case (its folder's configuration is judged apart).
                wicket_programs::Effect::Workdir => !git,
                _ => false,
            }
    };
    let mut i = 1;
    loop {
        match vals.get(i) {
            Some(&"-C") if git && vals.get(i + 1).is_some() => i += 2,
            Some(w) if w.starts_with('-') && set_aside(&[w]) => i += 1,
            Some(w) if w.starts_with('-') && vals.get(i + 1).is_some_and(|v| set_aside(&[w, v])) => i += 2,
            _ => break,
        }
    }
    if i == 1 || vals.get(i).is_none_or(|w| w.starts_with('-')) {
        return None;
    }
    Some(std::iter::once(program).chain(vals[i..].iter().copied()).collect::<Vec<_>>().join(" "))
}

/// The longest run of leading options a deny rule looks past (`kubectl --context prod -n x
/// delete …`).
const MAX_LEADING_OPTIONS: usize = 8;

/// The command with the options written before its first other word set aside, one form per
/// way to read them (each option word, and the word after one that may take a value): a deny
/// rule names the words a person sees (`npm publish`, `curl http://evil…`, `rm build`), and
/// most programs read an option before them the same as after (`npm --silent publish`, `curl
/// -s URL`, `rm -rf build`, `kubectl --context prod delete pod x`). Each form keeps only words
/// of the command, in order, so a rule that meets one names what runs. For deny and ask rules
/// only: an allow rule is matched as written.
fn options_set_aside(values: &[&str]) -> Vec<String> {
    let Some((program, rest)) = values.split_first() else { return Vec::new() };
    let is_option = |w: &str| w.len() > 1 && w.starts_with('-');
    let join = |tail: &[&str]| std::iter::once(*program).chain(tail.iter().copied()).collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut may_take_value = false;
    for (i, w) in rest.iter().take(MAX_LEADING_OPTIONS).enumerate() {
        if *w == "--" {
            out.push(join(&rest[i + 1..]));
            break;
        }
        let option = is_option(w);
        if !option && !may_take_value {
            break;
        }
        if i + 1 < rest.len() {
            out.push(join(&rest[i + 1..]));
        }
        may_take_value = option && !w.contains('=');
    }
    out
}

/// Does this assignment before `cmd` change nothing its rule is about: a static value of a
/// variable that only tunes output, or import folders below the current one for a program that
/// imports that folder's code anyway (`PYTHONPATH=. pytest`, see
/// [`wicket_programs::import_path_adds_nothing`])?
fn adds_nothing(a: &wicket_shell::Assignment, cmd: &SimpleCommand) -> bool {
    let Some(v) = a.value.value.as_deref() else { return false };
    if wicket_programs::harmless_assignment(&a.name, v) {
        return true;
    }
    let argv: Vec<&str> = cmd.words.iter().map_while(|w| w.value.as_deref()).collect();
    argv.len() == cmd.words.len() && wicket_programs::import_path_adds_nothing(&a.name, v, &argv)
}

/// Does every assignment set a variable that only tunes output, to a static value?
fn tunes_output_only(assignments: &[wicket_shell::Assignment]) -> bool {
    assignments
        .iter()
        .all(|a| a.value.value.as_deref().is_some_and(|v| wicket_programs::harmless_assignment(&a.name, v)))
}

/// bash's `set`, read here only for the options that change how the script stops.
const SET: &str = "set";

/// Does `set` with these words only change when the script stops or reports (`set -e`, `set
/// -euo pipefail`, `set +x`)? Not `-x` (it expands `PS4`), `-k` (every `NAME=value` word
/// becomes the environment of the command), `-f` or `-B` (they change what a word expands to)
/// or positional words (`set -- a b` changes what `$1` holds).
fn set_changes_nothing(words: &[&str]) -> bool {
    const ON: &[char] = &['e', 'u', 'E'];
    const OFF: &[char] = &['e', 'u', 'x', 'v', 'E'];
    const NAMES: &[&str] = &["errexit", "nounset", "pipefail", "errtrace"];
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let (letters, allowed) = match (w.strip_prefix('-'), w.strip_prefix('+')) {
            (Some(l), _) => (l, ON),
            (_, Some(l)) => (l, OFF),
            _ => return false,
        };
        if letters.is_empty() {
            return false;
        }
        for (k, c) in letters.chars().enumerate() {
            if c == 'o' {
                // `-o NAME` takes the next word; only as the cluster's last letter.
                if k + 1 != letters.chars().count() || !words.get(i + 1).is_some_and(|n| NAMES.contains(n)) {
                    return false;
                }
                i += 1;
            } else if !allowed.contains(&c) {
                return false;
            }
        }
        i += 1;
    }
    !words.is_empty()
}

/// Options whose value is a message (`git commit -m "$(…)"`), for a program whose record names
/// none of its own.
const MESSAGE_OPTIONS: &[&str] = &["-m", "--message"];

/// A redirection whose target is known, or a `<` read of one whole process substitution
/// (`done < <(git ls-files)`: a pipe, whose command is a part of its own).
fn static_or_pipe(r: &wicket_shell::Redirect) -> bool {
    r.target.value.is_some() || (r.op == RedirectOp::Read && wicket_shell::whole_process_substitution(&r.target.raw))
}

/// Is a command static but for `<` reads of process substitutions (decisions.md, "A pipe is
/// no file")? Its rule may cover it as if the redirection were not there.
fn static_but_pipes(cmd: &SimpleCommand) -> bool {
    cmd.words.iter().all(|w| w.value.is_some())
        && cmd.assignments.iter().all(|a| a.value.value.is_some())
        && cmd.redirects.iter().all(static_or_pipe)
}

/// Are all of a command's dynamic words harmless to an allow rule? They are when each is one
/// whole double-quoted argument (no splitting, no globbing) that is a message (`-m "$(…)"`),
/// the value of an option given by a substitution whose output is known in kind
/// ([`plain_option_value`]), a git revision ([`git_revision`]), or when the program only
/// prints its arguments (`echo "$x"`, `echo $i`). `Some` with the words a git query may print
/// as they are (to be checked as paths), `None` when a word is not harmless.
fn inert_dynamic(cmd: &SimpleCommand, ifs_free: bool) -> Option<Dynamic> {
    let program = cmd.words.first().and_then(|w| w.value.as_deref())?;
    if !cmd.assignments.iter().all(|a| a.value.value.is_some()) || !cmd.redirects.iter().all(static_or_pipe) {
        return None;
    }
    let printer = only_prints(program);
    // The options whose value is a message: the record's (`gh -b`), else the usual two. Only
    // for a bare name: `./gh` is the project's own program.
    let messages = (!program.contains('/'))
        .then(|| wicket_programs::lookup(program))
        .flatten()
        .map(|p| p.message_options)
        .filter(|m| !m.is_empty())
        .unwrap_or(MESSAGE_OPTIONS);
    let mut out = Dynamic::default();
    for (k, pair) in cmd.words.windows(2).enumerate() {
        let (prev, w) = (&pair[0], &pair[1]);
        if w.value.is_some() || printer {
            continue;
        }
        if tracked_names(cmd, k + 1) {
            let quoted = substituted(&w.raw).is_some_and(|s| s.quoted);
            out.reads_tracked = Some(out.reads_tracked.unwrap_or(false) || !quoted);
            continue;
        }
        let whole_quoted = w.raw.len() >= 2 && w.raw.starts_with('"') && w.raw.ends_with('"');
        let message = prev.value.as_deref().is_some_and(|o| messages.contains(&o));
        // `diff <(ls a) <(ls b)`: the word is a `/dev/fd/N` name; what runs inside is a part of
        // its own that needs its own rule.
        let process_substitution = (w.raw.starts_with("<(") || w.raw.starts_with(">(")) && w.raw.ends_with(')');
        if process_substitution
            || (whole_quoted && message)
            || plain_option_value(cmd, k + 1, ifs_free)
            || ids_for_kill(cmd, k + 1)
        {
            continue;
        }
        out.echoed.extend(git_revision(cmd, k + 1, ifs_free)?);
    }
    Some(out)
}

/// Does this launcher (`xargs -0`, `--null`) read NUL-ended names, which it does not split?
fn nul_ended(cmd: &SimpleCommand) -> bool {
    cmd.words.iter().skip(1).map_while(|w| w.value.as_deref()).take_while(|w| w.starts_with('-')).any(|w| {
        w == "--null"
            || w.len() > 1 && !w.starts_with("--") && w[1..].bytes().all(|b| b"0rtx".contains(&b)) && w.contains('0')
    })
}

/// Is the dynamic word at `index` an operand of `kill` given by one substitution that prints
/// process ids (`kill $(lsof -t -i:3000)`, `kill -9 "$(pgrep -f vite)"`)? Split or not, the
/// ids are digits: never an option, a job spec or a file, only processes, any of which a rule
/// for `kill` already lets the command name. The query needs its own rule.
fn ids_for_kill(cmd: &SimpleCommand, index: usize) -> bool {
    let Some(sub) = cmd.words.get(index).and_then(|w| substituted(&w.raw)) else { return false };
    sub.prefix.is_empty()
        && sub.suffix.is_empty()
        && cmd.words.first().and_then(|w| w.value.as_deref()).is_some_and(wicket_programs::answers::takes_process_ids)
        && printed(sub.body) == Some(Printed::Known(wicket_programs::answers::Answer::ProcessIds))
}

/// What [`inert_dynamic`] found the dynamic words of a part do besides nothing.
#[derive(Debug, Default)]
struct Dynamic {
    /// Words a git query may print as they are, to be checked as paths.
    echoed: Vec<String>,
    /// The names of the files below the folder (`$(git ls-files)`) are operands of a program
    /// that only reads: any file below may be read; `Some(true)` when the word is unquoted
    /// (bash splits and globs the names).
    reads_tracked: Option<bool>,
}

/// Is the dynamic word at `index` one substitution that prints names of files below the folder
/// (`$(git ls-files '*.rs')`), handed to a program that only reads its operands (`wc -l`,
/// `cat`)? Unquoted, a name with blanks or glob characters (a repository's names are its
/// author's) becomes other names: the caller counts every file below the folder as read, as
/// for `git ls-files | xargs wc -l`.
fn tracked_names(cmd: &SimpleCommand, index: usize) -> bool {
    let Some(sub) = cmd.words.get(index).and_then(|w| substituted(&w.raw)) else { return false };
    if !sub.prefix.is_empty() || !sub.suffix.is_empty() {
        return false;
    }
    if !matches!(printed(sub.body), Some(Printed::Known(wicket_programs::answers::Answer::FileNames))) {
        return false;
    }
    let words: Vec<&str> = cmd.words.iter().filter_map(|w| w.value.as_deref()).collect();
    let Some(program) = words.first().filter(|p| !p.contains('/')) else { return false };
    let reads = wicket_programs::lookup(program).is_some_and(|r| r.reads_only(words.get(1..).unwrap_or(&[])));
    let e = wicket_programs::checkers::effects(&words);
    reads
        && crate::flags::risky_flags(&words).is_empty()
        && e.risky.is_empty()
        && e.writes.is_empty()
        && e.unknown_writes.is_empty()
        && e.environment.is_none()
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
    if risky
        || program.contains('/')
        // Interpreters, downloaders, destructive and privilege tools, and shells (their records
        // say so): only the exact command.
        || wicket_programs::lookup(program).is_some_and(|p| p.exact_only || p.role.is_shell())
        || program.starts_with('.')
    {
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

/// find in its plain form running only readers (decisions.md, "find runs a reader"): the line
/// is find itself, by name, whose words `wicket_programs::plain_find_exec` accepts, and each
/// command it runs is a program by name whose record says it makes no links or writes (with
/// no risky word of its own and all words static). Then `-exec` needs no spelling out in
/// find's rule: each command needs its own rule, for any file in place of `{}`.
fn plain_find_exec(unwrapped: &wicket_shell::Unwrapped, inner: &[Inner]) -> bool {
    fn values(a: &[Word]) -> Option<Vec<&str>> {
        a.iter().map(|w| w.value.as_deref()).collect()
    }
    let Some(find) = unwrapped.argvs.first().and_then(|a| values(a)) else { return false };
    let Some(program) = find.first() else { return false };
    let is_find =
        !program.contains('/') && wicket_programs::lookup(program).is_some_and(|p| p.checker == Checker::FindExec);
    if !unwrapped.understood || !is_find || wicket_programs::checkers::plain_find_exec(&find[1..]).is_none() {
        return false;
    }
    let runs = &unwrapped.argvs[1..];
    !runs.is_empty()
        && runs.len() == inner.len()
        && inner.iter().all(|i| i.risky.is_empty())
        && runs.iter().all(|a| {
            values(a).is_some_and(|v| {
                v.first()
                    .is_some_and(|p| !p.contains('/') && wicket_programs::lookup(p).is_some_and(|r| r.makes_no_links))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::{expand_braces, only_prints, view_with, RecentViews, ViewContext};
    use std::sync::Arc;

    proptest::proptest! {
        /// The readers of a word's raw text take any text without a panic, and a word they
        /// give a default's value to really holds an unset variable's default.
        #[test]
        fn word_readers_take_any_text(raw in "[-a-z${}:\"'()=. ~*\\\\]{0,24}") {
            let _ = super::substituted(&raw).map(|s| super::printed(s.body));
            let env = vec!["HOME".to_string()];
            if let Some(v) = super::default_value(&raw, &|n: &str| super::unset_in_sandbox(n, &raw, &env)) {
                proptest::prop_assert!(raw.contains("${"), "{raw:?} -> {v:?}");
                proptest::prop_assert!(!v.contains('$'), "{raw:?} -> {v:?}");
            }
        }
    }

    /// In the sandbox, a default is the value only for a variable outside its environment that
    /// the line names nowhere else.
    #[test]
    fn a_default_is_the_value_only_of_a_variable_nothing_sets() {
        let env = vec!["HOME".to_string(), "PATH".to_string()];
        let v = |raw: &str, line: &str| super::default_value(raw, &|n: &str| super::unset_in_sandbox(n, line, &env));
        assert_eq!(v("${ARGS:-tests}", "pytest ${ARGS:-tests}"), Some("tests".into()));
        assert_eq!(v("\"${ARGS:-a b}\"", "pytest \"${ARGS:-a b}\""), Some("a b".into()));
        assert_eq!(v("--x=${N-3}", "cmd --x=${N-3}"), Some("--x=3".into()));
        assert_eq!(v("${ARGS:-a b}", "pytest ${ARGS:-a b}"), None, "unquoted, it splits");
        assert_eq!(v("${ARGS:-*.py}", "pytest ${ARGS:-*.py}"), None, "unquoted, it globs");
        assert_eq!(v("${HOME:-x}", "ls ${HOME:-x}"), None, "HOME is set in the sandbox");
        assert_eq!(v("${PWD:-x}", "ls ${PWD:-x}"), None, "bash sets PWD");
        assert_eq!(v("${A:-x}", "A=1; ls ${A:-x}"), None);
        assert_eq!(v("${A:-x}", "read A; ls ${A:-x}"), None);
        assert_eq!(v("${A:-x}", ": ${A:=y}; ls ${A:-x}"), None);
        assert_eq!(v("${A:-$B}", "ls ${A:-$B}"), None, "the default expands again");
        assert_eq!(v("${A:+x}", "ls ${A:+x}"), None, "only the two default forms");
        assert_eq!(v("'${A:-x}'", "ls '${A:-x}'"), None, "quoted: no expansion at all");
    }

    /// A word is split into one substitution and the static text around it, with whether
    /// bash keeps the output one field; two substitutions, quotes or blanks around it are not
    /// one such word.
    #[test]
    fn a_word_is_one_substitution_with_plain_text_around_it() {
        fn split(raw: &str) -> Option<(&str, &str, &str, bool)> {
            super::substituted(raw).map(|s| (s.prefix, s.body, s.suffix, s.quoted))
        }
        assert_eq!(split("\"$(nproc)\""), Some(("", "nproc", "", true)));
        assert_eq!(split("--since=\"$(date +%F)\""), Some(("--since=", "date +%F", "", true)));
        assert_eq!(split("\"--since=$(date +%F)\""), Some(("--since=", "date +%F", "", true)));
        assert_eq!(split("-j$(nproc)"), Some(("-j", "nproc", "", false)));
        assert_eq!(split("$(git merge-base A B)..HEAD"), Some(("", "git merge-base A B", "..HEAD", false)));
        assert_eq!(split("\"$(date -d '1 day ago' +%F)\""), Some(("", "date -d '1 day ago' +%F", "", true)));
        assert!(super::substituted("$(nproc) $(nproc)").and_then(|s| super::printed(s.body)).is_none());
        assert!(split("x'$(a)'").is_none());
        assert!(split("$x$(a)").is_none());
        assert!(split("$(a").is_none());
        assert!(split(")$(").is_none());
        // Two substitutions in one word do not read as one body.
        assert!(super::substituted("$(git rev-parse A)..$(git rev-parse B)")
            .and_then(|s| super::printed(s.body))
            .is_none());
    }

    /// What a substitution prints is known for the catalogue's answers and the system's state;
    /// a file's content, what the model chose or a command that writes is not known.
    #[test]
    fn what_a_substitution_prints_is_known_or_not() {
        use super::{printed, Printed};
        use wicket_programs::answers::Answer;
        assert_eq!(printed("git rev-parse --verify HEAD"), Some(Printed::Known(Answer::ObjectNames(vec![]))));
        assert_eq!(printed("nproc"), Some(Printed::Known(Answer::Count)));
        assert_eq!(printed("date +%F"), Some(Printed::State));
        for unknown in
            ["git rev-parse HEAD:.env", "echo 4", "cat n.txt", "date -s 2020-01-01", "nproc > n", "X=1 nproc"]
        {
            assert_eq!(printed(unknown), None, "{unknown}");
        }
    }

    /// The programs whose words are only printed are the ones `command.rs` listed before their
    /// records held the fact; a program named by a path is never one.
    #[test]
    fn the_programs_that_only_print_are_the_ones_listed_before() {
        for p in ["echo", "printf", "true", "false", ":"] {
            assert!(only_prints(p), "{p}");
        }
        for p in ["./echo", "/bin/true", "cat", "ls", "eval", "export", "nosuch", ""] {
            assert!(!only_prints(p), "{p}");
        }
    }

    /// A dynamic word is harmless as a message: after `-m`/`--message` for any program, after
    /// the options gh's record lists for gh (`-b`), and not after gh's for another program or
    /// for a `gh` named by its path.
    #[test]
    fn a_dynamic_message_is_coverable_by_the_program_s_own_options() {
        let coverable = |c: &str| view_with(c, &ViewContext::default()).parts.iter().all(|p| p.coverable);
        for c in
            [r#"git commit -m "$(cat m)""#, r#"gh pr create -b "$(cat m)""#, r#"gh release create v1 --notes "$x""#]
        {
            assert!(coverable(c), "{c}");
        }
        for c in [r#"git commit -b "$(cat m)""#, r#"./gh pr create -b "$(cat m)""#, r#"gh pr create -b $x"#] {
            assert!(!coverable(c), "{c}");
        }
    }

    #[test]
    fn a_repeated_line_gets_its_kept_view_and_nothing_else_does() {
        let ctx = ViewContext::default();
        let views = RecentViews::default();
        let first = views.view("npm test | tee out.log", &ctx);
        assert!(Arc::ptr_eq(&first, &views.view("npm test | tee out.log", &ctx)), "the repeated line was parsed again");
        let other = views.view("npm test | tee out.log ", &ctx);
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(other.command, "npm test | tee out.log ");
        assert_eq!(format!("{:?}", *first), format!("{:?}", view_with("npm test | tee out.log", &ctx)));
        // Only the last few lines are kept.
        for n in 0..RecentViews::KEEP {
            views.view(&format!("echo {n}"), &ctx);
        }
        assert!(!Arc::ptr_eq(&first, &views.view("npm test | tee out.log", &ctx)));
        let long = "x".repeat(RecentViews::LONGEST + 1);
        assert!(!Arc::ptr_eq(&views.view(&long, &ctx), &views.view(&long, &ctx)), "a long line was kept");
    }

    #[test]
    fn braces_expand_as_bash_expands_them() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            ("{.env,a.txt}", Some(&[".env", "a.txt"])),
            (".e{n,x}v", Some(&[".env", ".exv"])),
            ("a{1..3}", Some(&["a1", "a2", "a3"])),
            ("{a..c}x", Some(&["ax", "bx", "cx"])),
            ("{a,b{c,d}}", Some(&["a", "bc", "bd"])),
            ("{x}", Some(&["{x}"])),
            ("~/.ss{h,x}/id_rsa", Some(&["~/.ssh/id_rsa", "~/.ssx/id_rsa"])),
            ("{a,'b'}", None),
            ("{1..100000}", None),
        ];
        for (raw, want) in cases {
            let got = expand_braces(raw);
            let got: Option<Vec<&str>> = got.as_ref().map(|v| v.iter().map(String::as_str).collect());
            assert_eq!(got, want.map(|w| w.to_vec()), "{raw}");
        }
    }
}
