//! Consent for a project's settings: a cloned repository is untrusted input.
//!
//! The hard question: which parts of `<root>/.wicket/settings.json` may apply without the
//! person's yes? Everything that makes wicket stricter (deny and ask rules, `sandbox.denyRead`,
//! a stricter mode, the strict profile) always applies. The parts that loosen safety (allow
//! rules, `executor: "host"`, `commands.host`, `sandbox.writePaths`, `env.allow`, `network.allow`, a mode looser
//! than the person's own) apply only when their canonical SHA-256 is pinned for that root in
//! the trust store, or the person says yes on the terminal. Without a yes they are dropped, and
//! one notice lists them.

use std::path::Path;

use serde::Serialize;
use wicket_policy::settings::Executor;
use wicket_policy::{Mode, Settings};

use crate::approver::{Consent, TerminalApprover};

/// The loosening parts of a project's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Loosening {
    /// `permissions.allow`.
    pub allow: Vec<String>,
    /// `executor: "host"`.
    pub executor_host: bool,
    /// `sandbox.writePaths`.
    pub write_paths: Vec<String>,
    /// `env.allow`.
    pub env_allow: Vec<String>,
    /// `network.allow`.
    pub network_allow: Vec<String>,
    /// A mode looser than the person's own.
    pub mode: Option<String>,
    /// `network.ports` (left out of the hash when empty, so older pins still hold).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub network_ports: Vec<u16>,
    /// `network.addresses`, as `host=address` (left out of the hash when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub network_addresses: Vec<String>,
    /// `commands.host`: commands taken out of the sandbox (left out of the hash when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands_host: Vec<String>,
}

/// How loose a mode is: plan < ask < default < accept-edits < auto.
pub fn looseness(mode: Mode) -> u8 {
    match mode {
        Mode::Plan => 0,
        Mode::Ask => 1,
        Mode::Default => 2,
        Mode::AcceptEdits => 3,
        Mode::Auto => 4,
    }
}

impl Loosening {
    /// The loosening parts of `project`, judged against the person's own mode.
    pub fn of(project: &Settings, user_mode: Mode) -> Loosening {
        Loosening {
            allow: project.permissions.allow.clone(),
            executor_host: project.executor == Some(Executor::Host),
            write_paths: project.sandbox.write_paths.clone(),
            env_allow: project.env.allow.clone(),
            network_allow: project.network.allow.clone(),
            mode: project.mode.filter(|m| looseness(*m) > looseness(user_mode)).map(|m| m.as_str().to_string()),
            network_ports: project.network.ports.clone(),
            network_addresses: project
                .network
                .addresses
                .iter()
                .flat_map(|(h, addrs)| addrs.iter().map(move |a| format!("{h}={a}")))
                .collect(),
            commands_host: project.commands.host.clone(),
        }
    }

    /// True when nothing loosens safety.
    pub fn is_empty(&self) -> bool {
        *self == Loosening::default()
    }

    /// The canonical SHA-256: of the compact JSON of these parts, in this struct's field order,
    /// after a version tag. Other settings (deny rules, examples …) do not change it.
    pub fn hash(&self) -> String {
        let body = serde_json::to_string(self).unwrap_or_default();
        crate::trust::sha256_hex(format!("wicket-project-settings-v1\n{body}").as_bytes())
    }

    /// One line per part, for notices, questions and `wicket policy show`.
    pub fn describe(&self, user_mode: Mode) -> Vec<String> {
        let list = |v: &[String]| v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
        let mut out = Vec::new();
        if !self.allow.is_empty() {
            out.push(format!("allow rules: {}", list(&self.allow)));
        }
        if self.executor_host {
            out.push("executor \"host\": commands run outside the OS sandbox".to_string());
        }
        if !self.write_paths.is_empty() {
            out.push(format!("sandbox.writePaths: {}", list(&self.write_paths)));
        }
        if !self.env_allow.is_empty() {
            out.push(format!("env.allow: {}", list(&self.env_allow)));
        }
        if !self.network_allow.is_empty() {
            out.push(format!("network.allow: {}", list(&self.network_allow)));
        }
        if let Some(m) = &self.mode {
            out.push(format!("mode {m:?} (looser than your {:?})", user_mode.as_str()));
        }
        if !self.network_ports.is_empty() {
            let ports: Vec<String> = self.network_ports.iter().map(u16::to_string).collect();
            out.push(format!("network.ports: {}", ports.join(", ")));
        }
        if !self.network_addresses.is_empty() {
            out.push(format!("network.addresses (may reach private addresses): {}", list(&self.network_addresses)));
        }
        if !self.commands_host.is_empty() {
            out.push(format!("commands.host (run outside the OS sandbox): {}", list(&self.commands_host)));
        }
        out
    }
}

/// `project` without its loosening parts: what applies without consent.
pub fn without_loosening(project: &Settings, user_mode: Mode) -> Settings {
    let mut s = project.clone();
    s.permissions.allow.clear();
    if s.executor == Some(Executor::Host) {
        s.executor = None;
    }
    s.sandbox.write_paths.clear();
    s.env.allow.clear();
    s.network.allow.clear();
    s.network.ports.clear();
    s.network.addresses.clear();
    s.commands.host.clear();
    if s.mode.is_some_and(|m| looseness(m) > looseness(user_mode)) {
        s.mode = None;
    }
    s
}

/// Who is asked for consent.
pub trait ConsentAsker {
    /// Ask about the loosening parts of the project settings file `file`; `None` when nobody
    /// can be asked (no terminal).
    fn ask(&mut self, file: &Path, parts: &[String]) -> Option<Consent>;
}

/// The person at the terminal (`/dev/tty`); without one, the answer is no.
#[derive(Debug, Default)]
pub struct TerminalConsent;

impl ConsentAsker for TerminalConsent {
    fn ask(&mut self, file: &Path, parts: &[String]) -> Option<Consent> {
        match TerminalApprover::open() {
            Ok(mut tty) => {
                Some(tty.consent(
                    &format!("wicket: {} wants to loosen safety. Apply these settings?", file.display()),
                    parts,
                ))
            }
            Err(_) => None,
        }
    }
}

/// A fixed answer (tests, and front ends that ask elsewhere).
#[derive(Debug, Clone)]
pub struct FixedConsent {
    /// The answer given.
    pub answer: Consent,
    /// How many times it was asked.
    pub asked: usize,
}

impl ConsentAsker for FixedConsent {
    fn ask(&mut self, _file: &Path, _parts: &[String]) -> Option<Consent> {
        self.asked += 1;
        Some(self.answer)
    }
}
