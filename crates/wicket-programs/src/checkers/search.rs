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

/// find reads the folders below its starting points when it runs a command on what it finds.
pub(crate) fn find(args: &[&str], e: &mut Effects) {
    let runs = args.iter().any(|w| matches!(*w, "-exec" | "-execdir" | "-ok" | "-okdir"));
    if runs {
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
