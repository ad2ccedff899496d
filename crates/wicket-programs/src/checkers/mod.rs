//! The few facts about programs that cannot be tables: scripts and settings read as their
//! programs read them, one checker per file, named by the records that need them. Each errs
//! toward "runs": a checker that cannot read its input says so.

pub mod awk;
pub mod jq;
pub mod make;
pub mod sed;
pub mod ssh;

use crate::Scripts;

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
