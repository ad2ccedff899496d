//! Permission modes: the baseline a session runs with.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

/// The baseline for calls no earlier check decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub enum Mode {
    /// Reads and sandboxed commands run; other calls need a rule or an answer.
    #[default]
    #[serde(rename = "default")]
    Default,
    /// Nothing changes: writes are denied, sandboxed commands see a read-only root, nothing asks.
    #[serde(rename = "plan")]
    Plan,
    /// Ordinary edits inside the root run without asking.
    #[serde(rename = "accept-edits", alias = "acceptEdits")]
    AcceptEdits,
    /// Every write and every command asks, sandboxed or not.
    #[serde(rename = "ask")]
    Ask,
    /// Nothing asks but ask rules; sensitive files, protected paths and deny rules still deny.
    #[serde(rename = "auto")]
    Auto,
}

impl Mode {
    /// The name used in settings and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::Plan => "plan",
            Mode::AcceptEdits => "accept-edits",
            Mode::Ask => "ask",
            Mode::Auto => "auto",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown mode name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode {0:?}: use default, plan, accept-edits, ask or auto")]
pub struct ModeError(pub String);

impl FromStr for Mode {
    type Err = ModeError;
    fn from_str(s: &str) -> Result<Mode, ModeError> {
        Ok(match s {
            "default" => Mode::Default,
            "plan" => Mode::Plan,
            "accept-edits" | "acceptEdits" => Mode::AcceptEdits,
            "ask" => Mode::Ask,
            "auto" => Mode::Auto,
            _ => return Err(ModeError(s.to_string())),
        })
    }
}
