//! `strip_wrappers`: what runs behind `sudo`, `env`, `xargs`, `find -exec`, `bash -c` …

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests may panic

use wicket_shell::{analyze, strip_wrappers, Context, ProblemKind, Unwrapped};

fn unwrap(src: &str) -> Unwrapped {
    let a = analyze(src);
    assert_eq!(a.commands.len(), 1, "{src}: {:?}", a.commands);
    strip_wrappers(&a.commands[0])
}

fn argvs(u: &Unwrapped) -> Vec<String> {
    u.argvs
        .iter()
        .map(|a| a.iter().map(|w| w.value.clone().unwrap_or_else(|| w.raw.clone())).collect::<Vec<_>>().join(" "))
        .collect()
}

/// Each case: the command and an argv that must be among the ones that run.
const RUNS: &[(&str, &str)] = &[
    ("sudo rm -rf /", "rm -rf /"),
    ("sudo -u root -E rm x", "rm x"),
    ("sudo -Eu root rm x", "rm x"),
    ("sudo --user=root FOO=1 rm x", "rm x"),
    ("doas -u root rm x", "rm x"),
    ("env FOO=1 rm x", "rm x"),
    ("env -i -u HOME PATH=/bin rm x", "rm x"),
    ("env -S 'rm -rf /'", "rm -rf /"),
    ("env -S'FOO=1 rm -rf /' extra", "rm -rf / extra"),
    ("timeout 5 rm x", "rm x"),
    ("timeout -s KILL -k 1 5s rm x", "rm x"),
    ("nice -n 5 nohup rm x", "rm x"),
    ("nice -10 rm x", "rm x"),
    ("ionice -c2 -n7 rm x", "rm x"),
    ("time -p rm x", "rm x"),
    ("stdbuf -oL rm x", "rm x"),
    ("setsid -f rm x", "rm x"),
    ("xargs -I{} rm {}", "rm {}"),
    ("xargs -0 -n 1 -P 4 rm", "rm"),
    ("xargs", "echo"),
    ("find . -exec rm {} \\;", "rm {}"),
    ("find . -name x -execdir rm -f {} + -print", "rm -f {}"),
    ("find . -ok rm {} ';' -exec shred {} \\;", "shred {}"),
    ("bash -c 'rm -rf /'", "rm -rf /"),
    ("bash -lc 'rm -rf /'", "rm -rf /"),
    ("sh -c \"echo hi; rm x\"", "rm x"),
    ("sh -c \"echo hi; rm x\"", "echo hi"),
    ("zsh -o pipefail -c 'rm x'", "rm x"),
    ("command rm x", "rm x"),
    ("builtin eval 'rm x'", "rm x"),
    ("exec rm x", "rm x"),
    ("exec -a name rm x", "rm x"),
    ("eval 'rm -rf /'", "rm -rf /"),
    ("eval rm '-rf /'", "rm -rf /"),
    ("watch -n 1 'rm x; ls'", "rm x"),
    ("watch -x rm x", "rm x"),
    ("flock /tmp/l rm x", "rm x"),
    ("flock -w 5 /tmp/l -c 'rm x'", "rm x"),
    ("su -c 'rm x' root", "rm x"),
    ("trap 'rm x' EXIT", "rm x"),
    ("coproc rm x", "rm x"),
    ("/usr/bin/sudo /usr/bin/env rm x", "rm x"),
    ("sudo env timeout 5 nice bash -c 'xargs rm < list'", "rm"),
    ("bash -c 'sh -c \"rm -rf /\"'", "rm -rf /"),
    ("bash -c 'echo $(rm x)'", "rm x"),
    // Launchers and multiplexers (issue 15, class 1), each confirmed running its program.
    ("busybox rm -rf /", "rm -rf /"),
    ("toybox rm x", "rm x"),
    ("busybox sh -c 'rm x'", "rm x"),
    ("unshare -r rm x", "rm x"),
    ("unshare --map-root-user --fork rm x", "rm x"),
    ("unshare -mfile -n rm x", "rm x"),
    ("unshare -R / -w /tmp rm x", "rm x"),
    ("taskset -c 0 rm x", "rm x"),
    ("taskset 0x1 rm x", "rm x"),
    ("chrt -o 0 rm x", "rm x"),
    ("chrt --other 0 rm x", "rm x"),
    ("chrt -T 5 -D 9 -d 0 rm x", "rm x"),
    ("prlimit --nofile=256 rm x", "rm x"),
    ("prlimit -n256 rm x", "rm x"),
    ("setpriv --no-new-privs --reuid 0 rm x", "rm x"),
    ("runuser -u root -- rm x", "rm x"),
    ("runuser -c 'rm x' root", "rm x"),
    ("nsenter -t 1 -m -U --preserve-credentials rm x", "rm x"),
    ("nsenter --target=1 --mount rm x", "rm x"),
    ("chroot / rm x", "rm x"),
    ("chroot --userspec=1:1 / rm x", "rm x"),
    ("strace -f -o /dev/null rm x", "rm x"),
    ("strace -e trace=file -s 100 rm x", "rm x"),
    ("ltrace -o log rm x", "rm x"),
    ("script -qc 'rm x' /dev/null", "rm x"),
    ("script --command 'rm x'", "rm x"),
    ("parallel rm ::: a b", "rm"),
    ("parallel -j 2 'rm {}' ::: a", "rm {}"),
    ("parallel ::: 'rm x' 'ls'", "rm x"),
    ("gdb -q --args rm x", "rm x"),
    ("fd -e tmp -x rm {}", "rm {}"),
    ("fd tmp --exec-batch rm -f", "rm -f"),
    ("fdfind -H -X rm {} ';'", "rm {}"),
    ("npx rimraf dist", "rimraf dist"),
    ("npx --yes @scope/rimraf@5 dist", "rimraf dist"),
    ("npx -c 'rm x'", "rm x"),
    ("npx -p cowsay -c 'rm x'", "rm x"),
    ("npm exec -- rimraf dist", "rimraf dist"),
    ("npm exec -c 'rm x'", "rm x"),
    ("npm x -- rm x", "rm x"),
    ("pnpm exec rm x", "rm x"),
    ("pnpm exec -c 'rm x'", "rm x"),
    ("pnpm dlx rimraf dist", "rimraf dist"),
    ("yarn exec rm x", "rm x"),
    ("yarn dlx rimraf dist", "rimraf dist"),
    ("uv run rm x", "rm x"),
    ("uv run --with requests -- rm x", "rm x"),
    ("uv tool run rimraf x", "rimraf x"),
    ("poetry run rm x", "rm x"),
    ("bundle exec rm x", "rm x"),
    ("pipx run rimraf x", "rimraf x"),
];

#[test]
fn wrappers_reveal_the_command() {
    for (src, want) in RUNS {
        let u = unwrap(src);
        let got = argvs(&u);
        assert!(u.understood, "{src}: {:?}", u.problems);
        assert!(got.iter().any(|a| a == want), "{src}: want {want:?} among {got:?}");
        assert_eq!(
            got[0],
            analyze(src).commands[0]
                .words
                .iter()
                .map(|w| w.value.clone().unwrap_or_else(|| w.raw.clone()))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
}

#[test]
fn lookups_and_plain_programs_run_nothing_more() {
    for src in [
        "command -v rm",
        "git status",
        "sudo -e /etc/hosts",
        "sh",
        "sh -s arg",
        "bash - arg",
        "trap - EXIT",
        "taskset -p 1234",
        "chrt -p 1234",
        "prlimit --pid 1 --nofile=10",
        "setpriv --dump",
        "busybox --list",
        "unshare -r",
        "runuser root",
        "gdb -q -p 1234",
        "npm test",
        "npm --version",
        "uv pip install x",
        "poetry install",
        "script -q",
        "fd -e rs",
    ] {
        let u = unwrap(src);
        assert!(u.understood, "{src}");
        assert_eq!(u.argvs.len(), 1, "{src}: {:?}", argvs(&u));
    }
}

#[test]
fn nested_commands_keep_their_redirections() {
    let u = unwrap("bash -c 'echo x > /etc/passwd'");
    assert_eq!(u.nested.len(), 1);
    assert_eq!(u.nested[0].context, Context::Nested);
    assert_eq!(u.nested[0].redirects[0].target.value.as_deref(), Some("/etc/passwd"));
}

#[test]
fn unresolvable_wrappers_are_not_understood() {
    for (src, kind) in [
        ("bash -c \"$CMD\"", ProblemKind::DynamicProgram),
        ("sudo $CMD x", ProblemKind::DynamicProgram),
        ("eval \"$x\"", ProblemKind::DynamicProgram),
        ("env -S \"$x\"", ProblemKind::DynamicProgram),
        ("bash -c 'echo \"unterminated'", ProblemKind::ParseError),
        ("sudo --frobnicate rm", ProblemKind::Unsupported),
        ("bash -c", ProblemKind::Unsupported),
        ("sh -c 'eval x'", ProblemKind::RunsUnseenCode),
        // A script file is unseen code, like `source FILE`.
        ("bash script.sh", ProblemKind::RunsScriptFile),
        ("sh -x ./deploy.sh arg", ProblemKind::RunsScriptFile),
        ("sudo bash /tmp/x.sh", ProblemKind::RunsScriptFile),
        // Launchers: an option their parser does not take, and code nobody can read.
        ("unshare --frobnicate rm x", ProblemKind::Unsupported),
        ("taskset -Z 1 rm x", ProblemKind::Unsupported),
        ("nsenter -q rm x", ProblemKind::Unsupported),
        ("expect -c 'spawn rm x'", ProblemKind::RunsUnseenCode),
        ("expect script.exp", ProblemKind::RunsUnseenCode),
        ("gdb -batch -ex 'shell rm x'", ProblemKind::RunsUnseenCode),
        ("gdb -eval-command='shell rm x'", ProblemKind::RunsUnseenCode),
        ("gdb -x cmds.gdb", ProblemKind::RunsUnseenCode),
        ("parallel", ProblemKind::RunsUnseenCode),
        ("parallel :::: cmds.txt", ProblemKind::RunsUnseenCode),
        ("npx --frobnicate x", ProblemKind::Unsupported),
        ("npm --prefix /tmp exec rm x", ProblemKind::Unsupported),
        ("uv --directory /tmp run rm x", ProblemKind::Unsupported),
        ("busybox $APPLET x", ProblemKind::DynamicProgram),
    ] {
        let u = unwrap(src);
        assert!(!u.understood, "{src}");
        assert!(u.problems.iter().any(|p| p.kind == kind), "{src}: {:?}", u.problems);
    }
    // Nine levels of `bash -c` exceed the re-parse limit.
    let mut s = "rm x".to_string();
    for _ in 0..9 {
        s = format!("bash -c {}", shell_quote(&s));
    }
    let u = unwrap(&s);
    assert!(!u.understood);
    assert!(u.problems.iter().any(|p| p.kind == ProblemKind::TooDeep), "{:?}", u.problems);
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
