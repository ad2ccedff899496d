//! Factory Droid's tools (`Execute`, `Read`, `Create`, `Edit`, `ApplyPatch`, … and
//! `<server>___<tool>` for MCP tools).

use std::path::Path;

use serde_json::{json, Value};
use wicket_policy::ToolCall;

use super::{MapError, Mapped};

/// Droid's own tools that touch nothing wicket guards (to-do lists, its background tasks'
/// output, tool and skill look-ups, subagents whose own calls come through the hook, leaving
/// spec mode).
pub const PASS_THROUGH: &[&str] =
    &["TodoWrite", "TaskOutput", "TaskStop", "ToolSearch", "Skill", "Task", "ExitSpecMode", "AskUser"];

/// The wicket name of a Droid MCP tool: Droid names them `<server>___<tool>`.
pub fn mcp_name(name: &str) -> Option<String> {
    let (server, tool) = name.split_once("___")?;
    (!server.is_empty() && !tool.is_empty() && !server.contains("__")).then(|| format!("mcp__{server}__{tool}"))
}

/// Map a Droid tool call to wicket's. Relative paths are made absolute against `cwd`.
pub fn map_tool(name: &str, input: &Value, cwd: &Path) -> Result<Mapped, MapError> {
    if PASS_THROUGH.contains(&name) {
        return Ok(Mapped::PassThrough);
    }
    if let Some(mcp) = mcp_name(name) {
        return Ok(Mapped::Calls(vec![ToolCall::new(mcp, input.clone())]));
    }
    let obj = match input {
        Value::Object(o) => o,
        other => return Err(MapError(format!("{name}: tool_input must be a JSON object, got {other}"))),
    };
    let string = |field: &str| -> Result<String, MapError> {
        match obj.get(field) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            _ => Err(MapError(format!("{name}: tool_input.{field} is missing or not a string"))),
        }
    };
    let optional = |field: &str| -> Result<Option<String>, MapError> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(MapError(format!("{name}: tool_input.{field} is not a string"))),
        }
    };
    let abs = |p: &str| super::absolute(cwd, p);
    let cwd_text = || cwd.to_string_lossy().into_owned();
    let calls = match name {
        "Execute" => vec![ToolCall::new("bash", json!({"command": string("command")?}))],
        "Read" => vec![ToolCall::new("read_file", json!({"path": abs(&string("file_path")?)}))],
        "Create" => vec![ToolCall::new(
            "write_file",
            json!({"path": abs(&string("file_path")?), "content": optional("content")?.unwrap_or_default()}),
        )],
        "Edit" => vec![ToolCall::new(
            "edit_file",
            json!({
                "path": abs(&string("file_path")?),
                "old_string": optional("old_str")?.unwrap_or_default(),
                "new_string": optional("new_str")?.unwrap_or_default(),
            }),
        )],
        // A multi-part edit of one file, judged as an edit of it.
        "MultiEdit" => {
            let new: Vec<&str> = obj
                .get("edits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("new_str").or_else(|| e.get("new_string")).and_then(Value::as_str))
                .collect();
            vec![ToolCall::new(
                "edit_file",
                json!({"path": abs(&string("file_path")?), "old_string": "", "new_string": new.join("\n")}),
            )]
        }
        // Codex's patch format, in `input`: a write or edit of each file it names.
        "ApplyPatch" => super::codex::patch_calls(&string("input")?, cwd)?,
        "LS" => {
            let path = optional("directory_path")?.map_or_else(cwd_text, |p| abs(&p));
            vec![ToolCall::new("glob", json!({"pattern": "*", "path": path}))]
        }
        "Grep" => {
            let path = optional("path")?.map_or_else(cwd_text, |p| abs(&p));
            vec![ToolCall::new("grep", json!({"pattern": string("pattern")?, "path": path}))]
        }
        "Glob" => {
            let folder = optional("folder")?.map_or_else(cwd_text, |p| abs(&p));
            let patterns = match obj.get("patterns") {
                Some(Value::Array(items)) if !items.is_empty() => items,
                _ => return Err(MapError(format!("{name}: tool_input.patterns is missing or empty"))),
            };
            let mut calls = Vec::new();
            for p in patterns {
                let Some(p) = p.as_str() else {
                    return Err(MapError(format!("{name}: tool_input.patterns holds a non-string")));
                };
                calls.push(ToolCall::new("glob", json!({"pattern": p, "path": folder})));
            }
            calls
        }
        "FetchUrl" => vec![ToolCall::new("web_fetch", json!({"url": string("url")?}))],
        "WebSearch" => vec![ToolCall::new("web_search", json!({"query": string("query")?}))],
        _ => return Ok(Mapped::Unknown),
    };
    Ok(Mapped::Calls(calls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn droid_tools_map_onto_wickets() {
        let p = Path::new("/p");
        let one = |name: &str, input: Value| match map_tool(name, &input, p) {
            Ok(Mapped::Calls(c)) => c,
            _ => panic!("{name} {input}: not mapped"),
        };
        let c =
            one("Execute", json!({"command": "cat .env", "riskLevel": "low", "riskLevelReason": "r", "summary": "s"}));
        assert_eq!((c[0].tool.as_str(), &c[0].input["command"]), ("bash", &json!("cat .env")));
        assert_eq!(one("Read", json!({"file_path": ".env"}))[0].input["path"], "/p/.env");
        assert_eq!(one("Create", json!({"file_path": "a", "content": "x"}))[0].tool, "write_file");
        assert_eq!(one("Edit", json!({"file_path": "a", "old_str": "x", "new_str": "y"}))[0].input["new_string"], "y");
        assert_eq!(one("Glob", json!({"patterns": ["*.rs", "*.md"], "folder": "src"})).len(), 2);
        assert_eq!(one("LS", json!({}))[0].input["path"], "/p");
        assert_eq!(one("fs___read_text_file", json!({"path": "/p/.env"}))[0].tool, "mcp__fs__read_text_file");
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch";
        assert_eq!(one("ApplyPatch", json!({"input": patch}))[0].input["path"], "/p/a.txt");
        assert!(map_tool("ApplyPatch", &json!({"input": "rm -rf /"}), p).is_err());
        assert!(matches!(map_tool("TodoWrite", &json!({}), p), Ok(Mapped::PassThrough)));
        assert!(matches!(map_tool("GenerateImage", &json!({}), p), Ok(Mapped::Unknown)));
        assert!(map_tool("Read", &json!({}), p).is_err());
        assert!(map_tool("Execute", &json!("ls"), p).is_err());
        assert_eq!(mcp_name("a__b___c"), None);
        assert_eq!(mcp_name("___c"), None);
    }
}
