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
