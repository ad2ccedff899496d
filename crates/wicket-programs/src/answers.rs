//! What a command prints, when the catalogue knows it in kind before it runs: a count (`nproc`),
//! git's object names (`git rev-parse HEAD`) or ref names (`git describe --tags`). The engine
//! lets such an answer stand in another command's words where any text of that kind is
//! harmless (decisions.md, "Known values as words"); main entry point: [`answer`].

/// What a command answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A number, one field (`nproc`).
    Count,
    /// Object names, hexadecimal, one field each (`git rev-parse HEAD`, `git merge-base A B`),
    /// or the query's own revision words when they name nothing (`git rev-parse X` prints X
    /// as it is): those are listed, for the sensitive-path check.
    ObjectNames(Vec<String>),
    /// Names of files below the current folder (`git ls-files '*.rs'`). A repository's file
    /// names are its author's choice: they may hold blanks and glob characters, so unquoted
    /// they are split and globbed into any name of the folder below.
    FileNames,
    /// Names of refs (`git describe --tags`, `git branch --show-current`): one field each, but
    /// a repository's refs are its author's choice, and git lets one begin with `-`
    /// (`refs/tags/--output=F` is valid, and `git show "$(git describe --tags)"` then writes F).
    RefNames,
    /// Process ids, digits only, one or more fields (`pgrep -f NAME`, `lsof -t -i :3000`,
    /// `pidof NAME`): what `kill` takes, and nothing else may stand in for.
    ProcessIds,
}

/// A revision word of a git query whose output can stand in a git command: a name and revision
/// suffixes (`HEAD`, `HEAD~1`, `origin/main`, `@{u}`, `v1.2`), never an option, a path with
/// `..` or a `:` (`HEAD:.env` names a file's blob).
pub fn revision_word(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '@')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || "_-/.~^@{}".contains(c))
        && !w.contains("..")
        && !w.contains("/.")
        && !w.contains("//")
}

/// What an argv (program first, static words) answers, when the catalogue knows it in kind
/// (GNU coreutils 9.1's `nproc`; git 2.47's queries): `None` for anything else.
pub fn answer(words: &[&str]) -> Option<Answer> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let revs = |rest: &[&str]| rest.iter().filter(|x| !x.starts_with('-')).all(|x| revision_word(x));
    let operands = |rest: &[&str]| rest.iter().filter(|x| !x.starts_with('-')).count();
    match words {
        ["nproc", rest @ ..] => rest
            .iter()
            .all(|x| *x == "--all" || x.strip_prefix("--ignore=").is_some_and(digits))
            .then_some(Answer::Count),
        ["git", "rev-parse", rest @ ..] => {
            let flags_ok = rest.iter().filter(|x| x.starts_with('-')).all(|x| {
                matches!(*x, "--verify" | "-q" | "--quiet" | "--short" | "--abbrev-ref")
                    || x.strip_prefix("--short=").is_some_and(digits)
            });
            if !flags_ok || !revs(rest) || operands(rest) == 0 {
                return None;
            }
            if rest.contains(&"--abbrev-ref") {
                return Some(Answer::RefNames);
            }
            // Without `--verify`, a word that names nothing is printed as it is.
            let echoed = if rest.contains(&"--verify") {
                Vec::new()
            } else {
                rest.iter().filter(|x| !x.starts_with('-')).map(|x| x.to_string()).collect()
            };
            Some(Answer::ObjectNames(echoed))
        }
        ["git", "merge-base", rest @ ..] => (operands(rest) >= 2
            && revs(rest)
            && rest.iter().filter(|x| x.starts_with('-')).all(|x| *x == "--fork-point"))
        .then(|| Answer::ObjectNames(Vec::new())),
        ["git", "rev-list", n, rev] if matches!(*n, "-1" | "-n1" | "--max-count=1") && revision_word(rev) => {
            Some(Answer::ObjectNames(Vec::new()))
        }
        ["git", "describe", rest @ ..] => (revs(rest)
            && rest.iter().filter(|x| x.starts_with('-')).all(|x| {
                matches!(*x, "--tags" | "--always" | "--exact-match" | "--long")
                    || x.strip_prefix("--abbrev=").is_some_and(digits)
            }))
        .then_some(Answer::RefNames),
        ["git", "branch", "--show-current"] | ["git", "symbolic-ref", "--short", "HEAD"] => Some(Answer::RefNames),
        // Only names below the current folder: no `--full-name`, no pathspec magic (`:/` lists
        // from the top as `../x`), no `..`, no `-z` (bash drops the NULs and joins the names).
        ["git", "ls-files", rest @ ..] => rest
            .iter()
            .all(|x| {
                matches!(
                    *x,
                    "-c" | "--cached"
                        | "-o"
                        | "--others"
                        | "-m"
                        | "--modified"
                        | "-d"
                        | "--deleted"
                        | "--exclude-standard"
                ) || (!x.starts_with('-') && !x.starts_with(':') && !x.contains(".."))
            })
            .then_some(Answer::FileNames),
        // procps-ng 4.0.2's pgrep prints the ids of the processes whose name (`-f`: whole
        // command line) matches the one pattern, one a line; `-l`, `-a`, `-c`, `-d` and the
        // options that take a value are left out (they print names, a count or other
        // separators).
        ["pgrep", rest @ ..] => (operands(rest) == 1
            && rest.iter().filter(|x| x.starts_with('-')).all(|x| {
                matches!(*x, "--full" | "--exact" | "--newest" | "--oldest" | "--ignore-case")
                    || x.len() > 1 && x[1..].bytes().all(|b| b"fxnoi".contains(&b))
            }))
        .then_some(Answer::ProcessIds),
        // pidof prints the ids of the named programs' processes on one line.
        ["pidof", rest @ ..] => (operands(rest) >= 1
            && rest.iter().filter(|x| x.starts_with('-')).all(|x| matches!(*x, "-s" | "-x" | "-q" | "-z")))
        .then_some(Answer::ProcessIds),
        // lsof 4.95's `-t` prints process ids only, one a line (`-ti:3000` is `-t -i:3000`),
        // whatever selects the files: a network address (`-i`), a state (`-sTCP:LISTEN`), a
        // file. `-F` (fields) and `+` options are left out.
        ["lsof", rest @ ..] => {
            let terse = |x: &str| x == "-t" || x.strip_prefix("-ti").is_some();
            (rest.iter().any(|x| terse(x))
                && rest.iter().all(|x| {
                    terse(x)
                        || x.starts_with("-i")
                        || matches!(*x, "-n" | "-P" | "-nP" | "-Pn" | "-a")
                        || x.starts_with("-sTCP:")
                        || x.starts_with("-sUDP:")
                        || !x.starts_with(['-', '+'])
                }))
            .then_some(Answer::ProcessIds)
        }
        _ => None,
    }
}

/// Does the program word take the ids an [`Answer::ProcessIds`] prints as its operands, and
/// only as processes (`kill`; not `pkill` or `killall`, which take names)?
pub fn takes_process_ids(program: &str) -> bool {
    program == "kill"
}

/// The option table of `program SUB` when that command reads its operands before any `--` as
/// revisions (paths after it): git's `diff`, `log`, `show`, `shortlog`, `rev-list`, `cherry`,
/// `range-diff`. A name that resolves is that revision to git, never a path.
pub fn revision_table(program: &str, sub: &str) -> Option<&'static crate::Program> {
    const SUBS: &[&str] = &["diff", "log", "show", "shortlog", "rev-list", "cherry", "range-diff"];
    (program == "git" && SUBS.contains(&sub)).then(|| crate::grammar::program(program)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queries are known by their words; a query that writes, an option git would echo,
    /// or a blob's path is not.
    #[test]
    fn answers_are_known_by_their_words() {
        assert_eq!(answer(&["git", "rev-parse", "--verify", "HEAD"]), Some(Answer::ObjectNames(vec![])));
        assert_eq!(answer(&["git", "rev-parse", "HEAD~1"]), Some(Answer::ObjectNames(vec!["HEAD~1".into()])));
        assert_eq!(answer(&["git", "merge-base", "HEAD", "origin/main"]), Some(Answer::ObjectNames(vec![])));
        assert_eq!(answer(&["git", "describe", "--tags", "--abbrev=0"]), Some(Answer::RefNames));
        assert_eq!(answer(&["git", "rev-parse", "--abbrev-ref", "HEAD"]), Some(Answer::RefNames));
        assert_eq!(answer(&["nproc"]), Some(Answer::Count));
        for unknown in [
            &["git", "rev-parse", "HEAD:.env"][..],
            &["git", "rev-parse", "--show-toplevel"],
            &["git", "rev-parse", "../x"],
            &["git", "symbolic-ref", "HEAD", "refs/heads/x"],
            &["git", "branch", "x"],
            &["git", "merge-base", "HEAD"],
            &["nproc", "--help"],
            &["echo", "4"],
        ] {
            assert_eq!(answer(unknown), None, "{unknown:?}");
        }
        for pids in [
            &["pgrep", "-f", "node server.js"][..],
            &["pgrep", "-fx", "vite"],
            &["pidof", "python3"],
            &["lsof", "-ti:3000"],
            &["lsof", "-t", "-i", ":8080"],
            &["lsof", "-t", "-i", ":5173", "-sTCP:LISTEN"],
        ] {
            assert_eq!(answer(pids), Some(Answer::ProcessIds), "{pids:?}");
        }
        for other in [
            &["pgrep", "-l", "node"][..],
            &["pgrep", "-a", "node"],
            &["pgrep", "-d", ",", "node"],
            &["pgrep", "node", "vite"],
            &["lsof", "-i:3000"],
            &["lsof", "-t", "-F", "p", "-i:3000"],
            &["lsof", "-t", "+D", "."],
            &["pidof"],
        ] {
            assert_eq!(answer(other), None, "{other:?}");
        }
        assert_eq!(answer(&["git", "ls-files", "*.rs"]), Some(Answer::FileNames));
        assert_eq!(answer(&["git", "ls-files", "--full-name"]), None);
        assert_eq!(answer(&["git", "ls-files", ":/"]), None);
        assert_eq!(answer(&["git", "ls-files", "-z"]), None);
        assert!(revision_table("git", "log").is_some());
        assert!(revision_table("git", "push").is_none());
        assert!(revision_table("gitx", "log").is_none());
    }
}
