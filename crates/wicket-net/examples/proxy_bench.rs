//! Proxy benchmark, loopback only: CONNECT tunnel throughput against a direct loopback copy, and
//! the latency a tunnel adds per connection. Run through `bench/proxy.sh` (release build).
//!
//! `proxy_bench [MiB per run] [connections] [OTHER-PROXY host:port]` (defaults 2048 and 2000).
//! With a third argument, the same measurements go through that HTTP proxy too (CONNECT to
//! `127.0.0.1:PORT`, no credential): `bench/proxy.sh` passes the proxy of Anthropic's sandbox
//! runtime there, for the side-by-side ratio.

use std::error::Error;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wicket_net::{NetConfig, Proxy, ProxyConfig};

type Res<T> = Result<T, Box<dyn Error>>;

const CHUNK: usize = 256 * 1024;

/// A sink: reads to EOF, then answers one byte. Also echoes single bytes (latency probe).
async fn sink() -> Res<u16> {
    let l = TcpListener::bind("127.0.0.1:0").await?;
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

/// A tunnel through `proxy` to `target` (`host:port`); `basic` empty sends no credential.
async fn connect_via(proxy: SocketAddr, basic: &str, target: &str) -> Res<TcpStream> {
    let mut s = TcpStream::connect(proxy).await?;
    s.set_nodelay(true)?;
    let auth = if basic.is_empty() { String::new() } else { format!("Proxy-Authorization: Basic {basic}\r\n") };
    let req = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{auth}\r\n");
    s.write_all(req.as_bytes()).await?;
    // The answer head, byte by byte (nothing after it may be read here).
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(s.read_u8().await?);
        if head.len() > 4096 {
            return Err("the proxy's answer head is too long".into());
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

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
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

#[tokio::main]
async fn main() -> Res<()> {
    let mut args = std::env::args().skip(1);
    let mib: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(2048);
    let conns: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(2000);
    let other: Option<SocketAddr> = args.next().map(|s| s.parse()).transpose()?;
    let bytes = mib * 1024 * 1024;

    let port = sink().await?;
    let policy = NetConfig::new().pin("bench.test", IpAddr::V4(Ipv4Addr::LOCALHOST))?.port(port);
    let cfg = ProxyConfig::new(policy)?;
    let cred = cfg.credential.clone().ok_or("no credential")?;
    let basic = basic(&cred.userinfo());
    let proxy = Proxy::new(cfg);
    let paddr = proxy.listen_tcp("127.0.0.1:0".parse()?).await?;
    let direct_addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let ours = format!("bench.test:{port}");
    let theirs = format!("127.0.0.1:{port}");

    // Throughput: best of 3 each, interleaved.
    let (mut direct, mut tunnel, mut other_tunnel) = (Duration::MAX, Duration::MAX, Duration::MAX);
    for _ in 0..3 {
        let s = TcpStream::connect(direct_addr).await?;
        s.set_nodelay(true)?;
        direct = direct.min(push(s, bytes).await?);
        tunnel = tunnel.min(push(connect_via(paddr, &basic, &ours).await?, bytes).await?);
        if let Some(o) = other {
            other_tunnel = other_tunnel.min(push(connect_via(o, "", &theirs).await?, bytes).await?);
        }
    }
    let gbps = |d: Duration| bytes as f64 * 8.0 / d.as_secs_f64() / 1e9;
    println!("throughput  direct {:.2} Gbit/s   tunnel {:.2} Gbit/s", gbps(direct), gbps(tunnel));
    println!(
        "            tunnel/direct = {:.1} %  (target >= 80 %)",
        100.0 * direct.as_secs_f64() / tunnel.as_secs_f64()
    );
    if other.is_some() {
        println!(
            "            other proxy {:.2} Gbit/s = {:.1} % of direct; wicket/other = {:.2}x",
            gbps(other_tunnel),
            100.0 * direct.as_secs_f64() / other_tunnel.as_secs_f64(),
            other_tunnel.as_secs_f64() / tunnel.as_secs_f64()
        );
    }

    // Latency per connection: connect (+ CONNECT) + one round trip, sequential.
    let (mut d, mut t, mut o) = (Vec::with_capacity(conns), Vec::with_capacity(conns), Vec::new());
    for _ in 0..conns {
        let start = Instant::now();
        let mut s = TcpStream::connect(direct_addr).await?;
        s.set_nodelay(true)?;
        probe(&mut s).await?;
        d.push(start.elapsed());
        drop(s);
        let start = Instant::now();
        let mut s = connect_via(paddr, &basic, &ours).await?;
        probe(&mut s).await?;
        t.push(start.elapsed());
        if let Some(other) = other {
            let start = Instant::now();
            let mut s = connect_via(other, "", &theirs).await?;
            probe(&mut s).await?;
            o.push(start.elapsed());
        }
    }
    let (md, mt) = (median(d), median(t));
    println!(
        "latency     direct {:.3} ms   tunnel {:.3} ms   added {:.3} ms per connection (median of {conns}; target <= 0.3 ms)",
        md.as_secs_f64() * 1e3,
        mt.as_secs_f64() * 1e3,
        mt.saturating_sub(md).as_secs_f64() * 1e3
    );
    if other.is_some() {
        let mo = median(o);
        println!(
            "            other proxy {:.3} ms   added {:.3} ms per connection",
            mo.as_secs_f64() * 1e3,
            mo.saturating_sub(md).as_secs_f64() * 1e3
        );
    }
    Ok(())
}
