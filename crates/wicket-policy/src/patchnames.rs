//! The files a patch names (issue 39, class 6): `patch` and `git apply` create, edit, rename
//! and delete the files their input's headers name, whatever rule allowed the program. The
//! hard question: which paths will the program write? Both read the same headers: unified
//! (`--- OLD` / `+++ NEW`), context (`*** OLD` / `--- NEW`) and git's extended ones (`diff --git
//! a/X b/Y`, `rename to`, `copy to`, `rename from`). Every name any header gives is a target:
//! a name the program ends up not using costs at most a question.

/// Every path a patch may write, leading steps removed as `strip` says (`None`: GNU patch
/// without `-p`, which may use any tail of a name, so every tail is returned), or why the
/// patch cannot be read.
pub fn targets(text: &str, strip: Option<usize>) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |name: &str, strip: Option<usize>| {
        for t in tails(name, strip) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    };
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(rest) = line.strip_prefix("diff --git ") {
            for name in git_header_names(rest)? {
                add(&name, strip);
            }
            continue;
        }
        // git takes the names of these lines with one leading step fewer than `-p` says.
        let extended = ["rename to ", "rename from ", "copy to ", "rename new ", "rename old "];
        if let Some(rest) = extended.iter().find_map(|p| line.strip_prefix(p)) {
            add(&unquote(rest)?, strip.map(|p| p.saturating_sub(1)));
            continue;
        }
        let header = ["+++ ", "--- ", "*** "].iter().find_map(|p| line.strip_prefix(p));
        if let Some(rest) = header {
            // A hunk's own `--- 1,3 ----` / `*** 1,3 ****` lines of a context diff are no names.
            if rest.ends_with("----") || rest.ends_with("****") {
                continue;
            }
            // The name ends at a tab (a timestamp follows).
            let name = rest.split('\t').next().unwrap_or(rest).trim_end();
            let name = unquote(name)?;
            if name == "/dev/null" || name.is_empty() {
                continue;
            }
            add(&name, strip);
        }
    }
    Ok(out)
}

/// The names of `diff --git a/X b/Y`: quoted names, or both halves of the one split where the
/// two names agree past their first step; when they do not (a rename), every split is a
/// candidate (the `rename` lines name the paths too).
fn git_header_names(rest: &str) -> Result<Vec<String>, String> {
    if rest.starts_with('"') {
        let (first, after) = quoted_prefix(rest)?;
        let second = unquote(after.trim_start())?;
        return Ok(vec![first, second]);
    }
    let spaces: Vec<usize> = rest.match_indices(' ').map(|(i, _)| i).collect();
    let drop_first = |s: &str| s.split_once('/').map_or(s.to_string(), |(_, r)| r.to_string());
    for &i in &spaces {
        let (a, b) = (&rest[..i], &rest[i + 1..]);
        if drop_first(a) == drop_first(b) {
            return Ok(vec![a.to_string(), b.to_string()]);
        }
    }
    let mut out = Vec::new();
    for &i in &spaces {
        out.push(rest[..i].to_string());
        out.push(rest[i + 1..].to_string());
    }
    if out.is_empty() {
        out.push(rest.to_string());
    }
    Ok(out)
}

/// A name as written, or git's C-quoted form (`"a/\303\251"`) unquoted.
fn unquote(s: &str) -> Result<String, String> {
    if !s.starts_with('"') {
        return Ok(s.to_string());
    }
    let (name, rest) = quoted_prefix(s)?;
    if !rest.trim().is_empty() {
        return Err(format!("the patch header {s:?} holds text after its quoted name"));
    }
    Ok(name)
}

/// The C-quoted string at the start of `s` and what follows it.
fn quoted_prefix(s: &str) -> Result<(String, &str), String> {
    let bad = || format!("the patch header name {s:?} is quoted in a way wicket cannot read");
    let b = s.as_bytes();
    let mut bytes = Vec::new();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let name = String::from_utf8(bytes).map_err(|_| bad())?;
                return Ok((name, s.get(i + 1..).unwrap_or("")));
            }
            b'\\' => {
                let c = *b.get(i + 1).ok_or_else(bad)?;
                match c {
                    b'0'..=b'7' => {
                        let oct = s.get(i + 1..i + 4).ok_or_else(bad)?;
                        bytes.push(u8::from_str_radix(oct, 8).map_err(|_| bad())?);
                        i += 4;
                        continue;
                    }
                    b'n' => bytes.push(b'\n'),
                    b't' => bytes.push(b'\t'),
                    b'a' => bytes.push(7),
                    b'b' => bytes.push(8),
                    b'f' => bytes.push(12),
                    b'v' => bytes.push(11),
                    b'r' => bytes.push(b'\r'),
                    b'"' | b'\\' => bytes.push(c),
                    _ => return Err(bad()),
                }
                i += 2;
            }
            c => {
                bytes.push(c);
                i += 1;
            }
        }
    }
    Err(bad())
}

/// The name with `strip` leading steps removed (`None`: every tail). A name with fewer steps
/// than `strip` is one the program cannot use; it is kept whole rather than dropped.
fn tails(name: &str, strip: Option<usize>) -> Vec<String> {
    let steps: Vec<&str> = name.split('/').filter(|s| !s.is_empty()).collect();
    let abs = name.starts_with('/');
    let join = |from: usize| {
        let t = steps.get(from..).unwrap_or(&[]).join("/");
        if abs && from == 0 {
            format!("/{t}")
        } else {
            t
        }
    };
    match strip {
        Some(p) if p < steps.len() => vec![join(p)],
        Some(_) => vec![join(0)],
        None => (0..steps.len()).map(join).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_git_and_context_headers() {
        let p = "--- a/src/x.rs\t2024-01-01\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n";
        assert_eq!(targets(p, Some(1)).unwrap(), vec!["src/x.rs", ".claude/settings.json"]);
        let g = "diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n";
        assert_eq!(targets(g, Some(1)).unwrap(), vec![".git/hooks/pre-commit"]);
        let r =
            "diff --git a/n.txt b/.github/workflows/ci.yml\nrename from n.txt\nrename to .github/workflows/ci.yml\n";
        assert!(targets(r, Some(1)).unwrap().contains(&".github/workflows/ci.yml".to_string()));
        let c = "*** a/x.c\n--- b/.vscode/tasks.json\n***************\n*** 1,2 ****\n--- 1,2 ----\n";
        assert!(targets(c, Some(1)).unwrap().contains(&".vscode/tasks.json".to_string()));
        let q = "--- \"a/\\056claude/s.json\"\n";
        assert_eq!(targets(q, Some(1)).unwrap(), vec![".claude/s.json"]);
        assert!(targets("--- \"a/\\q\"\n", Some(1)).is_err());
        // GNU patch without -p: every tail.
        assert_eq!(
            targets("+++ x/.git/hooks/h\n", None).unwrap(),
            vec!["x/.git/hooks/h", ".git/hooks/h", "hooks/h", "h"]
        );
    }
}
