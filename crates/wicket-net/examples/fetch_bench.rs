//! Fetch-guard benchmark, loopback only: the latency of one `wicket_net::fetch` (decide, check,
//! connect, GET, read to close) over plain http and over https (a full TLS 1.3 handshake each
//! time: no session reuse), and the cost of building the TLS trust store. Run through
//! `bench/fetch.sh` (release build).
//!
//! `fetch_bench [fetches]` (default 1000 each way).

use std::error::Error;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use wicket_net::fetch::{fetch_with, Limits, Tls};
use wicket_net::{NetConfig, SystemResolver};

type Res<T> = Result<T, Box<dyn Error>>;

/// Read a request head and answer `hello`.
async fn answer<S: AsyncRead + AsyncWrite + Unpin>(s: &mut S) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut b = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = s.read(&mut b).await?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&b[..n]);
    }
    s.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello").await?;
    s.shutdown().await
}

/// A loopback origin; with `tls`, it speaks TLS with that server configuration.
async fn origin(tls: Option<Arc<rustls::ServerConfig>>) -> Res<u16> {
    let l = TcpListener::bind("127.0.0.1:0").await?;
    let port = l.local_addr()?.port();
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    tokio::spawn(async move {
        while let Ok((s, _)) = l.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let _ = s.set_nodelay(true);
                match acceptor {
                    Some(a) => {
                        if let Ok(mut t) = a.accept(s).await {
                            let _ = answer(&mut t).await;
                        }
                    }
                    None => {
                        let mut s = s;
                        let _ = answer(&mut s).await;
                    }
                }
            });
        }
    });
    Ok(port)
}

/// A fresh CA (PEM) and a server configuration with a certificate for `bench.test` it signed.
fn certificates() -> Res<(String, Arc<rustls::ServerConfig>)> {
    let mut p = rcgen::CertificateParams::new(Vec::<String>::new())?;
    p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    p.distinguished_name.push(rcgen::DnType::CommonName, "wicket bench CA");
    p.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::DigitalSignature];
    let ca = rcgen::CertifiedIssuer::self_signed(p, rcgen::KeyPair::generate()?)?;
    let key = rcgen::KeyPair::generate()?;
    let cert = rcgen::CertificateParams::new(vec!["bench.test".to_string()])?.signed_by(&key, &ca)?;
    let key = rustls::pki_types::PrivatePkcs8KeyDer::from(key.serialize_der()).into();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], key)?;
    Ok((ca.pem(), Arc::new(config)))
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    println!("{what:<44} median {:>7.3} ms   p90 {:>7.3} ms   (n = {})", at(0.5), at(0.9), times.len());
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Res<()> {
    let n: usize = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(1000);
    let (ca, server) = certificates()?;
    let plain = origin(None).await?;
    let secure = origin(Some(server)).await?;
    let net = NetConfig::new().pin("bench.test", IpAddr::V4(Ipv4Addr::LOCALHOST))?.port(plain).port(secure);
    let mut builds = Vec::new();
    for _ in 0..100 {
        let t = Instant::now();
        std::hint::black_box(Tls::with_pem_roots(&[("bench CA", ca.as_bytes())])?);
        builds.push(t.elapsed());
    }
    let tls = Tls::with_pem_roots(&[("bench CA", ca.as_bytes())])?;
    let limits = Limits::default();
    for (what, url) in [
        ("fetch http://  (decide, connect, GET, close)", format!("http://bench.test:{plain}/")),
        ("fetch https:// (+ TLS 1.3 handshake, verify)", format!("https://bench.test:{secure}/")),
    ] {
        let mut times = Vec::with_capacity(n);
        for i in 0..n + 20 {
            let t = Instant::now();
            let r = fetch_with(&url, &net, &SystemResolver, &mut |_| Ok(()), &[], &limits, &tls).await?;
            let took = t.elapsed();
            if r.status != 200 || r.body != b"hello" {
                return Err(format!("{url}: unexpected answer {}", r.status).into());
            }
            // The first 20 warm up the allocator and caches.
            if i >= 20 {
                times.push(took);
            }
        }
        report(what, times);
    }
    report("Tls::with_pem_roots (Mozilla's + 1 added)", builds);
    Ok(())
}
