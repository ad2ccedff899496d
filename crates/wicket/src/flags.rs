//! Command-line flags more than one command shares, declared once so every front end reads
//! them alike.

use clap::Args;
use wicket::config::Overrides;

/// Rules given on the command line, as if in your settings (`--allow`, `--deny`, `--ask`).
#[derive(Args, Clone, Default, Debug)]
pub struct RuleFlags {
    /// An allow rule, as if in your settings (repeatable), e.g. `bash(npm test*)`,
    /// `web_fetch(*.example.com)` or `mcp__fs__read_text_file`.
    #[arg(long, value_name = "RULE")]
    pub allow: Vec<String>,
    /// A deny rule (repeatable); in `wicket mcp`, `mcp__NAME__TOOL` or `mcp__NAME__*` also
    /// hides the tools.
    #[arg(long, value_name = "RULE")]
    pub deny: Vec<String>,
    /// An ask rule (repeatable).
    #[arg(long, value_name = "RULE")]
    pub ask: Vec<String>,
}

impl RuleFlags {
    /// `o` with these rules.
    pub fn apply(&self, o: Overrides) -> Overrides {
        Overrides { allow: self.allow.clone(), deny: self.deny.clone(), ask: self.ask.clone(), ..o }
    }
}
