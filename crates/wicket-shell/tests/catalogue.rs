//! Every shell of the program catalogue is read the same way by the wrapper reader: what its
//! script flag gives it is re-parsed, so a deny rule sees into it. A shell added to the
//! catalogue is covered here without a line of its own.

use wicket_shell::{analyze, strip_wrappers, ProblemKind};

#[test]
fn every_shell_runs_its_c_string() {
    let mut checked = 0;
    for shell in wicket_programs::shells() {
        let src = format!("{shell} -c 'rm -rf x'");
        let u = strip_wrappers(&analyze(&src).commands[0]);
        let argvs: Vec<String> =
            u.argvs.iter().map(|a| a.iter().filter_map(|w| w.value.clone()).collect::<Vec<_>>().join(" ")).collect();
        if u.understood {
            assert!(argvs.iter().any(|a| a == "rm -rf x"), "{src}: {argvs:?}");
        } else {
            // A shell whose script flag is not sh's (`cmd /c`) fails closed instead.
            assert!(u.problems.iter().any(|p| p.kind == ProblemKind::RunsScriptFile), "{src}: {:?}", u.problems);
        }
        checked += 1;
    }
    assert!(checked >= 25, "only {checked} shell names");
}

#[test]
fn shells_that_read_options_by_name_run_every_script_option() {
    for (src, want) in [
        ("fish -c true -c 'rm x'", "rm x"),
        ("fish -C 'rm x' -c true", "rm x"),
        ("fish --command='rm x'", "rm x"),
        ("fish -c'rm x'", "rm x"),
        ("pwsh -NoProfile -Command rm -rf x", "rm -rf x"),
        ("pwsh -c 'rm x'", "rm x"),
    ] {
        let u = strip_wrappers(&analyze(src).commands[0]);
        assert!(u.understood, "{src}: {:?}", u.problems);
        let argvs: Vec<String> =
            u.argvs.iter().map(|a| a.iter().filter_map(|w| w.value.clone()).collect::<Vec<_>>().join(" ")).collect();
        assert!(argvs.iter().any(|a| a == want), "{src}: want {want:?} among {argvs:?}");
    }
    for (src, kind) in [
        ("fish script.fish", ProblemKind::RunsScriptFile),
        ("fish --frobnicate -c 'rm x'", ProblemKind::Unsupported),
        ("pwsh -EncodedCommand cgBtAA==", ProblemKind::RunsUnseenCode),
        ("pwsh -File x.ps1", ProblemKind::RunsScriptFile),
        ("pwsh x.ps1", ProblemKind::RunsScriptFile),
        ("pwsh -COMMAND 'rm x'", ProblemKind::Unsupported),
    ] {
        let u = strip_wrappers(&analyze(src).commands[0]);
        assert!(!u.understood, "{src}");
        assert!(u.problems.iter().any(|p| p.kind == kind), "{src}: {:?}", u.problems);
    }
}
