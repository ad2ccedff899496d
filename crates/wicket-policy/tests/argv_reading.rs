//! The engine's reading of an argv's options and operands (`wicket_policy::flags`), on the
//! catalogue's records: which words an allow rule must spell out, and which files an argv
//! writes, and the jobs a deny rule's program shares with others (`wicket_policy::equivalents`).
//! (Moved out of `flags.rs` and `equivalents.rs` so that the generic readers name no program.)

use wicket_policy::equivalents::shares_job;
use wicket_policy::flags::{risky_flags, write_args};

#[test]
fn risky_flag_table() {
    // Words are split on spaces, or on `·` where a program holds spaces.
    let cases: &[(&str, &[&str])] = &[
        ("find . -name *.rs", &[]),
        ("find . -exec curl x ;", &["-exec"]),
        ("find . -delete", &["-delete"]),
        ("git status", &[]),
        ("git -c core.pager=sh status", &["-c"]),
        ("git diff --output=/tmp/x", &["--output"]),
        ("git diff --ext-diff", &["--ext-diff"]),
        ("git grep -O foo", &["-O"]),
        ("git grep --open-files-in-pager=vim foo", &["--open-files-in-pager"]),
        ("git fetch --upload-pack=evil origin", &["--upload-pack"]),
        ("git config core.pager evil", &["config"]),
        ("git config --get user.name", &[]),
        ("git log --oneline", &[]),
        ("sed·-n·1,5p·f", &[]),
        ("sed·-i·s/a/b/·f", &["-i"]),
        ("sed·s/a/b/e·f", &["s/a/b/e"]),
        ("sed·1e id·f", &["1e id"]),
        ("sed·-n·/x/w out·f", &["/x/w out"]),
        ("sed·s/a/b/g·f", &[]),
        ("sed·/east/d·f", &[]),
        ("awk·{print $1}·f", &[]),
        ("awk·$3 > 100·f", &[]),
        ("awk·BEGIN{system(\"id\")}", &["BEGIN{system(\"id\")}"]),
        ("awk·{print > \"out\"}·f", &["{print > \"out\"}"]),
        ("rg --pre=./x foo", &["--pre"]),
        ("tar --to-command=sh -xf a.tar", &["--to-command"]),
        ("tar --checkpoint=1 --checkpoint-action=exec=sh -cf a.tar .", &["--checkpoint-action"]),
        ("rsync -e sh a b", &["-e"]),
        ("rsync -avz a b", &[]),
        ("npm test", &[]),
        ("npm test --script-shell=./evil", &["--script-shell"]),
        ("npm exec evil", &["exec"]),
        ("pip install -i http://evil x", &["-i"]),
        ("cargo build --config target.x.runner='sh'", &["--config"]),
        ("make SHELL=./evil", &["SHELL="]),
        ("export GIT_SSH_COMMAND=evil", &["GIT_SSH_COMMAND="]),
        ("export FOO=1", &[]),
        ("ssh -o ProxyCommand=evil host", &["-o"]),
        ("less +!id f", &["+"]),
        ("python3 -c print(1)", &["-c"]),
        ("python3 -Ic print(1)", &["-c"]),
        ("perl -ne print", &["-e"]),
        // node takes no abbreviations: `--ev` is not `--eval`, an option it refuses.
        ("node --ev=1", &["--ev=1"]),
        ("node --eval=1", &["--eval"]),
        ("python3 script.py -c x", &[]),
        ("jq .name package.json", &[]),
        ("jq -n env", &["env"]),
        ("jq -n $ENV.HOME", &["$ENV.HOME"]),
        // jq 1.6 takes long options by exact name only: `--rawf` is refused, so unknown.
        ("jq --rawf s .env .", &["--rawf"]),
        ("jq --rawfile s .env .", &["--rawfile"]),
        ("jq -nf prog.jq", &["-f"]),
        ("jq -r --arg env x .name f.json", &[]),
        ("zip -TT sh a.zip f", &["-TT"]),
        ("zip -qTTsh a.zip f", &["-TT"]),
        ("zip --unzip-com sh a.zip f", &["--unzip-command"]),
        ("zip -r a.zip src", &[]),
        ("make -j4 test", &[]),
        // A working folder inside the project is the rule's business; one outside is not.
        ("make -C docs html", &[]),
        ("make -C /tmp/x", &["-C"]),
        ("make --dir=../x", &["--directory"]),
        ("cargo build --manifest-path ~/x/Cargo.toml", &["--manifest-path"]),
        ("cargo test --manifest-path crates/a/Cargo.toml", &[]),
        ("uv run --directory=$HOME/x pytest", &["--directory"]),
        ("make --eva=x", &["--eval"]),
        ("make -sE x", &["-E"]),
        ("make·X:=$(shell id)", &["X:="]),
        ("make CFLAGS=-O2 all", &[]),
        ("make .SHELLFLAGS=-ec", &[".SHELLFLAGS="]),
        ("go test ./... -run TestX -v", &[]),
        ("go test --exec=./x ./...", &["-exec"]),
        ("go build -toolexec=x ./...", &["-toolexec"]),
        ("go build -toolex=x ./...", &["-toolex=x"]),
        ("go generate ./...", &["generate"]),
        ("go·build·-ldflags=-s -w·./...", &[]),
        ("go·build·-ldflags=-linkmode=external -extld=./x·./...", &["-ldflags"]),
        ("cargo +nightly build --release", &[]),
        ("cargo +nightly build --conf x", &["--conf"]),
        ("uv venv --python 3.12", &[]),
        ("uv pip install -p ./evil x", &["-p"]),
        ("pipx run --python /tmp/x black", &["--python"]),
        ("cargo test -p x -- --nocapture", &[]),
        ("cargo build --conf=x", &["--conf=x"]),
        ("cargo build -Zunstable-options", &["-Z"]),
        ("cargo clippy --fix", &["--fix"]),
        ("uv run --env-file .env pytest", &["--env-file"]),
        ("uv run pytest --env-file x", &[]),
        ("uv pip install --extra-index-url http://x y", &["--extra-index-url"]),
        ("uvx --index-url http://x ruff", &["--index-url"]),
        ("pipx run --spe x y", &["--spec"]),
        ("bun test --preload ./x", &["--preload"]),
        ("bun x cowsay", &["x"]),
        ("gradlew test --init-script x", &["--init-script"]),
        ("gradle test --tests Foo", &[]),
        ("php -r phpinfo();", &["-r"]),
        ("php -d auto_prepend_file=x s.php", &["-d"]),
        ("php s.php -r x", &[]),
        ("lua -e os.execute('id')", &["-e"]),
        ("Rscript -e system('id')", &["-e"]),
    ];
    for (cmd, want) in cases {
        let sep = if cmd.contains('·') { '·' } else { ' ' };
        let words: Vec<&str> = cmd.split(sep).collect();
        assert_eq!(risky_flags(&words), want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{cmd}");
    }
}

#[test]
fn awk_options() {
    let words = ["awk", "-e", "BEGIN{system(\"id\")}"];
    assert!(!risky_flags(&words).is_empty());
    let words = ["awk", "--sour=BEGIN{system(\"id\")}"];
    assert!(!risky_flags(&words).is_empty());
    let words = ["awk", "-f", "prog.awk", "data"];
    assert_eq!(risky_flags(&words), ["-f"]);
    let words = ["awk", "-F:", "{print $1}", "/etc/passwd"];
    assert!(risky_flags(&words).is_empty());
}

#[test]
fn write_arguments() {
    let w = |s: &str| -> Vec<Option<String>> {
        let words: Vec<Option<&str>> = s.split(' ').map(Some).collect();
        write_args(&words)
    };
    assert_eq!(w("tee a b"), [Some("a".into()), Some("b".into())]);
    assert_eq!(w("cp -r a b .git/hooks/x"), [Some(".git/hooks/x".into())]);
    assert_eq!(w("cp -t .git/hooks a"), [Some(".git/hooks".into())]);
    assert_eq!(w("ln -s ~/.ssh/id_rsa k"), [Some("k".into())]);
    assert_eq!(w("dd if=a of=.git/config"), [Some(".git/config".into())]);
    assert_eq!(w("sed -i s/a/b/ x y"), [Some("x".into()), Some("y".into())]);
    assert_eq!(w("sed s/a/b/ x"), Vec::<Option<String>>::new());
    assert_eq!(w("chmod +x a.sh"), [Some("a.sh".into())]);
    assert_eq!(w("cat a"), Vec::<Option<String>>::new());
}

#[test]
fn conditions_and_ordinary_commands() {
    assert_eq!(shares_job("rm -rf*", &["find", ".", "-name", "x"]), None);
    assert_eq!(shares_job("rm -rf*", &["find", ".", "-delete"]), Some("deletes or destroys files"));
    assert_eq!(shares_job("rm*", &["rsync", "-a", "--delete-after", "a", "b"]), Some("deletes or destroys files"));
    assert_eq!(shares_job("rm*", &["rsync", "-a", "a", "b"]), None);
    assert_eq!(shares_job("curl*", &["/usr/bin/wget", "https://x"]), Some("downloads or sends data over the network"));
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
