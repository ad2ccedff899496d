//! Tool calls and the targets they touch.
//!
//! The hard question here: which paths, commands and URLs does a call reach? A target missed
//! here is a target no later check sees, so anything that looks like a path, URL or command in
//! an MCP tool's arguments is checked as one, and a built-in call missing its main field is an
//! error rather than an empty target list.

use serde::Deserialize;
use serde_json::Value;

/// One tool call an agent wants to make.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The tool's name (`read_file`, `bash`, `mcp__github__get_issue` …).
    pub tool: String,
    /// The tool's arguments.
    #[serde(default)]
    pub input: Value,
    /// The agent's id for the call, when it has one.
    #[serde(default)]
    pub call_id: Option<String>,
}

impl ToolCall {
    /// A call from a tool name and its JSON input.
    pub fn new(tool: impl Into<String>, input: Value) -> Self {
        ToolCall { tool: tool.into(), input, call_id: None }
    }
}

/// Whether a path is read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// The call reads the path.
    Read,
    /// The call may create or change the path.
    Write,
}

/// Something a call touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A file or directory, as given by the call.
    Path {
        /// The path as written (relative to the root, absolute, or `~/…`).
        path: String,
        /// Read or write.
        access: Access,
    },
    /// A shell command line.
    Command {
        /// The command line.
        command: String,
        /// True when the call asks to run outside the OS sandbox.
        outside_sandbox: bool,
    },
    /// A URL to fetch.
    Url {
        /// The URL as given.
        url: String,
    },
    /// A call with no more specific target (web search, an MCP tool).
    Input,
}

/// What the tool registry knows of a call: whether the tool only reads, and its targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallTargets {
    /// True for tools that never change anything (`read_file`, `glob`, `grep`).
    pub read_only: bool,
    /// Every target; never empty.
    pub targets: Vec<Target>,
}

/// Why a call's input cannot be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// A required field is missing or of the wrong type.
    #[error("{tool}: input field `{field}` is missing or not a string; expected {expected}")]
    Field {
        /// The tool.
        tool: String,
        /// The field.
        field: &'static str,
        /// The input shape the tool takes.
        expected: &'static str,
    },
    /// The input is not a JSON object.
    #[error("{tool}: input must be a JSON object, got {got}")]
    NotObject {
        /// The tool.
        tool: String,
        /// What came instead.
        got: &'static str,
    },
    /// An empty or malformed tool name.
    #[error("tool name {0:?} is not valid: use letters, digits, `_` and `-`")]
    ToolName(String),
}

/// The input shapes of the built-in tools, for error messages.
const SHAPES: &[(&str, &str)] = &[
    ("read_file", "{\"path\": \"…\"}"),
    ("write_file", "{\"path\": \"…\", \"content\": \"…\"}"),
    ("edit_file", "{\"path\": \"…\", \"old_string\": \"…\", \"new_string\": \"…\"}"),
    ("glob", "{\"pattern\": \"…\", \"path\"?: \"…\"}"),
    ("grep", "{\"pattern\": \"…\", \"path\"?: \"…\"}"),
    ("bash", "{\"command\": \"…\", \"outside_sandbox\"?: bool}"),
    ("web_fetch", "{\"url\": \"…\"}"),
    ("web_search", "{\"query\": \"…\"}"),
];

fn shape(tool: &str) -> &'static str {
    SHAPES.iter().find(|(t, _)| *t == tool).map_or("an object", |(_, s)| s)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Is this a valid tool name?
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 256
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// True for tools that are MCP tools (`mcp__<server>__<tool>`).
pub fn is_mcp(tool: &str) -> bool {
    tool.starts_with("mcp__")
}

/// Map a call to its targets.
pub fn targets_of(call: &ToolCall) -> Result<CallTargets, CallError> {
    let tool = call.tool.as_str();
    if !valid_tool_name(tool) {
        return Err(CallError::ToolName(call.tool.clone()));
    }
    let Value::Object(obj) = &call.input else {
        // An input-less call is fine for tools with no arguments; an array or scalar is not.
        if call.input.is_null() && !matches!(tool, "read_file" | "write_file" | "edit_file" | "bash" | "web_fetch") {
            return Ok(CallTargets { read_only: false, targets: vec![Target::Input] });
        }
        return Err(CallError::NotObject { tool: call.tool.clone(), got: json_kind(&call.input) });
    };
    let field = |name: &'static str| -> Result<String, CallError> {
        match obj.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(CallError::Field { tool: call.tool.clone(), field: name, expected: shape(tool) }),
        }
    };
    let optional = |name: &'static str| -> Result<Option<String>, CallError> {
        match obj.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(CallError::Field { tool: call.tool.clone(), field: name, expected: shape(tool) }),
        }
    };
    let one = |read_only, target| Ok(CallTargets { read_only, targets: vec![target] });
    match tool {
        "read_file" => one(true, Target::Path { path: field("path")?, access: Access::Read }),
        "write_file" | "edit_file" => one(false, Target::Path { path: field("path")?, access: Access::Write }),
        "glob" | "grep" => {
            field("pattern")?;
            let path = optional("path")?.unwrap_or_else(|| ".".to_string());
            one(true, Target::Path { path, access: Access::Read })
        }
        "bash" => {
            let command = field("command")?;
            let outside_sandbox = match obj.get("outside_sandbox") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(CallError::Field {
                        tool: call.tool.clone(),
                        field: "outside_sandbox",
                        expected: shape(tool),
                    })
                }
            };
            one(false, Target::Command { command, outside_sandbox })
        }
        "web_fetch" => one(false, Target::Url { url: field("url")? }),
        "web_search" => {
            field("query")?;
            one(false, Target::Input)
        }
        _ => {
            let mut targets = vec![Target::Input];
            let access = mcp_access(tool);
            scan_arguments(&call.input, access, 0, &mut targets);
            Ok(CallTargets { read_only: false, targets })
        }
    }
}

/// Argument names that hold a path.
const PATH_KEYS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "file_path",
    "filepath",
    "filename",
    "file_name",
    "dir",
    "directory",
    "folder",
    "source",
    "destination",
    "dest",
    "src",
    "dst",
    "target",
    "cwd",
    "root",
    "new_path",
    "old_path",
];
/// Argument names that hold a URL.
const URL_KEYS: &[&str] = &["url", "uri", "urls", "href", "link", "endpoint"];
/// Argument names that hold a command line.
const COMMAND_KEYS: &[&str] = &["command", "cmd", "commands", "script", "shell", "shell_command"];

/// Words in an MCP tool name that say it only reads; any other tool is taken to write
/// (fail closed: a path argument of an unknown tool may be written).
fn mcp_access(tool: &str) -> Access {
    let name = tool.rsplit("__").next().unwrap_or(tool).to_ascii_lowercase();
    const READ_WORDS: &[&str] = &["read", "get", "list", "search", "view", "show", "find", "stat", "info", "tree"];
    const WRITE_WORDS: &[&str] =
        &["write", "edit", "create", "delete", "remove", "move", "rename", "put", "set", "update", "upload", "exec"];
    let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
    if has(READ_WORDS) && !has(WRITE_WORDS) {
        Access::Read
    } else {
        Access::Write
    }
}

/// How deep the scan follows nested objects; deeper input is scanned no further, and the
/// `Input` target still makes the call need a rule.
const MAX_SCAN_DEPTH: usize = 16;

fn scan_arguments(v: &Value, access: Access, depth: usize, out: &mut Vec<Target>) {
    if depth > MAX_SCAN_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            for (key, value) in map {
                let k = key.as_str();
                let strings = strings_of(value);
                if is_key(k, PATH_KEYS, &["_path", "_paths", "_file", "_files", "_dir", "_directory", "_folder"]) {
                    out.extend(strings.into_iter().map(|p| Target::Path { path: p, access }));
                } else if is_key(k, URL_KEYS, &["_url", "_uri", "_urls"]) {
                    out.extend(strings.into_iter().map(|u| Target::Url { url: u }));
                } else if is_key(k, COMMAND_KEYS, &["_command", "_cmd"]) {
                    out.extend(strings.into_iter().map(|c| Target::Command { command: c, outside_sandbox: true }));
                }
                scan_arguments(value, access, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                scan_arguments(item, access, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// An argument name from the list, or ending in one of the suffixes (`repo_path`, `base_url`);
/// camelCase names are folded (`repoPath` → `repo_path`).
fn is_key(key: &str, names: &[&str], suffixes: &[&str]) -> bool {
    let mut snake = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    let snake = snake.replace('-', "_");
    names.contains(&snake.as_str()) || suffixes.iter().any(|s| snake.ends_with(s))
}

fn strings_of(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) if !s.is_empty() => vec![s.clone()],
        Value::Array(items) => {
            items.iter().filter_map(|i| i.as_str()).filter(|s| !s.is_empty()).map(String::from).collect()
        }
        _ => Vec::new(),
    }
}
