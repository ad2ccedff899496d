//! The seccomp filter: system calls a sandboxed command never needs and that help escapes.
//!
//! The hard question: what may a confined process ask the kernel for? Everything but the calls
//! that attach to other processes (ptrace), change mounts or namespaces, reach the kernel
//! keyring, load BPF or kernel modules, open io_uring or perf rings, or create sockets of any
//! family but the internet ones and NETLINK_ROUTE (the ones a network namespace isolates; a
//! Unix socket could talk to a daemon outside through a socket file, AF_VSOCK to the host).
//! Without bwrap, internet sockets are refused too, since there is no network namespace.

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
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch()?)
        .map_err(|e| SeccompError(e.to_string()))?;
    let main: BpfProgram = filter.try_into().map_err(|e: seccompiler::BackendError| SeccompError(e.to_string()))?;
    // clone3 passes its flags in memory, where a filter cannot look: refuse it as "not
    // implemented", so libc falls back to clone(), whose flags the first program checks. A
    // filter has one action for all its rules, hence a second program.
    let clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, vec![])]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch()?,
    )
    .map_err(|e| SeccompError(e.to_string()))?;
    let clone3: BpfProgram = clone3.try_into().map_err(|e: seccompiler::BackendError| SeccompError(e.to_string()))?;
    Ok(vec![main, clone3])
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
