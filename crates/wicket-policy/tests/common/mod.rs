//! Set-up shared by the table-driven fixture tests: a temporary project root and home, laid
//! out from a case's `setup` steps, and `@ROOT@`/`@HOME@` placeholders in inputs.

#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and processes it checks against
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)] // test set-up

use std::path::{Path, PathBuf};

pub fn place(root: &Path, home: &Path, p: &str) -> PathBuf {
    match p.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None if p.starts_with('/') => PathBuf::from(p),
        None => root.join(p),
    }
}

pub fn lay_out(root: &Path, home: &Path, setup: &[Vec<String>]) {
    for step in setup {
        let at = place(root, home, &step[1]);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        match step[0].as_str() {
            "file" => std::fs::write(&at, "x").unwrap(),
            "write" => std::fs::write(&at, &step[2]).unwrap(),
            "dir" => std::fs::create_dir_all(&at).unwrap(),
            "link" => std::os::unix::fs::symlink(place(root, home, &step[2]), &at).unwrap(),
            "rawlink" => std::os::unix::fs::symlink(&step[2], &at).unwrap(),
            "hardlink" => std::fs::hard_link(place(root, home, &step[2]), &at).unwrap(),
            other => panic!("unknown setup step {other}"),
        }
    }
}

/// `@ROOT@` and `@HOME@` in string inputs become the temporary folders.
pub fn replace_placeholders(v: &serde_json::Value, root: &Path, home: &Path) -> serde_json::Value {
    match v {
        serde_json::Value::String(s) => serde_json::Value::String(
            s.replace("@ROOT@", &root.to_string_lossy()).replace("@HOME@", &home.to_string_lossy()),
        ),
        serde_json::Value::Object(m) => {
            serde_json::Value::Object(m.iter().map(|(k, v)| (k.clone(), replace_placeholders(v, root, home))).collect())
        }
        serde_json::Value::Array(a) => {
            serde_json::Value::Array(a.iter().map(|v| replace_placeholders(v, root, home)).collect())
        }
        other => other.clone(),
    }
}
