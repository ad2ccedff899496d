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

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

/// Why the filter cannot be built (a bug, or an unsupported architecture).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the seccomp filter: {0}")]
pub struct SeccompError(String);

fn arch() -> Result<TargetArch, SeccompError> {
    if cfg!(target_arch = "x86_64") {
        Ok(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Ok(TargetArch::aarch64)
    } else if cfg!(target_arch = "riscv64") {
        Ok(TargetArch::riscv64)
    } else {
        Err(SeccompError("this CPU architecture has no seccomp filter in wicket".into()))
    }
}

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, SeccompError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(|e| SeccompError(e.to_string()))
}

fn rule(conds: Vec<SeccompCondition>) -> Result<SeccompRule, SeccompError> {
    SeccompRule::new(conds).map_err(|e| SeccompError(e.to_string()))
}

fn filter(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, SeccompError> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch()?)
        .map_err(|e| SeccompError(e.to_string()))?;
    filter.try_into().map_err(|e: seccompiler::BackendError| SeccompError(e.to_string()))
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
fn setid_mode(arg: u8) -> Result<Vec<SeccompRule>, SeccompError> {
    SETID.iter().map(|b| rule(vec![cond(arg, SeccompCmpOp::MaskedEq(*b), *b)?])).collect()
}

/// Rules matching a call that creates a file (`O_CREAT`, or `O_TMPFILE` to link in later) with
/// a mode in argument `mode` that has the setuid or the setgid bit. Without either flag the
/// kernel ignores the mode (and callers leave junk there).
fn setid_create(flags: u8, mode: u8) -> Result<Vec<SeccompRule>, SeccompError> {
    let mut out = Vec::new();
    for create in [libc::O_CREAT as u64, libc::O_TMPFILE as u64] {
        for b in SETID {
            out.push(rule(vec![
                cond(flags, SeccompCmpOp::MaskedEq(create), create)?,
                cond(mode, SeccompCmpOp::MaskedEq(b), b)?,
            ])?);
        }
    }
    Ok(out)
}

/// Rules matching a `mknod` mode in argument `arg` that makes a character or block device, or
/// any node (a regular file too) with the setuid or setgid bit. FIFOs and sockets stay allowed.
fn device_or_setid_node(arg: u8) -> Result<Vec<SeccompRule>, SeccompError> {
    let kind = libc::S_IFMT as u64;
    let mut out = setid_mode(arg)?;
    for dev in [libc::S_IFCHR as u64, libc::S_IFBLK as u64] {
        out.push(rule(vec![cond(arg, SeccompCmpOp::MaskedEq(kind), dev)?])?);
    }
    Ok(out)
}

/// The rules that keep setuid and setgid bits and device nodes off the disk, by call.
/// `mkdir` is left alone: the kernel drops both bits from its mode (a folder gets setgid only
/// from a setgid parent, which the host chose).
fn no_privileged_files() -> Result<BTreeMap<i64, Vec<SeccompRule>>, SeccompError> {
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
fn xattr_writes() -> BTreeMap<i64, Vec<SeccompRule>> {
    [
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        SYS_SETXATTRAT,
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        SYS_REMOVEXATTRAT,
    ]
    .into_iter()
    .map(|nr| (nr, vec![]))
    .collect()
}

/// Build the filter. `no_network` also refuses internet sockets (the fallback without a
/// network namespace).
pub fn programs(no_network: bool) -> Result<Vec<BpfProgram>, SeccompError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let always: &[i64] = &[
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
    for nr in always {
        rules.insert(*nr, vec![]);
    }
    // clone() with a namespace flag; clone3 passes its flags in memory, so it is refused as
    // "not implemented" and libc falls back to clone().
    let ns_flags = [
        libc::CLONE_NEWNS,
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWCGROUP,
    ];
    let mut clone_rules = Vec::new();
    for f in ns_flags {
        // x86_64 clone(flags, …): flags is argument 0.
        clone_rules.push(rule(vec![cond(0, SeccompCmpOp::MaskedEq(f as u64), f as u64)?])?);
    }
    rules.insert(libc::SYS_clone, clone_rules);
    // Sockets: only the internet families and NETLINK_ROUTE, which bubblewrap's network
    // namespace cuts off from the host (loopback and a routing table of its own). Every other
    // family reaches past a network namespace or into the kernel: AF_VSOCK (the hypervisor and
    // other VMs), other netlink protocols (kernel uevents, audit, generic netlink families
    // that are not namespaced), AF_PACKET, AF_XDP, AF_ALG, AF_BLUETOOTH, AF_CAN, AF_KEY,
    // AF_TIPC … and AF_UNIX (a socket file of a daemon outside). Decided by allowing, so a
    // family added to the kernel later is refused too. Without a network namespace (the
    // fallback), no socket at all.
    let inet = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];
    let mut socket_rules =
        vec![rule(inet.iter().map(|f| cond(0, SeccompCmpOp::Ne, *f as u64)).collect::<Result<Vec<_>, _>>()?)?];
    socket_rules.push(rule(vec![
        cond(0, SeccompCmpOp::Eq, libc::AF_NETLINK as u64)?,
        cond(2, SeccompCmpOp::Ne, libc::NETLINK_ROUTE as u64)?,
    ])?);
    if no_network {
        for fam in inet {
            socket_rules.push(rule(vec![cond(0, SeccompCmpOp::Eq, fam as u64)?])?);
        }
    }
    // socketpair makes a connected pair and reaches nobody; only AF_UNIX pairs (other
    // families that offer pairs, such as AF_TIPC, are refused like their sockets).
    rules.insert(libc::SYS_socketpair, vec![rule(vec![cond(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)?])?]);
    rules.insert(libc::SYS_socket, socket_rules);
    // TIOCSTI pushes keystrokes into the terminal outside.
    rules.insert(libc::SYS_ioctl, vec![rule(vec![cond(1, SeccompCmpOp::Eq, libc::TIOCSTI)?])?]);
    rules.extend(no_privileged_files()?);
    let main = filter(rules, libc::EPERM)?;
    // A filter has one action for all its rules, hence a program for each errno.
    // Not implemented, for calls whose arguments sit in memory where a filter cannot look, so
    // libc falls back to the older call the first program checks: clone3 (its flags) for
    // clone(), openat2 (its mode, in `struct open_how`) for openat().
    let enosys = filter(BTreeMap::from([(libc::SYS_clone3, vec![]), (libc::SYS_openat2, vec![])]), libc::ENOSYS)?;
    // "Not supported": what `cp -a` and `tar --xattrs` take as a file system without extended
    // attributes, and go on (`rsync -X` copies the files, then exits 23 naming the attributes).
    let no_xattrs = filter(xattr_writes(), libc::ENOTSUP)?;
    Ok(vec![main, enosys, no_xattrs])
}

/// The raw bytes bwrap reads from `--seccomp FD` (`struct sock_filter` array, native endian).
pub fn bytes(prog: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(prog.len() * 8);
    for f in prog {
        out.extend_from_slice(&f.code.to_ne_bytes());
        out.push(f.jt);
        out.push(f.jf);
        out.extend_from_slice(&f.k.to_ne_bytes());
    }
    out
}
