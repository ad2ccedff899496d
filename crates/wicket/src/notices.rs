//! Notices a person sees once per project, and again only when what they say changes.
//!
//! A notice printed on every command (the project's secrets hidden from the sandbox, project
//! settings waiting for consent) soon goes unread, and it fills the model's view of every
//! command's output. Each one is remembered, by its words and the project, as an empty file in
//! `$WICKET_HOME/cache/notices/`; the sandbox hides wicket's home, so a command cannot silence
//! one. `wicket policy show` and `wicket doctor` still report the state behind them every time.

use std::path::{Path, PathBuf};

/// The place that remembers the notices shown; `None` (no home) shows every notice.
#[derive(Debug, Clone)]
pub struct Seen {
    dir: Option<PathBuf>,
}

impl Seen {
    /// The notices remembered in `$WICKET_HOME/cache/notices`.
    pub fn from_env() -> Seen {
        Seen { dir: crate::config::wicket_home().ok().map(|h| Seen::under(&h)) }
    }

    /// The notices remembered under `home` (a wicket home).
    pub fn in_home(home: &Path) -> Seen {
        Seen { dir: Some(Seen::under(home)) }
    }

    fn under(home: &Path) -> PathBuf {
        home.join("cache").join("notices")
    }

    /// True the first time `text` is shown for the project at `root` (and remembers it); false
    /// after. A notice that cannot be remembered is shown: better twice than never.
    pub fn first(&self, root: &Path, text: &str) -> bool {
        let Some(dir) = &self.dir else { return true };
        let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut key = real.as_os_str().as_encoded_bytes().to_vec();
        key.push(0);
        key.extend_from_slice(text.as_bytes());
        let name = crate::trust::sha256_hex(&key);
        let file = dir.join(&name[..32]);
        if file.exists() {
            return false;
        }
        let _ = std::fs::create_dir_all(dir);
        // Many hooks may start at once: whichever makes the file shows the notice.
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&file) {
            Ok(_) => true,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
            Err(_) => true,
        }
    }

    /// Print `text` on stderr as `wicket: notice: …` the first time it is due for `root`.
    pub fn print(&self, root: &Path, text: &str) {
        if self.first(root, text) {
            eprintln!("wicket: notice: {}", text.replace('\n', " "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_is_due_once_per_project_and_again_when_it_changes() {
        let home = tempfile::tempdir().unwrap();
        let (a, b) = (home.path().join("a"), home.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let seen = Seen::in_home(home.path());
        assert!(seen.first(&a, "one"));
        assert!(!seen.first(&a, "one"));
        assert!(seen.first(&b, "one"), "another project sees it too");
        assert!(seen.first(&a, "one, changed"), "changed words are a new notice");
        assert!(!Seen::in_home(home.path()).first(&a, "one"), "remembered across processes");
    }

    #[test]
    fn a_notice_that_cannot_be_remembered_is_shown_every_time() {
        let home = tempfile::tempdir().unwrap();
        // The place to remember is a file: nothing can be made under it.
        std::fs::write(home.path().join("cache"), "").unwrap();
        let seen = Seen::in_home(home.path());
        assert!(seen.first(home.path(), "x"));
        assert!(seen.first(home.path(), "x"));
    }
}
