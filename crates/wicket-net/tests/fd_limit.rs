//! The proxy when the process runs out of file descriptors: open tunnels keep working, the
//! accept loop waits instead of spinning, and a waiting client is served once descriptors are
//! free again. Its own test binary, because it lowers the limit for the whole process.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use wicket_net::{NetConfig, Proxy, ProxyConfig};

/// An echo server that survives failed accepts (it pauses and tries again).
async fn echo() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut s, _)) = l.accept().await else {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            };
            tokio::spawn(async move {
                let (mut r, mut w) = s.split();
                let _ = tokio::io::copy(&mut r, &mut w).await;
            });
        }
    });
    port
}

async fn connect_head(s: &mut TcpStream, port: u16) {
    let req = format!("CONNECT echo.test:{port} HTTP/1.1\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
}

async fn read_head(s: &mut TcpStream) -> String {
    let mut buf = vec![0u8; 39];
    s.read_exact(&mut buf).await.unwrap();
    String::from_utf8_lossy(&buf).into_owned()
}

async fn ping(s: &mut TcpStream) {
    s.write_all(b"ping").await.unwrap();
    let mut b = [0u8; 4];
    tokio::time::timeout(Duration::from_secs(5), s.read_exact(&mut b)).await.expect("no echo").unwrap();
    assert_eq!(&b, b"ping");
}

fn max_fd() -> u64 {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u64>().ok())
        .max()
        .unwrap()
}

fn cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(t.tv_sec.try_into().unwrap(), t.tv_nsec.try_into().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_descriptors_the_proxy_waits_and_recovers() {
    let port = echo().await;
    let policy = NetConfig::new().pin("echo.test", IpAddr::V4(Ipv4Addr::LOCALHOST)).unwrap().port(port);
    let mut cfg = ProxyConfig::new(policy).unwrap();
    // The test server is on loopback, which the proxy reaches only through this test seam.
    cfg.test_origins = vec![SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)];
    // No credential: only this test reaches the port, and it keeps the test to the point.
    cfg.credential = None;
    let proxy = Proxy::new(cfg);
    let addr: SocketAddr = proxy.listen_tcp("127.0.0.1:0".parse().unwrap()).await.unwrap();

    // Two tunnels while descriptors are plenty (each splices: two pipes).
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut s = TcpStream::connect(addr).await.unwrap();
        connect_head(&mut s, port).await;
        assert!(read_head(&mut s).await.starts_with("HTTP/1.1 200"));
        ping(&mut s).await;
        open.push(s);
    }
    // The client's socket of the next tunnel exists before the limit falls.
    let waiting = TcpSocket::new_v4().unwrap();

    // No descriptor left: the limit just above the highest one, and every hole below filled.
    let saved = getrlimit(Resource::Nofile);
    setrlimit(Resource::Nofile, Rlimit { current: Some(max_fd() + 1), maximum: saved.maximum }).unwrap();
    let mut fillers = Vec::new();
    while let Ok(f) = std::fs::File::open("/dev/null") {
        fillers.push(f);
    }

    let mut waiting = waiting.connect(addr).await.unwrap();
    connect_head(&mut waiting, port).await;
    // The proxy cannot accept it. Open tunnels still carry bytes (splicing needs no new
    // descriptor), and the accept loop does not spin while it waits.
    let before = cpu();
    for s in &mut open {
        ping(s).await;
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    let used = cpu().saturating_sub(before);
    let mut head = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(10), waiting.peek(&mut head)).await;
    assert!(early.is_err(), "the proxy answered although it could not accept");
    assert!(used < Duration::from_millis(300), "the process used {used:?} of CPU in 600 ms while it waited");

    // Descriptors free again: the waiting client is served.
    setrlimit(Resource::Nofile, saved).unwrap();
    drop(fillers);
    let got = tokio::time::timeout(Duration::from_secs(5), read_head(&mut waiting)).await.expect("never served");
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    ping(&mut waiting).await;
}
