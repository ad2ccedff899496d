//! The proxy with real clients and real sockets, loopback only.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wicket_net::{Ask, Credential, NetConfig, Proxy, ProxyConfig, Resolve, DEFAULT_PORTS};

const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// An HTTP origin on loopback: answers every request with 200 and the request line it got.
async fn origin() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = l.accept().await else { return };
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    let Ok(n) = s.read(&mut chunk).await else { return };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                let text = String::from_utf8_lossy(&buf).into_owned();
                let line = text.lines().next().unwrap_or("").to_string();
                let host = text.lines().find(|l| l.to_ascii_lowercase().starts_with("host:")).unwrap_or("").to_string();
                let leaked = text.to_ascii_lowercase().contains("proxy-authorization");
                let body = format!("origin saw: {line} | {host} | proxy-auth leaked: {leaked}\n");
                let resp =
                    format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
                let _ = s.write_all(resp.as_bytes()).await;
            });
        }
    });
    port
}

/// An echo server on loopback.
async fn echo() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = l.accept().await else { return };
            tokio::spawn(async move {
                let (mut r, mut w) = s.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
            });
        }
    });
    port
}

/// A resolver with fixed answers (names not listed do not resolve).
struct Fixed(HashMap<String, Vec<IpAddr>>);

impl Resolve for Fixed {
    fn resolve<'a>(&'a self, host: &'a str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send + 'a>> {
        Box::pin(async move {
            self.0.get(host).cloned().ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such name"))
        })
    }
}

fn policy(ports: &[u16]) -> NetConfig {
    let mut c = NetConfig::new()
        .pin("registry.test", LOCAL)
        .and_then(|c| c.allow("rebind.example.com"))
        .and_then(|c| c.allow("app.localhost"))
        .unwrap();
    for p in ports {
        c = c.port(*p);
    }
    c
}

fn config(policy: NetConfig) -> ProxyConfig {
    // The test servers listen on loopback, which the proxy never reaches but through this seam:
    // the exact address and port of each (the ports the test opened).
    let origins = policy.ports().iter().filter(|p| !DEFAULT_PORTS.contains(p)).map(|p| SocketAddr::new(LOCAL, *p));
    let origins = origins.collect();
    let mut cfg = ProxyConfig::new(policy).unwrap();
    cfg.test_origins = origins;
    cfg.resolver = Arc::new(Fixed(HashMap::from([
        ("rebind.example.com".to_string(), vec!["93.184.216.34".parse().unwrap(), LOCAL]),
        ("asked.example.org".to_string(), vec![LOCAL]),
    ])));
    cfg
}

async fn start(cfg: ProxyConfig) -> (Proxy, SocketAddr) {
    let proxy = Proxy::new(cfg);
    let addr = proxy.listen_tcp("127.0.0.1:0".parse().unwrap()).await.unwrap();
    (proxy, addr)
}

fn have_curl() -> bool {
    Command::new("curl").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Run curl; returns (exit code, stdout, stderr).
async fn curl(args: Vec<String>) -> (i32, String, String) {
    tokio::task::spawn_blocking(move || {
        let out = Command::new("curl")
            .args(["-sS", "--max-time", "10"])
            .args(&args)
            .env_remove("http_proxy")
            .env_remove("https_proxy")
            .env_remove("HTTP_PROXY")
            .env_remove("HTTPS_PROXY")
            .env_remove("ALL_PROXY")
            .env_remove("all_proxy")
            .env_remove("NO_PROXY")
            .env_remove("no_proxy")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

fn proxy_url(scheme: &str, cred: Option<&Credential>, addr: SocketAddr) -> String {
    match cred {
        Some(c) => format!("{scheme}://{}@{addr}", c.userinfo()),
        None => format!("{scheme}://{addr}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn curl_plain_http_and_connect_to_pinned_name() {
    if !have_curl() {
        eprintln!("curl not installed; skipped");
        return;
    }
    let port = origin().await;
    let (proxy, addr) = start(config(policy(&[port]))).await;
    let p = proxy_url("http", proxy.credential(), addr);
    // Absolute-form plain HTTP, rewritten to origin-form, proxy credential not forwarded.
    let (code, out, err) = curl(vec![
        "-x".into(),
        p.clone(),
        "-w".into(),
        "%{http_code}".into(),
        format!("http://Registry.Test.:{port}/a?b=1"),
    ])
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("origin saw: GET /a?b=1 HTTP/1.1"), "{out}");
    assert!(out.contains(&format!("Host: registry.test:{port}")), "{out}");
    assert!(out.contains("proxy-auth leaked: false"), "{out}");
    assert!(out.ends_with("200"), "{out}");
    // CONNECT tunnel (`-p`).
    let (code, out, err) = curl(vec![
        "-p".into(),
        "-x".into(),
        p,
        "-w".into(),
        "%{http_connect} %{http_code}".into(),
        format!("http://registry.test:{port}/tunnel"),
    ])
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("origin saw: GET /tunnel HTTP/1.1"), "{out}");
    assert!(out.ends_with("200 200"), "{out}");
    assert!(proxy.blocked().is_empty(), "{:?}", proxy.blocked());
}

#[tokio::test(flavor = "multi_thread")]
async fn curl_refusals_answer_403_and_are_listed() {
    if !have_curl() {
        eprintln!("curl not installed; skipped");
        return;
    }
    let port = origin().await;
    let (proxy, addr) = start(config(policy(&[port]))).await;
    let p = proxy_url("http", proxy.credential(), addr);
    let cases = [
        (format!("http://unlisted.example.net:{port}/"), "unlisted.example.net", "not in network.allow"),
        (format!("http://127.0.0.1:{port}/"), "127.0.0.1", "IP address"),
        (format!("http://2130706433:{port}/"), "127.0.0.1", "IP address"),
        (format!("http://[::ffff:127.0.0.1]:{port}/"), "[::ffff:127.0.0.1]", "IP address"),
        // Listed, but the answer holds a loopback address and the name is not pinned.
        (format!("http://rebind.example.com:{port}/"), "rebind.example.com", "resolved to 127.0.0.1"),
        // Listed, but the name itself stands for this machine.
        (format!("http://app.localhost:{port}/"), "app.localhost", "loopback"),
        (format!("http://127.0.0.1.nip.io:{port}/"), "127.0.0.1.nip.io", "address written inside it"),
        // A port not named.
        ("http://registry.test:8/".to_string(), "registry.test", "port 8"),
    ];
    for (url, host, why) in &cases {
        for tunnel in [false, true] {
            let mut args = vec!["-x".to_string(), p.clone(), "-w".into(), "%{http_connect} %{http_code}".into()];
            if tunnel {
                args.push("-p".into());
            }
            args.push(url.clone());
            let (_, out, _) = curl(args).await;
            assert!(out.contains("403"), "{url} tunnel={tunnel}: {out}");
            assert!(out.contains(host) || tunnel, "{url}: reason names the host: {out}");
            assert!(out.contains(why) || tunnel, "{url}: {out}");
        }
        let blocked = proxy.blocked();
        assert!(blocked.iter().any(|b| b.host == *host && b.reason.contains(why)), "{url}: {blocked:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn credential_is_required() {
    let port = origin().await;
    let (proxy, addr) = start(config(policy(&[port]))).await;
    for auth in ["", "Proxy-Authorization: Basic d2lja2V0Ondyb25n\r\n", "Proxy-Authorization: Bearer x\r\n"] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let req = format!("CONNECT registry.test:{port} HTTP/1.1\r\nHost: registry.test:{port}\r\n{auth}\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).await.unwrap();
        assert!(resp.starts_with("HTTP/1.1 407"), "{auth}: {resp}");
        assert!(resp.contains("Proxy-Authenticate: Basic"), "{resp}");
    }
    if have_curl() {
        let wrong = format!("http://wicket:nope@{addr}");
        let (_, out, _) =
            curl(vec!["-x".into(), wrong, "-w".into(), "%{http_code}".into(), format!("http://registry.test:{port}/")])
                .await;
        assert!(out.ends_with("407"), "{out}");
        let wrong = format!("socks5h://wicket:nope@{addr}");
        let (code, out, _) = curl(vec!["-x".into(), wrong, format!("http://registry.test:{port}/")]).await;
        assert_ne!(code, 0, "{out}");
        // A SOCKS client without credentials is refused too.
        let none = format!("socks5h://{addr}");
        let (code, out, _) = curl(vec!["-x".into(), none, format!("http://registry.test:{port}/")]).await;
        assert_ne!(code, 0, "{out}");
    }
    assert!(proxy.blocked().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn curl_socks5_both_auth_modes() {
    if !have_curl() {
        eprintln!("curl not installed; skipped");
        return;
    }
    let port = origin().await;
    // Username/password.
    let (proxy, addr) = start(config(policy(&[port]))).await;
    let p = proxy_url("socks5h", proxy.credential(), addr);
    let (code, out, err) = curl(vec!["-x".into(), p.clone(), format!("http://registry.test:{port}/s")]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("GET /s HTTP/1.1"), "{out}");
    // Refusals: an unlisted name, and an IP address (socks5:// makes curl resolve and send it).
    let (code, _, err) = curl(vec!["-x".into(), p, format!("http://unlisted.example.net:{port}/")]).await;
    assert_ne!(code, 0, "{err}");
    let p = proxy_url("socks5", proxy.credential(), addr);
    let (code, _, err) = curl(vec!["-x".into(), p, format!("http://127.0.0.1:{port}/")]).await;
    assert_ne!(code, 0, "{err}");
    let hosts: Vec<String> = proxy.blocked().into_iter().map(|b| b.host).collect();
    assert_eq!(hosts, ["unlisted.example.net", "127.0.0.1"]);
    // No-auth, for a socket only the run can reach.
    let mut cfg = config(policy(&[port]));
    cfg.credential = None;
    let (_proxy, addr) = start(cfg).await;
    let (code, out, err) =
        curl(vec!["-x".into(), format!("socks5h://{addr}"), format!("http://registry.test:{port}/n")]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("GET /n HTTP/1.1"), "{out}");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn unix_socket_listener() {
    let port = echo().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("proxy.sock");
    let proxy = Proxy::new(config(policy(&[port])));
    proxy.listen_unix(&path).await.unwrap();
    let basic = basic(proxy.credential().unwrap());
    let mut s = tokio::net::UnixStream::connect(&path).await.unwrap();
    let req = format!("CONNECT registry.test:{port} HTTP/1.1\r\nProxy-Authorization: Basic {basic}\r\n\r\nearly");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 39 + 5];
    s.read_exact(&mut buf).await.unwrap();
    assert_eq!(String::from_utf8_lossy(&buf), "HTTP/1.1 200 Connection Established\r\n\r\nearly");
    // Then bulk bytes and a half close: a unix-socket client is spliced to TCP as well.
    const LEN: usize = 8 << 20;
    let (mut r, mut w) = s.into_split();
    let data = pattern(LEN);
    let sent = data.clone();
    let writer = tokio::spawn(async move {
        w.write_all(&sent).await.unwrap();
        w.shutdown().await.unwrap();
        w
    });
    let mut back = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), r.read_to_end(&mut back)).await.unwrap().unwrap();
    let _w = writer.await.unwrap();
    assert!(back == data, "the echo came back changed ({} of {LEN} bytes)", back.len());
}

fn basic(c: &Credential) -> String {
    // Test-side base64 (std has none): the same table as RFC 4648.
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let input = c.userinfo().into_bytes();
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() { char::from(T[((n >> (18 - 6 * i)) & 63) as usize]) } else { '=' });
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn oversized_and_slow_heads_are_bounded() {
    let mut cfg = config(policy(&[]));
    cfg.header_timeout = Duration::from_millis(300);
    let (_proxy, addr) = start(cfg).await;
    // Oversized: 20 KiB of headers.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let big = format!("GET http://registry.test/ HTTP/1.1\r\nX-Pad: {}\r\n", "a".repeat(20 * 1024));
    let _ = s.write_all(big.as_bytes()).await;
    let mut resp = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut resp)).await.unwrap();
    assert!(resp.starts_with("HTTP/1.1 431"), "{resp}");
    // Slow: half a head, then nothing.
    let t = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"CONNECT registry.test:443 HTTP/1.1\r\nX-Slow: ").await.unwrap();
    let mut resp = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut resp)).await.unwrap();
    assert!(resp.starts_with("HTTP/1.1 408"), "{resp}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // Slow SOCKS handshake: greeting only.
    let t = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(&[5, 1]).await.unwrap();
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut buf)).await.unwrap();
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_tunnels_close_and_connection_count_is_bounded() {
    let port = echo().await;
    let mut cfg = config(policy(&[port]));
    cfg.idle_timeout = Duration::from_millis(300);
    cfg.max_connections = 4;
    let (proxy, addr) = start(cfg).await;
    let basic = basic(proxy.credential().unwrap());
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(connect(addr, &basic, port).await);
    }
    // The fifth is closed at once.
    let mut s = TcpStream::connect(addr).await.unwrap();
    let _ = s.write_all(b"CONNECT x:1 HTTP/1.1\r\n\r\n").await;
    let mut buf = Vec::new();
    let r = tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut buf)).await.unwrap();
    assert!(r.is_err() || buf.is_empty(), "{:?}", String::from_utf8_lossy(&buf));
    // Idle tunnels end, which frees the slots.
    let t = Instant::now();
    for mut h in held {
        let mut b = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(3), h.read_to_end(&mut b)).await.unwrap();
    }
    assert!(t.elapsed() < Duration::from_secs(2));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut s = connect(addr, &basic, port).await;
    s.write_all(b"ping").await.unwrap();
    let mut b = [0u8; 4];
    s.read_exact(&mut b).await.unwrap();
    assert_eq!(&b, b"ping");
}

async fn connect(addr: SocketAddr, basic: &str, port: u16) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!("CONNECT registry.test:{port} HTTP/1.1\r\nProxy-Authorization: Basic {basic}\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 39];
    s.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"HTTP/1.1 200 Connection Established\r\n\r\n");
    s
}

fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn many_concurrent_tunnels() {
    const N: usize = 1000;
    // A tunnel buffer no other test uses, to count this test's pipes.
    const BUF: usize = 128 << 10;
    let port = echo().await;
    let mut cfg = config(policy(&[port]));
    cfg.tunnel_buffer = BUF;
    let (proxy, addr) = start(cfg).await;
    let basic = Arc::new(basic(proxy.credential().unwrap()));
    let before = rss_kib();
    let t = Instant::now();
    // Open all tunnels first, then talk through all of them at once.
    let mut streams = Vec::new();
    for _ in 0..N {
        streams.push(connect(addr, &basic, port).await);
    }
    let mut tasks = Vec::new();
    for (i, mut s) in streams.into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            let msg = vec![(i % 251) as u8; 4096];
            s.write_all(&msg).await.unwrap();
            let mut back = vec![0u8; 4096];
            s.read_exact(&mut back).await.unwrap();
            assert_eq!(back, msg);
            s
        }));
    }
    let mut open = Vec::new();
    for t in tasks {
        open.push(t.await.unwrap());
    }
    let elapsed = t.elapsed();
    let after = rss_kib();
    // The first MAX_SPLICING tunnels splice (two pipes each); the rest copy, and work as well.
    assert_eq!(pipes_of_size(BUF), 2 * wicket_net::MAX_SPLICING);
    drop(open);
    eprintln!("{N} tunnels in {elapsed:?}, RSS {before:?} -> {after:?} KiB");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    if let (Some(b), Some(a)) = (before, after) {
        // Client, proxy and echo server share this process: about 80 KiB per tunnel is measured
        // (copy buffers are mostly untouched pages); far below 2 × 256 KiB per tunnel.
        assert!(a.saturating_sub(b) < 160 * 1024, "RSS grew {} KiB", a - b);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn unlisted_hosts_ask_and_answers_do_not_skip_address_checks() {
    let port = origin().await;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Ask>(4);
    let mut cfg = config(policy(&[port]));
    cfg.approver = Some(tx);
    let (proxy, addr) = start(cfg).await;
    let asked = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(a) = rx.recv().await {
            seen.push(format!("{}:{}", a.host, a.port));
            let _ = a.reply.send((a.host == "asked.example.org").into());
            if seen.len() == 2 {
                break;
            }
        }
        seen
    });
    let basic = basic(proxy.credential().unwrap());
    for host in ["denied.example.org", "asked.example.org", "asked.example.org"] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let req = format!("CONNECT {host}:{port} HTTP/1.1\r\nProxy-Authorization: Basic {basic}\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).await.unwrap();
        assert!(resp.starts_with("HTTP/1.1 403"), "{resp}");
    }
    // Asked once per host (the answer is remembered for the run).
    let seen = asked.await.unwrap();
    assert_eq!(seen, [format!("denied.example.org:{port}"), format!("asked.example.org:{port}")]);
    let blocked = proxy.blocked();
    assert!(blocked[0].reason.contains("approver denied"), "{blocked:?}");
    // Approved, but it resolves to loopback: still refused.
    assert!(blocked[1].reason.contains("resolved to 127.0.0.1"), "{blocked:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn listens_on_loopback_only() {
    let proxy = Proxy::new(config(policy(&[])));
    let e = proxy.listen_tcp("0.0.0.0:0".parse().unwrap()).await.unwrap_err();
    assert!(e.to_string().contains("loopback"), "{e}");
}

/// Bytes that differ from offset to offset (a lost, doubled or reordered chunk shows).
fn pattern(len: usize) -> Vec<u8> {
    let mut x: u32 = 0x9e37_79b9;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// The pipes of exactly `size` bytes this process holds open (each counted once), seen through
/// /proc/self/fd: the proxy's splice pipes, when `size` is a tunnel buffer no other part uses.
fn pipes_of_size(size: usize) -> usize {
    use rustix::fs::{Mode, OFlags};
    let mut seen = std::collections::HashSet::new();
    for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let Ok(link) = std::fs::read_link(entry.path()) else { continue };
        let link = link.to_string_lossy().into_owned();
        if !link.starts_with("pipe:") || seen.contains(&link) {
            continue;
        }
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let Ok(fd) = rustix::fs::open(entry.path(), flags, Mode::empty()) else { continue };
        if rustix::pipe::fcntl_getpipe_size(&fd).is_ok_and(|n| n == size) {
            seen.insert(link);
        }
    }
    seen.len()
}

/// 24 MiB each way through a CONNECT tunnel to an echo server, written and read at once, then
/// a half close: the echo gets the end of input and closes, and the client reads every byte
/// back, in order, and then the end.
async fn bulk_echo_and_half_close(splice: bool) {
    const LEN: usize = 24 << 20;
    // A buffer size no other test or tool in this process uses, to find the tunnel's pipes
    // (one for each mode, as the two run at once).
    let buf: usize = if splice { 512 << 10 } else { 1 << 20 };
    let port = echo().await;
    let mut cfg = config(policy(&[port]));
    cfg.splice = splice;
    cfg.tunnel_buffer = buf;
    let (proxy, addr) = start(cfg).await;
    let s = connect(addr, &basic(proxy.credential().unwrap()), port).await;
    let (mut r, mut w) = s.into_split();
    let data = Arc::new(pattern(LEN));
    let sent = data.clone();
    let writer = tokio::spawn(async move {
        for chunk in sent.chunks(100_003) {
            w.write_all(chunk).await.unwrap();
        }
        w.shutdown().await.unwrap();
        w
    });
    let mut back = Vec::with_capacity(LEN);
    let mut chunk = vec![0u8; 64 * 1024];
    let mut pipes_seen = 0;
    let read_all = async {
        loop {
            let n = r.read(&mut chunk).await.unwrap();
            if n == 0 {
                break;
            }
            if back.is_empty() {
                // Mid-transfer: the tunnel is open, so are its pipes if it splices.
                pipes_seen = pipes_of_size(buf);
            }
            back.extend_from_slice(&chunk[..n]);
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read_all).await.expect("the end of the echo never arrived");
    let _w = writer.await.unwrap();
    assert_eq!(back.len(), LEN);
    assert!(back == *data, "the echo came back changed");
    if splice {
        assert!(pipes_seen >= 2, "a splicing tunnel holds two pipes of {buf} bytes; saw {pipes_seen}");
    } else {
        assert_eq!(pipes_seen, 0, "the copy needs no pipe");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn splicing_tunnel_carries_bulk_data_and_half_close() {
    bulk_echo_and_half_close(true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn copying_tunnel_carries_bulk_data_and_half_close() {
    bulk_echo_and_half_close(false).await;
}

/// An HTTP upstream on loopback that records every request head (and whatever body bytes came
/// with it) it is sent, and answers each with 200.
async fn recording_upstream() -> (u16, Arc<std::sync::Mutex<Vec<String>>>) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = l.accept().await else { return };
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match s.read(&mut chunk).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&buf).into_owned();
                log.lock().unwrap().push(text.clone());
                let line = text.lines().next().unwrap_or("").to_string();
                let body = format!("upstream saw: {line}\n");
                let resp =
                    format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
                let _ = s.write_all(resp.as_bytes()).await;
            });
        }
    });
    (port, seen)
}

/// Ambiguous request framing (RFC 9112 section 6.3) is answered 400 and nothing reaches the
/// upstream; plain Content-Length and plain chunked requests are forwarded.
#[tokio::test(flavor = "multi_thread")]
async fn ambiguous_framing_is_refused_before_anything_is_forwarded() {
    struct Case {
        name: &'static str,
        /// Framing headers, each ending in CRLF.
        headers: &'static str,
        body: &'static str,
        version: &'static str,
        /// Expected status, and a word the 400 body must hold.
        want: (u16, &'static str),
    }
    #[rustfmt::skip]
    let cases = [
        Case { name: "te-and-cl", headers: "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", body: "0\r\n\r\n", version: "1.1", want: (400, "both Transfer-Encoding and Content-Length") },
        Case { name: "cl-and-te", headers: "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", body: "0\r\n\r\n", version: "1.1", want: (400, "both Transfer-Encoding and Content-Length") },
        Case { name: "two-cl", headers: "Content-Length: 5\r\nContent-Length: 6\r\n", body: "hello", version: "1.1", want: (400, "more than one Content-Length") },
        Case { name: "cl-list", headers: "Content-Length: 5, 6\r\n", body: "hello", version: "1.1", want: (400, "more than one Content-Length") },
        Case { name: "same-cl-twice", headers: "Content-Length: 5\r\nContent-Length: 5\r\n", body: "hello", version: "1.1", want: (400, "more than one Content-Length") },
        Case { name: "cl-plus", headers: "Content-Length: +5\r\n", body: "hello", version: "1.1", want: (400, "not a plain decimal") },
        Case { name: "cl-hex", headers: "Content-Length: 0x5\r\n", body: "hello", version: "1.1", want: (400, "not a plain decimal") },
        Case { name: "cl-huge", headers: "Content-Length: 99999999999999999999999\r\n", body: "hello", version: "1.1", want: (400, "not a plain decimal") },
        Case { name: "te-gzip-last", headers: "Transfer-Encoding: chunked, gzip\r\n", body: "0\r\n\r\n", version: "1.1", want: (400, "does not end in chunked") },
        Case { name: "te-identity", headers: "Transfer-Encoding: identity\r\n", body: "hello", version: "1.1", want: (400, "does not end in chunked") },
        Case { name: "te-split-last-gzip", headers: "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n", body: "0\r\n\r\n", version: "1.1", want: (400, "does not end in chunked") },
        Case { name: "te-chunked-twice", headers: "Transfer-Encoding: chunked, chunked\r\n", body: "0\r\n\r\n", version: "1.1", want: (400, "chunked more than once") },
        Case { name: "te-http10", headers: "Transfer-Encoding: chunked\r\n", body: "0\r\n\r\n", version: "1.0", want: (400, "HTTP/1.0") },
        // Controls: these reach the upstream.
        Case { name: "plain-cl", headers: "Content-Length: 5\r\n", body: "hello", version: "1.1", want: (200, "upstream saw") },
        Case { name: "plain-chunked", headers: "Transfer-Encoding: chunked\r\n", body: "5\r\nhello\r\n0\r\n\r\n", version: "1.1", want: (200, "upstream saw") },
        Case { name: "gzip-then-chunked", headers: "Transfer-Encoding: gzip, chunked\r\n", body: "0\r\n\r\n", version: "1.1", want: (200, "upstream saw") },
        Case { name: "no-body", headers: "", body: "", version: "1.1", want: (200, "upstream saw") },
    ];
    let (port, seen) = recording_upstream().await;
    let (proxy, addr) = start(config(policy(&[port]))).await;
    let auth = basic(proxy.credential().unwrap());
    // Refused cases first, controls last: by the time a control has come back, anything an
    // earlier case had sent upstream would be in the log.
    for c in &cases {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let req = format!(
            "POST http://registry.test:{port}/{} HTTP/{}\r\nProxy-Authorization: Basic {auth}\r\n{}\r\n{}",
            c.name, c.version, c.headers, c.body
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut resp = String::new();
        let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_string(&mut resp)).await.unwrap();
        let status = format!("HTTP/1.1 {} ", c.want.0);
        assert!(resp.starts_with(&status), "{}: {resp}", c.name);
        assert!(resp.contains(c.want.1), "{}: {resp}", c.name);
    }
    let log = seen.lock().unwrap().clone();
    for c in &cases {
        let reached = log.iter().any(|r| r.contains(&format!("/{} HTTP", c.name)));
        assert_eq!(reached, c.want.0 == 200, "{}: upstream log {log:?}", c.name);
    }
    assert_eq!(log.len(), cases.iter().filter(|c| c.want.0 == 200).count(), "{log:?}");
}

// ---------------------------------------------------------------------------------------------
// This machine's own addresses

/// Whether CI asked that nothing be skipped.
fn in_ci() -> bool {
    ["CI", "WICKET_CI"].iter().any(|v| std::env::var(v).is_ok_and(|x| !x.is_empty() && x != "0" && x != "false"))
}

/// The addresses of this machine's interfaces (`getifaddrs`, read here independently of the
/// proxy's own reading), loopback ones left out.
fn interface_addresses() -> Vec<(IpAddr, String)> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `head` with a list this function frees below.
    assert_eq!(unsafe { libc::getifaddrs(&mut head) }, 0, "getifaddrs: {}", io::Error::last_os_error());
    let mut out = Vec::new();
    let mut cur = head;
    while !cur.is_null() {
        // SAFETY: `cur` is a node of the list getifaddrs returned, not yet freed.
        let ifa = unsafe { &*cur };
        cur = ifa.ifa_next;
        if ifa.ifa_addr.is_null() {
            continue;
        }
        // SAFETY: a non-null ifa_addr points at a socket address of the family it names.
        let ip = unsafe {
            match i32::from((*ifa.ifa_addr).sa_family) {
                libc::AF_INET => {
                    let sin = std::ptr::read_unaligned(ifa.ifa_addr.cast::<libc::sockaddr_in>());
                    IpAddr::V4(Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)))
                }
                libc::AF_INET6 => {
                    let sin6 = std::ptr::read_unaligned(ifa.ifa_addr.cast::<libc::sockaddr_in6>());
                    IpAddr::V6(std::net::Ipv6Addr::from(sin6.sin6_addr.s6_addr))
                }
                _ => continue,
            }
        };
        // SAFETY: ifa_name is a NUL-terminated string owned by the list.
        let name = unsafe { std::ffi::CStr::from_ptr(ifa.ifa_name) }.to_string_lossy().into_owned();
        if !ip.is_loopback() {
            out.push((ip, name));
        }
    }
    // SAFETY: `head` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(head) };
    out
}

/// An HTTP server on `ip` that counts the connections it accepts and answers each with 200.
async fn counting_origin(ip: IpAddr) -> (SocketAddr, Arc<std::sync::atomic::AtomicUsize>) {
    let l = TcpListener::bind(SocketAddr::new(ip, 0)).await.unwrap();
    let addr = l.local_addr().unwrap();
    let hits = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = hits.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = l.accept().await else { return };
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf).await;
                let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello").await;
            });
        }
    });
    (addr, hits)
}

/// What the proxy answered one request: the HTTP status (SOCKS5: the reply code) and the
/// refusal reason it gave, if any.
#[derive(Debug)]
struct Answer {
    code: u16,
    reason: String,
}

/// A `CONNECT host:port` through the proxy, then (if established) a GET through the tunnel.
async fn via_connect(proxy: SocketAddr, auth: &str, host: &str, port: u16) -> Answer {
    let mut s = TcpStream::connect(proxy).await.unwrap();
    let req =
        format!("CONNECT {host}:{port} HTTP/1.1\r\nProxy-Authorization: Basic {auth}\r\n\r\nGET / HTTP/1.0\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    http_answer(s).await
}

/// An absolute-form `GET http://host:port/` through the proxy.
async fn via_plain(proxy: SocketAddr, auth: &str, host: &str, port: u16) -> Answer {
    let mut s = TcpStream::connect(proxy).await.unwrap();
    let req = format!("GET http://{host}:{port}/ HTTP/1.1\r\nProxy-Authorization: Basic {auth}\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    http_answer(s).await
}

async fn http_answer(mut s: TcpStream) -> Answer {
    let mut resp = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut resp)).await.unwrap().unwrap();
    let resp = String::from_utf8_lossy(&resp).into_owned();
    let code = resp.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let reason = resp.lines().find_map(|l| l.strip_prefix("X-Wicket-Reason: ")).unwrap_or("").to_string();
    // Through an established tunnel, the origin's answer follows the proxy's 200.
    let code = if code == 200 && resp.contains("hello") { 200 } else { code };
    Answer { code, reason }
}

/// A SOCKS5 request for `target` (a name, or an IP address as SOCKS sends one), with the
/// credential; the code of the proxy's reply (0 is success).
async fn via_socks(proxy: SocketAddr, cred: &Credential, target: &str, port: u16) -> Answer {
    let mut s = TcpStream::connect(proxy).await.unwrap();
    s.write_all(&[5, 1, 2]).await.unwrap();
    let mut two = [0u8; 2];
    s.read_exact(&mut two).await.unwrap();
    assert_eq!(two, [5, 2]);
    let mut auth = vec![1, cred.user.len() as u8];
    auth.extend_from_slice(cred.user.as_bytes());
    auth.push(cred.password.len() as u8);
    auth.extend_from_slice(cred.password.as_bytes());
    s.write_all(&auth).await.unwrap();
    s.read_exact(&mut two).await.unwrap();
    assert_eq!(two, [1, 0]);
    let mut req = vec![5, 1, 0];
    match target.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) => {
            req.push(1);
            req.extend_from_slice(&a.octets());
        }
        Ok(IpAddr::V6(a)) => {
            req.push(4);
            req.extend_from_slice(&a.octets());
        }
        Err(_) => {
            req.extend_from_slice(&[3, target.len() as u8]);
            req.extend_from_slice(target.as_bytes());
        }
    }
    req.extend_from_slice(&port.to_be_bytes());
    s.write_all(&req).await.unwrap();
    let mut reply = [0u8; 10];
    tokio::time::timeout(Duration::from_secs(20), s.read_exact(&mut reply)).await.unwrap().unwrap();
    if reply[1] == 0 {
        // Connected: the origin must answer through the tunnel.
        s.write_all(b"GET / HTTP/1.0\r\n\r\n").await.unwrap();
        let mut rest = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut rest)).await;
        assert!(String::from_utf8_lossy(&rest).contains("hello"), "{rest:?}");
    }
    Answer { code: u16::from(reply[1]), reason: String::new() }
}

/// Whether a refusal names the host and the address and says the address is this machine's.
fn says_this_machine(reason: &str, host: &str, addr: IpAddr) -> bool {
    reason.contains(host) && reason.contains(&addr.to_string()) && reason.contains("never connects to this machine")
}

/// The rule: the proxy never connects to an address of this machine, whatever name led
/// there. A server listens on each non-loopback address of this machine; names that lead to it
/// (a DNS answer, a pin in the settings, the IPv4-mapped form of the address), and a pin to
/// loopback, are refused through CONNECT, plain HTTP and SOCKS5, and the server sees no
/// connection. The control: the same server answers a direct connection.
#[tokio::test(flavor = "multi_thread")]
async fn the_proxy_never_connects_to_an_address_of_this_machine() {
    let all = interface_addresses();
    // Link-local IPv6 addresses cannot be bound or reached without a zone; they are checked
    // through names below, without a server.
    let here: Vec<IpAddr> = all
        .iter()
        .map(|(a, _)| *a)
        .filter(|a| !matches!(a, IpAddr::V6(v) if v.segments()[0] & 0xffc0 == 0xfe80))
        .collect();
    if here.is_empty() {
        assert!(!in_ci(), "this machine has no non-loopback address to test with (WICKET_CI is set: no skipping)");
        eprintln!("no non-loopback address on this machine; only loopback is tested");
    }
    let link_local: Vec<IpAddr> = all.iter().map(|(a, _)| *a).filter(|a| !here.contains(a)).collect();
    let (loop_addr, loop_hits) = counting_origin(LOCAL).await;
    let mut targets: Vec<(IpAddr, SocketAddr, Arc<std::sync::atomic::AtomicUsize>)> =
        vec![(LOCAL, loop_addr, loop_hits)];
    for ip in &here {
        let (addr, hits) = counting_origin(*ip).await;
        targets.push((*ip, addr, hits));
    }
    let mut failures = Vec::new();
    for (ip, addr, hits) in &targets {
        // Control: the server answers directly.
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET / HTTP/1.0\r\n\r\n").await.unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).await.unwrap();
        assert!(resp.contains("200 OK") && resp.contains("hello"), "control, {addr}: {resp}");
        assert_eq!(hits.load(std::sync::atomic::Ordering::SeqCst), 1, "control, {addr}");

        // Names that lead to this address: a DNS answer of an allowed name, a pin (the person's
        // explicit address), and for IPv4 the IPv4-mapped IPv6 form in a DNS answer.
        let port = addr.port();
        let mut table = HashMap::from([("own.example.com".to_string(), vec![*ip])]);
        let mut policy =
            NetConfig::new().allow("own.example.com").and_then(|c| c.pin("pinned.test", *ip)).unwrap().port(port);
        let mut names = vec![("own.example.com".to_string(), *ip), ("pinned.test".to_string(), *ip)];
        if let IpAddr::V4(v4) = ip {
            let mapped = IpAddr::V6(v4.to_ipv6_mapped());
            table.insert("mapped.example.com".to_string(), vec![mapped]);
            policy = policy.allow("mapped.example.com").unwrap();
            names.push(("mapped.example.com".to_string(), mapped));
        }
        // This machine's link-local addresses, in an answer and pinned (no server: nothing may
        // even be tried).
        for (i, ll) in link_local.iter().enumerate() {
            let (dns, pin) = (format!("ll{i}.example.com"), format!("ll{i}.test"));
            table.insert(dns.clone(), vec![*ll]);
            policy = policy.allow(&dns).and_then(|c| c.pin(&pin, *ll)).unwrap();
            names.push((dns, *ll));
            names.push((pin, *ll));
        }
        let mut cfg = ProxyConfig::new(policy.clone()).unwrap();
        cfg.resolver = Arc::new(Fixed(table.clone()));
        // The test seam exempts exact address:port pairs only: another port of the same address
        // opens nothing.
        cfg.test_origins = vec![SocketAddr::new(*ip, port.wrapping_add(1))];
        let (proxy, paddr) = start(cfg).await;
        let cred = proxy.credential().unwrap().clone();
        let auth = basic(&cred);
        for (name, led_to) in &names {
            for (how, a) in [
                ("CONNECT", via_connect(paddr, &auth, name, port).await),
                ("plain HTTP", via_plain(paddr, &auth, name, port).await),
                ("SOCKS5", via_socks(paddr, &cred, name, port).await),
            ] {
                let refused = if how == "SOCKS5" { a.code == 2 } else { a.code == 403 };
                let said = how == "SOCKS5" || says_this_machine(&a.reason, name, *led_to);
                if !refused || !said {
                    failures.push(format!("{addr}: {how} {name} -> {led_to}: {a:?}"));
                }
            }
            let blocked = proxy.blocked();
            let listed = blocked.iter().any(|b| b.host == *name && says_this_machine(&b.reason, name, *led_to));
            if !listed {
                failures.push(format!("{addr}: {name} -> {led_to}: not listed as this machine's address: {blocked:?}"));
            }
        }
        // The address itself, as SOCKS sends it (IP literals are refused before anything else).
        let a = via_socks(paddr, &cred, &ip.to_string(), port).await;
        if a.code != 2 {
            failures.push(format!("{addr}: SOCKS5 {ip}: {a:?}"));
        }
        let seen = hits.load(std::sync::atomic::Ordering::SeqCst);
        if seen != 1 {
            failures.push(format!("{addr}: the server saw {} connection(s) through the proxy", seen - 1));
        }
        // Control through the proxy: with this server's exact address and port exempted (the
        // test seam), the pinned name reaches it by all three ways, so the refusals above are
        // the own-address rule's doing.
        let mut cfg = ProxyConfig::new(policy).unwrap();
        cfg.resolver = Arc::new(Fixed(table));
        cfg.test_origins = vec![*addr];
        let (proxy, paddr) = start(cfg).await;
        let cred = proxy.credential().unwrap().clone();
        let auth = basic(&cred);
        let c = via_connect(paddr, &auth, "pinned.test", port).await;
        let p = via_plain(paddr, &auth, "pinned.test", port).await;
        let x = via_socks(paddr, &cred, "pinned.test", port).await;
        if (c.code, p.code, x.code) != (200, 200, 0) {
            failures.push(format!("{addr}: control through the proxy: {c:?} {p:?} {x:?}"));
        }
        let seen = hits.load(std::sync::atomic::Ordering::SeqCst);
        if seen != 4 {
            failures
                .push(format!("{addr}: control through the proxy: the server saw {} connection(s), not 3", seen - 1));
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}
