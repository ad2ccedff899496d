//! Programs that do the same job as one a deny rule names.
//!
//! The hard question: with `bash(*)` allowed and `bash(rm*)` denied, is `find . -delete` or
//! `shred -u x` allowed? A deny rule names a program, but its author meant the job (deleting
//! files, downloading). Each program's record in the catalogue lists the jobs it does (and the
//! words that make it do one: `find -delete`); a deny rule that names one member of a job makes
//! every other member at least ask. A new equivalent is one `jobs` entry on a record.

use wicket_programs::{lookup, Does, Job};

/// Does this argv (program first) do the job, by its program's record?
fn does(job: Job, words: &[&str]) -> bool {
    let Some(record) = words.first().and_then(|p| lookup(p)) else { return false };
    record.jobs.iter().any(|d| d.job == job && d.matches(&words[1..]))
}

/// For a deny rule's command pattern (`rm -rf*`, `curl *`) and an argv: the job they share,
/// when the argv is another member of a job the pattern's program does. The pattern's own
/// program is left to the rule itself.
pub fn shares_job(deny_pattern: &str, words: &[&str]) -> Option<&'static str> {
    let literal: Vec<&str> = deny_pattern.split_whitespace().map(|w| w.trim_end_matches(['*', ':'])).collect();
    let rule_program = literal.first()?;
    let rule_record = lookup(rule_program)?;
    let base = |w: &'_ str| w.rsplit('/').next().unwrap_or(w).to_string();
    // Another name of the same record (`ncat` for `nc`) is another program to the rule.
    if base(words.first()?) == base(rule_program) {
        return None;
    }
    let named = |d: &&Does| d.when.is_empty() || d.matches(&literal[1..]);
    rule_record.jobs.iter().filter(named).map(|d| d.job).find(|job| does(*job, words)).map(Job::describe)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wicket_programs::{records, Program};

    /// Every name of every member of a job is asked about under a deny rule for every name of
    /// every other unconditional member; ordinary commands are not.
    #[test]
    fn every_member_shares_its_job() {
        for job in [Job::Deletes, Job::Downloads] {
            let members: Vec<(&Program, &Does)> =
                records().flat_map(|r| r.jobs.iter().filter(move |d| d.job == job).map(move |d| (r, d))).collect();
            assert!(members.len() > 2, "{job:?}");
            for (member, does) in &members {
                for name in member.names {
                    let mut argv = vec![*name];
                    argv.extend(does.when.first().map(|w| w.trim_end_matches('*')));
                    argv.push("x");
                    for (rule, _) in members.iter().filter(|(_, d)| d.when.is_empty()) {
                        for rule_name in rule.names {
                            let pattern = format!("{rule_name}*");
                            let got = shares_job(&pattern, &argv);
                            let want = (rule_name != name).then_some(job.describe());
                            assert_eq!(got, want, "{pattern} vs {argv:?}");
                        }
                    }
                }
            }
        }
    }
}
