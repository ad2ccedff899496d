//! Codex's tools (`Bash` for its shell tools, `apply_patch`, `mcp__<server>__<tool>`).

use serde_json::{json, Value};
use wicket_policy::ToolCall;

use super::{MapError, Mapped};
use crate::apply_patch::{patch_files, PatchOp};

/// Map a Codex tool call to wicket's. Relative paths are made absolute against `cwd`.
pub fn map_tool(name: &str, input: &Value, cwd: &std::path::Path) -> Result<Mapped, MapError> {
    if name.starts_with("mcp__") {
        return Ok(Mapped::Calls(vec![ToolCall::new(name, input.clone())]));
    }
    let command = || -> Result<String, MapError> {
        match input.get("command") {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(MapError(format!("{name}: tool_input.command is missing or not a string"))),
        }
    };
    match name {
        "Bash" => Ok(Mapped::Calls(vec![ToolCall::new("bash", json!({"command": command()?}))])),
        "apply_patch" => Ok(Mapped::Calls(patch_calls(&command()?, cwd)?)),
        _ => Ok(Mapped::Unknown),
    }
}

/// The calls of an `apply_patch` patch (Codex's format, also OpenCode's): a write of each file
/// it adds, deletes or moves, an edit of each it changes. Relative paths are made absolute
/// against `cwd`.
pub fn patch_calls(patch: &str, cwd: &std::path::Path) -> Result<Vec<ToolCall>, MapError> {
    let files = patch_files(patch)?;
    Ok(files
        .into_iter()
        .map(|f| {
            let path = super::absolute(cwd, &f.path);
            match f.op {
                PatchOp::Add => ToolCall::new("write_file", json!({"path": path, "content": f.content})),
                PatchOp::Delete | PatchOp::MoveFrom | PatchOp::MoveTo => {
                    ToolCall::new("write_file", json!({"path": path, "content": ""}))
                }
                PatchOp::Update => {
                    ToolCall::new("edit_file", json!({"path": path, "old_string": "", "new_string": f.content}))
                }
            }
        })
        .collect())
}
