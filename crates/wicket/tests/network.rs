//! The network allowlist end to end: real clients (curl, Python, npm) inside `wicket run` (the
//! real binary, real bubblewrap) reach loopback servers only through wicket's proxy, and only
//! the hosts the settings allow. Servers run on the host's loopback; names are mapped to them
//! with the explicit-address setting (`network.addresses`), never by touching /etc/hosts. The
//! proxy never connects to this machine, so the stand-in's exact address and port are named to
//! the debug build's test seam (`WICKET_NET_TEST_ORIGINS`).
//!
//! Needs bwrap, curl, python3 and npm; missing ones fail the test (never skip).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test set-up: a failure is a broken test, not input.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::pty::{self, Spawn};

/// The line `wicket run` prints for each refusal (a documented contract).
const BLOCKED: &str = "wicket: blocked network access to ";

/// A test world: project root, home, wicket home, and the stand-in registry on loopback.
struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    wicket_home: PathBuf,
    hosts: PathBuf,
    registry: Child,
    log: PathBuf,
    port: u16,
}

impl World {
    /// A world whose user settings are `settings(port)`.
    fn new(settings: impl Fn(u16) -> serde_json::Value) -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("proj");
        let home = tmp.path().join("home");
        let wicket_home = tmp.path().join("wicket-home");
        for d in [&root, &home.join(".npm"), &wicket_home] {
            std::fs::create_dir_all(d).unwrap();
        }
        let port_file = tmp.path().join("port");
        let log = tmp.path().join("registry.log");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/net/npm_registry.py");
        let registry = Command::new("python3")
            .arg(&script)
            .arg(&port_file)
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs the stand-in registry");
        let start = Instant::now();
        let port = loop {
            if let Ok(p) = std::fs::read_to_string(&port_file) {
                break p.trim().parse::<u16>().unwrap();
            }
            assert!(start.elapsed() < Duration::from_secs(20), "the stand-in registry did not start");
            std::thread::sleep(Duration::from_millis(20));
        };
        std::fs::write(wicket_home.join("settings.json"), settings(port).to_string()).unwrap();
        // Names the proxy's resolver answers (debug builds): as a DNS answer would, so the
        // answers are checked, not trusted.
        let hosts = tmp.path().join("hosts");
        std::fs::write(&hosts, "127.0.0.1 rebind.test\n10.1.2.3 private.test\n").unwrap();
        World { _tmp: tmp, root, home, wicket_home, hosts, registry, log, port }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_wicket"));
        c.args(args)
            .env("HOME", &self.home)
            .env("WICKET_HOME", &self.wicket_home)
            .env("WICKET_NET_HOSTS", &self.hosts)
            .env("WICKET_NET_TEST_ORIGINS", format!("127.0.0.1:{}", self.port))
            .env_remove("WICKET_SANDBOX_BACKEND")
            .current_dir(&self.root)
            .stdin(Stdio::null());
        c
    }

    /// `wicket run --unattended -- sh -c SCRIPT` (`{port}` replaced by the registry's port).
    fn sh(&self, script: &str) -> Output {
        let script = script.replace("{port}", &self.port.to_string());
        self.command(&["run", "--unattended", "--timeout", "60", "--", "sh", "-c", &script]).output().unwrap()
    }

    /// Every line of the audit logs.
    fn audit(&self) -> String {
        let mut text = String::new();
        let mut dirs = vec![self.wicket_home.join("audit")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                if e.path().is_dir() {
                    dirs.push(e.path());
                } else {
                    text.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
                }
            }
        }
        text
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.registry.kill();
        let _ = self.registry.wait();
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim().to_string()
}

/// The settings of the client cases: `registry.test` pinned to loopback (the test origin),
/// `rebind.test` listed but resolving to loopback without a pin, `mapped-loop.test` pinned to the
/// IPv4-mapped spelling of the same server's address (this machine, not the test origin), the
/// registry's port opened.
fn client_settings(port: u16) -> serde_json::Value {
    serde_json::json!({
        "network": {
            "allow": ["npm", "rebind.test"],
            "ports": [port],
            "addresses": { "registry.test": ["127.0.0.1"], "mapped-loop.test": ["::ffff:127.0.0.1"] }
        }
    })
}

/// One client case: a shell script run inside the sandbox, what it must print, and the
/// refusal that must be listed (and recorded) for it.
struct Case {
    name: &'static str,
    script: &'static str,
    stdout: &'static str,
    blocked: Option<&'static str>,
}

const CURL: &str = "curl -sS -o /dev/null -w '%{http_code}'";

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    vec![
        Case { name: "curl_plain_allowed", script: "$CURL http://registry.test:{port}/wicket-demo", stdout: "200", blocked: None },
        Case { name: "curl_connect_allowed", script: "$CURL --proxytunnel http://registry.test:{port}/wicket-demo", stdout: "200", blocked: None },
        Case { name: "curl_socks5_allowed", script: "$CURL --socks5-hostname \"${ALL_PROXY#http://}\" http://registry.test:{port}/wicket-demo", stdout: "200", blocked: None },
        Case { name: "python_allowed", script: "python3 -c \"import urllib.request as u; print(u.urlopen('http://registry.test:{port}/wicket-demo').status)\"", stdout: "200", blocked: None },
        Case { name: "curl_unlisted", script: "$CURL http://unlisted.example.org:{port}/", stdout: "403", blocked: Some("unlisted.example.org:{port}: unlisted.example.org is not in network.allow and nobody can be asked") },
        Case { name: "curl_connect_unlisted", script: "curl -sS -o /dev/null -w '%{http_connect}' --proxytunnel http://tunnel.example.org:{port}/ || true", stdout: "403", blocked: Some("tunnel.example.org:{port}") },
        Case { name: "curl_socks5_unlisted", script: "$CURL --socks5-hostname \"${ALL_PROXY#http://}\" http://socks.example.org:{port}/ || true", stdout: "000", blocked: Some("socks.example.org:{port}") },
        Case { name: "python_unlisted", script: "python3 -c \"import urllib.request as u, urllib.error as e\ntry: u.urlopen('http://py.example.org:{port}/')\nexcept e.HTTPError as x: print(x.code)\"", stdout: "403", blocked: Some("py.example.org:{port}") },
        Case { name: "curl_ip_literal", script: "$CURL --noproxy '' http://127.0.0.1:{port}/wicket-demo", stdout: "403", blocked: Some("127.0.0.1:{port}: 127.0.0.1 is an IP address") },
        Case { name: "curl_ip_literal_socks5", script: "$CURL --noproxy '' --socks5 \"${ALL_PROXY#http://}\" http://127.0.0.1:{port}/wicket-demo || true", stdout: "000", blocked: Some("127.0.0.1:{port}") },
        Case { name: "curl_localhost_name", script: "$CURL --noproxy '' http://localhost:{port}/wicket-demo", stdout: "403", blocked: Some("localhost:{port}") },
        Case { name: "curl_listed_name_resolving_to_loopback", script: "$CURL http://rebind.test:{port}/wicket-demo", stdout: "403", blocked: Some("rebind.test:{port}: rebind.test resolved to 127.0.0.1") },
        // A name the person pinned to this machine: the proxy never connects there.
        Case { name: "curl_pinned_to_this_machine", script: "$CURL http://mapped-loop.test:{port}/wicket-demo", stdout: "403", blocked: Some("mapped-loop.test:{port}: mapped-loop.test is pinned to ::ffff:127.0.0.1, a loopback address of this machine; the proxy never connects to this machine") },
        Case { name: "curl_connect_pinned_to_this_machine", script: "curl -sS -o /dev/null -w '%{http_connect}' --proxytunnel http://mapped-loop.test:{port}/wicket-demo || true", stdout: "403", blocked: Some("mapped-loop.test:{port}: mapped-loop.test is pinned to ::ffff:127.0.0.1") },
        Case { name: "curl_socks5_pinned_to_this_machine", script: "$CURL --socks5-hostname \"${ALL_PROXY#http://}\" http://mapped-loop.test:{port}/wicket-demo || true", stdout: "000", blocked: Some("mapped-loop.test:{port}: mapped-loop.test is pinned to ::ffff:127.0.0.1") },
        Case { name: "curl_port_not_opened", script: "$CURL http://registry.test:81/ || true", stdout: "403", blocked: Some("registry.test:81: port 81") },
        Case { name: "curl_direct_by_ip", script: "curl -sS -m 5 --noproxy '*' -o /dev/null -w '%{http_code}' http://127.0.0.1:{port}/wicket-demo || true", stdout: "000", blocked: None },
        Case { name: "python_direct_by_ip", script: "python3 -c \"import socket\ntry: socket.create_connection(('127.0.0.1', {port}), timeout=5); print('ESCAPED')\nexcept OSError as e: print('BLOCKED')\"", stdout: "BLOCKED", blocked: None },
        Case { name: "python_udp_out", script: "python3 -c \"import socket\ntry: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('192.0.2.1', 53)); print('ESCAPED')\nexcept OSError as e: print('BLOCKED')\"", stdout: "BLOCKED", blocked: None },
        Case { name: "python_raw_socket", script: "python3 -c \"import socket\ntry: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); print('ESCAPED')\nexcept OSError as e: print('BLOCKED')\"", stdout: "BLOCKED", blocked: None },
        Case { name: "python_listen_elsewhere", script: "python3 -c \"import socket\ntry: socket.create_server(('127.0.0.1', 0)); print('ESCAPED')\nexcept OSError as e: print('BLOCKED')\"", stdout: "BLOCKED", blocked: None },
        Case { name: "python_own_unix_socket", script: "python3 -c \"import socket\ntry: socket.socket(socket.AF_UNIX); print('ESCAPED')\nexcept OSError as e: print('BLOCKED')\"", stdout: "BLOCKED", blocked: None },
    ]
}

#[test]
fn clients_in_the_sandbox_reach_only_allowed_hosts_through_the_proxy() {
    let w = World::new(client_settings);
    let port = w.port.to_string();
    let mut failures = Vec::new();
    for c in cases() {
        let out = w.sh(&c.script.replace("$CURL", CURL));
        let stdout = text(&out.stdout);
        let stderr = text(&out.stderr);
        if stdout != c.stdout {
            failures.push(format!("{}: printed {stdout:?}, wanted {:?} (stderr: {stderr})", c.name, c.stdout));
        }
        let listed: Vec<&str> = stderr.lines().filter(|l| l.starts_with(BLOCKED)).collect();
        match c.blocked {
            Some(b) => {
                let b = b.replace("{port}", &port);
                if !listed.iter().any(|l| l.contains(&b)) {
                    failures.push(format!("{}: no blocked line with {b:?} (stderr: {stderr})", c.name));
                }
                let host = b.split(':').next().unwrap();
                if !w.audit().contains(&format!("\"{host}:{port}\"")) && !w.audit().contains(host) {
                    failures.push(format!("{}: {host} is not in the audit log", c.name));
                }
            }
            None if !listed.is_empty() => failures.push(format!("{}: unexpected refusals {listed:?}", c.name)),
            None => {}
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    // Controls: outside the sandbox the same server answers directly by IP, so the refusals
    // above are the sandbox's and the proxy's doing.
    let direct = Command::new("curl")
        .args(["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--noproxy", "*"])
        .arg(format!("http://127.0.0.1:{port}/wicket-demo"))
        .output()
        .unwrap();
    assert_eq!(text(&direct.stdout), "200", "control: the registry answers outside the sandbox");
}

#[test]
fn a_refusal_is_recorded_in_the_audit_log() {
    let w = World::new(client_settings);
    let out = w.sh("curl -sS -o /dev/null http://audited.example.org:{port}/");
    assert!(text(&out.stderr).contains("audited.example.org"), "{}", text(&out.stderr));
    let audit = w.audit();
    let line = audit
        .lines()
        .find(|l| l.contains("\"tool\":\"network\"") && l.contains("audited.example.org"))
        .unwrap_or_else(|| panic!("the refusal is in the audit log:\n{audit}"));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert!(v["kind"].as_str().unwrap().starts_with("deny"), "{line}");
    assert!(v["reason"].as_str().unwrap().contains("not in network.allow"), "{line}");
}

#[test]
fn strict_allowlist_denies_without_asking() {
    let w = World::new(client_settings);
    std::fs::write(w.wicket_home.join("policy.json"), r#"{"network": {"strictAllowlist": true}}"#).unwrap();
    let out = w.sh("curl -sS -o /dev/null -w '%{http_code}' http://strict.example.org:{port}/");
    assert_eq!(text(&out.stdout), "403");
    assert!(text(&out.stderr).contains("strictAllowlist"), "{}", text(&out.stderr));
}

#[test]
fn team_blocked_hosts_beat_the_explicit_address() {
    let w = World::new(client_settings);
    std::fs::write(w.wicket_home.join("policy.json"), r#"{"network": {"blockedHosts": ["REGISTRY.test."]}}"#).unwrap();
    let out = w.sh("curl -sS -o /dev/null -w '%{http_code}' http://registry.test:{port}/wicket-demo");
    assert_eq!(text(&out.stdout), "403");
    assert!(text(&out.stderr).contains("blockedHosts"), "{}", text(&out.stderr));
}

#[test]
fn a_broken_network_entry_is_an_error_naming_the_file() {
    let w = World::new(|_| serde_json::json!({ "network": { "allow": ["npmm"] } }));
    let out = w.sh("true");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("settings.json") && err.contains("npmm") && err.contains("presets"), "{err}");
}

#[test]
fn the_landlock_fallback_gives_no_network_with_a_notice() {
    let w = World::new(client_settings);
    let out = w
        .command(&["run", "--unattended", "--", "sh", "-c"])
        .arg(format!(
            "curl -sS -m 5 -o /dev/null -w '%{{http_code}}' http://registry.test:{}/wicket-demo || true",
            w.port
        ))
        .env("WICKET_SANDBOX_BACKEND", "landlock")
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "000", "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("network.allow is not served"), "{}", text(&out.stderr));
}

/// The issue's "done when": with `network.allow: ["npm"]`, `npm install` reaches the npm
/// registry (a local stand-in that `registry.npmjs.org` is pinned to) and nothing else.
#[test]
fn npm_install_reaches_only_the_npm_registry() {
    let w = World::new(|port| {
        serde_json::json!({
            "network": {
                "allow": ["npm"],
                "ports": [port],
                "addresses": { "registry.npmjs.org": ["127.0.0.1"] }
            }
        })
    });
    let npm = "npm install --registry http://registry.npmjs.org:{port}/ --no-audit --no-fund --no-update-notifier --fetch-retries=0";
    let out = w.sh(&format!("{npm} wicket-demo && node -e \"console.log(require('wicket-demo'))\""));
    assert!(out.status.success(), "npm install failed: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("hello from wicket-demo"), "{}", text(&out.stdout));
    // A package whose tarball lives on another host: the proxy refuses it, npm fails, and the
    // host is listed.
    let out = w.sh(&format!("{npm} wicket-exfil"));
    assert!(!out.status.success(), "npm install of wicket-exfil should fail");
    let err = text(&out.stderr);
    assert!(err.contains(&format!("{BLOCKED}evil.example.net:{}", w.port)), "{err}");
    assert!(!w.root.join("node_modules/wicket-exfil").exists());
    // The registry saw only requests for the allowed name.
    let log = std::fs::read_to_string(&w.log).unwrap();
    assert!(log.lines().count() >= 3, "{log}");
    for l in log.lines() {
        assert!(l.starts_with(&format!("GET registry.npmjs.org:{} ", w.port)), "unexpected request: {l}");
    }
}

/// Item 3: an unlisted host asks the person at the terminal (a real pty). "s" allows it for the
/// rest of the run (the second request is not asked about), "n" refuses another host, and both
/// answers are in the audit log.
#[test]
fn an_unlisted_host_asks_the_person_and_a_session_answer_holds() {
    let w = World::new(client_settings);
    let port = w.port;
    let script = format!(
        "for h in asked.example.org asked.example.org other.example.org; do \
         curl -sS -o /dev/null -w \"$h %{{http_code}}\\n\" http://$h:{port}/wicket-demo; done"
    );
    // The asked names resolve (through the test's table) to a TEST-NET address: a host the
    // person allows is connected to like any public host, and nothing answers there (502). A
    // loopback answer would be refused after the "yes", since only pinned names reach it.
    std::fs::write(&w.hosts, "192.0.2.1 asked.example.org other.example.org\n").unwrap();
    let mut cmd = w.command(&["run", "--timeout", "60", "--", "sh", "-c", &script]);
    cmd.env("TERM", "dumb");
    let child = pty::spawn(cmd, Spawn::default());
    let prompt = "[n] deny (default) > ";
    let screen = child.wait_for(prompt, 1);
    assert!(screen.contains("asked.example.org"), "{screen}");
    child.type_keys(b"s\n");
    let screen = child.wait_for(prompt, 2);
    assert!(screen.contains("other.example.org"), "{screen}");
    child.type_keys(b"n\n");
    let (out, screen) = child.finish();
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    // Two questions in all: the second request to asked.example.org was not asked about.
    assert_eq!(screen.matches(prompt).count(), 2, "{screen}");
    // The allowed host was connected to (its TEST-NET address does not answer: 502), the
    // refused one was not (403).
    let codes: Vec<&str> = stdout.lines().collect();
    assert_eq!(codes, ["asked.example.org 502", "asked.example.org 502", "other.example.org 403"], "{stderr}");
    assert!(stderr.contains(&format!("{BLOCKED}other.example.org:{port}")), "{stderr}");
    let audit = w.audit();
    assert!(audit.contains("the person allowed asked.example.org"), "{audit}");
    assert!(audit.contains("other.example.org") && audit.contains("the approver denied it"), "{audit}");
}

/// A small HTTP origin on the host's loopback for `wicket fetch`: `/hello`, `/headers` (echoes
/// the request head), `/redirect?to=URL`, `/relative` (to `/hello`), `/loop`, `/big` (2 MB).
fn fetch_origin() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            std::thread::spawn(move || answer(&mut s));
        }
    });
    port
}

/// Read one request head from `s` and answer it (the routes of [`fetch_origin`]).
fn answer(s: &mut (impl std::io::Read + std::io::Write)) {
    let mut head = Vec::new();
    let mut b = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut b) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&b[..n]),
        }
        // Not HTTP (a TLS ClientHello to the plain origin): answer as web servers do.
        if !head[0].is_ascii_uppercase() {
            let _ = s.write_all(b"HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
            return;
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let (status, extra, body) = if path == "/hello" {
        ("200 OK", String::new(), b"hello".to_vec())
    } else if path == "/headers" {
        ("200 OK", String::new(), head.clone().into_bytes())
    } else if let Some(to) = path.strip_prefix("/redirect?to=") {
        ("302 Found", format!("Location: {to}\r\n"), Vec::new())
    } else if path == "/relative" {
        ("301 Moved Permanently", "Location: /hello\r\n".to_string(), Vec::new())
    } else if path == "/loop" {
        ("302 Found", "Location: /loop\r\n".to_string(), Vec::new())
    } else if path == "/big" {
        ("200 OK", String::new(), vec![b'x'; 2_000_000])
    } else {
        ("404 Not Found", String::new(), b"no".to_vec())
    };
    let resp = format!("HTTP/1.0 {status}\r\n{extra}Content-Length: {}\r\n\r\n", body.len());
    let _ = s.write_all(resp.as_bytes());
    let _ = s.write_all(&body);
}

/// One `wicket fetch` case: the URL (`{o}`: this origin's port), extra flags, the exit status,
/// and text that stdout and stderr must (or must not) contain.
struct FetchCase {
    name: &'static str,
    url: &'static str,
    flags: &'static [&'static str],
    code: i32,
    stdout: &'static str,
    stderr: &'static str,
    not_stdout: &'static str,
}

#[rustfmt::skip]
const FETCH_CASES: &[FetchCase] = &[
    FetchCase { name: "allowed", url: "http://origin.test:{o}/hello", flags: &[], code: 0, stdout: "hello", stderr: "", not_stdout: "" },
    FetchCase { name: "credentials_to_the_origin", url: "http://origin.test:{o}/headers", flags: &["--header", "Authorization: Bearer s3cret"], code: 0, stdout: "Bearer s3cret", stderr: "", not_stdout: "" },
    FetchCase { name: "credentials_not_across_hosts", url: "http://origin.test:{o}/redirect?to=http://other.test:{o}/headers", flags: &["--header", "Authorization: Bearer s3cret"], code: 0, stdout: "Host: other.test", stderr: "followed a redirect to http://other.test", not_stdout: "s3cret" },
    FetchCase { name: "relative_redirect", url: "http://origin.test:{o}/relative", flags: &[], code: 0, stdout: "hello", stderr: "followed a redirect", not_stdout: "" },
    FetchCase { name: "redirect_to_ip_literal", url: "http://origin.test:{o}/redirect?to=http://127.0.0.1:{o}/hello", flags: &[], code: 126, stdout: "", stderr: "127.0.0.1 is an IP address", not_stdout: "hello" },
    FetchCase { name: "redirect_to_private_address", url: "http://origin.test:{o}/redirect?to=http://private.test:{o}/hello", flags: &[], code: 126, stdout: "", stderr: "private.test resolved to 10.1.2.3", not_stdout: "hello" },
    FetchCase { name: "redirect_to_metadata", url: "http://origin.test:{o}/redirect?to=http://169.254.169.254/latest/meta-data/", flags: &[], code: 126, stdout: "", stderr: "refused", not_stdout: "" },
    FetchCase { name: "redirect_to_unlisted_host", url: "http://origin.test:{o}/redirect?to=http://unlisted.example.org:{o}/hello", flags: &[], code: 126, stdout: "", stderr: "unlisted.example.org", not_stdout: "hello" },
    FetchCase { name: "listed_name_resolving_to_loopback", url: "http://rebind.test:{o}/hello", flags: &[], code: 126, stdout: "", stderr: "rebind.test resolved to 127.0.0.1", not_stdout: "hello" },
    FetchCase { name: "redirect_loop", url: "http://origin.test:{o}/loop", flags: &[], code: 1, stdout: "", stderr: "more than 5 redirects", not_stdout: "" },
    FetchCase { name: "size_cap", url: "http://origin.test:{o}/big", flags: &["--max-bytes", "10000"], code: 1, stdout: "", stderr: "larger than 10000 bytes", not_stdout: "xxx" },
    FetchCase { name: "unlisted_first_url", url: "http://unlisted.example.org:{o}/hello", flags: &[], code: 126, stdout: "", stderr: "unlisted.example.org", not_stdout: "" },
    FetchCase { name: "userinfo", url: "http://user:pw@origin.test:{o}/hello", flags: &[], code: 126, stdout: "", stderr: "refused", not_stdout: "pw" },
];

/// Item 5: `wicket fetch` decides every hop (engine rules, network policy, address checks).
#[test]
fn fetch_decides_every_hop() {
    let o = fetch_origin();
    let w = World::new(move |_| {
        serde_json::json!({
            "permissions": { "allow": ["web_fetch(origin.test)", "web_fetch(other.test)", "web_fetch(private.test)", "web_fetch(rebind.test)"] },
            "network": {
                "allow": ["rebind.test"],
                "ports": [o],
                "addresses": { "origin.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] }
            }
        })
    });
    let mut failures = Vec::new();
    for c in FETCH_CASES {
        let url = c.url.replace("{o}", &o.to_string());
        let out = w.command(&["fetch", "--unattended"]).args(c.flags).arg(&url).output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), text(&out.stderr));
        let ok = out.status.code() == Some(c.code)
            && stdout.contains(c.stdout)
            && stderr.contains(c.stderr)
            && (c.not_stdout.is_empty() || !stdout.contains(c.not_stdout));
        if !ok {
            let shown: String = stdout.chars().take(300).collect();
            failures.push(format!("{}: exit {:?}, stdout {shown:?}, stderr {stderr}", c.name, out.status.code()));
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    // Every refusal and allow is in the audit log as a web_fetch decision.
    let audit = w.audit();
    assert!(audit.contains("\"tool\":\"web_fetch\"") && audit.contains("unlisted.example.org"), "{audit}");
}

/// A test certificate authority (made fresh for each run, trusted only through `--cacert`).
struct TestCa {
    issuer: rcgen::CertifiedIssuer<'static, rcgen::KeyPair>,
}

impl TestCa {
    fn new(name: &str) -> TestCa {
        let mut p = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        p.distinguished_name.push(rcgen::DnType::CommonName, name);
        p.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::DigitalSignature];
        TestCa { issuer: rcgen::CertifiedIssuer::self_signed(p, rcgen::KeyPair::generate().unwrap()).unwrap() }
    }

    /// A server certificate for `names`, expired when `expired`, and its key.
    fn leaf(
        &self,
        names: &[&str],
        expired: bool,
    ) -> (Vec<rustls::pki_types::CertificateDer<'static>>, rustls::pki_types::PrivateKeyDer<'static>) {
        let mut p = rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        if expired {
            p.not_before = rcgen::date_time_ymd(2020, 1, 1);
            p.not_after = rcgen::date_time_ymd(2021, 1, 1);
        }
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = p.signed_by(&key, &self.issuer).unwrap();
        let key = rustls::pki_types::PrivatePkcs8KeyDer::from(key.serialize_der()).into();
        (vec![cert.der().clone()], key)
    }
}

/// An HTTPS origin on loopback (rustls server, the routes of [`fetch_origin`]) presenting `cert`.
fn tls_origin(
    (chain, key): (Vec<rustls::pki_types::CertificateDer<'static>>, rustls::pki_types::PrivateKeyDer<'static>),
) -> u16 {
    use std::io::Write;
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    let config = std::sync::Arc::new(config);
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || {
                let conn = rustls::ServerConnection::new(config).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, s);
                answer(&mut tls);
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    port
}

/// `wicket fetch` over https (`{o}` the plain origin, `{s}` the TLS origin with a certificate
/// for secure.test and other.test, `{w}` one whose certificate names someone else, `{e}` one
/// with an expired certificate; `{ca}` the test CA's PEM file, `{bad}` a file with no PEM).
#[rustfmt::skip]
const HTTPS_CASES: &[FetchCase] = &[
    FetchCase { name: "https_allowed_with_cacert", url: "https://secure.test:{s}/hello", flags: &["--cacert", "{ca}"], code: 0, stdout: "hello", stderr: "", not_stdout: "" },
    FetchCase { name: "unknown_issuer_without_cacert", url: "https://secure.test:{s}/hello", flags: &[], code: 126, stdout: "", stderr: "certificate of secure.test is not trusted: it was issued by an unknown authority", not_stdout: "hello" },
    FetchCase { name: "certificate_for_another_name", url: "https://wrongname.test:{w}/hello", flags: &["--cacert", "{ca}"], code: 126, stdout: "", stderr: "is not valid for the name wrongname.test", not_stdout: "hello" },
    FetchCase { name: "expired_certificate", url: "https://expired.test:{e}/hello", flags: &["--cacert", "{ca}"], code: 126, stdout: "", stderr: "certificate of expired.test has expired", not_stdout: "hello" },
    FetchCase { name: "credentials_to_the_origin", url: "https://secure.test:{s}/headers", flags: &["--cacert", "{ca}", "--header", "Authorization: Bearer s3cret"], code: 0, stdout: "Bearer s3cret", stderr: "", not_stdout: "" },
    FetchCase { name: "credentials_not_across_hosts", url: "https://secure.test:{s}/redirect?to=https://other.test:{s}/headers", flags: &["--cacert", "{ca}", "--header", "Authorization: Bearer s3cret"], code: 0, stdout: "Host: other.test", stderr: "followed a redirect to https://other.test", not_stdout: "s3cret" },
    FetchCase { name: "relative_redirect", url: "https://secure.test:{s}/relative", flags: &["--cacert", "{ca}"], code: 0, stdout: "hello", stderr: "followed a redirect to https://secure.test", not_stdout: "" },
    FetchCase { name: "redirect_https_to_http", url: "https://secure.test:{s}/redirect?to=http://origin.test:{o}/hello", flags: &["--cacert", "{ca}"], code: 126, stdout: "", stderr: "from https to plain http", not_stdout: "hello" },
    FetchCase { name: "redirect_http_to_https", url: "http://origin.test:{o}/redirect?to=https://secure.test:{s}/hello", flags: &["--cacert", "{ca}"], code: 0, stdout: "hello", stderr: "followed a redirect to https://secure.test", not_stdout: "" },
    FetchCase { name: "redirect_to_private_address", url: "https://secure.test:{s}/redirect?to=https://private.test:{s}/hello", flags: &["--cacert", "{ca}"], code: 126, stdout: "", stderr: "private.test resolved to 10.1.2.3", not_stdout: "hello" },
    FetchCase { name: "redirect_to_ip_literal", url: "https://secure.test:{s}/redirect?to=https://127.0.0.1:{s}/hello", flags: &["--cacert", "{ca}"], code: 126, stdout: "", stderr: "127.0.0.1 is an IP address", not_stdout: "hello" },
    FetchCase { name: "ip_literal_first_url", url: "https://127.0.0.1:{s}/hello", flags: &["--cacert", "{ca}"], code: 126, stdout: "", stderr: "127.0.0.1 is an IP address", not_stdout: "hello" },
    FetchCase { name: "listed_name_resolving_to_loopback", url: "https://rebind.test:{s}/hello", flags: &["--cacert", "{ca}"], code: 126, stdout: "", stderr: "rebind.test resolved to 127.0.0.1", not_stdout: "hello" },
    FetchCase { name: "https_to_a_plain_http_server", url: "https://origin.test:{o}/hello", flags: &["--cacert", "{ca}"], code: 1, stdout: "", stderr: "TLS handshake with origin.test failed", not_stdout: "hello" },
    FetchCase { name: "cacert_not_pem", url: "https://secure.test:{s}/hello", flags: &["--cacert", "{bad}"], code: 2, stdout: "", stderr: "no `BEGIN CERTIFICATE` block", not_stdout: "hello" },
    FetchCase { name: "cacert_missing", url: "https://secure.test:{s}/hello", flags: &["--cacert", "{bad}.missing"], code: 2, stdout: "", stderr: "cannot read --cacert", not_stdout: "hello" },
];

/// Item 5 over TLS: the checked address is connected to, the URL's name is verified against
/// the certificate, redirects never downgrade, and every hop is still decided.
#[test]
fn fetch_over_https() {
    let ca = TestCa::new("wicket test CA");
    let o = fetch_origin();
    let s = tls_origin(ca.leaf(&["secure.test", "other.test", "private.test", "rebind.test"], false));
    let wrong = tls_origin(ca.leaf(&["someone-else.test"], false));
    let e = tls_origin(ca.leaf(&["expired.test"], true));
    let w = World::new(move |_| {
        serde_json::json!({
            "permissions": { "allow": ["web_fetch(origin.test)", "web_fetch(secure.test)", "web_fetch(other.test)",
                "web_fetch(private.test)", "web_fetch(rebind.test)", "web_fetch(wrongname.test)", "web_fetch(expired.test)"] },
            "network": {
                "allow": ["rebind.test"],
                "ports": [o, s, wrong, e],
                "addresses": { "origin.test": ["127.0.0.1"], "secure.test": ["127.0.0.1"], "other.test": ["127.0.0.1"],
                    "wrongname.test": ["127.0.0.1"], "expired.test": ["127.0.0.1"] }
            }
        })
    });
    let ca_file = w.root.join("test-ca.pem");
    std::fs::write(&ca_file, ca.issuer.pem()).unwrap();
    let bad = w.root.join("not-a-cert.pem");
    std::fs::write(&bad, "hello\n").unwrap();
    let fill = |t: &str| {
        t.replace("{o}", &o.to_string())
            .replace("{s}", &s.to_string())
            .replace("{w}", &wrong.to_string())
            .replace("{e}", &e.to_string())
            .replace("{ca}", &ca_file.display().to_string())
            .replace("{bad}", &bad.display().to_string())
    };
    let mut failures = Vec::new();
    for c in HTTPS_CASES {
        let flags: Vec<String> = c.flags.iter().map(|f| fill(f)).collect();
        let out = w.command(&["fetch", "--unattended"]).args(&flags).arg(fill(c.url)).output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), text(&out.stderr));
        let ok = out.status.code() == Some(c.code)
            && stdout.contains(c.stdout)
            && stderr.contains(c.stderr)
            && (c.not_stdout.is_empty() || !stdout.contains(c.not_stdout));
        if !ok {
            let shown: String = stdout.chars().take(300).collect();
            failures.push(format!("{}: exit {:?}, stdout {shown:?}, stderr {stderr}", c.name, out.status.code()));
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}
