//! A process that has restored `SIGPIPE`'s default action (which ends the process) does not
//! die when a tunnel's far end goes away: `splice` would raise `SIGPIPE` there, so such a
//! process gets the user-space copy, whose sends never raise it. Its own test binary, because it
//! changes a signal's disposition for the whole process.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wicket_net::{NetConfig, Proxy, ProxyConfig};

/// A server that says goodbye at once (a FIN: the proxy's side of the connection is then in
/// CLOSE_WAIT), reads nothing, and closes a moment later with bytes unread: the reset that
/// follows makes the proxy's next send fail with `EPIPE`, the error that raises `SIGPIPE`.
async fn rude_server() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            tokio::spawn(async move {
                let _ = s.shutdown().await;
                tokio::time::sleep(Duration::from_millis(200)).await;
                drop(s);
            });
        }
    });
    port
}

async fn tunnel(addr: std::net::SocketAddr, port: u16) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("CONNECT rude.test:{port} HTTP/1.1\r\n\r\n").as_bytes()).await.unwrap();
    let mut head = [0u8; 39];
    s.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200 Connection Established\r\n\r\n");
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_far_end_does_not_kill_a_process_with_default_sigpipe() {
    // SAFETY: setting a signal's disposition to its default is async-signal-safe and this test
    // binary has no other test that could race with it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let port = rude_server().await;
    let policy = NetConfig::new().pin("rude.test", IpAddr::V4(Ipv4Addr::LOCALHOST)).unwrap().port(port);
    let mut cfg = ProxyConfig::new(policy).unwrap();
    // The test server is on loopback, which the proxy reaches only through this test seam.
    cfg.test_origins = vec![SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)];
    cfg.credential = None;
    let proxy = Proxy::new(cfg);
    let addr = proxy.listen_tcp("127.0.0.1:0".parse().unwrap()).await.unwrap();
    for _ in 0..3 {
        let mut s = tunnel(addr, port).await;
        // Push until the tunnel gives up; a proxy that splices would die of SIGPIPE here and
        // take this test process with it.
        let chunk = vec![7u8; 256 * 1024];
        let pushed = tokio::time::timeout(Duration::from_secs(20), async {
            for _ in 0..400 {
                if s.write_all(&chunk).await.is_err() {
                    return;
                }
            }
        })
        .await;
        assert!(pushed.is_ok(), "the tunnel neither carried nor refused the bytes");
    }
    // Still alive, and still serving.
    let _s = tunnel(addr, port).await;
}
