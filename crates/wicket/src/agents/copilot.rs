//! GitHub Copilot CLI's tools (`bash`, `view`, `create`, `edit`, `glob`, `grep`, `web_fetch`,
//! … and `<server>-<tool>` for MCP tools).

use std::path::Path;

use serde_json::{json, Value};
use wicket_policy::ToolCall;

use super::{MapError, Mapped};

/// Copilot CLI's own tools that touch nothing wicket guards: its intent line and to-do list,
/// the output, end and list of shells it started (whose commands were judged when they
/// started), its subagents (whose own calls come through the hook), skills, its own
/// documentation, and the SQL it keeps its session's notes in.
pub const PASS_THROUGH: &[&str] = &[
    "report_intent",
    "update_todo",
    "read_bash",
    "stop_bash",
    "list_bash",
    "read_agent",
    "list_agents",
    "write_agent",
    "task",
    "skill",
    "fetch_copilot_cli_documentation",
    "sql",
    "session_store_sql",
    "think",
];

/// The MCP server Copilot CLI brings itself (GitHub's), whose tools are `github-mcp-server-<tool>`.
pub const BUILTIN_SERVERS: &[&str] = &["github-mcp-server"];

/// The wicket name of a Copilot CLI MCP tool. Copilot names them `<server>-<tool>`, which
/// cannot be split by itself (either part may hold `-`), so the server is the longest of
/// `servers` (the ones Copilot is configured with) the name starts with, then `-`.
pub fn mcp_name(name: &str, servers: &[String]) -> Option<String> {
    let known = servers.iter().map(String::as_str).chain(BUILTIN_SERVERS.iter().copied());
    let server = known
        .filter(|s| !s.is_empty() && !s.contains("__"))
        .filter(|s| name.strip_prefix(*s).is_some_and(|rest| rest.len() > 1 && rest.starts_with('-')))
        .max_by_key(|s| s.len())?;
    let tool = &name[server.len() + 1..];
    (!tool.contains("__")).then(|| format!("mcp__{server}__{tool}"))
}

/// Map a Copilot CLI tool call (`toolName`, `toolArgs`) to wicket's. Relative paths are made
/// absolute against `cwd`; `servers` are the configured MCP servers' names.
pub fn map_tool(name: &str, args: &Value, cwd: &Path, servers: &[String]) -> Result<Mapped, MapError> {
    if PASS_THROUGH.contains(&name) {
        return Ok(Mapped::PassThrough);
    }
    if let Some(mcp) = mcp_name(name, servers) {
        return Ok(Mapped::Calls(vec![ToolCall::new(mcp, args.clone())]));
    }
    let obj = match args {
        Value::Object(o) => o,
        other => return Err(MapError(format!("{name}: toolArgs must be a JSON object, got {other}"))),
    };
    let string = |field: &str| -> Result<String, MapError> {
        match obj.get(field) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            _ => Err(MapError(format!("{name}: toolArgs.{field} is missing or not a string"))),
        }
    };
    let text = |field: &str| obj.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
    let abs = |p: &str| super::absolute(cwd, p);
    // `paths` of glob and grep: a string, a list, or none (the session's folder).
    let paths = || -> Result<Vec<String>, MapError> {
        match obj.get("paths").or_else(|| obj.get("path")) {
            None | Some(Value::Null) => Ok(vec![cwd.to_string_lossy().into_owned()]),
            Some(Value::String(s)) if s.is_empty() => Ok(vec![cwd.to_string_lossy().into_owned()]),
            Some(Value::String(s)) => Ok(s.split_whitespace().map(abs).collect()),
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .map(|p| {
                    p.as_str().map(abs).ok_or_else(|| MapError(format!("{name}: toolArgs.paths holds a non-string")))
                })
                .collect(),
            Some(_) => Err(MapError(format!("{name}: toolArgs.paths is neither a string nor a list of them"))),
        }
    };
    let read = |p: String| ToolCall::new("read_file", json!({"path": abs(&p)}));
    let write = |p: String, content: String| ToolCall::new("write_file", json!({"path": abs(&p), "content": content}));
    let edit = |p: String, old: String, new: String| {
        ToolCall::new("edit_file", json!({"path": abs(&p), "old_string": old, "new_string": new}))
    };
    let calls = match name {
        "bash" => vec![ToolCall::new("bash", json!({"command": string("command")?}))],
        "view" => vec![read(string("path")?)],
        "create" => vec![write(string("path")?, text("file_text"))],
        "edit" => vec![edit(string("path")?, text("old_str"), text("new_str"))],
        // The editor tool of older versions: one tool, the action in `command`.
        "str_replace_editor" => match string("command")?.as_str() {
            "view" => vec![read(string("path")?)],
            "create" => vec![write(string("path")?, text("file_text"))],
            "str_replace" | "insert" | "undo_edit" => {
                vec![edit(string("path")?, text("old_str"), format!("{}{}", text("new_str"), text("insert_text")))]
            }
            other => return Err(MapError(format!("str_replace_editor: unknown command {other:?}"))),
        },
        "glob" | "grep" => {
            let pattern = string("pattern")?;
            paths()?.into_iter().map(|p| ToolCall::new(name, json!({"pattern": pattern, "path": p}))).collect()
        }
        "web_fetch" => vec![ToolCall::new("web_fetch", json!({"url": string("url")?}))],
        "web_search" => vec![ToolCall::new("web_search", json!({"query": string("query")?}))],
        _ => return Ok(Mapped::Unknown),
    };
    Ok(Mapped::Calls(calls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copilot_tools_map_onto_wickets() {
        let p = Path::new("/p");
        let servers = vec!["fs".to_string(), "fs-extra".to_string()];
        let one = |name: &str, args: Value| match map_tool(name, &args, p, &servers) {
            Ok(Mapped::Calls(c)) => c,
            _ => panic!("{name} {args}: not mapped"),
        };
        assert_eq!(one("bash", json!({"command": "cat .env", "description": "d"}))[0].input["command"], "cat .env");
        assert_eq!(one("view", json!({"path": ".env"}))[0].input["path"], "/p/.env");
        assert_eq!(one("create", json!({"path": "a", "file_text": "x"}))[0].tool, "write_file");
        assert_eq!(one("edit", json!({"path": "a", "old_str": "x", "new_str": "y"}))[0].input["new_string"], "y");
        assert_eq!(one("str_replace_editor", json!({"command": "view", "path": "/p/.env"}))[0].tool, "read_file");
        assert_eq!(one("grep", json!({"pattern": "x", "paths": ["src", "/q"]})).len(), 2);
        assert_eq!(one("glob", json!({"pattern": "*.rs"}))[0].input["path"], "/p");
        // The longest configured server wins; GitHub's own is known.
        assert_eq!(one("fs-read_text_file", json!({"path": "/p/.env"}))[0].tool, "mcp__fs__read_text_file");
        assert_eq!(one("fs-extra-read", json!({}))[0].tool, "mcp__fs-extra__read");
        assert_eq!(one("github-mcp-server-get_me", json!({}))[0].tool, "mcp__github-mcp-server__get_me");
        assert!(matches!(map_tool("other-tool", &json!({}), p, &servers), Ok(Mapped::Unknown)));
        assert!(matches!(map_tool("write_bash", &json!({"input": "x"}), p, &servers), Ok(Mapped::Unknown)));
        assert!(matches!(map_tool("report_intent", &json!({}), p, &servers), Ok(Mapped::PassThrough)));
        assert!(map_tool("view", &json!({}), p, &servers).is_err());
        assert!(map_tool("bash", &json!("ls"), p, &servers).is_err());
        assert_eq!(mcp_name("fs-", &servers), None);
    }
}
