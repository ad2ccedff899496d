//! Codex's `apply_patch` format, read for judging: every file a patch adds, changes, deletes or
//! moves, with the lines it adds. Pure; the Codex hook (`wicket hook codex`) decides each file.

/// Why a patch cannot be read (a patch wicket cannot read completely is refused).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// No `*** Begin Patch` … `*** End Patch` frame.
    #[error("apply_patch: the patch does not start with `*** Begin Patch` and end with `*** End Patch`")]
    Frame,
    /// A header wicket does not know.
    #[error("apply_patch: line {line}: wicket does not know the patch header {header:?}")]
    UnknownHeader {
        /// The line, counted from the frame's first line as 1.
        line: usize,
        /// The header as written (trimmed).
        header: String,
    },
    /// A header without its file name.
    #[error("apply_patch: line {line}: a patch header without a file name")]
    NoFileName {
        /// The line.
        line: usize,
    },
    /// A frame with no file in it.
    #[error("apply_patch: the patch names no file")]
    NoFiles,
}

/// What a patch does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchOp {
    /// A new file.
    Add,
    /// A changed file.
    Update,
    /// A removed file.
    Delete,
    /// The old name of a moved file (it disappears).
    MoveFrom,
    /// The new name of a moved file.
    MoveTo,
}

/// One file a patch touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFile {
    /// What happens to it.
    pub op: PatchOp,
    /// Its path as the patch names it.
    pub path: String,
    /// The added lines (for an added or updated file), for the audit and content checks.
    pub content: String,
}

/// Every file an `apply_patch` patch touches, read from its headers.
///
/// Codex's parser trims the patch, accepts a `<<EOF` wrapper, and reads a header from a line
/// with whitespace around it; so any line that, trimmed, starts with `***` is taken as a
/// header here (even where Codex would read a context line: a stricter reading only adds
/// files to check) and must be one wicket knows, and only lines starting with `+` or `-`
/// are content. A patch without files, or with a header wicket does not know, is an error.
pub fn patch_files(patch: &str) -> Result<Vec<PatchFile>, PatchError> {
    let mut lines: Vec<&str> = patch.trim().lines().collect();
    if lines.len() >= 4
        && matches!(lines.first().map(|l| l.trim()), Some("<<EOF" | "<<'EOF'" | "<<\"EOF\""))
        && lines.last().is_some_and(|l| l.trim_end().ends_with("EOF"))
    {
        lines = lines[1..lines.len() - 1].to_vec();
    }
    match (lines.first().map(|l| l.trim()), lines.last().map(|l| l.trim())) {
        (Some("*** Begin Patch"), Some("*** End Patch")) if lines.len() >= 2 => {}
        _ => return Err(PatchError::Frame),
    }
    let mut files: Vec<PatchFile> = Vec::new();
    for (n, line) in lines.iter().enumerate().take(lines.len() - 1).skip(1) {
        if line.starts_with(['+', '-']) {
            if let (Some(last), Some(text)) = (files.last_mut(), line.strip_prefix('+')) {
                if matches!(last.op, PatchOp::Add | PatchOp::Update | PatchOp::MoveTo) {
                    last.content.push_str(text);
                    last.content.push('\n');
                }
            }
            continue;
        }
        let trimmed = line.trim();
        if !trimmed.starts_with("***") {
            continue;
        }
        let header = |prefix: &str| trimmed.strip_prefix(prefix).map(str::trim);
        let (op, path) = if let Some(p) = header("*** Add File:") {
            (PatchOp::Add, p)
        } else if let Some(p) = header("*** Update File:") {
            (PatchOp::Update, p)
        } else if let Some(p) = header("*** Delete File:") {
            (PatchOp::Delete, p)
        } else if let Some(p) = header("*** Move to:") {
            // The file being updated is renamed: its old name goes away too.
            if let Some(last) = files.last_mut() {
                if last.op == PatchOp::Update {
                    last.op = PatchOp::MoveFrom;
                }
            }
            (PatchOp::MoveTo, p)
        } else if trimmed == "*** End of File" {
            continue;
        } else {
            return Err(PatchError::UnknownHeader { line: n + 1, header: trimmed.to_string() });
        };
        if path.is_empty() {
            return Err(PatchError::NoFileName { line: n + 1 });
        }
        files.push(PatchFile { op, path: path.to_string(), content: String::new() });
    }
    if files.is_empty() {
        return Err(PatchError::NoFiles);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(patch: &str) -> Vec<(PatchOp, String)> {
        patch_files(patch).map(|f| f.into_iter().map(|f| (f.op, f.path)).collect()).unwrap_or_default()
    }

    #[test]
    fn every_header_is_a_file() {
        let p = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-x\n+y\n*** Delete File: d\n*** End Patch\n";
        assert_eq!(
            ops(p),
            vec![
                (PatchOp::Add, "a.txt".into()),
                (PatchOp::MoveFrom, "src/b.rs".into()),
                (PatchOp::MoveTo, "src/c.rs".into()),
                (PatchOp::Delete, "d".into()),
            ]
        );
    }

    #[test]
    fn content_lines_are_not_headers_but_indented_headers_are() {
        let p = "*** Begin Patch\n*** Add File: a\n+*** Add File: not-a-file\n*** Update File: b\n@@\n  *** Add File: c\n*** End Patch";
        assert_eq!(ops(p).iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    #[test]
    fn heredoc_wrapper_is_accepted() {
        let p = "<<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n";
        assert_eq!(ops(p), vec![(PatchOp::Delete, "x".into())]);
    }

    #[test]
    fn unreadable_patches_are_errors() {
        assert!(patch_files("").is_err());
        assert!(patch_files("*** Begin Patch\n*** End Patch").is_err());
        assert!(patch_files("*** Begin Patch\n*** Add File: a\n+x\n").is_err());
        assert!(patch_files("*** Begin Patch\n*** Copy File: a\n*** End Patch").is_err());
        assert!(patch_files("*** Begin Patch\n*** Add File:   \n*** End Patch").is_err());
    }

    proptest::proptest! {
        /// Any text: an answer, never a panic; every file read has a name, and the patch's
        /// own frame lines are never files.
        #[test]
        fn any_text_reads_or_is_refused(lines in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::strategy::Just("*** Begin Patch".to_string()),
                proptest::strategy::Just("*** End Patch".to_string()),
                proptest::strategy::Just("*** Add File: a".to_string()),
                proptest::strategy::Just("*** Update File: b".to_string()),
                proptest::strategy::Just("*** Move to: c".to_string()),
                proptest::strategy::Just("*** Delete File: d".to_string()),
                proptest::strategy::Just("*** End of File".to_string()),
                proptest::strategy::Just("<<'EOF'".to_string()),
                proptest::strategy::Just("EOF".to_string()),
                "[ +@*-]{0,3}[a-z*: ]{0,12}",
                proptest::prelude::any::<String>(),
            ],
            0..12,
        )) {
            if let Ok(files) = patch_files(&lines.join("\n")) {
                proptest::prop_assert!(!files.is_empty());
                for f in files {
                    proptest::prop_assert!(!f.path.trim().is_empty());
                    proptest::prop_assert!(!f.path.contains('\n'));
                }
            }
        }
    }
}
