//! Whether one path is inside another, by bytes.
//!
//! `Path::starts_with` compares component by component, which the sandbox's set-up did
//! hundreds of thousands of times a run (every entry of the system folders against every kept
//! path, every hidden path against every Landlock root). For paths without `.`, `..`, doubled
//! or trailing separators (real paths, and entries read from such a folder) a byte comparison
//! gives the same answer; [`normal`] makes any path so.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// `path` is `base` or below it (both normal, as [`normal`] makes them).
pub(crate) fn under(path: &Path, base: &Path) -> bool {
    let (p, b) = (path.as_os_str().as_bytes(), base.as_os_str().as_bytes());
    p.strip_prefix(b).is_some_and(|rest| rest.is_empty() || rest[0] == b'/' || b.last() == Some(&b'/'))
}

/// `path` without `.` components, doubled or trailing separators.
pub(crate) fn normal(path: &Path) -> PathBuf {
    path.components().collect()
}

#[allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn path() -> impl Strategy<Value = String> {
        let part = prop_oneof![Just("a"), Just("ab"), Just("b"), Just("."), Just(""), Just("a b"), Just("é")];
        (any::<bool>(), proptest::collection::vec(part, 0..5), any::<bool>()).prop_map(|(abs, parts, slash)| {
            let mut s = if abs { "/".to_string() } else { String::new() };
            s.push_str(&parts.join("/"));
            if slash {
                s.push('/');
            }
            s
        })
    }

    proptest! {
        #[test]
        fn under_is_starts_with_for_normal_paths(a in path(), b in path()) {
            let (a, b) = (normal(Path::new(&a)), normal(Path::new(&b)));
            prop_assume!(!b.as_os_str().is_empty());
            prop_assert_eq!(under(&a, &b), a.starts_with(&b), "{:?} under {:?}", a, b);
        }
    }
}
