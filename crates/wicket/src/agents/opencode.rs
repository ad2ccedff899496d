//! OpenCode's tools, and its fork Kilo's (`bash`, `read`, `write`, `edit`, `apply_patch`, …
//! and `<server>_<tool>` for MCP tools), as wicket's plugin hands them to `wicket hook
//! opencode` (the tool's name and the arguments OpenCode will run it with).

use std::path::Path;

use serde_json::{json, Value};
use wicket_policy::ToolCall;

use super::{MapError, Mapped};

/// OpenCode's own tools that touch nothing wicket guards (to-do lists, questions to the person,
/// subagents whose own calls come through the plugin, skills, the tool OpenCode runs for a call
/// it could not read, plan mode).
pub const PASS_THROUGH: &[&str] =
    &["todowrite", "todoread", "task", "skill", "question", "invalid", "plan_enter", "plan_exit"];

/// The wicket name of an OpenCode MCP tool. OpenCode names them `<server>_<tool>` (each part
/// with characters other than letters, digits, `_` and `-` made `_`), which cannot be split by
/// itself, so the server is the longest of `servers` (the configured ones) whose name so made
/// the tool's name starts with, then `_`.
pub fn mcp_name(name: &str, servers: &[String]) -> Option<String> {
    let clean = |s: &str| -> String {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
    };
    let (server, tool) = servers
        .iter()
        .filter(|s| !s.is_empty() && !s.contains("__"))
        .filter_map(|s| {
            let prefix = format!("{}_", clean(s));
            name.strip_prefix(&prefix).filter(|t| !t.is_empty()).map(|t| (s.as_str(), t))
        })
        .max_by_key(|(s, _)| s.len())?;
    (!tool.contains("__")).then(|| format!("mcp__{server}__{tool}"))
}

/// Map an OpenCode tool call to wicket's. Relative paths are made absolute against `cwd` (the
/// session's folder); `root` is the project root; `servers` are the configured MCP servers.
pub fn map_tool(name: &str, args: &Value, cwd: &Path, root: &Path, servers: &[String]) -> Result<Mapped, MapError> {
    if PASS_THROUGH.contains(&name) {
        return Ok(Mapped::PassThrough);
    }
    if let Some(mcp) = mcp_name(name, servers) {
        return Ok(Mapped::Calls(vec![ToolCall::new(mcp, args.clone())]));
    }
    let obj = match args {
        Value::Object(o) => o,
        other => return Err(MapError(format!("{name}: args must be a JSON object, got {other}"))),
    };
    let string = |field: &str| -> Result<String, MapError> {
        match obj.get(field) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            _ => Err(MapError(format!("{name}: args.{field} is missing or not a string"))),
        }
    };
    let optional = |field: &str| -> Result<Option<String>, MapError> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(MapError(format!("{name}: args.{field} is not a string"))),
        }
    };
    let abs = |p: &str| super::absolute(cwd, p);
    let folder = |field: &str| -> Result<String, MapError> {
        Ok(optional(field)?.map_or_else(|| cwd.to_string_lossy().into_owned(), |p| abs(&p)))
    };
    let calls = match name {
        "bash" => {
            let command = string("command")?;
            // Judged as the shell sees it: first into `workdir`, then the command.
            let command = match optional("workdir")? {
                Some(dir) if super::normalized(Path::new(&abs(&dir))) != super::normalized(root) => {
                    format!("cd {} && {command}", wicket_policy::text::shell_quote(&abs(&dir)))
                }
                _ => command,
            };
            vec![ToolCall::new("bash", json!({"command": command}))]
        }
        "read" => vec![ToolCall::new("read_file", json!({"path": abs(&string("filePath")?)}))],
        "write" => vec![ToolCall::new(
            "write_file",
            json!({"path": abs(&string("filePath")?), "content": optional("content")?.unwrap_or_default()}),
        )],
        "edit" => vec![ToolCall::new(
            "edit_file",
            json!({
                "path": abs(&string("filePath")?),
                "old_string": optional("oldString")?.unwrap_or_default(),
                "new_string": optional("newString")?.unwrap_or_default(),
            }),
        )],
        "multiedit" => {
            let new: Vec<&str> = obj
                .get("edits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("newString").and_then(Value::as_str))
                .collect();
            vec![ToolCall::new(
                "edit_file",
                json!({"path": abs(&string("filePath")?), "old_string": "", "new_string": new.join("\n")}),
            )]
        }
        "apply_patch" | "patch" => super::codex::patch_calls(&string("patchText")?, cwd)?,
        "glob" => vec![ToolCall::new("glob", json!({"pattern": string("pattern")?, "path": folder("path")?}))],
        "grep" => vec![ToolCall::new("grep", json!({"pattern": string("pattern")?, "path": folder("path")?}))],
        "list" => vec![ToolCall::new("glob", json!({"pattern": "*", "path": folder("path")?}))],
        "webfetch" => vec![ToolCall::new("web_fetch", json!({"url": string("url")?}))],
        "websearch" | "codesearch" => vec![ToolCall::new("web_search", json!({"query": string("query")?}))],
        _ => return Ok(Mapped::Unknown),
    };
    Ok(Mapped::Calls(calls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencode_tools_map_onto_wickets() {
        let p = Path::new("/p");
        let servers = vec!["fs".to_string(), "my.fs".to_string()];
        let one = |name: &str, args: Value| match map_tool(name, &args, p, p, &servers) {
            Ok(Mapped::Calls(c)) => c,
            _ => panic!("{name} {args}: not mapped"),
        };
        assert_eq!(one("bash", json!({"command": "cat .env"}))[0].input["command"], "cat .env");
        assert_eq!(one("bash", json!({"command": "ls", "workdir": "src"}))[0].input["command"], "cd /p/src && ls");
        assert_eq!(one("bash", json!({"command": "ls", "workdir": "/p"}))[0].input["command"], "ls");
        assert_eq!(one("read", json!({"filePath": ".env"}))[0].input["path"], "/p/.env");
        assert_eq!(one("write", json!({"filePath": "a", "content": "x"}))[0].tool, "write_file");
        assert_eq!(one("edit", json!({"filePath": "a", "oldString": "x", "newString": "y"}))[0].tool, "edit_file");
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: .env\n@@\n-A=1\n+A=2\n*** End Patch";
        assert_eq!(one("apply_patch", json!({"patchText": patch})).len(), 2);
        assert_eq!(one("list", json!({}))[0].input["path"], "/p");
        assert_eq!(one("fs_read_text_file", json!({"path": "/p/.env"}))[0].tool, "mcp__fs__read_text_file");
        assert_eq!(one("my_fs_read", json!({}))[0].tool, "mcp__my.fs__read");
        assert!(matches!(map_tool("todowrite", &json!({}), p, p, &servers), Ok(Mapped::PassThrough)));
        assert!(matches!(map_tool("other_tool", &json!({}), p, p, &servers), Ok(Mapped::Unknown)));
        assert!(map_tool("read", &json!({}), p, p, &servers).is_err());
        assert!(map_tool("apply_patch", &json!({"patchText": "nope"}), p, p, &servers).is_err());
    }
}
