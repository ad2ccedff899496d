//! Flags and variables that turn a harmless-looking command into one that runs programs or
//! writes files, and the arguments that are files a command writes.
//!
//! The hard question: can this argv do more than its program's name suggests? `find` with
//! `-exec`, `git` with `-c core.pager=…`, `sed` with `e`, `NODE_OPTIONS=--require …`: an allow
//! rule's `*` must never swallow these, so each one found here must be spelled out by the rule.
//! The table errs on the side of listing: a listed flag only means "a rule must name it".

/// Is this variable name one that can make a later program run other code? The one list is
/// the program catalogue's.
pub use wicket_programs::loads_code as risky_var;

/// Other forms of a git argv a deny rule must also see (global options left out, `-c
/// alias.NAME=…` expanded): the git checker's.
pub use wicket_programs::checkers::git::deny_forms as git_deny_forms;
use wicket_programs::{Effect, Writes};

/// `--name` or `--name=value`, or an abbreviation of `--name` (`--upload-pa`): git's
/// parse-options, npm's nopt, pip's optparse and GNU getopt_long (tar) all accept a unique
/// prefix. Any prefix of two letters or more counts: one that is not unique is an error to the
/// program, so flagging it costs nothing.
fn long(word: &str, name: &str) -> bool {
    if word == name || word.strip_prefix(name).is_some_and(|r| r.starts_with('=')) {
        return true;
    }
    let given = word.split_once('=').map_or(word, |(n, _)| n);
    name.starts_with("--")
        && given.starts_with("--")
        && given.len() >= 4
        && name.starts_with(given)
        && !WHOLE_OPTIONS.contains(&given)
}

/// Options that are whole names of their own although they are prefixes of a listed risky
/// option (an exact name wins over an abbreviation): `git diff --text`, `npm --ca`.
const WHOLE_OPTIONS: &[&str] = &["--text", "--ca"];

#[cfg(test)]
#[test]
fn long_options_by_prefix() {
    assert!(long("--upload-pa=sh", "--upload-pack"));
    assert!(long("--upload-pack", "--upload-pack"));
    assert!(long("--script-sh", "--script-shell"));
    assert!(!long("--text", "--textconv"));
    assert!(!long("--upload-packs", "--upload-pack"));
    assert!(!long("-u", "--upload-pack"));
}

/// A short-option cluster (`-ni`) that holds the letter.
fn short_has(word: &str, letter: char) -> bool {
    word.len() > 1 && word.starts_with('-') && !word.starts_with("--") && word[1..].contains(letter)
}

/// The flags (as they must appear in an allow rule) that make this argv run programs or write
/// files beyond what its program name suggests. Empty for an ordinary command.
pub fn risky_flags(words: &[&str]) -> Vec<String> {
    let Some(program) = words.first() else { return Vec::new() };
    let args = &words[1..];
    if let Some(table) = crate::options::program(program) {
        return table_risky(table, args);
    }
    let mut out: Vec<String> = Vec::new();
    let mut flag = |f: &str| {
        if !out.iter().any(|o| o == f) {
            out.push(f.to_string());
        }
    };
    // Variables are not options: the shell builtins and `env` that set them.
    if wicket_programs::lookup(program).is_some_and(|p| p.assigns) {
        for w in args {
            if let Some((name, _)) = w.split_once('=') {
                if risky_var(name) {
                    flag(&format!("{name}="));
                }
            }
        }
    }
    out
}

/// Files a redirection or option may name that are not files on disk: the one rule, in the
/// program catalogue (a second, looser copy here let `curl -o /dev/fd/3/../../x` write `x`).
use wicket_programs::is_device;

/// The risky flags of a program that has an option table: every option that runs code or
/// writes files (by the name it was given, prefixes completed: `--expr` is `--expression`),
/// every script that runs commands, every risky ssh setting, what a sub-command does on its
/// own (`git config KEY VALUE` writes configuration, `npm exec` runs a package), and every
/// option the table does not know, as written.
fn table_risky(table: &'static crate::options::Program, args: &[&str]) -> Vec<String> {
    use crate::options::Effect;
    let parsed = table.parse(args);
    let mut out: Vec<String> = Vec::new();
    let mut push = |f: &str| {
        if !out.iter().any(|o| o == f) {
            out.push(f.to_string());
        }
    };
    let mut scripts: Vec<&str> = Vec::new();
    for f in &parsed.found {
        match f.opt.effect {
            Effect::Exec | Effect::ScriptFile | Effect::ReadList => push(f.name),
            // Writing to /dev/null is the usual way to check a URL.
            Effect::Write if f.value.as_deref().is_some_and(is_device) => {}
            Effect::Write => push(f.name),
            Effect::Script => scripts.push(f.value.as_deref().unwrap_or("")),
            Effect::SshConfig if f.value.as_deref().is_some_and(wicket_programs::checkers::ssh::setting_runs) => {
                push(f.name)
            }
            Effect::Workdir if !f.value.as_deref().is_some_and(wicket_programs::checkers::stays_inside) => push(f.name),
            Effect::ExecPath if f.value.as_deref().is_some_and(|v| v.contains('/') || v.starts_with(['.', '~'])) => {
                push(f.name)
            }
            Effect::Plain
            | Effect::Dest
            | Effect::Read
            | Effect::ReadAt
            | Effect::SshConfig
            | Effect::Workdir
            | Effect::ExecPath => {}
        }
    }
    // The script is the first operand when no option gives one (`sed s/a/b/ f`).
    let script_given = parsed.found.iter().any(|f| matches!(f.opt.effect, Effect::Script | Effect::ScriptFile));
    if table.script_operand && !script_given {
        if let Some(first) = parsed.operands.first() {
            scripts.push(first);
        }
    }
    for s in scripts {
        if table.scripts.runs(s) {
            push(s);
        }
    }
    for r in wicket_programs::checkers::risky_subs(table, &parsed) {
        push(&r);
    }
    for u in &parsed.unknown {
        push(u);
    }
    out
}

/// The files an argv writes (or deletes) through its arguments, as its record's `writes`
/// says: `tee F`, `cp A B` (B), `ln -s T L` (L), `touch F`, `rm F`, `dd of=F`, `sed -i … F`.
/// Flags and their values are skipped; `None` in the list stands for a write target that is
/// not known statically.
pub fn write_args(words: &[Option<&str>]) -> Vec<Option<String>> {
    let Some(Some(program)) = words.first() else { return Vec::new() };
    let args = &words[1..];
    let statics: Option<Vec<&str>> = args.iter().copied().collect();
    if let (Some(table), Some(statics)) = (crate::options::program(program), statics) {
        return table_writes(table, &statics);
    }
    let Some(record) = wicket_programs::lookup(program) else { return Vec::new() };
    let operands = || {
        let mut out = Vec::new();
        let mut end_of_options = false;
        for w in args {
            match w {
                Some("--") if !end_of_options => end_of_options = true,
                Some(s) if !end_of_options && s.starts_with('-') && s.len() > 1 => {}
                other => out.push(other.map(String::from)),
            }
        }
        out
    };
    match record.writes {
        Writes::Nothing | Writes::Archive(_) | Writes::ArchiveWhen { .. } => Vec::new(),
        Writes::Operands | Writes::Folders => operands(),
        Writes::Last | Writes::LastUnlessDest | Writes::Link => {
            // `-t DIR` names the destination; otherwise the last operand.
            if let Some(pos) = args.iter().position(|w| *w == Some("-t") || *w == Some("--target-directory")) {
                return vec![args.get(pos + 1).and_then(|w| w.map(String::from))];
            }
            if let Some(t) = args.iter().find_map(|w| w.and_then(|s| s.strip_prefix("--target-directory="))) {
                return vec![Some(t.to_string())];
            }
            let ops = operands();
            match ops.len() {
                0 => Vec::new(),
                // `ln -s target` makes a link named after the target in the current folder.
                1 if record.writes == Writes::Link => {
                    vec![ops[0].as_ref().map(|t| t.rsplit('/').next().unwrap_or(t).to_string())]
                }
                1 => Vec::new(),
                _ => ops.last().cloned().into_iter().collect(),
            }
        }
        Writes::AfterFirst => operands().into_iter().skip(1).collect(),
        Writes::Values(names) => value_of(args, names),
        Writes::OfOperand => {
            args.iter().filter_map(|w| w.and_then(|s| s.strip_prefix("of=")).map(|s| Some(s.to_string()))).collect()
        }
        Writes::InPlace => {
            let names = |effects: &'static [Effect]| {
                record.opts.iter().filter(move |o| effects.contains(&o.effect)).flat_map(|o| o.names())
            };
            let given = |w: &str, name: &str| match name.strip_prefix("--") {
                Some(_) => long(w, name),
                None => name.len() == 2 && name[1..].chars().next().is_some_and(|c| short_has(w, c)),
            };
            if !args.iter().any(|w| w.is_some_and(|s| names(&[Effect::Write]).any(|n| given(s, n)))) {
                return Vec::new();
            }
            let explicit =
                args.iter().any(|w| w.is_some_and(|s| names(&[Effect::Script, Effect::ScriptFile]).any(|n| s == n)));
            let mut ops = operands();
            if !explicit && !ops.is_empty() {
                ops.remove(0);
            }
            ops
        }
    }
}

/// The files a program with an option table writes: option values (`-o F`, `-tDIR`,
/// `--output-doc=F`) and the operands its record's `writes` names (`rm F`, the last operand of
/// `cp`, the files of `sed -i`).
fn table_writes(table: &'static crate::options::Program, args: &[&str]) -> Vec<Option<String>> {
    let parsed = table.parse(args);
    let mut out: Vec<Option<String>> = parsed.writes().into_iter().map(Some).collect();
    let ops = &parsed.operands;
    let given = |names: &[&str]| parsed.found.iter().any(|f| names.contains(&f.opt.name()));
    match table.writes {
        Writes::Operands | Writes::Folders => out.extend(ops.iter().cloned().map(Some)),
        Writes::LastUnlessDest | Writes::Link if out.is_empty() && ops.len() >= 2 => {
            out.extend(ops.last().cloned().map(Some))
        }
        Writes::Last if ops.len() >= 2 => out.extend(ops.last().cloned().map(Some)),
        // The archive, the first operand, is created or rewritten (`zip -d` deletes from it).
        Writes::Archive(reading) if !given(reading) => out.extend(ops.first().filter(|a| *a != "-").cloned().map(Some)),
        Writes::ArchiveWhen { archive, writing } if given(writing) => out
            .extend(parsed.found.iter().filter(|f| f.opt.name() == archive).filter_map(|f| f.value.clone()).map(Some)),
        Writes::InPlace => {
            let in_place = parsed.found.iter().any(|f| f.opt.effect == Effect::Write);
            let script_given = parsed.found.iter().any(|f| matches!(f.opt.effect, Effect::Script | Effect::ScriptFile));
            out.clear();
            if in_place {
                out.extend(ops.iter().skip(usize::from(!script_given)).cloned().map(Some));
            }
        }
        _ => {}
    }
    out
}

/// The values of the given options (`-o F`, `-oF`, `--output=F`, `--output F`).
fn value_of(args: &[Option<&str>], names: &[&str]) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for (i, w) in args.iter().enumerate() {
        let Some(w) = w else { continue };
        for name in names {
            if w == name {
                out.push(args.get(i + 1).copied().flatten().map(String::from));
            } else if let Some(v) = w.strip_prefix(name) {
                let v = if name.starts_with("--") { v.strip_prefix('=') } else { Some(v) };
                if let Some(v) = v.filter(|v| !v.is_empty()) {
                    out.push(Some(v.to_string()));
                }
            }
        }
    }
    out
}
