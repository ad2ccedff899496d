//! What a program does beyond its options and role, as record fields: whether "always allow"
//! may keep a prefix of it, when it uses the network, the jobs it shares with other programs,
//! which operands it writes, and the checker that reads the rest of its argv.
//!
//! The hard question: what must every consumer of a program agree on? A deny rule on `rm` that
//! holds for `shred` in one place and not in another is a bypass, so each fact lives here once,
//! on the program's record, and the engine, the approver and the MCP gateway read the field.

/// When a program uses the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Network {
    /// Never on its own.
    Never,
    /// Every use (`curl`, `ssh`, `npx`).
    Always,
    /// Only in these sub-commands, the first operand after its options (`git push`, `pip
    /// install`).
    Subs(&'static [&'static str]),
    /// Whatever its `-m MODULE` does, the module looked up as a program (`python3 -m pip
    /// install`).
    Module,
}

/// A job several programs do, so that a deny rule naming one program's job reaches the others
/// (`bash(rm *)` denied: `find . -delete` and `shred -u x` at least ask).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// Deletes or destroys files.
    Deletes,
    /// Downloads or sends data over the network.
    Downloads,
}

impl Job {
    /// The job in words, for reasons.
    pub fn describe(self) -> &'static str {
        match self {
            Job::Deletes => "deletes or destroys files",
            Job::Downloads => "downloads or sends data over the network",
        }
    }
}

/// A program's share in a job: always, or only with one of some words among its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Does {
    /// The job.
    pub job: Job,
    /// Any one of these words among the arguments makes it do the job; empty: always. A word
    /// ending in `*` matches any word it begins (`--delete*` is `--delete-after` too).
    pub when: &'static [&'static str],
}

impl Does {
    /// Do these arguments (the program's own word left out) do the job?
    pub fn matches(&self, args: &[&str]) -> bool {
        self.when.is_empty()
            || args.iter().any(|w| {
                self.when.iter().any(|x| match x.strip_suffix('*') {
                    Some(prefix) => w.starts_with(prefix),
                    None => w == x,
                })
            })
    }
}

/// Which shell variable a bash builtin sets from its words, beyond `NAME=value` operands
/// ([`crate::Program::assigns`]): the engine counts such a variable as the line's own, not the
/// person's environment (decisions.md, "Variables that may hold a secret").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetsVariable {
    /// None.
    Nothing,
    /// Its last operand, or this name when it has none (`mapfile -t lines`, `MAPFILE`).
    LastOperand(&'static str),
    /// The value of this option (`printf -v NAME`).
    OptionValue(&'static str),
}

/// Which of its words a program writes (creates, truncates or deletes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// None beyond its options' `Write` and `Dest` values.
    Nothing,
    /// Every operand (`rm`, `tee`, `touch`).
    Operands,
    /// Every operand, made as a folder that a later `cd` on the line may enter (`mkdir`).
    Folders,
    /// The last of two or more operands, or the `-t DIR` folder (`rsync`, `scp`), even when
    /// an option also writes.
    Last,
    /// As [`Writes::Last`], but only when no option named the destination (`cp -t DIR`).
    LastUnlessDest,
    /// As [`Writes::LastUnlessDest`]; one operand makes a link named after it here (`ln -s T`).
    Link,
    /// Every operand after the first (`chmod MODE F…`).
    AfterFirst,
    /// The values of these options, also when the program has no table (`curl -o F`).
    Values(&'static [&'static str]),
    /// `of=FILE` operands (`dd`).
    OfOperand,
    /// With its `Write` option (`-i`), the files after the script (`sed -i s/a/b/ F`).
    InPlace,
    /// The archive, its first operand, unless one of these options only reads it (`zip`).
    Archive(&'static [&'static str]),
    /// The archive that an option names, when another option creates, appends to or
    /// deletes from it (`tar -c -f A`).
    ArchiveWhen {
        /// The option that names the archive (`-f`).
        archive: &'static str,
        /// The options (canonical names) that write it.
        writing: &'static [&'static str],
    },
}

/// One example of what a program's argv does: the words (split on spaces, or on `·` when a
/// word holds spaces) and what every consumer must find in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// The command, program first.
    pub argv: &'static str,
    /// What it does.
    pub expect: Expect,
}

/// What an example's argv must do, as the engine and the shell reader see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// An allow rule must spell out exactly these words (risky options, scripts, sub-commands).
    Risky(&'static [&'static str]),
    /// It writes exactly these files, and nothing is risky.
    Writes(&'static [&'static str]),
    /// The shell reader finds these commands run behind it (each as its words joined by
    /// spaces), in order.
    Runs(&'static [&'static str]),
    /// Nothing risky, no file written, nothing run behind it.
    Plain,
    /// It changes wicket's own gate (`wicket trust approve`): denied like a write of
    /// wicket's settings.
    ChangesGate,
    /// The shell reader cannot tell what runs behind it (`cmd /c …`, `source FILE`): a deny
    /// rule must assume any command may.
    Unread,
}

/// An [`Example`], for records' `examples` lists.
pub(crate) const fn ex(argv: &'static str, expect: Expect) -> Example {
    Example { argv, expect }
}
