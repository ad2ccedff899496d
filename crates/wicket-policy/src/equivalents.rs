//! Programs that do the same job as one a deny rule names: one reviewable table.
//!
//! The hard question: with `bash(*)` allowed and `bash(rm*)` denied, is `find . -delete` or
//! `shred -u x` allowed? A deny rule names a program, but its author meant the job (deleting
//! files, downloading). Each class below lists the programs (and the options that make a
//! program do the job) that do it; a deny rule that names one member makes every other member
//! at least ask. A new equivalent is one line here.

/// A program, and the words that make it do the class's job (empty: it always does).
/// A word ending in `*` matches any word it begins (`--delete*` is `--delete-after` too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// The program's base name.
    pub program: &'static str,
    /// Any one of these words among the arguments makes it do the job; empty: always.
    pub when: &'static [&'static str],
}

/// A job and the programs that do it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    /// What the members do, for reasons.
    pub job: &'static str,
    /// The members.
    pub members: &'static [Member],
}

const fn m(program: &'static str, when: &'static [&'static str]) -> Member {
    Member { program, when }
}

/// The classes.
pub const CLASSES: &[Class] = &[
    Class {
        job: "deletes or destroys files",
        members: &[
            m("rm", &[]),
            m("rmdir", &[]),
            m("unlink", &[]),
            m("shred", &[]),
            m("truncate", &[]),
            m("wipe", &[]),
            m("srm", &[]),
            m("find", &["-delete"]),
            m("rsync", &["--delete*", "--del", "--remove-source-files"]),
            m("git", &["clean"]),
        ],
    },
    Class {
        job: "downloads or sends data over the network",
        members: &[
            m("curl", &[]),
            m("wget", &[]),
            m("wget2", &[]),
            m("aria2c", &[]),
            m("axel", &[]),
            m("http", &[]),
            m("https", &[]),
            m("httpie", &[]),
            m("xh", &[]),
            m("xhs", &[]),
            m("curlie", &[]),
            m("lwp-download", &[]),
            m("lwp-request", &[]),
            m("GET", &[]),
            m("POST", &[]),
            m("fetch", &[]),
            m("ftp", &[]),
            m("lftp", &[]),
            m("tftp", &[]),
            m("nc", &[]),
            m("ncat", &[]),
            m("netcat", &[]),
            m("socat", &[]),
            m("telnet", &[]),
            m("openssl", &["s_client"]),
            m("python", &["http.server", "urllib.request", "http.client"]),
            m("python3", &["http.server", "urllib.request", "http.client"]),
        ],
    },
];

fn base(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

impl Member {
    /// Does this argv (program first) do the job as this member?
    pub fn matches(&self, words: &[&str]) -> bool {
        let Some(program) = words.first() else { return false };
        base(program) == self.program
            && (self.when.is_empty()
                || words[1..].iter().any(|w| {
                    self.when.iter().any(|x| match x.strip_suffix('*') {
                        Some(prefix) => w.starts_with(prefix),
                        None => w == x,
                    })
                }))
    }
}

/// For a deny rule's command pattern (`rm -rf*`, `curl *`) and an argv: the job they share,
/// when the argv is another member of a class the pattern's program belongs to. The pattern's
/// own program is left to the rule itself.
pub fn shares_job(deny_pattern: &str, words: &[&str]) -> Option<&'static str> {
    let literal: Vec<&str> = deny_pattern.split_whitespace().map(|w| w.trim_end_matches(['*', ':'])).collect();
    let rule_program = base(literal.first()?);
    if rule_program.is_empty() || rule_program.contains(['*', '?']) {
        return None;
    }
    let program = base(words.first()?);
    if program == rule_program {
        return None;
    }
    CLASSES.iter().find_map(|c| {
        let named = c.members.iter().any(|m| m.program == rule_program && (m.when.is_empty() || m.matches(&literal)));
        (named && c.members.iter().any(|m| m.matches(words))).then_some(c.job)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member of every class is asked about under a deny rule for every other
    /// unconditional member; ordinary commands are not.
    #[test]
    fn every_member_shares_its_class_job() {
        for class in CLASSES {
            let rules: Vec<&Member> = class.members.iter().filter(|m| m.when.is_empty()).collect();
            for member in class.members {
                let mut argv = vec![member.program];
                argv.extend(member.when.first().map(|w| w.trim_end_matches('*')));
                argv.push("x");
                for rule in &rules {
                    let pattern = format!("{}*", rule.program);
                    let got = shares_job(&pattern, &argv);
                    if rule.program == member.program {
                        assert_eq!(got, None, "{pattern} vs {argv:?}");
                    } else {
                        assert_eq!(got, Some(class.job), "{pattern} vs {argv:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn conditions_and_ordinary_commands() {
        assert_eq!(shares_job("rm -rf*", &["find", ".", "-name", "x"]), None);
        assert_eq!(shares_job("rm -rf*", &["find", ".", "-delete"]), Some("deletes or destroys files"));
        assert_eq!(shares_job("rm*", &["rsync", "-a", "--delete-after", "a", "b"]), Some("deletes or destroys files"));
        assert_eq!(shares_job("rm*", &["rsync", "-a", "a", "b"]), None);
        assert_eq!(
            shares_job("curl*", &["/usr/bin/wget", "https://x"]),
            Some("downloads or sends data over the network")
        );
        assert_eq!(
            shares_job("curl*", &["python3", "-m", "http.server"]),
            Some("downloads or sends data over the network")
        );
        assert_eq!(shares_job("curl*", &["python3", "app.py"]), None);
        assert_eq!(shares_job("curl*", &["ls"]), None);
        assert_eq!(shares_job("git push*", &["rm", "x"]), None);
        assert_eq!(shares_job("git clean*", &["rm", "x"]), Some("deletes or destroys files"));
        assert_eq!(shares_job("*", &["rm", "x"]), None);
    }
}
