//! The network bridge: how the proxy, which runs in wicket's own process, serves a command
//! that lives in a network namespace of its own.
//!
//! The hard question: how does the proxy get a door into the sandbox's network without the
//! command getting a door out? The shim, inside the namespace and before the command exists,
//! binds `127.0.0.1:PORT` there and hands that listening socket to wicket over a socket pair
//! wicket made and passed down (`SCM_RIGHTS`); wicket answers with the proxy environment and
//! the shim closes its end before it becomes the command. So no process in the sandbox ever
//! holds a Unix socket it could point elsewhere (the seccomp filter keeps refusing
//! `socket(AF_UNIX)`), no relay process is left for the command to take over, and every byte
//! goes straight between the command's TCP connection and the proxy.

use std::io::{IoSlice, IoSliceMut, Read, Write};
use std::mem::MaybeUninit;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::time::Duration;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer, SendAncillaryMessage, SendFlags,
};

/// The first line of the environment block wicket sends the shim.
const ENV_MAGIC: &str = "wicket-proxy-env-1\n";
/// The largest environment block the shim accepts.
const MAX_ENV: usize = 64 * 1024;
/// How long either side waits for the other.
const HANDSHAKE: Duration = Duration::from_secs(30);

/// The shim's side: bind the listener on `port` in this (the sandbox's) network namespace, hand
/// it to wicket through `fd`, and read back the environment the command gets. Consumes `fd`.
pub fn hand_over(fd: i32, port: u16) -> Result<Vec<(String, String)>, String> {
    // SAFETY: the fd number came from wicket, which left exactly this descriptor open for the
    // shim; nothing else in this process owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::CLOEXEC).map_err(|e| format!("bridge socket: {e}"))?;
    let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port} inside the sandbox: {e}"))?;
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    let fds = [listener.as_fd()];
    if !control.push(SendAncillaryMessage::ScmRights(&fds)) {
        return Err("bridge: no room for the descriptor".into());
    }
    rustix::net::sendmsg(&fd, &[IoSlice::new(b"L")], &mut control, SendFlags::empty())
        .map_err(|e| format!("cannot hand the listener to wicket: {e}"))?;
    drop(listener);
    let mut stream = std::os::unix::net::UnixStream::from(fd);
    stream.set_read_timeout(Some(HANDSHAKE)).map_err(|e| e.to_string())?;
    let mut block = Vec::new();
    (&mut stream).take(MAX_ENV as u64 + 1).read_to_end(&mut block).map_err(|e| format!("bridge: {e}"))?;
    drop(stream);
    parse_env(&block)
}

fn parse_env(block: &[u8]) -> Result<Vec<(String, String)>, String> {
    let text = std::str::from_utf8(block).map_err(|_| "the proxy environment is not UTF-8".to_string())?;
    let Some(body) = text.strip_prefix(ENV_MAGIC) else {
        return Err("wicket's proxy did not start, so the command would have no network".into());
    };
    if block.len() > MAX_ENV {
        return Err("the proxy environment is too large".into());
    }
    body.lines()
        .filter(|l| !l.is_empty())
        .map(|l| match l.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(format!("bad line in the proxy environment: {l:?}")),
        })
        .collect()
}

/// wicket's side: wait for the shim's listener on `ours` (the other end went to the shim).
pub(crate) fn receive(ours: &OwnedFd) -> Result<TcpListener, String> {
    rustix::net::sockopt::set_socket_timeout(ours, rustix::net::sockopt::Timeout::Recv, Some(HANDSHAKE))
        .map_err(|e| e.to_string())?;
    let mut byte = [0u8; 1];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let got = rustix::net::recvmsg(ours, &mut [IoSliceMut::new(&mut byte)], &mut control, RecvFlags::CMSG_CLOEXEC)
        .map_err(|e| format!("the sandbox did not hand over its network listener: {e}"))?;
    if got.bytes == 0 {
        return Err("the sandbox ended before it set up its network".into());
    }
    for msg in control.drain() {
        if let RecvAncillaryMessage::ScmRights(mut fds) = msg {
            if let Some(fd) = fds.next() {
                return Ok(TcpListener::from(fd));
            }
        }
    }
    Err("the sandbox sent no listener".into())
}

/// wicket's side: send the environment the command gets, then close.
pub(crate) fn send_env(ours: OwnedFd, env: &[(String, String)]) -> Result<(), String> {
    let mut block = String::from(ENV_MAGIC);
    for (k, v) in env {
        if k.is_empty() || k.contains(['=', '\n', '\0']) || v.contains(['\n', '\0']) {
            return Err(format!("cannot pass {k:?} to the sandbox"));
        }
        block.push_str(&format!("{k}={v}\n"));
    }
    let mut stream = std::os::unix::net::UnixStream::from(ours);
    stream.write_all(block.as_bytes()).map_err(|e| format!("cannot send the proxy environment: {e}"))
}

/// A socket pair: wicket's end (close-on-exec) and the shim's end (inherited).
pub(crate) fn pair() -> Result<(OwnedFd, OwnedFd), String> {
    use rustix::net::{AddressFamily, SocketFlags, SocketType};
    let (ours, theirs) = rustix::net::socketpair(AddressFamily::UNIX, SocketType::STREAM, SocketFlags::CLOEXEC, None)
        .map_err(|e| format!("socketpair: {e}"))?;
    rustix::io::fcntl_setfd(&theirs, rustix::io::FdFlags::empty()).map_err(|e| e.to_string())?;
    Ok((ours, theirs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_block_round_trip_and_refusals() {
        let ok = format!("{ENV_MAGIC}A=1\nB=x=y\n");
        assert_eq!(parse_env(ok.as_bytes()).expect("parses"), [("A".into(), "1".into()), ("B".into(), "x=y".into())]);
        assert!(parse_env(b"").is_err(), "an empty block means the proxy did not start");
        assert!(parse_env(format!("{ENV_MAGIC}novalue\n").as_bytes()).is_err());
    }
}
