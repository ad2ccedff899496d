//! Qwen Code's tools: Gemini CLI's names with a few of its own (`edit`, `web_search`,
//! `notebook_edit`, `monitor`, `tool_call`), and `mcp__<server>__<tool>`.

use std::path::Path;

use serde_json::{json, Value};
use wicket_policy::ToolCall;

use super::{MapError, Mapped};

/// Qwen Code's own tools that touch nothing wicket guards (to-do lists, questions to the person,
/// plan mode, goals, the tool and agent lists, subagents whose own calls come through the hook).
pub const PASS_THROUGH: &[&str] = &[
    "todo_write",
    "ask_user_question",
    "exit_plan_mode",
    "enter_plan_mode",
    "get_goal",
    "update_goal",
    "list_agents",
    "tool_search",
    "agent",
    "task",
];

/// Map a Qwen Code tool call to wicket's. Relative paths are made absolute against `cwd`.
pub fn map_tool(name: &str, input: &Value, cwd: &Path, root: &Path) -> Result<Mapped, MapError> {
    map_inner(name, input, cwd, root, false)
}

fn map_inner(name: &str, input: &Value, cwd: &Path, root: &Path, nested: bool) -> Result<Mapped, MapError> {
    if name.starts_with("mcp__") {
        return Ok(Mapped::Calls(vec![ToolCall::new(name, input.clone())]));
    }
    if PASS_THROUGH.contains(&name) {
        return Ok(Mapped::PassThrough);
    }
    let string = |field: &str| -> Result<String, MapError> {
        match input.get(field) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            _ => Err(MapError(format!("{name}: tool_input.{field} is missing or not a string"))),
        }
    };
    let gemini = |as_name: &str| super::gemini::map_tool(as_name, input, None, cwd, root);
    match name {
        // `tool_call` calls another tool by name: judged as that tool (never a `tool_call` in a
        // `tool_call`, which would only hide the call).
        "tool_call" if !nested => {
            let inner = string("name")?;
            let args = match input.get("arguments") {
                None | Some(Value::Null) => json!({}),
                Some(Value::String(s)) => serde_json::from_str(s)
                    .map_err(|e| MapError(format!("tool_call: tool_input.arguments is not JSON ({e})")))?,
                Some(v) => v.clone(),
            };
            map_inner(&inner, &args, cwd, root, true)
        }
        "tool_call" => Err(MapError("tool_call: a tool_call inside a tool_call is refused".into())),
        // Qwen Code's renamed tools, judged as Gemini CLI's.
        "edit" | "replace" => gemini("replace"),
        "web_search" => gemini("google_web_search"),
        "search_file_content" => gemini("grep_search"),
        "web_fetch" => Ok(Mapped::Calls(vec![ToolCall::new("web_fetch", json!({"url": string("url")?}))])),
        // A background command whose output Qwen Code watches: a shell command all the same.
        "monitor" => Ok(Mapped::Calls(vec![ToolCall::new("bash", json!({"command": string("command")?}))])),
        "notebook_edit" => Ok(Mapped::Calls(vec![ToolCall::new(
            "edit_file",
            json!({
                "path": super::absolute(cwd, &string("notebook_path")?),
                "old_string": "",
                "new_string": input.get("new_source").and_then(Value::as_str).unwrap_or_default(),
            }),
        )])),
        "run_shell_command" | "read_file" | "write_file" | "glob" | "grep_search" | "list_directory" => gemini(name),
        _ => Ok(Mapped::Unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(m: Result<Mapped, MapError>) -> Option<ToolCall> {
        match m {
            Ok(Mapped::Calls(mut c)) if !c.is_empty() => Some(c.remove(0)),
            _ => None,
        }
    }

    #[test]
    fn qwen_tools_map_onto_wickets() {
        let p = Path::new("/p");
        /// Tool, input, wicket tool, the field and the value it must hold.
        type Case<'a> = (&'a str, Value, &'a str, &'a str, Value);
        let cases: &[Case] = &[
            ("read_file", json!({"file_path": ".env"}), "read_file", "path", json!("/p/.env")),
            ("run_shell_command", json!({"command": "cat .env"}), "bash", "command", json!("cat .env")),
            (
                "run_shell_command",
                json!({"command": "ls", "directory": "sub"}),
                "bash",
                "command",
                json!("cd /p/sub && ls"),
            ),
            (
                "edit",
                json!({"file_path": "a", "old_string": "x", "new_string": "y"}),
                "edit_file",
                "path",
                json!("/p/a"),
            ),
            ("write_file", json!({"file_path": "/p/a", "content": "x"}), "write_file", "path", json!("/p/a")),
            (
                "web_fetch",
                json!({"url": "https://x.test/", "prompt": "p"}),
                "web_fetch",
                "url",
                json!("https://x.test/"),
            ),
            ("web_search", json!({"query": "q"}), "web_search", "query", json!("q")),
            ("monitor", json!({"command": "tail -f log"}), "bash", "command", json!("tail -f log")),
            ("notebook_edit", json!({"notebook_path": "n.ipynb"}), "edit_file", "path", json!("/p/n.ipynb")),
            (
                "mcp__fs__read_text_file",
                json!({"path": "/p/.env"}),
                "mcp__fs__read_text_file",
                "path",
                json!("/p/.env"),
            ),
            // A tool called through tool_call is judged as itself.
            (
                "tool_call",
                json!({"name": "read_file", "arguments": {"file_path": ".env"}}),
                "read_file",
                "path",
                json!("/p/.env"),
            ),
            (
                "tool_call",
                json!({"name": "run_shell_command", "arguments": "{\"command\": \"id\"}"}),
                "bash",
                "command",
                json!("id"),
            ),
        ];
        for (tool, input, want, field, value) in cases {
            let c = first(map_tool(tool, input, p, p)).unwrap_or_else(|| panic!("{tool} {input}: not mapped"));
            assert_eq!((c.tool.as_str(), &c.input[*field]), (*want, value), "{tool} {input}");
        }
        assert!(matches!(map_tool("todo_write", &json!({}), p, p), Ok(Mapped::PassThrough)));
        assert!(matches!(map_tool("exec", &json!({}), p, p), Ok(Mapped::Unknown)));
        assert!(map_tool("tool_call", &json!({"name": "tool_call", "arguments": {}}), p, p).is_err());
        assert!(map_tool("tool_call", &json!({"name": "read_file", "arguments": "{"}), p, p).is_err());
        assert!(map_tool("read_file", &json!({}), p, p).is_err());
    }
}
