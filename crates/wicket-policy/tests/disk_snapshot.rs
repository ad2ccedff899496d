//! Property: inside a decision's snapshot of the disk, the real disk answers every path as an
//! absolute look outside one does, however the path is spelled (names of files, folders,
//! links on the way and at the end, dangling links, `.`, `..`, empty names, a trailing `/`),
//! from a root reached directly or through a link, and again from what the snapshot kept.
#![cfg(target_os = "linux")]
#![allow(clippy::disallowed_methods)] // a test: it makes the files, folders and links it checks against
#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use wicket_policy::disk::{Disk, RealDisk};

/// A tree of every kind of entry, made once for all cases.
fn tree() -> &'static (tempfile::TempDir, PathBuf) {
    static TREE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    TREE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let top = RealDisk.real_path(dir.path()).expect("real");
        let root = top.join("proj");
        std::fs::create_dir_all(root.join("d/e")).expect("mkdir");
        std::fs::write(root.join("f"), "x").expect("write");
        std::fs::write(root.join("d/e/f"), "x").expect("write");
        std::fs::hard_link(root.join("f"), root.join("h")).expect("link");
        std::fs::write(top.join("outside"), "x").expect("write");
        let link = |target: &str, at: PathBuf| std::os::unix::fs::symlink(target, at).expect("symlink");
        link("d", root.join("l"));
        link("../outside", root.join("out"));
        link("nowhere", root.join("dangling"));
        link("..", root.join("d/up"));
        link("proj", top.join("via"));
        (dir, top)
    })
}

const NAMES: &[&str] = &["f", "h", "d", "e", "l", "out", "dangling", "up", "new", ".", "..", "", "proj"];

fn spelled() -> impl Strategy<Value = (bool, String)> {
    (any::<bool>(), prop::collection::vec(prop::sample::select(NAMES), 1..5), any::<bool>())
        .prop_map(|(via, names, slash)| (via, format!("{}{}", names.join("/"), if slash { "/" } else { "" })))
}

/// Inside a snapshot (fresh, then kept), the same answers as an absolute look outside one;
/// and what the snapshot saw, it still shows.
fn check(via: bool, rel: &str) -> Result<(), TestCaseError> {
    let (_dir, top) = tree();
    let base = if via { top.join("via") } else { top.join("proj") };
    let p = PathBuf::from(format!("{}/{rel}", base.display()));
    let (arg, look, existing) = (RealDisk.arg_path(&p), RealDisk.look_up(&p), RealDisk.existing(&p));
    RealDisk.begin_snapshot(&base);
    for _ in 0..2 {
        prop_assert_eq!(RealDisk.arg_path(&p), arg, "{:?}", p);
        prop_assert_eq!(RealDisk.look_up(&p), look.clone(), "{:?}", p);
        prop_assert_eq!(RealDisk.existing(&p), existing.clone(), "{:?}", p);
    }
    let sight = RealDisk.sight();
    RealDisk.end_snapshot();
    if let Some(sight) = sight {
        RealDisk.begin_snapshot(Path::new(&base));
        prop_assert!(RealDisk.shows(&sight), "{:?}", p);
        RealDisk.end_snapshot();
    }
    Ok(())
}

#[test]
fn every_path_of_one_or_two_names_is_answered_alike() {
    for via in [false, true] {
        for a in NAMES {
            for rel in std::iter::once(a.to_string()).chain(NAMES.iter().map(|b| format!("{a}/{b}"))) {
                for rel in [rel.clone(), format!("{rel}/")] {
                    check(via, &rel).unwrap();
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn a_snapshot_answers_as_an_absolute_look((via, rel) in spelled()) {
        check(via, &rel)?;
    }
}
