//! GNU make's command-line assignments. The hard question: does `NAME=value` on make's command
//! line run code or change how recipes run?

use crate::{loads_code, Parsed};

/// Does a make command-line assignment (`NAME=v`, `NAME:=v`, `NAME+=v`, `NAME?=v`,
/// `NAME!=cmd`) run code or change how recipes run? GNU make 4.3 runs `$(shell …)` in any
/// value at start-up (checked in a sandbox: even `X=$(shell …)` for a variable no rule
/// uses), runs the command of `!=`, and takes `SHELL`, `.SHELLFLAGS`, `MAKEFLAGS` … from here.
pub fn assignment_runs(word: &str) -> bool {
    let Some((lhs, value)) = word.split_once('=') else { return false };
    let name = lhs.trim_end_matches([':', '+', '?', '!']).trim();
    lhs.ends_with('!')
        || value.contains('$')
        || matches!(name, "SHELL" | "MAKESHELL" | ".SHELLFLAGS" | "MAKEFILES" | "MAKEFLAGS" | "MFLAGS" | "MAKE")
        || loads_code(name)
}

/// The assignments among make's operands that run code (`SHELL=`, `X=$(shell …)`), by name.
pub fn risky(parsed: &Parsed) -> Vec<String> {
    let risky = parsed.operands.iter().filter(|op| assignment_runs(op));
    risky.map(|op| op.split('=').next().map_or_else(|| op.clone(), |n| format!("{n}="))).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn assignments_that_run() {
        for risky in ["SHELL=./x", "X:=$(shell id)", "X!=id", ".SHELLFLAGS=-ec", "LD_PRELOAD=x", "MAKEFLAGS=-e"] {
            assert!(super::assignment_runs(risky), "{risky}");
        }
        for plain in ["CFLAGS=-O2", "V=1", "all", "PREFIX=/usr"] {
            assert!(!super::assignment_runs(plain), "{plain}");
        }
    }
}
