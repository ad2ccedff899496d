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
            scan_arguments(&call.input, KeyKind::Other, access, 0, &mut targets);
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
/// Words that, anywhere in an argument's name, say it holds a command line (`command_line`,
/// `shellScript`, `cmdline`, `exec`): the value gets the full shell analysis.
const COMMAND_WORDS: &[&str] = &[
    "command",
    "commands",
    "cmd",
    "cmds",
    "cmdline",
    "commandline",
    "script",
    "shell",
    "bash",
    "sh",
    "zsh",
    "exec",
    "program",
    "executable",
    "exe",
];
/// Words that, anywhere in an argument's name, say it holds the arguments of the command next
/// to it (`{"command": "git", "args": ["push"]}`).
const ARGV_WORDS: &[&str] = &["args", "argv", "arguments"];
/// Words that, anywhere in an argument's name, say it holds prose or data, not a path: a value
/// there is not read as a path even when it looks like one.
const PROSE_WORDS: &[&str] = &[
    "content",
    "contents",
    "text",
    "body",
    "message",
    "description",
    "title",
    "comment",
    "query",
    "pattern",
    "regex",
    "summary",
    "note",
    "notes",
    "old",
    "new",
    "string",
    "prompt",
    "instructions",
];
/// URL schemes whose host a fetch or a connection reaches: a value of any argument that starts
/// with one of them is a URL target (those other than http and https are refused there).
const URL_SCHEMES: &[&str] = &[
    "http", "https", "ws", "wss", "ftp", "ftps", "gopher", "dict", "ldap", "ldaps", "tftp", "sftp", "scp", "ssh",
    "smb", "telnet",
];

/// Words in an MCP tool's name that say it changes something: any of them in any word of the
/// name (`search_and_replace`, `fs_overwrite`, `editFile`) makes its paths writes.
const WRITE_STEMS: &[&str] = &[
    "write", "edit", "creat", "delet", "remov", "move", "renam", "put", "set", "updat", "upload", "exec", "replac",
    "patch", "insert", "append", "modif", "apply", "save", "store", "commit", "push", "merg", "run", "mkdir", "copy",
    "touch", "truncat", "chang", "drop", "kill", "install", "post", "send", "add", "unlink", "chmod", "chown", "clear",
    "reset", "restor", "clon", "checkout", "format", "generat", "download", "fetch", "import", "extract", "unzip",
    "untar", "make", "build", "deploy", "publish",
];
/// Words in an MCP tool's name that say it only reads.
const READ_WORDS: &[&str] =
    &["read", "get", "list", "search", "view", "show", "find", "stat", "info", "tree", "ls", "cat", "grep", "glob"];

/// Whether an MCP tool reads or writes the paths it names: it only reads when a word of its
/// name says so and no word says it changes something (fail closed: an unknown tool's path
/// may be written).
fn mcp_access(tool: &str) -> Access {
    let name = tool.rsplit("__").next().unwrap_or(tool);
    let words = name_words(name);
    let writes = words.iter().any(|w| WRITE_STEMS.iter().any(|s| w.contains(s)));
    let reads = words.iter().any(|w| READ_WORDS.contains(&w.as_str()));
    if reads && !writes {
        Access::Read
    } else {
        Access::Write
    }
}

/// The lowercase words of a name: split at `_`, `-`, `.`, spaces and camelCase humps
/// (`searchAndReplace` → search, and, replace).
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// How deep the scan follows nested objects; deeper input is scanned no further, and the
/// `Input` target still makes the call need a rule.
const MAX_SCAN_DEPTH: usize = 16;

/// What an argument's name says its value is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Path,
    Url,
    Command,
    Argv,
    Prose,
    Other,
}

fn key_kind(key: &str) -> KeyKind {
    if is_key(key, PATH_KEYS, &["_path", "_paths", "_file", "_files", "_dir", "_directory", "_folder"]) {
        return KeyKind::Path;
    }
    if is_key(key, URL_KEYS, &["_url", "_uri", "_urls"]) {
        return KeyKind::Url;
    }
    let words = name_words(key);
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    if has(COMMAND_WORDS) {
        KeyKind::Command
    } else if has(ARGV_WORDS) {
        KeyKind::Argv
    } else if has(PROSE_WORDS) {
        KeyKind::Prose
    } else {
        KeyKind::Other
    }
}

fn scan_arguments(v: &Value, kind: KeyKind, access: Access, depth: usize, out: &mut Vec<Target>) {
    if depth > MAX_SCAN_DEPTH {
        return;
    }
    match v {
        Value::Object(map) => {
            let argv: Vec<String> = map
                .iter()
                .filter(|(k, _)| key_kind(k) == KeyKind::Argv)
                .flat_map(|(_, v)| v.as_array().into_iter().flatten().filter_map(|s| s.as_str()).map(String::from))
                .collect();
            // An argv with no command next to it is a whole command line (`argv[0]` runs).
            if !argv.is_empty() && !map.keys().any(|k| key_kind(k) == KeyKind::Command) {
                command_targets(&Value::Array(Vec::new()), &argv, out);
            }
            for (key, value) in map {
                let kind = key_kind(key);
                match kind {
                    KeyKind::Path => {
                        out.extend(strings_of(value).into_iter().map(|p| Target::Path { path: p, access }));
                    }
                    KeyKind::Url => out.extend(strings_of(value).into_iter().map(|u| Target::Url { url: u })),
                    KeyKind::Command => command_targets(value, &argv, out),
                    _ => {}
                }
                scan_arguments(value, kind, access, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                scan_arguments(item, kind, access, depth + 1, out);
            }
        }
        // Values of named arguments were taken above; prose is not read as paths.
        Value::String(s) if matches!(kind, KeyKind::Other | KeyKind::Argv) => sniff(s, access, out),
        _ => {}
    }
}

/// The command targets of a command argument: a string is a command line (joined with the
/// arguments next to it, if any); an array of strings is an argv, and each element also a
/// command line of its own (a list of commands).
fn command_targets(value: &Value, argv: &[String], out: &mut Vec<Target>) {
    let command = |c: String| Target::Command { command: c, outside_sandbox: true };
    match value {
        Value::String(s) if !s.is_empty() => {
            out.push(command(s.clone()));
            if !argv.is_empty() {
                let mut line = s.clone();
                for a in argv {
                    line.push(' ');
                    line.push_str(&crate::text::shell_quote(a));
                }
                out.push(command(line));
            }
        }
        Value::Array(items) => {
            let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            if words.is_empty() && argv.is_empty() {
                return;
            }
            out.extend(words.iter().filter(|w| !w.is_empty()).map(|w| command(w.to_string())));
            let line: Vec<String> =
                words.iter().copied().chain(argv.iter().map(String::as_str)).map(crate::text::shell_quote).collect();
            out.push(command(line.join(" ")));
        }
        _ => {}
    }
}

/// A value of an argument whatever its name: a URL (`scheme://…` of a scheme that reaches a
/// host, `file://` as the path it names), or a path that leaves the root or names the home
/// (`~…`, `./…`, `../…`, or absolute under a folder that exists, so `/owner/repo` identifiers
/// are not taken for files).
fn sniff(s: &str, access: Access, out: &mut Vec<Target>) {
    if s.is_empty() || s.len() > 4096 || s.chars().any(char::is_whitespace) {
        return;
    }
    if let Some((scheme, rest)) = s.split_once("://") {
        let scheme = scheme.to_ascii_lowercase();
        if scheme == "file" {
            // `file://host/path` and `file:///path`: the path from its first `/`.
            let path = rest.find('/').map_or("/", |i| &rest[i..]);
            out.push(Target::Path { path: percent_decode(path), access });
        } else if URL_SCHEMES.contains(&scheme.as_str()) {
            let url = match scheme.as_str() {
                "ws" => format!("http://{rest}"),
                "wss" => format!("https://{rest}"),
                _ => s.to_string(),
            };
            out.push(Target::Url { url });
        }
        return;
    }
    let pathlike = s.starts_with('~')
        || s.starts_with("./")
        || s.starts_with("../")
        || s == ".."
        || s.contains("/../")
        || s.ends_with("/..")
        || (s.starts_with('/') && top_folder_exists(s));
    if pathlike {
        out.push(Target::Path { path: s.to_string(), access });
    }
}

/// Does the first component of an absolute path exist (`/etc/passwd` → `/etc`)? Asks the real
/// disk: [`targets_of`] has no policy, hence no other disk, at hand.
fn top_folder_exists(s: &str) -> bool {
    use crate::disk::Disk;
    let first = s.trim_start_matches('/').split('/').next().unwrap_or("");
    if first.is_empty() {
        return true;
    }
    crate::disk::RealDisk.lstat(&std::path::Path::new("/").join(first)).is_some()
}

/// `%2e%2e` → `..`: a `file:` URL's path as the file system sees it; bytes that do not make
/// UTF-8 stay escaped.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
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
