//! Archivers. The hard question: does this argv extract files whose names only the archive
//! knows (no rule can cover a write it cannot name), or read whole folders?

use super::{has_flag, Effects};

/// tar, gtar, bsdtar: extracting writes files named inside the archive; anything else reads
/// its operands' folders.
pub(crate) fn tar(name: &str, args: &[&str], e: &mut Effects) {
    if extracts(args) {
        e.unknown_writes.push(format!("`{name}` extracts files named inside the archive"));
    } else {
        // Every operand that is a folder is read below; which operand is the output does not
        // matter, since only existing folders are walked.
        e.recursive.extend(args.iter().filter(|w| !w.starts_with('-')).map(|w| w.to_string()));
    }
}

/// Does a tar argv extract (`x`, `-x`, `--extract`, `--get`, in a cluster or old-style first
/// word)?
fn extracts(args: &[&str]) -> bool {
    let first_old = args.first().is_some_and(|w| !w.starts_with('-') && w.contains('x'));
    first_old
        || args.iter().take_while(|w| **w != "--").any(|w| {
            if w.starts_with("--") {
                ["--extract", "--get", "--ext", "--extr", "--extra", "--extrac"].contains(w)
            } else if let Some(c) = w.strip_prefix('-') {
                // The letters before one that takes a value (`-xzf`, `-C dir`).
                c.chars().take_while(|ch| !"fCbTXgKNVLH".contains(*ch)).any(|ch| ch == 'x') || c.starts_with('x')
            } else {
                false
            }
        })
}

/// unzip extracts unless it lists, tests or prints.
pub(crate) fn unzip(args: &[&str], e: &mut Effects) {
    if !has_flag(args, &['l', 't', 'v', 'Z', 'p', 'c', 'z'], &[]) && !args.is_empty() {
        e.unknown_writes.push("`unzip` extracts files named inside the archive".to_string());
    }
}

/// cpio `-i` and `-p` write files named inside the archive.
pub(crate) fn cpio(args: &[&str], e: &mut Effects) {
    if has_flag(args, &['i', 'p'], &["--extract", "--pass-through"]) {
        e.unknown_writes.push("`cpio` writes files named inside the archive".to_string());
    }
}

/// 7z's `x` and `e` commands extract.
pub(crate) fn seven_zip(args: &[&str], e: &mut Effects) {
    if matches!(args.first().copied(), Some("x" | "e")) {
        e.unknown_writes.push("`7z` extracts files named inside the archive".to_string());
    }
}
