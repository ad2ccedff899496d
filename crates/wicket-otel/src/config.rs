//! Where the logs go: the user's settings, filled in by the standard `OTEL_*` variables.
//!
//! The hard question: when is export on? Never by default, and never by accident of an
//! inherited environment alone: the settings' `enabled` decides when it is there (`false`
//! wins over every variable, so a person can keep an agent's own OTel variables from
//! reaching wicket); without it, `OTEL_LOGS_EXPORTER` must name `otlp`, and
//! `OTEL_SDK_DISABLED=true` turns it off. A value in the settings wins over its variable
//! (the OpenTelemetry rule: code before environment); a variable fills in what the settings
//! leave out.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::OtelError;

/// The OTLP transport and encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// OTLP over HTTP, protobuf bodies (`http/protobuf`, the default).
    HttpProtobuf,
    /// OTLP over HTTP, JSON bodies (`http/json`).
    HttpJson,
    /// OTLP over gRPC (`grpc`).
    Grpc,
}

impl Protocol {
    /// Parse the name the OpenTelemetry variables use.
    pub fn parse(s: &str) -> Option<Protocol> {
        match s.trim() {
            "http/protobuf" => Some(Protocol::HttpProtobuf),
            "http/json" => Some(Protocol::HttpJson),
            "grpc" => Some(Protocol::Grpc),
            _ => None,
        }
    }

    /// The name the OpenTelemetry variables use.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::HttpProtobuf => "http/protobuf",
            Protocol::HttpJson => "http/json",
            Protocol::Grpc => "grpc",
        }
    }

    fn default_endpoint(self) -> &'static str {
        match self {
            Protocol::Grpc => "http://localhost:4317",
            _ => "http://localhost:4318",
        }
    }
}

/// What the settings file says (`telemetry.otlp` in `$WICKET_HOME/settings.json`); every
/// field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportSettings {
    /// Export on (`true`) or off (`false`, whatever the variables say); `None`: the variables decide.
    pub enabled: Option<bool>,
    /// The collector's base URL (`/v1/logs` is added for HTTP unless the URL already ends
    /// with it), like `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub endpoint: Option<String>,
    /// `http/protobuf`, `http/json` or `grpc`.
    pub protocol: Option<String>,
    /// Headers sent with every request (e.g. an authorization token).
    pub headers: BTreeMap<String, String>,
    /// A PEM file of the CA certificate(s) to trust instead of the system's roots.
    pub certificate: Option<PathBuf>,
    /// How long one request may take, in milliseconds.
    pub timeout_ms: Option<u64>,
}

/// The resolved configuration of the exporter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportConfig {
    /// The transport.
    pub protocol: Protocol,
    /// The full URL requests go to (HTTP: ending in `/v1/logs`; gRPC: the server's URL).
    pub endpoint: String,
    /// Headers (HTTP) or metadata (gRPC).
    pub headers: BTreeMap<String, String>,
    /// A CA file to trust instead of the system's roots.
    pub certificate: Option<PathBuf>,
    /// How long one request may take.
    pub timeout: Duration,
}

/// The default time one request may take: 10 s, as in the OpenTelemetry specification.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Is export on, from the settings' `enabled` and the environment (`get` reads a variable)?
/// Cheap: no parsing beyond these two variables, for the hook's path.
pub fn enabled(settings_enabled: Option<bool>, get: impl Fn(&str) -> Option<String>) -> bool {
    if let Some(on) = settings_enabled {
        return on;
    }
    if get("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return false;
    }
    get("OTEL_LOGS_EXPORTER").is_some_and(|v| v.split(',').any(|e| e.trim() == "otlp"))
}

/// The configuration, or `None` when export is off. An unusable value (a protocol nobody
/// speaks, a timeout that is not a number, a header without `=`) is an error that names the
/// variable or setting and the fix.
pub fn resolve(
    settings: &ExportSettings,
    get: impl Fn(&str) -> Option<String>,
) -> Result<Option<ExportConfig>, OtelError> {
    if !enabled(settings.enabled, &get) {
        return Ok(None);
    }
    let var = |logs: &str, any: &str| -> Option<(String, String)> {
        get(logs)
            .filter(|v| !v.trim().is_empty())
            .map(|v| (logs.to_string(), v))
            .or_else(|| get(any).filter(|v| !v.trim().is_empty()).map(|v| (any.to_string(), v)))
    };
    let protocol = match (&settings.protocol, var("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")) {
        (Some(p), _) => Protocol::parse(p).ok_or_else(|| OtelError::Config {
            what: "telemetry.otlp.protocol".into(),
            why: format!("{p:?} is not a protocol: use \"http/protobuf\", \"http/json\" or \"grpc\""),
        })?,
        (None, Some((name, p))) => Protocol::parse(&p).ok_or_else(|| OtelError::Config {
            what: name,
            why: format!("{p:?} is not a protocol: use http/protobuf, http/json or grpc"),
        })?,
        (None, None) => Protocol::HttpProtobuf,
    };
    // A signal's own endpoint is used as it is; a base endpoint gets the signal's path.
    let (base, exact) = match &settings.endpoint {
        Some(e) => (e.clone(), false),
        None => match get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT").filter(|v| !v.trim().is_empty()) {
            Some(e) => (e, true),
            None => (
                get("OTEL_EXPORTER_OTLP_ENDPOINT")
                    .filter(|v| !v.trim().is_empty())
                    .unwrap_or_else(|| protocol.default_endpoint().to_string()),
                false,
            ),
        },
    };
    let base = base.trim().to_string();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(OtelError::Config {
            what: if settings.endpoint.is_some() {
                "telemetry.otlp.endpoint".into()
            } else {
                "OTEL_EXPORTER_OTLP_ENDPOINT".into()
            },
            why: format!("{base:?} is not an http:// or https:// URL (e.g. \"http://localhost:4318\")"),
        });
    }
    let endpoint = if protocol == Protocol::Grpc || exact || base.trim_end_matches('/').ends_with("/v1/logs") {
        base
    } else {
        format!("{}/v1/logs", base.trim_end_matches('/'))
    };
    let mut headers = BTreeMap::new();
    if let Some((name, text)) = var("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS") {
        for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
            let Some((k, v)) = pair.split_once('=') else {
                return Err(OtelError::Config {
                    what: name,
                    why: format!("{:?} is not key=value: write the headers as k1=v1,k2=v2", pair.trim()),
                });
            };
            headers.insert(percent_decode(k.trim()).to_ascii_lowercase(), percent_decode(v.trim()));
        }
    }
    for (k, v) in &settings.headers {
        headers.insert(k.to_ascii_lowercase(), v.clone());
    }
    let certificate = settings.certificate.clone().or_else(|| {
        var("OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE", "OTEL_EXPORTER_OTLP_CERTIFICATE").map(|(_, v)| PathBuf::from(v))
    });
    let timeout = match (settings.timeout_ms, var("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")) {
        (Some(ms), _) => Duration::from_millis(ms),
        (None, Some((name, v))) => Duration::from_millis(v.trim().parse::<u64>().map_err(|_| OtelError::Config {
            what: name,
            why: format!("{v:?} is not a whole number of milliseconds"),
        })?),
        (None, None) => DEFAULT_TIMEOUT,
    };
    Ok(Some(ExportConfig { protocol, endpoint, headers, certificate, timeout }))
}

/// `%XX` escapes decoded (the header variables are URL-encoded); a broken escape stays as it is.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn off_unless_asked() {
        let none = ExportSettings::default();
        assert_eq!(resolve(&none, env(&[])).ok(), Some(None));
        // An endpoint alone (set for another tool) does not switch wicket's export on.
        assert_eq!(resolve(&none, env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318")])).ok(), Some(None));
        assert!(enabled(None, env(&[("OTEL_LOGS_EXPORTER", "console,otlp")])));
        assert!(!enabled(None, env(&[("OTEL_LOGS_EXPORTER", "otlp"), ("OTEL_SDK_DISABLED", "true")])));
        assert!(!enabled(Some(false), env(&[("OTEL_LOGS_EXPORTER", "otlp")])), "the settings' false wins");
        assert!(enabled(Some(true), env(&[("OTEL_LOGS_EXPORTER", "none")])));
    }

    #[test]
    fn variables_fill_in_and_settings_win() {
        let on = ExportSettings { enabled: Some(true), ..ExportSettings::default() };
        let c = resolve(&on, env(&[])).ok().flatten();
        assert_eq!(c.as_ref().map(|c| c.endpoint.as_str()), Some("http://localhost:4318/v1/logs"));
        let vars = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://c.example:4318/"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20abc, x-team=a%3Db"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ]);
        let c = resolve(&on, &vars).ok().flatten();
        let Some(c) = c else { panic!("export should be on") };
        assert_eq!(c.endpoint, "https://c.example:4318/v1/logs");
        assert_eq!(c.protocol, Protocol::HttpJson);
        assert_eq!(c.headers.get("authorization").map(String::as_str), Some("Bearer abc"));
        assert_eq!(c.headers.get("x-team").map(String::as_str), Some("a=b"));
        assert_eq!(c.timeout, Duration::from_millis(2500));
        let logs = env(&[
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://c:9/custom"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://x"),
        ]);
        assert_eq!(resolve(&on, logs).ok().flatten().map(|c| c.endpoint), Some("http://c:9/custom".to_string()));
        let mine = ExportSettings {
            enabled: Some(true),
            endpoint: Some("http://mine:4317".into()),
            protocol: Some("grpc".into()),
            ..ExportSettings::default()
        };
        let c = resolve(&mine, &vars).ok().flatten();
        assert_eq!(c.map(|c| (c.endpoint, c.protocol)), Some(("http://mine:4317".to_string(), Protocol::Grpc)));
    }

    #[test]
    fn bad_values_name_their_source() {
        let on = ExportSettings { enabled: Some(true), ..ExportSettings::default() };
        let e =
            resolve(&on, env(&[("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "carrier-pigeon")])).err().map(|e| e.to_string());
        assert!(
            e.as_deref().is_some_and(|e| e.contains("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL") && e.contains("grpc")),
            "{e:?}"
        );
        let e = resolve(&on, env(&[("OTEL_EXPORTER_OTLP_TIMEOUT", "10s")])).err().map(|e| e.to_string());
        assert!(e.as_deref().is_some_and(|e| e.contains("OTEL_EXPORTER_OTLP_TIMEOUT")), "{e:?}");
        let e = resolve(&on, env(&[("OTEL_EXPORTER_OTLP_HEADERS", "novalue")])).err().map(|e| e.to_string());
        assert!(e.as_deref().is_some_and(|e| e.contains("k1=v1")), "{e:?}");
        let bad = ExportSettings { endpoint: Some("collector:4318".into()), ..on };
        let e = resolve(&bad, env(&[])).err().map(|e| e.to_string());
        assert!(e.as_deref().is_some_and(|e| e.contains("telemetry.otlp.endpoint")), "{e:?}");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
    }
}
