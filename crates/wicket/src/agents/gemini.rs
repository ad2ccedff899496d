//! Gemini CLI's tools (`run_shell_command`, `read_file`, … and `mcp_<server>_<tool>` with
//! its `mcp_context`).

use std::path::Path;

use serde_json::{json, Value};
use wicket_policy::ToolCall;

use super::{MapError, Mapped};

/// Gemini CLI's own tools that touch nothing wicket guards: no answer, Gemini CLI goes on.
pub const PASS_THROUGH: &[&str] = &[
    "write_todos",
    "ask_user",
    "enter_plan_mode",
    "exit_plan_mode",
    "update_topic",
    "activate_skill",
    "get_internal_docs",
];

/// The wicket name of a Gemini CLI MCP tool. Gemini CLI names them `mcp_<server>_<tool>`, which
/// cannot be split (either part may hold `_`), and says which server and tool in `mcp_context`;
/// wicket's rules name them `mcp__<server>__<tool>`. Older versions sent that form as the name.
pub fn mcp_name(name: &str, context: Option<&Value>) -> Option<Result<String, String>> {
    if !name.starts_with("mcp_") {
        return None;
    }
    let part = |field: &str| {
        context.and_then(|c| c.get(field)).and_then(Value::as_str).filter(|s| !s.is_empty() && !s.contains("__"))
    };
    Some(match (part("server_name"), part("tool_name")) {
        (Some(server), Some(tool)) => Ok(format!("mcp__{server}__{tool}")),
        _ if name.starts_with("mcp__") && context.is_none() => Ok(name.to_string()),
        _ => Err(format!(
            "the MCP tool {name:?} comes without an mcp_context that names its server and tool plainly, so \
             wicket cannot tell which mcp__<server>__<tool> rules apply"
        )),
    })
}

/// Map a Gemini CLI tool call to wicket's. Relative paths are made absolute against `cwd`.
pub fn map_tool(
    name: &str,
    input: &Value,
    mcp_context: Option<&Value>,
    cwd: &Path,
    root: &Path,
) -> Result<Mapped, MapError> {
    match mcp_name(name, mcp_context) {
        Some(Ok(mapped)) => return Ok(Mapped::Calls(vec![ToolCall::new(mapped, input.clone())])),
        Some(Err(why)) => return Ok(Mapped::Unclear(why)),
        None => {}
    }
    if PASS_THROUGH.contains(&name) {
        return Ok(Mapped::PassThrough);
    }
    let obj = match input {
        Value::Object(o) => o,
        other => return Err(MapError(format!("{name}: tool_input must be a JSON object, got {other}"))),
    };
    let optional = |field: &str| -> Result<Option<String>, MapError> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(MapError(format!("{name}: tool_input.{field} is not a string"))),
        }
    };
    // Gemini CLI renamed some arguments between versions (`absolute_path` → `file_path`,
    // `path`/`directory` → `dir_path`): any of the names is read, and two that disagree are
    // an error rather than a guess.
    let one_of = |fields: &[&str]| -> Result<Option<String>, MapError> {
        let mut found: Option<String> = None;
        for f in fields {
            if let Some(v) = optional(f)? {
                if found.as_ref().is_some_and(|x| *x != v) {
                    return Err(MapError(format!(
                        "{name}: tool_input names two different paths ({})",
                        fields.join(", ")
                    )));
                }
                found = Some(v);
            }
        }
        Ok(found)
    };
    let required = |fields: &[&str]| -> Result<String, MapError> {
        one_of(fields)?.ok_or_else(|| MapError(format!("{name}: tool_input.{} is missing or not a string", fields[0])))
    };
    let abs = |p: &str| super::absolute(cwd, p);
    let cwd_text = || cwd.to_string_lossy().into_owned();
    let calls = match name {
        "run_shell_command" => {
            let command = required(&["command"])?;
            let command = match one_of(&["dir_path", "directory"])? {
                // Judged as the shell would see it: first into the folder, then the command.
                Some(dir) if super::normalized(Path::new(&abs(&dir))) != super::normalized(root) => {
                    format!("cd {} && {command}", wicket_policy::text::shell_quote(&abs(&dir)))
                }
                _ => command,
            };
            vec![ToolCall::new("bash", json!({"command": command}))]
        }
        "read_file" => {
            vec![ToolCall::new("read_file", json!({"path": abs(&required(&["file_path", "absolute_path"])?)}))]
        }
        "write_file" => vec![ToolCall::new(
            "write_file",
            json!({"path": abs(&required(&["file_path"])?), "content": optional("content")?.unwrap_or_default()}),
        )],
        "replace" => vec![ToolCall::new(
            "edit_file",
            json!({
                "path": abs(&required(&["file_path"])?),
                "old_string": optional("old_string")?.unwrap_or_default(),
                "new_string": optional("new_string")?.unwrap_or_default(),
            }),
        )],
        "glob" | "grep_search" | "search_file_content" => {
            let tool = if name == "glob" { "glob" } else { "grep" };
            let path = one_of(&["dir_path", "path"])?.map_or_else(cwd_text, |p| abs(&p));
            vec![ToolCall::new(tool, json!({"pattern": required(&["pattern"])?, "path": path}))]
        }
        "list_directory" => {
            let path = one_of(&["dir_path", "path"])?.map_or_else(cwd_text, |p| abs(&p));
            vec![ToolCall::new("glob", json!({"pattern": "*", "path": path}))]
        }
        "read_many_files" => {
            let mut calls = Vec::new();
            for key in ["include", "paths"] {
                match obj.get(key) {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(items)) => {
                        for item in items {
                            let Some(p) = item.as_str() else {
                                return Err(MapError(format!("{name}: tool_input.{key} holds a non-string")));
                            };
                            calls.push(read_many_entry(p, cwd));
                        }
                    }
                    Some(_) => return Err(MapError(format!("{name}: tool_input.{key} is not an array"))),
                }
            }
            if calls.is_empty() {
                return Err(MapError(format!("{name}: tool_input.include names no file")));
            }
            calls
        }
        "web_fetch" => {
            let prompt = required(&["prompt"])?;
            let urls = urls_in(&prompt);
            if urls.is_empty() {
                return Ok(Mapped::Unclear(
                    "wicket found no http:// or https:// URL in web_fetch's prompt, so it cannot tell what would be fetched"
                        .into(),
                ));
            }
            urls.into_iter().map(|u| ToolCall::new("web_fetch", json!({"url": u}))).collect()
        }
        "google_web_search" => vec![ToolCall::new("web_search", json!({"query": required(&["query"])?}))],
        _ => return Ok(Mapped::Unknown),
    };
    Ok(Mapped::Calls(calls))
}

/// One `read_many_files` entry: a file is read; a glob reads what it matches under the folder
/// before its first wildcard, judged like a search of that folder.
pub fn read_many_entry(p: &str, cwd: &Path) -> ToolCall {
    let wild = |s: &str| s.contains(['*', '?', '[', '{']);
    if !wild(p) {
        return ToolCall::new("read_file", json!({"path": super::absolute(cwd, p)}));
    }
    let fixed = p.split('/').take_while(|seg| !wild(seg)).collect::<Vec<_>>().join("/");
    let base = match (fixed.is_empty(), p.starts_with('/')) {
        (true, true) => "/".to_string(),
        (true, false) => cwd.to_string_lossy().into_owned(),
        (false, _) => super::absolute(cwd, &fixed),
    };
    ToolCall::new("grep", json!({"pattern": p, "path": base}))
}

/// The http(s) URLs in a text, as Gemini CLI's `web_fetch` finds them (up to whitespace).
pub fn urls_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        let lower = word.to_ascii_lowercase();
        for scheme in ["https://", "http://"] {
            if let Some(at) = lower.find(scheme) {
                let url = word[at..].trim_end_matches(['.', ',', ';', ')', ']', '"', '\'', '>']);
                if url.len() > scheme.len() {
                    out.push(url.to_string());
                }
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_tools_are_named_from_their_context() {
        let ctx = json!({"server_name": "my_fs", "tool_name": "read_text_file", "command": "npx"});
        /// The tool name, its context, and the wicket name (`Err`: cannot be judged; `None`:
        /// not an MCP tool).
        type Case<'a> = (&'a str, Option<&'a Value>, Option<Result<&'a str, ()>>);
        let cases: &[Case] = &[
            ("mcp_my_fs_read_text_file", Some(&ctx), Some(Ok("mcp__my_fs__read_text_file"))),
            // The context names the server and tool, whatever the name says.
            ("mcp_other_thing", Some(&ctx), Some(Ok("mcp__my_fs__read_text_file"))),
            ("mcp__my_fs__read_text_file", None, Some(Ok("mcp__my_fs__read_text_file"))),
            ("mcp_my_fs_read_text_file", None, Some(Err(()))),
            ("mcp_x_y", Some(&json!({"server_name": "a__b", "tool_name": "y"})), Some(Err(()))),
            ("mcp_x_y", Some(&json!({"server_name": "x"})), Some(Err(()))),
            ("mcp__x__y", Some(&json!({"server_name": "", "tool_name": "y"})), Some(Err(()))),
            ("read_file", Some(&ctx), None),
        ];
        for (name, context, want) in cases {
            let got = mcp_name(name, *context);
            let got = got.as_ref().map(|r| r.as_deref().map_err(|_| ()));
            assert_eq!(got, *want, "{name} {context:?}");
        }
    }

    #[test]
    fn urls_are_found_in_the_prompt() {
        assert_eq!(
            urls_in("Summarise https://example.com/a and (http://10.0.0.1:8080/x)."),
            vec!["https://example.com/a".to_string(), "http://10.0.0.1:8080/x".to_string()]
        );
        assert!(urls_in("no links here, just www.example.com").is_empty());
    }

    #[test]
    fn read_many_globs_search_their_folder() {
        let cwd = Path::new("/p");
        let c = read_many_entry("src/**/*.rs", cwd);
        assert_eq!((c.tool.as_str(), c.input["path"].clone()), ("grep", json!("/p/src")));
        let c = read_many_entry("*.md", cwd);
        assert_eq!(c.input["path"], json!("/p"));
        let c = read_many_entry("README.md", cwd);
        assert_eq!((c.tool.as_str(), c.input["path"].clone()), ("read_file", json!("/p/README.md")));
    }

    #[test]
    fn a_shell_folder_other_than_the_root_is_part_of_the_command() {
        let root = Path::new("/p");
        let m = map_tool("run_shell_command", &json!({"command": "ls", "dir_path": "sub dir"}), None, root, root);
        let Ok(Mapped::Calls(c)) = m else { panic!("not mapped") };
        assert_eq!(c[0].input["command"], "cd '/p/sub dir' && ls");
        let m = map_tool("run_shell_command", &json!({"command": "ls", "dir_path": "/p/."}), None, root, root);
        let Ok(Mapped::Calls(c)) = m else { panic!("not mapped") };
        assert_eq!(c[0].input["command"], "ls");
        assert!(map_tool("read_file", &json!({"file_path": "a", "absolute_path": "/b"}), None, root, root).is_err());
    }
}
