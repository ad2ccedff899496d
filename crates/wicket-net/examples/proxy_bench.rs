//! Proxy benchmark, loopback only: CONNECT tunnel throughput against a direct loopback copy, and
//! the latency a tunnel adds per connection. Run through `bench/proxy.sh` (release build).
//!
//! `proxy_bench [MiB per run] [connections] [OTHER-PROXY host:port]` (defaults 2048 and 2000).
//!
//! The proxy runs in a child process on its own two-worker runtime, as in `wicket run` (the
//! proxy in wicket's process, the client in the sandbox, the server elsewhere); the client and
//! the sink share this process. Twice: moving bytes with `splice` (the default) and with the
//! user-space copy. Each round measures every path once, in a rotated order; the report gives
//! the best and the median of the rounds, and the median of the per-round ratios.
//!
//! With a third argument, the same measurements go through that HTTP proxy too (CONNECT to
//! `127.0.0.1:PORT`, no credential): `bench/proxy.sh` passes the proxy of Anthropic's sandbox
//! runtime there. `FORWARDER=host:port` names a plain TCP forwarder to the sink (no CONNECT;
//! `bench/proxy.sh` starts HAProxy there): what one proxy hop costs on this machine at best.
//! `SINK_PORT` fixes the sink's port (for the forwarder), `ROUNDS` the rounds (default 5).
//! `ENDPOINT_CPUS=0 PROXY_CPUS=1` (comma lists) pin the client and sink, and the proxies, to
//! those CPUs: the proxy on a core of its own, as on a machine with cores to spare.

use std::error::Error;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wicket_net::{NetConfig, Proxy, ProxyConfig};

type Res<T> = Result<T, Box<dyn Error>>;

const CHUNK: usize = 256 * 1024;

/// A sink: reads to EOF, then answers one byte. Also echoes single bytes (latency probe).
async fn sink(port: u16) -> Res<u16> {
    let l = TcpListener::bind(("127.0.0.1", port)).await?;
    let port = l.local_addr()?.port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            let _ = s.set_nodelay(true);
            tokio::spawn(async move {
                let mut buf = vec![0u8; CHUNK];
                let mut first = true;
                loop {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        // The latency probe sends one `?` and waits for the echo.
                        Ok(1) if first && buf[0] == b'?' => {
                            let _ = s.write_all(b"!").await;
                        }
                        Ok(_) => {}
                    }
                    first = false;
                }
                let _ = s.write_all(b"k").await;
            });
        }
    });
    Ok(port)
}

/// How the client reaches the sink.
#[derive(Clone)]
enum Path {
    /// Straight to this address.
    Direct(SocketAddr),
    /// A CONNECT tunnel: proxy, `Proxy-Authorization` value (empty: none), target.
    Connect(SocketAddr, String, String),
}

impl Path {
    async fn open(&self) -> Res<TcpStream> {
        match self {
            Path::Direct(a) => {
                let s = TcpStream::connect(a).await?;
                s.set_nodelay(true)?;
                Ok(s)
            }
            Path::Connect(proxy, basic, target) => connect_via(*proxy, basic, target).await,
        }
    }
}

/// A tunnel through `proxy` to `target` (`host:port`); `basic` empty sends no credential.
async fn connect_via(proxy: SocketAddr, basic: &str, target: &str) -> Res<TcpStream> {
    let mut s = TcpStream::connect(proxy).await?;
    s.set_nodelay(true)?;
    let auth = if basic.is_empty() { String::new() } else { format!("Proxy-Authorization: Basic {basic}\r\n") };
    let req = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{auth}\r\n");
    s.write_all(req.as_bytes()).await?;
    // The answer head, read as a client such as curl reads it (whole segments, not byte by
    // byte). Nothing may follow it yet: the sink sends only after the client has.
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = s.read(&mut buf).await?;
        if n == 0 || head.len() + n > 4096 {
            return Err("the proxy's answer head is cut or too long".into());
        }
        head.extend_from_slice(&buf[..n]);
        match head.windows(4).position(|w| w == b"\r\n\r\n") {
            Some(end) if end + 4 == head.len() => break,
            Some(_) => return Err("bytes followed the proxy's answer head".into()),
            None => {}
        }
    }
    if !head.starts_with(b"HTTP/1.1 200") && !head.starts_with(b"HTTP/1.0 200") {
        return Err(format!("proxy answered {}", String::from_utf8_lossy(&head)).into());
    }
    Ok(s)
}

async fn push(mut s: TcpStream, bytes: usize) -> Res<Duration> {
    let buf = vec![7u8; CHUNK];
    let t = Instant::now();
    let mut left = bytes;
    while left > 0 {
        let n = left.min(CHUNK);
        s.write_all(&buf[..n]).await?;
        left -= n;
    }
    s.shutdown().await?;
    let mut k = [0u8; 1];
    s.read_exact(&mut k).await?;
    Ok(t.elapsed())
}

async fn probe(s: &mut TcpStream) -> Res<()> {
    s.write_all(b"?").await?;
    let mut b = [0u8; 1];
    s.read_exact(&mut b).await?;
    Ok(())
}

fn median<T: Copy + PartialOrd + Default>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn basic(user_pass: &str) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in user_pass.as_bytes().chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() { char::from(T[((n >> (18 - 6 * i)) & 63) as usize]) } else { '=' });
        }
    }
    out
}

/// The child: a proxy allowing `bench.test` (pinned to loopback, a test origin) on `port`, on its own
/// two-worker runtime as in `wicket run`. Prints `PORT BASIC` and serves until stdin closes.
fn serve(port: u16, splice: bool) -> Res<()> {
    pin("PROXY_CPUS")?;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async {
        let policy = NetConfig::new().pin("bench.test", IpAddr::V4(Ipv4Addr::LOCALHOST))?.port(port);
        let mut cfg = ProxyConfig::new(policy)?;
        // The bench's endpoint is on loopback, which the proxy reaches only through this seam.
        cfg.test_origins = vec![std::net::SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)];
        cfg.splice = splice;
        let cred = cfg.credential.clone().ok_or("no credential")?;
        let proxy = Proxy::new(cfg);
        let addr = proxy.listen_tcp("127.0.0.1:0".parse()?).await?;
        println!("{} {}", addr.port(), basic(&cred.userinfo()));
        std::io::stdout().flush()?;
        tokio::task::spawn_blocking(|| std::io::stdin().read_to_end(&mut Vec::new())).await??;
        Res::Ok(())
    })
}

/// Pin this thread, and the threads it starts later, to the CPUs listed in `var` (if set).
fn pin(var: &str) -> Res<()> {
    let Ok(list) = std::env::var(var) else { return Ok(()) };
    let mut set = rustix::thread::CpuSet::new();
    for cpu in list.split(',') {
        set.set(cpu.trim().parse()?);
    }
    rustix::thread::sched_setaffinity(None, &set)?;
    Ok(())
}

/// A proxy child; killed when dropped.
struct ProxyChild(Child);

impl ProxyChild {
    fn start(sink: u16, splice: bool) -> Res<(ProxyChild, Path)> {
        let mut child = Command::new(std::env::current_exe()?)
            .args(["--serve", &sink.to_string(), if splice { "splice" } else { "copy" }])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let out = child.stdout.take().ok_or("no stdout")?;
        let child = ProxyChild(child);
        let mut line = String::new();
        BufReader::new(out).read_line(&mut line)?;
        let (port, basic) = line.trim().split_once(' ').ok_or("the proxy child did not start")?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port.parse()?));
        Ok((child, Path::Connect(addr, basic.to_string(), format!("bench.test:{sink}"))))
    }
}

/// CPU time a process has used so far (user + system), from `/proc/PID/stat` (Linux; `None`
/// elsewhere). The kernel's work for the proxy's sockets mostly lands here too.
fn cpu_of(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the `(comm)`, which may hold spaces: state is the 3rd field, utime the 14th.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // USER_HZ is 100 on every Linux this runs on.
    Some(Duration::from_millis(ticks * 10))
}

impl Drop for ProxyChild {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn main() -> Res<()> {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if first.as_deref() == Some("--serve") {
        let port = args.next().ok_or("--serve PORT splice|copy")?.parse()?;
        return serve(port, args.next().as_deref() == Some("splice"));
    }
    let mib: usize = first.map(|s| s.parse()).transpose()?.unwrap_or(2048);
    let conns: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(2000);
    let other: Option<SocketAddr> = args.next().map(|s| s.parse()).transpose()?;
    let forwarder: Option<SocketAddr> = std::env::var("FORWARDER").ok().map(|s| s.parse()).transpose()?;
    let sink_port: u16 = std::env::var("SINK_PORT").ok().map(|s| s.parse()).transpose()?.unwrap_or(0);
    let rounds: usize = std::env::var("ROUNDS").ok().map(|s| s.parse()).transpose()?.unwrap_or(5).max(1);
    pin("ENDPOINT_CPUS")?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let port = rt.block_on(sink(sink_port))?;
    let (splice_child, splice) = ProxyChild::start(port, true)?;
    let (copy_child, copy) = ProxyChild::start(port, false)?;
    let pids = [splice_child.0.id(), copy_child.0.id()];
    rt.block_on(run(mib * 1024 * 1024, conns, rounds, port, [splice, copy], pids, other, forwarder))
}

#[allow(clippy::too_many_arguments)]
async fn run(
    bytes: usize,
    conns: usize,
    rounds: usize,
    port: u16,
    [splice, copy]: [Path; 2],
    pids: [u32; 2],
    other: Option<SocketAddr>,
    forwarder: Option<SocketAddr>,
) -> Res<()> {
    let direct = Path::Direct(([127, 0, 0, 1], port).into());
    let mut paths = vec![
        ("direct loopback copy", direct.clone()),
        ("wicket tunnel, splice", splice.clone()),
        ("wicket tunnel, copy", copy.clone()),
    ];
    if let Some(f) = forwarder {
        paths.push(("plain forwarder (FORWARDER)", Path::Direct(f)));
    }
    if let Some(o) = other {
        paths.push(("other proxy", Path::Connect(o, String::new(), format!("127.0.0.1:{port}"))));
    }
    // Throughput: every path once a round, the order rotated so none always goes first.
    let cpu_before = pids.map(cpu_of);
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); paths.len()];
    for r in 0..rounds {
        for k in 0..paths.len() {
            let i = (k + r) % paths.len();
            times[i].push(push(paths[i].1.open().await?, bytes).await?);
        }
    }
    let gbps = |d: Duration| bytes as f64 * 8.0 / d.as_secs_f64() / 1e9;
    println!(
        "throughput, {} MiB a run, {rounds} rounds (Gbit/s best / median; % of the direct copy: best/best, median of the rounds)",
        bytes / (1024 * 1024)
    );
    for (i, (name, _)) in paths.iter().enumerate() {
        let best = times[i].iter().min().copied().unwrap_or_default();
        let line = format!("  {name:<28} {:6.2} / {:6.2}", gbps(best), gbps(median(times[i].clone())));
        if i == 0 {
            println!("{line}");
            continue;
        }
        let best_direct = times[0].iter().min().copied().unwrap_or_default();
        let ratios: Vec<f64> =
            times[0].iter().zip(&times[i]).map(|(d, t)| 100.0 * d.as_secs_f64() / t.as_secs_f64()).collect();
        println!(
            "{line}   {:5.1} % / {:5.1} %",
            100.0 * best_direct.as_secs_f64() / best.as_secs_f64(),
            median(ratios)
        );
    }
    println!("  (target: the wicket tunnel >= 80 % of the direct copy)");
    let gib = (bytes * rounds) as f64 / f64::from(1u32 << 30);
    let used = |k: usize| Some(cpu_of(pids[k])?.saturating_sub(cpu_before[k]?).as_secs_f64() * 1e3 / gib);
    if let (Some(s), Some(c)) = (used(0), used(1)) {
        println!("  CPU time of the proxy process per GiB tunnelled: splice {s:.0} ms, copy {c:.0} ms");
    }
    if other.is_some() {
        let (w, o) = (median(times[1].clone()), median(times[paths.len() - 1].clone()));
        println!("  wicket (splice) / other proxy = {:.2}x (medians)", o.as_secs_f64() / w.as_secs_f64());
    }

    // Latency per connection: connect (+ CONNECT) + one round trip, sequential.
    let mut lat_paths = vec![("direct", direct), ("wicket, splice", splice), ("wicket, copy", copy)];
    if let Some(o) = other {
        lat_paths.push(("other proxy", Path::Connect(o, String::new(), format!("127.0.0.1:{port}"))));
    }
    let mut lat: Vec<Vec<Duration>> = vec![Vec::with_capacity(conns); lat_paths.len()];
    for _ in 0..conns {
        for (i, (_, p)) in lat_paths.iter().enumerate() {
            let start = Instant::now();
            let mut s = p.open().await?;
            probe(&mut s).await?;
            lat[i].push(start.elapsed());
        }
    }
    let medians: Vec<Duration> = lat.into_iter().map(median).collect();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("latency per connection, median of {conns} (connect, CONNECT, one round trip)");
    for (i, (name, _)) in lat_paths.iter().enumerate() {
        if i == 0 {
            println!("  {name:<15} {:.3} ms", ms(medians[0]));
        } else {
            let added = medians[i].saturating_sub(medians[0]);
            let target = if i < 3 { "   (target <= 0.3 ms)" } else { "" };
            println!("  {name:<15} {:.3} ms   added {:.3} ms{target}", ms(medians[i]), ms(added));
        }
    }
    Ok(())
}
