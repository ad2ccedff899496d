//! Claude Code's tools (`Bash`, `Read`, `Write`, `Edit`, … and `mcp__<server>__<tool>`).

use std::path::Path;

use serde_json::{json, Value};
use wicket_policy::ToolCall;

use super::MapError;

/// Claude Code's own tools that touch nothing wicket guards (to-do lists, questions to the
/// person, subagents whose own calls come through the hook, background-shell output): wicket
/// gives no answer and Claude Code's permission flow goes on as usual.
pub const PASS_THROUGH: &[&str] = &[
    "TodoWrite",
    "TodoRead",
    "Task",
    "Agent",
    "AskUserQuestion",
    "ExitPlanMode",
    "exit_plan_mode",
    "BashOutput",
    "TaskOutput",
    "KillShell",
    "KillBash",
];

/// The prefix of the tools the Claude Code ACP adapter (`@zed-industries/claude-code-acp`) puts
/// in place of Claude Code's own when the editor offers file and terminal access: they come to
/// the hook as MCP tools of a server named `acp`.
pub const ACP_PREFIX: &str = "mcp__acp__";

/// The ACP adapter's tools, each the Claude Code tool it stands in for (same arguments).
const ACP_TOOLS: &[&str] = &["Read", "Write", "Edit", "Bash", "BashOutput", "KillShell"];

/// The Claude Code tool a call is: `mcp__acp__Bash` is the adapter's `Bash` (run in the editor's
/// terminal, judged and confined as Claude Code's own), any other name is itself.
pub fn claude_name(name: &str) -> &str {
    match name.strip_prefix(ACP_PREFIX) {
        Some(tool) if ACP_TOOLS.contains(&tool) => tool,
        _ => name,
    }
}

/// Map a Claude Code tool call to wicket's. `None`: a Claude Code tool wicket does not judge.
/// Relative paths are made absolute against the session's `cwd`. The ACP adapter's
/// `mcp__acp__*` file and shell tools are judged as the tools they stand in for.
pub fn map_tool(name: &str, input: &Value, cwd: &Path) -> Result<Option<ToolCall>, MapError> {
    let name = claude_name(name);
    if name.starts_with("mcp__") {
        return Ok(Some(ToolCall::new(name, input.clone())));
    }
    let obj = match input {
        Value::Object(o) => o,
        other => return Err(MapError(format!("{name}: tool_input must be a JSON object, got {other}"))),
    };
    let string = |field: &str| -> Result<String, MapError> {
        match obj.get(field) {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(MapError(format!("{name}: tool_input.{field} is missing or not a string"))),
        }
    };
    let optional = |field: &str| -> Result<Option<String>, MapError> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(MapError(format!("{name}: tool_input.{field} is not a string"))),
        }
    };
    let abs = |p: String| -> String { super::absolute(cwd, &p) };
    let cwd_text = || cwd.to_string_lossy().into_owned();
    let call = match name {
        "Bash" => {
            let outside = matches!(obj.get("dangerouslyDisableSandbox"), Some(Value::Bool(true)));
            ToolCall::new("bash", json!({"command": string("command")?, "outside_sandbox": outside}))
        }
        "Read" => ToolCall::new("read_file", json!({"path": abs(string("file_path")?)})),
        "Write" => ToolCall::new(
            "write_file",
            json!({"path": abs(string("file_path")?), "content": optional("content")?.unwrap_or_default()}),
        ),
        "Edit" => ToolCall::new(
            "edit_file",
            json!({
                "path": abs(string("file_path")?),
                "old_string": optional("old_string")?.unwrap_or_default(),
                "new_string": optional("new_string")?.unwrap_or_default(),
            }),
        ),
        "MultiEdit" => {
            let path = abs(string("file_path")?);
            let (mut old, mut new) = (Vec::new(), Vec::new());
            if let Some(Value::Array(edits)) = obj.get("edits") {
                for e in edits {
                    old.push(e.get("old_string").and_then(Value::as_str).unwrap_or_default().to_string());
                    new.push(e.get("new_string").and_then(Value::as_str).unwrap_or_default().to_string());
                }
            }
            ToolCall::new(
                "edit_file",
                json!({"path": path, "old_string": old.join("\n"), "new_string": new.join("\n")}),
            )
        }
        "NotebookEdit" => ToolCall::new(
            "edit_file",
            json!({
                "path": abs(string("notebook_path")?),
                "old_string": "",
                "new_string": optional("new_source")?.unwrap_or_default(),
            }),
        ),
        // Earlier Claude Code versions' listing and notebook-reading tools (`LS` takes an
        // absolute `path`, `NotebookRead` a `notebook_path`), as Droid's and Gemini CLI's are.
        "LS" => {
            let path = optional("path")?.filter(|p| !p.is_empty()).map_or_else(cwd_text, abs);
            ToolCall::new("glob", json!({"pattern": "*", "path": path}))
        }
        "NotebookRead" => ToolCall::new("read_file", json!({"path": abs(string("notebook_path")?)})),
        "Glob" | "Grep" => {
            let tool = if name == "Glob" { "glob" } else { "grep" };
            let path = optional("path")?.filter(|p| !p.is_empty()).map_or_else(cwd_text, abs);
            ToolCall::new(tool, json!({"pattern": string("pattern")?, "path": path}))
        }
        "WebFetch" => ToolCall::new("web_fetch", json!({"url": string("url")?})),
        "WebSearch" => ToolCall::new("web_search", json!({"query": string("query")?})),
        _ => return Ok(None),
    };
    Ok(Some(call))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_cwd() {
        let cwd = Path::new("/p");
        let c = map_tool("Read", &json!({"file_path": "src/a.rs"}), cwd).ok().flatten();
        assert_eq!(c.map(|c| c.input["path"].clone()), Some(json!("/p/src/a.rs")));
        let c = map_tool("Grep", &json!({"pattern": "x"}), cwd).ok().flatten();
        assert_eq!(c.map(|c| c.input["path"].clone()), Some(json!("/p")));
        assert!(map_tool("TodoWrite", &json!({}), cwd).ok().flatten().is_none());
        let c = map_tool("LS", &json!({"path": "src", "ignore": ["*.log"]}), cwd).ok().flatten();
        assert_eq!(c.map(|c| (c.tool, c.input)), Some(("glob".into(), json!({"pattern": "*", "path": "/p/src"}))));
        let c = map_tool("NotebookRead", &json!({"notebook_path": "a.ipynb"}), cwd).ok().flatten();
        assert_eq!(c.map(|c| (c.tool, c.input["path"].clone())), Some(("read_file".into(), json!("/p/a.ipynb"))));
        assert!(map_tool("NotebookRead", &json!({}), cwd).is_err());
        assert!(map_tool("Read", &json!({}), cwd).is_err());
    }

    #[test]
    fn acp_tools_are_the_tools_they_stand_in_for() {
        let cwd = Path::new("/p");
        /// The tool, its input, and the wicket tool with a field and the value it must hold
        /// (`None`: no opinion).
        type Case<'a> = (&'a str, Value, Option<(&'a str, &'a str, &'a str)>);
        let cases: &[Case] = &[
            ("mcp__acp__Bash", json!({"command": "cat .env"}), Some(("bash", "command", "cat .env"))),
            ("mcp__acp__Read", json!({"file_path": "/p/.env"}), Some(("read_file", "path", "/p/.env"))),
            (
                "mcp__acp__Write",
                json!({"file_path": "a.txt", "content": "x"}),
                Some(("write_file", "path", "/p/a.txt")),
            ),
            (
                "mcp__acp__Edit",
                json!({"file_path": "/p/a", "old_string": "x", "new_string": "y"}),
                Some(("edit_file", "path", "/p/a")),
            ),
            // Any other tool of a server named acp stays an MCP tool.
            ("mcp__acp__Other", json!({"x": 1}), Some(("mcp__acp__Other", "x", ""))),
            ("mcp__acp__BashOutput", json!({"bash_id": "1"}), None),
        ];
        for (name, input, want) in cases {
            let got = map_tool(name, input, cwd).unwrap_or_else(|e| panic!("{name}: {e}"));
            match (got, want) {
                (None, None) => {}
                (Some(c), Some((tool, field, value))) => {
                    assert_eq!(c.tool, *tool, "{name}");
                    if !value.is_empty() {
                        assert_eq!(c.input[*field], json!(value), "{name}");
                    }
                }
                (got, want) => panic!("{name}: got {:?}, want {want:?}", got.map(|c| c.tool)),
            }
        }
        assert!(map_tool("mcp__acp__Read", &json!({}), cwd).is_err(), "a read without a path is refused");
        assert_eq!(claude_name("mcp__acp__KillShell"), "KillShell");
    }
}
