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
    "Task",
    "Agent",
    "AskUserQuestion",
    "ExitPlanMode",
    "BashOutput",
    "TaskOutput",
    "KillShell",
    "KillBash",
];

/// Map a Claude Code tool call to wicket's. `None`: a Claude Code tool wicket does not judge.
/// Relative paths are made absolute against the session's `cwd`.
pub fn map_tool(name: &str, input: &Value, cwd: &Path) -> Result<Option<ToolCall>, MapError> {
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
        assert!(map_tool("Read", &json!({}), cwd).is_err());
    }
}
