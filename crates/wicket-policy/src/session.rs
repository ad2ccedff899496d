//! Session answers: what a person allowed for the rest of a session.
//!
//! The hard question: how far does a "yes for this session" reach? Exactly as far as the
//! reference says and no further: a command answer allows that exact command line (never `X; Y`),
//! a URL answer that host, a path or input answer that tool. "Always allow" rules are separate
//! and visible: the person sees the rule before choosing it.

use std::collections::HashSet;

use crate::call::{targets_of, Target, ToolCall};
use crate::host::parse_url;
use crate::rules::{GlobOptions, Rule, RuleError, RuleSet};

/// What a person allowed during this session.
#[derive(Debug, Clone, Default)]
pub struct Session {
    commands: HashSet<(String, String)>,
    hosts: HashSet<(String, String)>,
    tools: HashSet<String>,
    rules: Vec<Rule>,
    compiled: RuleSet,
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session::default()
    }

    /// No answer recorded yet.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty() && self.hosts.is_empty() && self.tools.is_empty() && self.rules.is_empty()
    }

    /// Record a "yes for this session" answer to a call.
    pub fn allow_call(&mut self, call: &ToolCall) {
        let Ok(ct) = targets_of(call) else { return };
        for t in ct.targets {
            match t {
                Target::Command { command, .. } => {
                    self.commands.insert((call.tool.clone(), command));
                }
                Target::Url { url } => {
                    if let Ok(u) = parse_url(&url) {
                        self.hosts.insert((call.tool.clone(), u.host.to_string()));
                    }
                }
                Target::Path { .. } | Target::Input => {
                    self.tools.insert(call.tool.clone());
                }
            }
        }
    }

    /// Add an "always allow" rule for the rest of the session.
    pub fn add_rule(&mut self, rule: Rule) -> Result<(), RuleError> {
        self.rules.push(rule);
        self.compiled = RuleSet::new(self.rules.clone(), None, GlobOptions::default())?;
        Ok(())
    }

    /// True when this exact command line was allowed for the tool.
    pub fn allows_command(&self, tool: &str, command: &str) -> bool {
        self.commands.contains(&(tool.to_string(), command.to_string()))
    }

    /// True when the host was allowed for the tool.
    pub fn allows_host(&self, tool: &str, host: &str) -> bool {
        self.hosts.contains(&(tool.to_string(), host.to_string()))
    }

    /// True when every call of the tool was allowed (path and input targets).
    pub fn allows_tool(&self, tool: &str) -> bool {
        self.tools.contains(tool)
    }

    /// The session's "always allow" rules.
    pub fn rules(&self) -> &RuleSet {
        &self.compiled
    }
}
