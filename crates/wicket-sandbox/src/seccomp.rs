//! The seccomp filter: system calls a sandboxed command never needs and that help escapes.
//!
//! The hard question: what may a confined process ask the kernel for? Everything but the calls
//! that attach to other processes (ptrace), change mounts or namespaces, reach the kernel
//! keyring, load BPF or kernel modules, open io_uring or perf rings, or create sockets of any
//! family but the internet ones and NETLINK_ROUTE (the ones a network namespace isolates; a
//! Unix socket could talk to a daemon outside through a socket file, AF_VSOCK to the host).
//! Without bwrap, internet sockets are refused too, since there is no network namespace.
//!
//! Nor may it leave a privilege on disk for the host: a setuid or setgid bit (by chmod, by a
//! create mode, by mknod of a regular file), a device node, or an extended attribute (file
//! capabilities are one). bubblewrap's binds are nosuid, so such a file is inert inside, but
//! it lands in the project, where the host runs it with the bit.

use std::collections::BTreeMap;

/// Why the filter cannot be built (a bug, or an unsupported architecture).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the seccomp filter: {0}")]
pub struct SeccompError(String);

/// The kernel's audit number of the architecture wicket was built for (`AUDIT_ARCH_*`: the ELF
/// machine, 64-bit, little-endian), which the filter checks before it reads a call's number.
fn arch() -> Result<u32, SeccompError> {
    const LE64: u32 = 0x8000_0000 | 0x4000_0000;
    if cfg!(target_arch = "x86_64") {
        Ok(LE64 | 62)
    } else if cfg!(target_arch = "aarch64") {
        Ok(LE64 | 183)
    } else if cfg!(target_arch = "riscv64") {
        Ok(LE64 | 243)
    } else {
        Err(SeccompError("this CPU architecture has no seccomp filter in wicket".into()))
    }
}

/// How a condition compares the low 32 bits of an argument (every value the rules name fits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Eq(u32),
    Ne(u32),
    /// The bits of `mask` in the argument equal `value`.
    MaskedEq {
        mask: u32,
        value: u32,
    },
}

/// One comparison of one argument (0 to 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cond {
    arg: u8,
    cmp: Cmp,
}

fn cond(arg: u8, cmp: Cmp) -> Cond {
    Cond { arg, cmp }
}

fn masked(arg: u8, mask: u64, value: u64) -> Result<Cond, SeccompError> {
    let (Ok(mask), Ok(value)) = (u32::try_from(mask), u32::try_from(value)) else {
        return Err(SeccompError(format!("a mask or value of argument {arg} is wider than 32 bits")));
    };
    Ok(cond(arg, Cmp::MaskedEq { mask, value }))
}

/// A rule is an AND of its conditions; a call is refused when any of its rules holds, and
/// always when it has none.
type Rule = Vec<Cond>;

/// What the filter refuses: by call number, the errno and the rules.
type Refusals = BTreeMap<u32, (i32, Vec<Rule>)>;

fn nr(n: i64) -> Result<u32, SeccompError> {
    u32::try_from(n).map_err(|_| SeccompError(format!("system call number {n} is out of range")))
}

/// `fchmodat2` (Linux 6.6), `setxattrat` and `removexattrat` (Linux 6.13): one number on every
/// architecture wicket builds for, and not in every libc release yet.
const SYS_FCHMODAT2: i64 = 452;
const SYS_SETXATTRAT: i64 = 463;
const SYS_REMOVEXATTRAT: i64 = 466;

/// The mode bits that hand the owner's or group's identity to whoever runs the file.
const SETID: [u64; 2] = [libc::S_ISUID as u64, libc::S_ISGID as u64];

/// Rules matching a mode in argument `arg` with the setuid or the setgid bit. A rule is an AND
/// of its conditions and the rules of a call an OR, so one rule a bit.
fn setid_mode(arg: u8) -> Result<Vec<Rule>, SeccompError> {
    SETID.iter().map(|b| Ok(vec![masked(arg, *b, *b)?])).collect()
}

/// Rules matching a call that creates a file (`O_CREAT`, or `O_TMPFILE` to link in later) with
/// a mode in argument `mode` that has the setuid or the setgid bit. Without either flag the
/// kernel ignores the mode (and callers leave junk there).
fn setid_create(flags: u8, mode: u8) -> Result<Vec<Rule>, SeccompError> {
    let mut out = Vec::new();
    for create in [libc::O_CREAT as u64, libc::O_TMPFILE as u64] {
        for b in SETID {
            out.push(vec![masked(flags, create, create)?, masked(mode, b, b)?]);
        }
    }
    Ok(out)
}

/// Rules matching a `mknod` mode in argument `arg` that makes a character or block device, or
/// any node (a regular file too) with the setuid or setgid bit. FIFOs and sockets stay allowed.
fn device_or_setid_node(arg: u8) -> Result<Vec<Rule>, SeccompError> {
    let kind = libc::S_IFMT as u64;
    let mut out = setid_mode(arg)?;
    for dev in [libc::S_IFCHR as u64, libc::S_IFBLK as u64] {
        out.push(vec![masked(arg, kind, dev)?]);
    }
    Ok(out)
}

/// The rules that keep setuid and setgid bits and device nodes off the disk, by call.
/// `mkdir` is left alone: the kernel drops both bits from its mode (a folder gets setgid only
/// from a setgid parent, which the host chose).
fn no_privileged_files() -> Result<BTreeMap<i64, Vec<Rule>>, SeccompError> {
    let mut rules = BTreeMap::new();
    rules.insert(libc::SYS_fchmod, setid_mode(1)?);
    rules.insert(libc::SYS_fchmodat, setid_mode(2)?);
    rules.insert(SYS_FCHMODAT2, setid_mode(2)?);
    rules.insert(libc::SYS_openat, setid_create(2, 3)?);
    rules.insert(libc::SYS_mknodat, device_or_setid_node(2)?);
    #[cfg(target_arch = "x86_64")]
    {
        rules.insert(libc::SYS_chmod, setid_mode(1)?);
        rules.insert(libc::SYS_open, setid_create(1, 2)?);
        // creat() always creates.
        rules.insert(libc::SYS_creat, setid_mode(1)?);
        rules.insert(libc::SYS_mknod, device_or_setid_node(1)?);
    }
    Ok(rules)
}

/// Every call that sets or removes an extended attribute. The filter cannot read the
/// attribute's name (it is in memory), so all of them: `security.capability` (file
/// capabilities), ACLs and `user.*` alike.
const XATTR_WRITES: [i64; 8] = [
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    SYS_SETXATTRAT,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    SYS_REMOVEXATTRAT,
];

/// Calls refused outright with `EPERM`.
const ALWAYS: [i64; 37] = [
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_chroot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_reboot,
    libc::SYS_acct,
    libc::SYS_quotactl,
];

/// What the filter refuses, and how. `no_network` also refuses internet sockets (the fallback
/// without a network namespace).
fn refusals(no_network: bool) -> Result<Refusals, SeccompError> {
    let mut perm: BTreeMap<i64, Vec<Rule>> = ALWAYS.iter().map(|n| (*n, vec![])).collect();
    // clone() with a namespace flag; clone3 passes its flags in memory, so it is refused as
    // "not implemented" (below) and libc falls back to clone().
    let ns_flags = [
        libc::CLONE_NEWNS,
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWCGROUP,
    ];
    // x86_64 clone(flags, …): flags is argument 0.
    perm.insert(
        libc::SYS_clone,
        ns_flags.iter().map(|f| Ok(vec![masked(0, *f as u64, *f as u64)?])).collect::<Result<_, _>>()?,
    );
    // Sockets: only the internet families and NETLINK_ROUTE, which bubblewrap's network
    // namespace cuts off from the host (loopback and a routing table of its own). Every other
    // family reaches past a network namespace or into the kernel: AF_VSOCK (the hypervisor and
    // other VMs), other netlink protocols (kernel uevents, audit, generic netlink families
    // that are not namespaced), AF_PACKET, AF_XDP, AF_ALG, AF_BLUETOOTH, AF_CAN, AF_KEY,
    // AF_TIPC … and AF_UNIX (a socket file of a daemon outside). Decided by allowing, so a
    // family added to the kernel later is refused too. Without a network namespace (the
    // fallback), no socket at all.
    let inet = [libc::AF_INET as u32, libc::AF_INET6 as u32, libc::AF_NETLINK as u32];
    let mut socket_rules = vec![inet.iter().map(|f| cond(0, Cmp::Ne(*f))).collect::<Rule>()];
    socket_rules.push(vec![cond(0, Cmp::Eq(libc::AF_NETLINK as u32)), cond(2, Cmp::Ne(libc::NETLINK_ROUTE as u32))]);
    if no_network {
        socket_rules.extend(inet.iter().map(|f| vec![cond(0, Cmp::Eq(*f))]));
    }
    perm.insert(libc::SYS_socket, socket_rules);
    // socketpair makes a connected pair and reaches nobody; only AF_UNIX pairs (other
    // families that offer pairs, such as AF_TIPC, are refused like their sockets).
    perm.insert(libc::SYS_socketpair, vec![vec![cond(0, Cmp::Ne(libc::AF_UNIX as u32))]]);
    // TIOCSTI pushes keystrokes into the terminal outside.
    perm.insert(libc::SYS_ioctl, vec![vec![cond(1, Cmp::Eq(libc::TIOCSTI as u32))]]);
    perm.extend(no_privileged_files()?);
    let mut out = Refusals::new();
    for (n, rules) in perm {
        out.insert(nr(n)?, (libc::EPERM, rules));
    }
    // Not implemented, for calls whose arguments sit in memory where a filter cannot look, so
    // libc falls back to the older call checked above: clone3 (its flags) for clone(), openat2
    // (its mode, in `struct open_how`) for openat().
    for n in [libc::SYS_clone3, libc::SYS_openat2] {
        out.insert(nr(n)?, (libc::ENOSYS, vec![]));
    }
    // "Not supported": what `cp -a` and `tar --xattrs` take as a file system without extended
    // attributes, and go on (`rsync -X` copies the files, then exits 23 naming the attributes).
    for n in XATTR_WRITES {
        out.insert(nr(n)?, (libc::ENOTSUP, vec![]));
    }
    Ok(out)
}

/// A seccomp program: classic BPF instructions (`struct sock_filter`), ready to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program(Vec<Insn>);

/// One `struct sock_filter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

/// The filter for a confined command. `no_network` also refuses internet sockets (the fallback
/// without a network namespace).
pub fn program(no_network: bool) -> Result<Program, SeccompError> {
    compile(&refusals(no_network)?, arch()?)
}

impl Program {
    /// The raw bytes bwrap reads from `--add-seccomp-fd FD` (`struct sock_filter` array, native
    /// endian).
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.0.len() * 8);
        for f in &self.0 {
            out.extend_from_slice(&f.code.to_ne_bytes());
            out.push(f.jt);
            out.push(f.jf);
            out.extend_from_slice(&f.k.to_ne_bytes());
        }
        out
    }

    /// Load the program into this thread (no new privileges first, which an unprivileged
    /// process needs to load one). It stays for every process this one starts.
    pub fn apply(&self) -> Result<(), SeccompError> {
        let bytes = self.bytes();
        let filter = libc::sock_fprog { len: self.0.len() as u16, filter: bytes.as_ptr() as *mut libc::sock_filter };
        // SAFETY: prctl with constant arguments, then with `filter`, which points at `bytes`
        // (whole instructions, alive here); the kernel copies the program.
        let ok = unsafe {
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
                && libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &filter as *const libc::sock_fprog) == 0
        };
        if ok {
            Ok(())
        } else {
            Err(SeccompError(format!("cannot load it: {}", std::io::Error::last_os_error())))
        }
    }
}

// Classic BPF, as `linux/filter.h` spells it.
const LD_W_ABS: u16 = 0x20;
const ALU_AND_K: u16 = 0x54;
const JA: u16 = 0x05;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const RET_K: u16 = 0x06;
/// Offsets in `struct seccomp_data`.
const DATA_NR: u32 = 0;
const DATA_ARCH: u32 = 4;
const DATA_ARGS: u32 = 16;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ERRNO: u32 = 0x0005_0000;
/// On x86_64, the bit of an x32 call's number: the same architecture in the filter's eyes.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

fn errno(e: i32) -> u32 {
    RET_ERRNO | (e as u32 & 0xffff)
}

/// A jump's destination, placed later.
#[derive(Clone, Copy, Debug)]
struct Label(usize);

/// An instruction before its jumps are resolved.
enum Op {
    Stmt(u16, u32),
    /// A conditional jump: to `t` when it holds, else to `f` (`None`: the next instruction).
    Jump(u16, u32, Option<Label>, Option<Label>),
    Ja(Label),
    Place(Label),
}

#[derive(Default)]
struct Asm {
    ops: Vec<Op>,
    labels: usize,
}

impl Asm {
    fn label(&mut self) -> Label {
        self.labels += 1;
        Label(self.labels - 1)
    }

    fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    /// Resolve the jumps: every one goes forward, a conditional one at most 255 instructions.
    fn finish(self) -> Result<Program, SeccompError> {
        let mut at = vec![usize::MAX; self.labels];
        let mut pc = 0;
        for op in &self.ops {
            match op {
                Op::Place(l) => at[l.0] = pc,
                _ => pc += 1,
            }
        }
        let mut out = Vec::with_capacity(pc);
        let offset = |from: usize, to: Option<Label>| -> Result<usize, SeccompError> {
            let Some(l) = to else { return Ok(0) };
            at[l.0]
                .checked_sub(from + 1)
                .filter(|_| at[l.0] != usize::MAX)
                .ok_or_else(|| SeccompError("a jump goes backwards or nowhere".into()))
        };
        for op in &self.ops {
            let pc = out.len();
            let insn = match *op {
                Op::Place(_) => continue,
                Op::Stmt(code, k) => Insn { code, jt: 0, jf: 0, k },
                Op::Jump(code, k, t, f) => {
                    let short = |o: usize| u8::try_from(o).map_err(|_| SeccompError("a jump is too long".into()));
                    Insn { code, jt: short(offset(pc, t)?)?, jf: short(offset(pc, f)?)?, k }
                }
                Op::Ja(l) => {
                    let k =
                        u32::try_from(offset(pc, Some(l))?).map_err(|_| SeccompError("a jump is too long".into()))?;
                    Insn { code: JA, jt: 0, jf: 0, k }
                }
            };
            out.push(insn);
        }
        if out.len() > usize::from(u16::MAX) {
            return Err(SeccompError("the program is too long".into()));
        }
        Ok(Program(out))
    }
}

/// Compile the refusals into one program: the architecture check, then a binary search on the
/// call's number, then each refused call's rules.
///
/// Why by hand: seccompiler, which built these programs before, tests the numbers one after
/// the other and makes a program for each errno. The kernel runs every program it is given
/// against every call number when it loads it (to learn which calls it may let through
/// without running the filter again), and that pass over three programs of 524 instructions
/// took about 0.23 ms of each sandboxed command's start, twice (process 1 and the command's).
/// A search is a handful of steps per number; one program is one load.
fn compile(refused: &Refusals, audit_arch: u32) -> Result<Program, SeccompError> {
    let mut a = Asm::default();
    let arch_ok = a.label();
    a.push(Op::Stmt(LD_W_ABS, DATA_ARCH));
    a.push(Op::Jump(JEQ_K, audit_arch, Some(arch_ok), None));
    // A call made for another architecture (a 32-bit `int 0x80` on x86_64) has other numbers.
    a.push(Op::Stmt(RET_K, RET_KILL_PROCESS));
    a.push(Op::Place(arch_ok));
    a.push(Op::Stmt(LD_W_ABS, DATA_NR));
    if cfg!(target_arch = "x86_64") {
        // x32 calls carry the architecture of x86_64 but numbers of their own, which none of
        // the rules name: where the kernel has x32 at all, they would pass. None is needed.
        let native = a.label();
        a.push(Op::Jump(JGE_K, X32_SYSCALL_BIT, None, Some(native)));
        a.push(Op::Stmt(RET_K, errno(libc::ENOSYS)));
        a.push(Op::Place(native));
    }
    let numbers: Vec<u32> = refused.keys().copied().collect();
    let blocks: Vec<Label> = numbers.iter().map(|_| a.label()).collect();
    search(&mut a, &numbers, &blocks);
    for ((e, rules), block) in refused.values().zip(&blocks) {
        a.push(Op::Place(*block));
        check(&mut a, errno(*e), rules);
    }
    a.finish()
}

/// The search for the call number (in the accumulator) among `numbers`, sorted; each found
/// number jumps to its block, any other is allowed.
fn search(a: &mut Asm, numbers: &[u32], blocks: &[Label]) {
    if numbers.len() <= 3 {
        for (n, block) in numbers.iter().zip(blocks) {
            let next = a.label();
            a.push(Op::Jump(JEQ_K, *n, None, Some(next)));
            a.push(Op::Ja(*block));
            a.push(Op::Place(next));
        }
        a.push(Op::Stmt(RET_K, RET_ALLOW));
        return;
    }
    let mid = numbers.len() / 2;
    let (low, high) = (a.label(), a.label());
    a.push(Op::Jump(JGE_K, numbers[mid], None, Some(low)));
    a.push(Op::Ja(high));
    a.push(Op::Place(low));
    search(a, &numbers[..mid], &blocks[..mid]);
    a.push(Op::Place(high));
    search(a, &numbers[mid..], &blocks[mid..]);
}

/// One refused call's block: its rules in turn (each an AND of comparisons of an argument's
/// low 32 bits, the first word of it on these little-endian machines), refused at the first
/// that holds; allowed when none does.
fn check(a: &mut Asm, action: u32, rules: &[Rule]) {
    if rules.is_empty() {
        a.push(Op::Stmt(RET_K, action));
        return;
    }
    for rule in rules {
        let next = a.label();
        for c in rule {
            a.push(Op::Stmt(LD_W_ABS, DATA_ARGS + 8 * u32::from(c.arg)));
            match c.cmp {
                Cmp::Eq(v) => a.push(Op::Jump(JEQ_K, v, None, Some(next))),
                Cmp::Ne(v) => a.push(Op::Jump(JEQ_K, v, Some(next), None)),
                Cmp::MaskedEq { mask, value } => {
                    a.push(Op::Stmt(ALU_AND_K, mask));
                    a.push(Op::Jump(JEQ_K, value, None, Some(next)));
                }
            }
        }
        a.push(Op::Stmt(RET_K, action));
        a.push(Op::Place(next));
    }
    a.push(Op::Stmt(RET_K, RET_ALLOW));
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A call as the filter sees it (`struct seccomp_data`, the instruction pointer left 0).
    #[derive(Clone, Debug)]
    struct Data {
        nr: u32,
        arch: u32,
        args: [u64; 6],
    }

    fn word(d: &Data, k: u32) -> u32 {
        match k {
            DATA_NR => d.nr,
            DATA_ARCH => d.arch,
            k if (DATA_ARGS..DATA_ARGS + 48).contains(&k) && k % 4 == 0 => {
                let a = d.args[((k - DATA_ARGS) / 8) as usize];
                if (k - DATA_ARGS) % 8 == 0 {
                    a as u32
                } else {
                    (a >> 32) as u32
                }
            }
            _ => panic!("load of offset {k}"),
        }
    }

    /// Run a program as the kernel does: the action, and how many instructions it took.
    fn run(p: &[Insn], d: &Data) -> (u32, usize) {
        let (mut acc, mut pc, mut steps) = (0u32, 0usize, 0usize);
        loop {
            let i = p[pc];
            steps += 1;
            let jump = |c: bool| pc + 1 + usize::from(if c { i.jt } else { i.jf });
            pc = match i.code {
                LD_W_ABS => {
                    acc = word(d, i.k);
                    pc + 1
                }
                ALU_AND_K => {
                    acc &= i.k;
                    pc + 1
                }
                JA => pc + 1 + i.k as usize,
                JEQ_K => jump(acc == i.k),
                JGE_K => jump(acc >= i.k),
                0x25 => jump(acc > i.k),
                0x45 => jump(acc & i.k != 0),
                RET_K => return (i.k, steps),
                c => panic!("instruction {c:#x}"),
            };
        }
    }

    /// Several programs loaded together: the kernel keeps the strictest action (compared as a
    /// signed number, kill first, allow last).
    fn run_all(progs: &[Vec<Insn>], d: &Data) -> u32 {
        progs.iter().map(|p| run(p, d).0).min_by_key(|r| (r & 0xffff_0000) as i32).unwrap_or(RET_ALLOW)
    }

    /// The same refusals as seccompiler built them (one program an errno, numbers in a row).
    fn reference(refused: &Refusals) -> Vec<Vec<Insn>> {
        use seccompiler::{
            SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
        };
        let arch = seccompiler::TargetArch::x86_64;
        let mut by_errno: BTreeMap<i32, BTreeMap<i64, Vec<SeccompRule>>> = BTreeMap::new();
        for (nr, (e, rules)) in refused {
            let rules = rules
                .iter()
                .map(|r| {
                    let conds = r
                        .iter()
                        .map(|c| {
                            let (op, v) = match c.cmp {
                                Cmp::Eq(v) => (SeccompCmpOp::Eq, v),
                                Cmp::Ne(v) => (SeccompCmpOp::Ne, v),
                                Cmp::MaskedEq { mask, value } => (SeccompCmpOp::MaskedEq(mask.into()), value),
                            };
                            SeccompCondition::new(c.arg, SeccompCmpArgLen::Dword, op, v.into()).unwrap()
                        })
                        .collect();
                    SeccompRule::new(conds).unwrap()
                })
                .collect();
            by_errno.entry(*e).or_default().insert(i64::from(*nr), rules);
        }
        by_errno
            .into_iter()
            .map(|(e, rules)| {
                let f = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(e as u32), arch).unwrap();
                let p: seccompiler::BpfProgram = f.try_into().unwrap();
                p.iter().map(|i| Insn { code: i.code, jt: i.jt, jf: i.jf, k: i.k }).collect()
            })
            .collect()
    }

    const X86_64: u32 = 0xC000_003E;

    /// The values worth trying for an argument of these rules: each value and mask, each
    /// value with other bits set, and either with the high half set.
    fn interesting(refused: &Refusals) -> Vec<u64> {
        let mut v = vec![0u64, 1, u64::MAX, 0xffff_ffff, 1 << 32];
        for (_, rules) in refused.values() {
            for c in rules.iter().flatten() {
                let (a, b) = match c.cmp {
                    Cmp::Eq(x) | Cmp::Ne(x) => (x, x),
                    Cmp::MaskedEq { mask, value } => (mask, value),
                };
                for x in [a, b, a | 0o755, b | 0x8000_0000, !a] {
                    v.push(u64::from(x));
                    v.push(u64::from(x) | 0xdead_0000_0000);
                }
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_search_decides_every_call_as_the_programs_it_replaces() {
        for no_network in [false, true] {
            let refused = refusals(no_network).unwrap();
            let ours = compile(&refused, X86_64).unwrap();
            let theirs = reference(&refused);
            let values = interesting(&refused);
            for nr in 0..600u32 {
                for (i, v) in values.iter().enumerate() {
                    // Each argument gets another value of the list, so conditions on two
                    // arguments meet each other's values.
                    let args =
                        std::array::from_fn(|a| values[(i + a * 7) % values.len()] ^ if a == 0 { 0 } else { *v });
                    for args in [args, [*v; 6]] {
                        let d = Data { nr, arch: X86_64, args };
                        assert_eq!(run(&ours.0, &d).0, run_all(&theirs, &d), "call {nr} with {args:x?}");
                    }
                }
            }
            // Another architecture's calls end the process, as before.
            let d = Data { nr: 39, arch: 0x4000_0003, args: [0; 6] };
            assert_eq!(run(&ours.0, &d).0, RET_KILL_PROCESS);
            assert_eq!(run_all(&theirs, &d), RET_KILL_PROCESS);
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x32_calls_are_not_implemented() {
        // The x32 `mount` and `getpid`: the reference programs let both through.
        let ours = program(false).unwrap();
        for nr in [X32_SYSCALL_BIT | 165, X32_SYSCALL_BIT | 39, 0xffff_ffff] {
            let d = Data { nr, arch: X86_64, args: [0; 6] };
            assert_eq!(run(&ours.0, &d).0, errno(libc::ENOSYS), "{nr:#x}");
        }
    }

    #[test]
    fn each_call_number_takes_a_few_steps() {
        // The kernel runs the program for every call number when it is loaded; a search
        // keeps that pass short (the numbers one after another took 124 steps on average).
        // (The kernel's pass stops at a call whose rules read an argument, so the numbers that
        // matter are the ones let through.)
        let refused = refusals(false).unwrap();
        let ours = compile(&refused, arch().unwrap()).unwrap();
        let arch = arch().unwrap();
        let allowed = (0..500).filter(|nr| !refused.contains_key(nr));
        let steps: Vec<usize> = allowed.map(|nr| run(&ours.0, &Data { nr, arch, args: [0; 6] }).1).collect();
        let most = steps.iter().max().copied().unwrap_or(0);
        assert!(most <= 20, "a call number took {most} steps");
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_kernel_refuses_what_the_program_refuses() {
        use std::os::unix::process::CommandExt;
        let p = program(false).unwrap();
        let run = |script: &str| {
            let p = p.clone();
            let mut c = std::process::Command::new("/bin/sh");
            c.args(["-c", script]);
            // SAFETY: the closure only loads the program (two prctl calls) between fork and exec.
            unsafe { c.pre_exec(move || p.apply().map_err(|e| std::io::Error::other(e.to_string()))) };
            c.output().unwrap()
        };
        let ok = run("echo fine");
        assert!(ok.status.success() && ok.stdout == b"fine\n", "{ok:?}");
        // The first refusal a new user namespace meets is unshare itself.
        if std::path::Path::new("/usr/bin/unshare").exists() {
            let out = run("/usr/bin/unshare -U true");
            assert!(!out.status.success(), "{out:?}");
            assert!(String::from_utf8_lossy(&out.stderr).contains("Operation not permitted"), "{out:?}");
        }
        if std::path::Path::new("/usr/bin/python3").exists() {
            let out = run("/usr/bin/python3 -c 'import os, errno\ntry:\n    os.setxattr(\"/dev/null\", \"user.x\", b\"1\")\nexcept OSError as e:\n    print(errno.errorcode[e.errno])'");
            // (The same number: Python names it ENOTSUP.)
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ENOTSUP", "{out:?}");
        }
    }

    fn any_cond() -> impl Strategy<Value = Cond> {
        let value = prop_oneof![Just(0u32), Just(1), Just(0x800), any::<u32>()];
        (0u8..6, 0u8..3, value.clone(), value).prop_map(|(arg, kind, a, b)| {
            let cmp = match kind {
                0 => Cmp::Eq(a),
                1 => Cmp::Ne(a),
                _ => Cmp::MaskedEq { mask: a, value: a & b },
            };
            Cond { arg, cmp }
        })
    }

    fn any_refusals() -> impl Strategy<Value = Refusals> {
        let rules = prop::collection::vec(prop::collection::vec(any_cond(), 1..4), 0..4);
        let errno = prop_oneof![Just(libc::EPERM), Just(libc::ENOSYS), Just(libc::ENOTSUP)];
        prop::collection::btree_map(0u32..480, (errno, rules), 0..90)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        #[cfg(target_arch = "x86_64")]
        #[test]
        fn any_refusals_compile_to_the_same_decisions(refused in any_refusals(), seed in any::<u64>()) {
            let ours = compile(&refused, X86_64).unwrap();
            let theirs = reference(&refused);
            let values = interesting(&refused);
            let mut x = seed | 1;
            for nr in 0..500u32 {
                for _ in 0..6 {
                    let args = std::array::from_fn(|_| {
                        // xorshift: a spread of the interesting values over the arguments.
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        values[(x % values.len() as u64) as usize]
                    });
                    let d = Data { nr, arch: X86_64, args };
                    prop_assert_eq!(run(&ours.0, &d).0, run_all(&theirs, &d), "call {} with {:x?}", nr, args);
                }
            }
        }
    }
}
