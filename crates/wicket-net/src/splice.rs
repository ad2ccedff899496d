//! Tunnel bytes between two sockets with `splice(2)` on Linux: socket → pipe → socket, so the
//! proxy never copies a tunnel's payload through its own memory.
//!
//! Why: a user-space copy reads every byte into the proxy and writes it out again, which on a
//! loopback tunnel doubles the memory traffic of the transfer (the client's and the server's
//! copies plus the proxy's two). With `splice` the kernel hands the socket's pages to a pipe and
//! the pipe's pages to the other socket by reference. [`Pipes::new`] failing (out of file
//! descriptors, or the user's pipe quota spent) is the only case the caller falls back to a
//! user-space copy. The [`Socket`] trait is what the proxy's connections are, on every unix.

use std::future::Future;
use std::io;
use std::os::fd::AsFd;
#[cfg(target_os = "linux")]
use std::os::fd::OwnedFd;

#[cfg(target_os = "linux")]
use rustix::pipe::{PipeFlags, SpliceFlags};
use tokio::io::{AsyncRead, AsyncWrite, Interest, Ready};
use tokio::net::{TcpStream, UnixStream};

/// A connected stream socket with tokio readiness, which the tunnel can splice.
pub(crate) trait Socket: AsyncRead + AsyncWrite + AsFd + Unpin + Send + Sync {
    /// Wait until the socket is ready for `interest`.
    fn ready(&self, interest: Interest) -> impl Future<Output = io::Result<Ready>> + Send;
    /// Run a non-blocking operation; a `WouldBlock` from it clears the readiness.
    fn try_io<R>(&self, interest: Interest, f: impl FnOnce() -> io::Result<R>) -> io::Result<R>;
}

impl Socket for TcpStream {
    fn ready(&self, interest: Interest) -> impl Future<Output = io::Result<Ready>> + Send {
        TcpStream::ready(self, interest)
    }
    fn try_io<R>(&self, interest: Interest, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        TcpStream::try_io(self, interest, f)
    }
}

impl Socket for UnixStream {
    fn ready(&self, interest: Interest) -> impl Future<Output = io::Result<Ready>> + Send {
        UnixStream::ready(self, interest)
    }
    fn try_io<R>(&self, interest: Interest, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        UnixStream::try_io(self, interest, f)
    }
}

#[cfg(target_os = "linux")]
/// One pipe for each direction of a tunnel.
pub(crate) struct Pipes {
    up: Pipe,
    down: Pipe,
}

#[cfg(target_os = "linux")]
struct Pipe {
    read: OwnedFd,
    write: OwnedFd,
    /// What one splice into the pipe may move (the pipe's capacity).
    size: usize,
}

#[cfg(target_os = "linux")]
impl Pipe {
    fn new(want: usize) -> io::Result<Pipe> {
        let (read, write) = rustix::pipe::pipe_with(PipeFlags::CLOEXEC | PipeFlags::NONBLOCK)?;
        // A pipe of the default 64 KiB moves a tunnel in more, smaller steps, which measured
        // slower than the user-space copy; 256 KiB and up measured as fast and with about 40 %
        // less CPU (docs/performance.md). The kernel may refuse a size (pipe-max-size, the
        // user's pipe quota); a pipe left below 64 KiB (the quota is spent) is not used.
        let size =
            rustix::pipe::fcntl_setpipe_size(&write, want).or_else(|_| rustix::pipe::fcntl_getpipe_size(&write))?;
        if size < 64 * 1024 {
            return Err(io::ErrorKind::OutOfMemory.into());
        }
        Ok(Pipe { read, write, size })
    }
}

#[cfg(target_os = "linux")]
impl Pipes {
    /// Two pipes of about `size` bytes each; `Err` when the process is out of descriptors or
    /// the user's pipe quota is spent (the caller then copies in user space).
    pub(crate) fn new(size: usize) -> io::Result<Pipes> {
        Ok(Pipes { up: Pipe::new(size)?, down: Pipe::new(size)? })
    }
}

/// Whether this process ignores `SIGPIPE`. A splice into a socket the peer has closed raises
/// `SIGPIPE` (splice cannot pass `MSG_NOSIGNAL`, which the user-space copy's sends carry), and
/// the default action ends the process. Rust programs ignore it from the start; a program that
/// restored the default (as some command-line tools do) gets the copy instead. Read from
/// `/proc/self/status` (`SigIgn`, a hex mask); unreadable counts as not ignored.
#[cfg(target_os = "linux")]
pub(crate) fn sigpipe_ignored() -> bool {
    const SIGPIPE_BIT: u64 = 1 << (13 - 1);
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return false };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & SIGPIPE_BIT != 0)
}

#[cfg(target_os = "linux")]
const FLAGS: SpliceFlags = SpliceFlags::MOVE.union(SpliceFlags::NONBLOCK);

#[cfg(target_os = "linux")]
/// Copy both ways until both sides have closed (each end of input is passed on as a half
/// close) or either fails. `seen` is called whenever bytes move (the idle timer).
pub(crate) async fn bidirectional<A: Socket, B: Socket>(a: &A, b: &B, pipes: &Pipes, seen: &(dyn Fn() + Sync)) {
    let _ = tokio::try_join!(one_way(a, b, &pipes.up, seen), one_way(b, a, &pipes.down, seen));
}

#[cfg(target_os = "linux")]
async fn one_way<F: Socket, T: Socket>(from: &F, to: &T, pipe: &Pipe, seen: &(dyn Fn() + Sync)) -> io::Result<()> {
    loop {
        let n = loop {
            from.ready(Interest::READABLE).await?;
            match from.try_io(Interest::READABLE, || {
                Ok(rustix::pipe::splice(from, None, &pipe.write, None, pipe.size, FLAGS)?)
            }) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            // The source ended: pass the half close on, as a user-space copy would.
            let _ = rustix::net::shutdown(to, rustix::net::Shutdown::Write);
            return Ok(());
        }
        seen();
        let mut left = n;
        while left > 0 {
            to.ready(Interest::WRITABLE).await?;
            match to.try_io(Interest::WRITABLE, || Ok(rustix::pipe::splice(&pipe.read, None, to, None, left, FLAGS)?)) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(m) => {
                    left -= m.min(left);
                    seen();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            }
        }
    }
}
