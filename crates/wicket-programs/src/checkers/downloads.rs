//! Downloaders. The hard question: does this argv save a file under a name it does not spell
//! (the URL's, the server's)? No rule can cover such a write.

use super::Effects;
use crate::Program;

/// `curl -O`, `--remote-name-all`, `-J`: the file is named by the URL or the server.
pub(crate) fn curl(record: &'static Program, args: &[&str], e: &mut Effects) {
    let parsed = record.parse(args);
    let remote =
        parsed.found.iter().any(|f| matches!(f.opt.name(), "-O" | "--remote-name-all" | "-J" | "--remote-header-name"));
    if remote {
        e.unknown_writes.push("`curl -O` saves a file named by the URL or the server".to_string());
    }
}

/// Plain `wget URL` saves the file under the URL's name (or a numbered copy, or a server's
/// name): a write of a file the command does not spell. `-O FILE` names it; `--spider` saves
/// nothing.
pub(crate) fn wget(args: &[&str], e: &mut Effects) {
    // wget2 reads wget's options.
    let Some(table) = crate::program("wget") else {
        e.unknown_writes.push("`wget` saves a file named by the URL".to_string());
        return;
    };
    let parsed = table.parse(args);
    let named = parsed.found.iter().any(|f| matches!(f.opt.name(), "-O" | "--spider") || f.opt.has("--spider"));
    if !named && (!parsed.operands.is_empty() || parsed.found.iter().any(|f| f.opt.has("-i"))) {
        e.unknown_writes.push("`wget` saves a file named by the URL".to_string());
    }
}
