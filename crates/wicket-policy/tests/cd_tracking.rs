//! Property test: after any sequence of `cd`, `pushd` and `popd` into and out of folders, the
//! paths wicket checks for a relative argument and a relative redirection include the one
//! real bash resolves. Bash itself runs each generated line (in a temporary tree) and prints
//! its working folder.

#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and processes it checks against
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;

fn step() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "cd a",
        "cd b",
        "cd c",
        "cd d",
        "cd ..",
        "cd .",
        "cd ./a",
        "cd a/c",
        "cd ../b",
        "pushd a",
        "pushd b/d",
        "pushd ..",
        "popd",
        "cd @ROOT@",
        "cd @ROOT@/b",
        "cd",
    ])
}

/// The tree every case runs in: `a/c`, `b/d`, and a home folder `h` (for `cd` alone).
fn tree() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    for d in ["a/c", "b/d", "h", "a/c/a", "b/d/b"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    (tmp, root)
}

/// Lexical folding (no links in the tree).
fn fold(p: &Path) -> PathBuf {
    wicket_policy::paths::normalize(p)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_relative_path_after_cds_is_checked_where_bash_resolves_it(steps in prop::collection::vec(step(), 0..7)) {
        let (_tmp, root) = tree();
        let home = root.join("h");
        let line = steps.join(" >/dev/null && ").replace("@ROOT@", &root.display().to_string());
        let probe = if line.is_empty() { "pwd".to_string() } else { format!("{line} >/dev/null && pwd") };
        let out = Command::new("bash")
            .arg("-c")
            .arg(&probe)
            .current_dir(&root)
            .env("HOME", &home)
            .env_remove("CDPATH")
            .output()
            .unwrap();
        // A `cd` into a folder that is not there (or `popd` on an empty stack) stops the line.
        prop_assume!(out.status.success());
        let pwd = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
        let want = fold(&pwd.join("f.txt"));
        let command = if line.is_empty() {
            "cat f.txt > g.txt".to_string()
        } else {
            format!("{line} && cat f.txt > g.txt")
        };
        let v = wicket_policy::command::view(&command);
        let expand = |a: &str| -> PathBuf {
            let p = wicket_policy::paths::expand_tilde(a, Some(&home)).unwrap();
            fold(&root.join(p))
        };
        let args: Vec<PathBuf> = v.args.iter().map(|(a, _)| expand(a)).collect();
        prop_assert!(args.contains(&want), "{command}: bash reads {want:?}; wicket checks {args:?}");
        let writes: Vec<PathBuf> = v.files.iter().filter(|f| f.write).map(|f| expand(&f.path)).collect();
        let want_w = fold(&pwd.join("g.txt"));
        prop_assert!(writes.contains(&want_w), "{command}: bash writes {want_w:?}; wicket checks {writes:?}");
    }
}
