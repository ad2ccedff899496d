//! The agents' tool calls as wicket's: Claude Code's, Codex's, Gemini CLI's, Qwen Code's,
//! Factory Droid's, GitHub Copilot CLI's and OpenCode's (and Kilo's) tool names and
//! arguments mapped to [`ToolCall`]s the engine decides. Pure (no disk, no I/O); the hooks
//! (`wicket hook <agent>`) read the payloads and answer.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;
use wicket_policy::{ToolCall, Verdict};

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod droid;
pub mod gemini;
pub mod opencode;
pub mod qwen;

/// A tool call wicket cannot read (a missing or mistyped argument, a patch it cannot parse):
/// the hook denies it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MapError(pub String);

impl From<crate::apply_patch::PatchError> for MapError {
    fn from(e: crate::apply_patch::PatchError) -> MapError {
        MapError(e.to_string())
    }
}

/// What an agent's tool call is for wicket, whatever the agent.
pub enum Mapped {
    /// Calls that must all pass (one for most tools, one per file for a patch).
    Calls(Vec<ToolCall>),
    /// No opinion: the agent's own bookkeeping tools, which touch nothing wicket guards.
    PassThrough,
    /// A tool wicket has no mapping for: the person decides.
    Unknown,
    /// A call wicket cannot judge, with the reason: the person decides.
    Unclear(String),
}

impl Mapped {
    /// The calls to decide, each with the verdict fixed in advance where wicket cannot judge
    /// it (recorded under the agent's own tool name); `None` for no opinion.
    pub fn into_calls(self, agent: &str, tool_name: &str, input: &Value) -> Option<Vec<(ToolCall, Option<Verdict>)>> {
        let fixed = |v: Verdict| vec![(ToolCall::new(tool_name, input.clone()), Some(v))];
        Some(match self {
            Mapped::PassThrough => return None,
            Mapped::Calls(calls) => calls.into_iter().map(|c| (c, None)).collect(),
            Mapped::Unknown => fixed(Verdict::ask(
                wicket_policy::By::Default,
                format!("wicket does not know {agent}'s tool {tool_name:?}, so the person decides whether it runs"),
            )),
            Mapped::Unclear(why) => fixed(Verdict::ask(wicket_policy::By::Input, why)),
        })
    }
}

/// `p` made absolute against `cwd` (`~` paths are left for the policy to expand).
pub fn absolute(cwd: &Path, p: &str) -> String {
    let path = Path::new(p);
    if path.is_absolute() || p.starts_with('~') {
        p.to_string()
    } else {
        cwd.join(path).to_string_lossy().into_owned()
    }
}

/// `p` without `.` and `..` components (lexically), to compare folders.
pub fn normalized(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A call named in an agent's words (`Bash`, `Read`, `run_shell_command`, `replace`) as the
/// call wicket decides: `check` and `serve` take wicket's own names, and a caller that sends
/// an agent's must meet the same rules, safe list and modes (issue 39, class 13). wicket's own
/// names and MCP names stay as they are; so does a name no agent's mapper turns into exactly
/// one call, or a call it cannot read, and the engine's modes never allow such an unknown tool.
/// `cwd` gives the folder an agent's relative paths are taken in (asked only for an agent's
/// call: reading it is a system call, and a stream of calls in wicket's words needs none).
pub fn in_wicket_words(call: ToolCall, cwd: impl FnOnce() -> std::path::PathBuf) -> ToolCall {
    if wicket_policy::rules::TOOLS.contains(&call.tool.as_str()) || wicket_policy::call::is_mcp(&call.tool) {
        return call;
    }
    let cwd = &cwd();
    let one = |mapped: Result<Mapped, MapError>| match mapped {
        Ok(Mapped::Calls(mut calls)) if calls.len() == 1 => calls.pop(),
        _ => None,
    };
    let said_where = call.input.get("outside_sandbox").cloned();
    let Some(mut mapped) = claude::map_tool(&call.tool, &call.input, cwd)
        .ok()
        .flatten()
        .or_else(|| one(gemini::map_tool(&call.tool, &call.input, None, cwd, cwd)))
        .or_else(|| one(codex::map_tool(&call.tool, &call.input, cwd)))
    else {
        return call;
    };
    // Where a command runs is the caller's to say in wicket's words (`outside_sandbox`), never
    // an agent's own flag's default: without it, `check` judges the command as on the host.
    if let Value::Object(input) = &mut mapped.input {
        match said_where {
            Some(v) => {
                input.insert("outside_sandbox".to_string(), v);
            }
            None => {
                input.remove("outside_sandbox");
            }
        }
    }
    mapped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_drops_dots() {
        assert_eq!(normalized(Path::new("/p/./a/../b")), PathBuf::from("/p/b"));
        assert_eq!(absolute(Path::new("/p"), "src/a.rs"), "/p/src/a.rs");
    }
}
