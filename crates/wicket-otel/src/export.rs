//! Sending lines to the collector with the maintained OTLP exporter.
//!
//! The hard question: how does wicket know which lines the collector has? Only by its
//! answer to each request, so the exporter is driven one batch at a time (the SDK's own
//! batch processor does not say which records a failed export held), in the exporter
//! process's own small runtime; the SDK's retries are off because the local chain is the
//! retry queue.

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry::logs::{Logger, LoggerProvider};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig, WithTonicConfig};
use opentelemetry_sdk::logs::{LogBatch, LogExporter, SdkLogRecord, SdkLogger, SdkLoggerProvider};
use opentelemetry_sdk::Resource;

use crate::chain::Line;
use crate::config::{ExportConfig, Protocol};
use crate::error::OtelError;

/// Who is exporting: the resource's host and user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    /// `host.name`.
    pub host: String,
    /// `user.name`.
    pub user: String,
}

impl Origin {
    /// This machine's host name and this process's user (`$USER`, else `$LOGNAME`, else the uid).
    pub fn here() -> Origin {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .map(|h| h.trim().to_string())
            .unwrap_or_default();
        let user = std::env::var("USER")
            .ok()
            .filter(|u| !u.is_empty())
            .or_else(|| std::env::var("LOGNAME").ok().filter(|u| !u.is_empty()))
            .unwrap_or_else(|| rustix::process::getuid().as_raw().to_string());
        Origin { host, user }
    }
}

/// The OTLP exporter and the runtime it runs on.
pub struct Exporter {
    inner: opentelemetry_otlp::LogExporter,
    runtime: tokio::runtime::Runtime,
    // Records are made by a logger of a provider without processors: the SDK makes records
    // only through a logger.
    _provider: SdkLoggerProvider,
    logger: SdkLogger,
    scope: InstrumentationScope,
    origin: Origin,
    resource_of: Option<String>,
    timeout: Duration,
}

impl std::fmt::Debug for Exporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter").field("origin", &self.origin).finish_non_exhaustive()
    }
}

impl Exporter {
    /// An exporter for `config`.
    pub fn new(config: &ExportConfig, origin: Origin) -> Result<Exporter, OtelError> {
        // rustls needs one crypto provider per process; ring is the one the workspace builds.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| OtelError::Setup(format!("cannot start the exporter's runtime: {e}")))?;
        let ca = match &config.certificate {
            Some(path) => Some(std::fs::read(path).map_err(|source| OtelError::Io { path: path.clone(), source })?),
            None => None,
        };
        let headers: HashMap<String, String> = config.headers.clone().into_iter().collect();
        let inner = {
            // tonic's channel is made inside the runtime.
            let _in = runtime.enter();
            match config.protocol {
                Protocol::Grpc => {
                    let mut tls = tonic::transport::ClientTlsConfig::new();
                    tls = match &ca {
                        Some(pem) => tls.ca_certificate(tonic::transport::Certificate::from_pem(pem)),
                        None => tls.with_native_roots(),
                    };
                    let mut metadata = tonic::metadata::MetadataMap::new();
                    for (k, v) in &headers {
                        let key = tonic::metadata::AsciiMetadataKey::from_bytes(k.as_bytes())
                            .map_err(|e| OtelError::Setup(format!("header {k:?}: {e}")))?;
                        let value = v.parse().map_err(|e| OtelError::Setup(format!("header {k:?}: {e}")))?;
                        metadata.insert(key, value);
                    }
                    let mut b = opentelemetry_otlp::LogExporter::builder()
                        .with_tonic()
                        .with_endpoint(config.endpoint.clone())
                        .with_timeout(config.timeout)
                        .with_metadata(metadata)
                        .with_retry_policy(opentelemetry_otlp::RetryPolicy::disabled());
                    if config.endpoint.starts_with("https://") {
                        b = b.with_tls_config(tls);
                    }
                    b.build()
                }
                Protocol::HttpProtobuf | Protocol::HttpJson => {
                    let mut client = reqwest::Client::builder().timeout(config.timeout).tls_backend_rustls();
                    if let Some(pem) = &ca {
                        let certs = reqwest::Certificate::from_pem_bundle(pem)
                            .map_err(|e| OtelError::Setup(format!("the CA file is not PEM: {e}")))?;
                        client = client.tls_certs_only(certs);
                    }
                    let client =
                        client.build().map_err(|e| OtelError::Setup(format!("cannot build the HTTP client: {e}")))?;
                    let protocol = if config.protocol == Protocol::HttpJson {
                        opentelemetry_otlp::Protocol::HttpJson
                    } else {
                        opentelemetry_otlp::Protocol::HttpBinary
                    };
                    opentelemetry_otlp::LogExporter::builder()
                        .with_http()
                        .with_http_client(client)
                        .with_protocol(protocol)
                        .with_endpoint(config.endpoint.clone())
                        .with_timeout(config.timeout)
                        .with_headers(headers)
                        .with_retry_policy(opentelemetry_otlp::RetryPolicy::disabled())
                        .build()
                }
            }
        }
        .map_err(|e| OtelError::Setup(e.to_string()))?;
        let provider = SdkLoggerProvider::builder().build();
        let scope = InstrumentationScope::builder("wicket").with_version(env!("CARGO_PKG_VERSION")).build();
        let logger = provider.logger_with_scope(scope.clone());
        Ok(Exporter {
            inner,
            runtime,
            _provider: provider,
            logger,
            scope,
            origin,
            resource_of: None,
            timeout: config.timeout,
        })
    }

    /// Send lines of one project's chain in one request; `Ok` only when the collector
    /// accepted it.
    pub fn send(&mut self, project: &str, lines: &[Line]) -> Result<(), OtelError> {
        if self.resource_of.as_deref() != Some(project) {
            let resource = Resource::builder_empty()
                .with_service_name("wicket")
                .with_attributes([
                    KeyValue::new("service.version", env!("CARGO_PKG_VERSION")),
                    KeyValue::new("host.name", self.origin.host.clone()),
                    KeyValue::new("user.name", self.origin.user.clone()),
                    KeyValue::new(crate::record::attr::PROJECT, project.to_string()),
                ])
                .build();
            self.inner.set_resource(&resource);
            self.resource_of = Some(project.to_string());
        }
        let records: Vec<SdkLogRecord> = lines
            .iter()
            .filter_map(|l| {
                let mut r = self.logger.create_log_record();
                crate::record::fill(&mut r, &l.raw, project).then_some(r)
            })
            .collect();
        let pairs: Vec<(&SdkLogRecord, &InstrumentationScope)> = records.iter().map(|r| (r, &self.scope)).collect();
        let export = self.inner.export(LogBatch::new(&pairs));
        // The exporter's own timeout bounds a request; this bounds everything else too.
        let limit = self.timeout + Duration::from_secs(1);
        match self.runtime.block_on(async { tokio::time::timeout(limit, export).await }) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(OtelError::Export(e.to_string())),
            Err(_) => Err(OtelError::Export(format!("no answer within {} ms", limit.as_millis()))),
        }
    }
}
