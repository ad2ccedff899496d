//! Programs that read whole folders or other processes. The hard question: which folders does
//! this argv read everything below (the engine then looks for secrets there), and does it
//! print the environment of other processes?

use super::{has_flag, operands, Effects};

/// ps: BSD-style words (no dash) holding `e` show each process's environment; `-e` (every
/// process) does not.
pub(crate) fn ps(args: &[&str], e: &mut Effects) {
    if let Some(w) = args.iter().find(|w| !w.starts_with('-') && w.contains('e') && w.len() <= 8) {
        e.environment = Some(format!("`ps {w}` prints the environment of processes"));
    }
}

/// grep: `-r`, `-R`, `--directories=recurse` read the folders below its operands.
pub(crate) fn grep(args: &[&str], e: &mut Effects) {
    let recursive = has_flag(args, &['r', 'R'], &["--recursive", "--dereference-recursive"])
        || args.iter().any(|w| *w == "--directories=recurse" || w.starts_with("-drecurse"));
    if recursive {
        recursive_operands(args, &["-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D"], true, e);
        // `--include=GLOB`: only files whose name matches are read (issue 40). One pattern of
        // `*`, `?` and plain characters, spelled out whole, is judged; several (any of them
        // matches) or anything else leaves every file below as read.
        let mut includes = Vec::new();
        let mut words = args.iter().take_while(|w| **w != "--");
        while let Some(w) = words.next() {
            if let Some(v) = w.strip_prefix("--include=") {
                includes.push(v.to_string());
            } else if *w == "--include" {
                includes.extend(words.next().map(|v| v.to_string()));
            }
        }
        if let [one] = includes.as_slice() {
            if !one.is_empty() && !one.contains(['[', ']', '\\', '{', '}', '/']) {
                e.recursive_names = includes;
            }
        }
    }
}

/// GNU grep 3.8's short options that take a value, and those that do not.
const GREP_SHORT_VALUE: &str = "efmABCdD";
const GREP_SHORT_FLAG: &str = "EFGPiyvwxcLloqsbHhnTZzaIrRUV0123456789";
/// GNU grep 3.8's long options that take a value (`--name=V` or `--name V`), and those that
/// take none or only a glued one (`--color[=WHEN]`).
const GREP_LONG_VALUE: &[&str] = &[
    "regexp",
    "file",
    "max-count",
    "label",
    "after-context",
    "before-context",
    "context",
    "devices",
    "directories",
    "binary-files",
    "include",
    "exclude",
    "exclude-from",
    "exclude-dir",
    "group-separator",
];
const GREP_LONG_FLAG: &[&str] = &[
    "extended-regexp",
    "fixed-strings",
    "basic-regexp",
    "perl-regexp",
    "ignore-case",
    "no-ignore-case",
    "invert-match",
    "word-regexp",
    "line-regexp",
    "count",
    "color",
    "colour",
    "files-without-match",
    "files-with-matches",
    "only-matching",
    "quiet",
    "silent",
    "no-messages",
    "byte-offset",
    "with-filename",
    "no-filename",
    "line-number",
    "initial-tab",
    "null",
    "null-data",
    "text",
    "recursive",
    "dereference-recursive",
    "binary",
    "line-buffered",
    "no-group-separator",
    "version",
    "help",
];

/// Where grep's pattern operand is in its arguments: the first operand, when no `-e`/`-f`
/// gives the patterns (then every operand is a file). `None` when there is none or when a
/// word is not an option GNU grep has by that exact name (an abbreviation or a typo could
/// take a value and move the pattern): the caller then counts every word as a file.
pub(crate) fn grep_pattern_at(args: &[&str]) -> Option<usize> {
    let mut i = 0;
    let mut first = None;
    while i < args.len() {
        let w = args[i];
        i += 1;
        if w == "--" {
            first = first.or((i < args.len()).then_some(i));
            break;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, glued) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            if matches!(name, "regexp" | "file") {
                return None;
            }
            if GREP_LONG_VALUE.contains(&name) {
                i += usize::from(!glued);
            } else if !GREP_LONG_FLAG.contains(&name) {
                return None;
            }
            continue;
        }
        if w.len() > 1 && w.starts_with('-') {
            for (k, c) in w[1..].char_indices() {
                if c == 'e' || c == 'f' {
                    return None;
                }
                if GREP_SHORT_VALUE.contains(c) {
                    // The rest of the word is the value, or the next word is.
                    i += usize::from(k + c.len_utf8() == w.len() - 1);
                    break;
                }
                if !GREP_SHORT_FLAG.contains(c) {
                    return None;
                }
            }
            continue;
        }
        // GNU grep takes options after operands too: keep looking for `-e`/`-f`.
        first = first.or(Some(i - 1));
    }
    first
}

/// rg, ag, ack: always read below their operands (`--files` lists names only); dot files are
/// skipped unless told otherwise.
pub(crate) fn searcher(args: &[&str], e: &mut Effects) {
    if args.contains(&"--files") {
        return;
    }
    recursive_operands(args, &["-e", "-f", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-j"], true, e);
    e.skips_hidden =
        !has_flag(args, &['.'], &["--hidden", "--unrestricted"]) && !args.iter().any(|w| w.starts_with("-uu"));
}

/// find reads the folders below its starting points when it runs a command on what it finds;
/// in its plain form the `-name` patterns before the first command narrow what it hands on.
pub(crate) fn find(args: &[&str], e: &mut Effects) {
    let runs = args.iter().any(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir"));
    if runs {
        e.recursive_names = plain_find_exec(args).unwrap_or_default();
        let starts: Vec<&str> =
            args.iter().take_while(|w| !w.starts_with('-') && !matches!(**w, "(" | "!")).copied().collect();
        if starts.is_empty() {
            e.recursive.push(".".to_string());
        }
        e.recursive.extend(starts.iter().map(|s| s.to_string()));
    }
}

/// A program that reads the folders below its operands with one of these options.
pub(crate) fn recursive(args: &[&str], letters: &[char], longs: &[&str], e: &mut Effects) {
    if has_flag(args, letters, longs) {
        // Every operand that is a folder is read below; which operand is the output does not
        // matter, since only existing folders are walked.
        e.recursive.extend(args.iter().filter(|w| !w.starts_with('-')).map(|w| w.to_string()));
    }
}

/// Operands of a recursive searcher: the pattern first (unless `-e`/`-f` gave it), then the
/// folders; none means the working folder.
fn recursive_operands(args: &[&str], with_value: &[&str], pattern_first: bool, e: &mut Effects) {
    let ops = operands(args, with_value);
    let given = args.iter().any(|w| {
        matches!(*w, "-e" | "-f" | "--regexp" | "--file")
            || w.starts_with("--regexp=")
            || w.starts_with("--file=")
            || (w.starts_with("-e") && !w.starts_with("--"))
    });
    let skip = usize::from(pattern_first && !given);
    let folders: Vec<String> = ops.iter().skip(skip).map(|s| s.to_string()).collect();
    if folders.is_empty() {
        e.recursive.push(".".to_string());
    }
    e.recursive.extend(folders);
}

/// find's tests that choose files by their own attributes and change nothing, with the number
/// of words each takes (GNU findutils 4.9), and its actions that only print.
const FIND_PLAIN: &[(&str, usize)] = &[
    ("-name", 1),
    ("-iname", 1),
    ("-path", 1),
    ("-ipath", 1),
    ("-wholename", 1),
    ("-iwholename", 1),
    ("-regex", 1),
    ("-iregex", 1),
    ("-type", 1),
    ("-xtype", 1),
    ("-maxdepth", 1),
    ("-mindepth", 1),
    ("-size", 1),
    ("-mtime", 1),
    ("-mmin", 1),
    ("-atime", 1),
    ("-amin", 1),
    ("-ctime", 1),
    ("-cmin", 1),
    ("-perm", 1),
    ("-user", 1),
    ("-group", 1),
    ("-uid", 1),
    ("-gid", 1),
    ("-links", 1),
    ("-empty", 0),
    ("-readable", 0),
    ("-writable", 0),
    ("-executable", 0),
    ("-nouser", 0),
    ("-nogroup", 0),
    ("-true", 0),
    ("-false", 0),
    ("-prune", 0),
    ("-print", 0),
    ("-print0", 0),
    ("-a", 0),
    ("-and", 0),
];

/// find in its plain form with commands (issue 40): static start points, then only the tests
/// and printing actions of `FIND_PLAIN` joined by the implicit `-a` (no `-o`, `!`, `-not`,
/// parentheses or `,`, no `-H`/`-L`/`-follow`, no other action), and `-exec`/`-execdir`
/// commands ending in `;` or `{} +` whose program is a plain word (not `{}`). `Some` holds the
/// `-name` patterns before the first command that `name_matches` can judge exactly: every
/// file handed to a command matches each of them. `None`: not this form.
pub fn plain_find_exec(args: &[&str]) -> Option<Vec<String>> {
    let mut i = args.iter().take_while(|w| !w.starts_with('-') && !matches!(**w, "(" | "!" | ")" | ",")).count();
    let mut names = Vec::new();
    let mut commands = 0usize;
    while let Some(w) = args.get(i) {
        if matches!(*w, "-exec" | "-execdir") {
            let start = i + 1;
            let program = args.get(start)?;
            if program.contains("{}") || program.starts_with('-') || matches!(*program, ";" | "+") {
                return None;
            }
            let mut j = start;
            loop {
                let v = *args.get(j)?;
                if v == ";" || (v == "+" && j > start && args[j - 1] == "{}") {
                    break;
                }
                j += 1;
            }
            commands += 1;
            i = j + 1;
            continue;
        }
        let (_, takes) = FIND_PLAIN.iter().find(|(n, _)| n == w)?;
        let value = if *takes == 1 { Some(*args.get(i + 1)?) } else { None };
        if *w == "-name" && commands == 0 {
            if let Some(v) = value.filter(|v| !v.contains(['[', '\\', ']'])) {
                names.push(v.to_string());
            }
        }
        i += 1 + takes;
    }
    (commands > 0).then_some(names)
}

/// Does a `-name` pattern made only of `*`, `?` and plain characters match this last path
/// component, as find's fnmatch does (a leading dot is matched by `*` and `?` too)?
pub fn name_matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Classic wildcard matching with one backtrack point for the last `*`.
    let (mut pi, mut ni, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some(pi);
                mark = ni;
                pi += 1;
            }
            Some(c) if *c == '?' || *c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some(s) => {
                    pi = s + 1;
                    mark += 1;
                    ni = mark;
                }
                None => return false,
            },
        }
    }
    p[pi.min(p.len())..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod find_tests {
    use super::{name_matches, plain_find_exec};

    #[test]
    fn name_patterns_match_as_fnmatch_does() {
        assert!(name_matches("*.rs", "main.rs"));
        assert!(name_matches("*.rs", ".hidden.rs"));
        assert!(!name_matches("*.rs", ".env"));
        assert!(name_matches("*", ".env"));
        assert!(name_matches(".e?v", ".env"));
        assert!(name_matches("a*b*c", "axxbyyc"));
        assert!(!name_matches("a*b*c", "axxbyy"));
        assert!(name_matches("Cargo.toml", "Cargo.toml"));
    }

    #[test]
    fn the_plain_form_is_narrow() {
        let plain = |s: &str| plain_find_exec(&s.split(' ').collect::<Vec<_>>());
        assert_eq!(plain(". -name *.rs -exec wc -l {} ;"), Some(vec!["*.rs".to_string()]));
        assert_eq!(plain("src -type f -name *.ts -execdir wc -l {} +"), Some(vec!["*.ts".to_string()]));
        assert_eq!(plain(". -exec wc -l {} ; -name *.rs"), Some(vec![]));
        assert_eq!(plain(". -name [a].rs -exec wc {} ;"), Some(vec![]));
        assert_eq!(plain(". -name *.rs -o -name .env -exec wc {} ;"), None);
        assert_eq!(plain(". ! -name *.rs -exec wc {} ;"), None);
        assert_eq!(plain("-L . -name *.rs -exec wc {} ;"), None);
        assert_eq!(plain(". -name *.rs -exec {} ;"), None);
        assert_eq!(plain(". -name *.rs -exec wc {} + x"), None);
        assert_eq!(plain(". -name *.rs -exec wc {}"), None);
        assert_eq!(plain(". -name *.rs -delete -exec wc {} ;"), None);
        assert_eq!(plain(". -name *.rs -ok wc {} ;"), None);
        assert_eq!(plain(". -name *.rs -fprint out -exec wc {} ;"), None);
        assert_eq!(plain(". -name *.rs"), None);
    }
}
