//! OpenTelemetry traces, off by default: with `serve --otlp-endpoint URL` every request is a
//! span (`request`, the W3C `traceparent` of the caller its parent), its operation a span within
//! it (`operation`, named by the request's root) and each database statement a span within that
//! (`db`, the statement's first words), exported in batches over OTLP/HTTP (protobuf, or JSON with
//! `--otlp-protocol http/json`) to a collector. The ids of the exported spans are the ones the
//! logs (`trace_id`) and the `traceresponse` header name.
//!
//! The exporter posts with the gateway's own HTTP client on the gateway's runtime; a collector
//! that is down or slow costs the requests nothing (the batch processor drops what it cannot
//! queue, 2,048 spans). A collector's answer is read up to 64 KiB, within the 10 s time-out; a
//! failed export (its spans lost) is said at WARN, at most once a minute with the count since.

use std::sync::OnceLock;
use std::time::Duration;

use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The provider of the running process, when the exporter is on.
static PROVIDER: OnceLock<SdkTracerProvider> = OnceLock::new();

/// How spans are written to the collector (`OTEL_EXPORTER_OTLP_PROTOCOL`'s names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OtlpProtocol {
    /// Protobuf over HTTP (`http/protobuf`), the collectors' default.
    #[default]
    #[value(name = "http/protobuf")]
    HttpProtobuf,
    /// JSON over HTTP (`http/json`).
    #[value(name = "http/json")]
    HttpJson,
}

/// The exporter's settings.
#[derive(Debug, Clone)]
pub struct Otlp {
    /// The collector's base URL (`http://collector:4318`) or its traces URL (`…/v1/traces`).
    pub endpoint: String,
    /// How spans are written.
    pub protocol: OtlpProtocol,
    /// The `service.name` of the spans.
    pub service_name: String,
}

/// The exporter's HTTP client: the gateway's reqwest, each post run on the gateway's runtime
/// (the batch processor calls it from a thread of its own).
#[derive(Debug, Clone)]
struct Http {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for Http {
    async fn send_bytes(
        &self,
        request: http::Request<bytes::Bytes>,
    ) -> Result<http::Response<bytes::Bytes>, opentelemetry_http::HttpError> {
        let client = self.client.clone();
        let post = async move {
            let (parts, body) = request.into_parts();
            let url = parts.uri.to_string();
            let mut rq = client.request(parts.method, url).body(body).timeout(Duration::from_secs(10));
            for (name, value) in &parts.headers {
                rq = rq.header(name, value);
            }
            let rs = rq.send().await?;
            let status = rs.status();
            let mut out = http::Response::builder().status(status);
            for (name, value) in rs.headers() {
                out = out.header(name, value);
            }
            let mut rs = rs;
            let too_large = || format!("the collector's answer is over {} KiB", MAX_ANSWER / 1024);
            if rs.content_length().is_some_and(|n| n > MAX_ANSWER as u64) {
                return Err(too_large().into());
            }
            let mut body = bytes::BytesMut::new();
            while let Some(chunk) = rs.chunk().await? {
                if body.len() + chunk.len() > MAX_ANSWER {
                    return Err(too_large().into());
                }
                body.extend_from_slice(&chunk);
            }
            let body = body.freeze();
            Ok::<_, opentelemetry_http::HttpError>(out.body(body)?)
        };
        let outcome = self.runtime.spawn(post).await?;
        match &outcome {
            Err(e) => lost(&e.to_string()),
            Ok(rs) if !rs.status().is_success() => lost(&format!("the collector answered HTTP {}", rs.status())),
            Ok(_) => {}
        }
        outcome
    }
}

/// The most of a collector's answer that is read (an OTLP answer is a few bytes; issue 28, H4:
/// answers of 256 MiB took the gateway from 77 to 702 MiB).
const MAX_ANSWER: usize = 64 * 1024;

/// How often at most a lost export is reported (a collector that is down fails every batch).
const LOST_EVERY: Duration = Duration::from_secs(60);

/// Exports failed since the last report, and when that was.
static LOST: std::sync::Mutex<(u64, Option<std::time::Instant>)> = std::sync::Mutex::new((0, None));

/// Counts a failed export (its spans are lost: the batch processor does not send a batch
/// again) and says so at WARN, at most once per [`LOST_EVERY`], with how many failed since.
fn lost(error: &str) {
    let Ok(mut lost) = LOST.lock() else { return };
    lost.0 += 1;
    if lost.1.is_none_or(|at| at.elapsed() >= LOST_EVERY) {
        let failed = std::mem::take(&mut lost.0);
        lost.1 = Some(std::time::Instant::now());
        drop(lost);
        tracing::warn!(
            failed_exports = failed,
            error = ?error,
            "spans are being lost: the OpenTelemetry collector did not take an export (reported at most once a minute)"
        );
    }
}

/// The tracing layer that turns the gateway's spans into OpenTelemetry spans, exported to the
/// collector; its provider is kept until [`shutdown`]. Call on the runtime.
pub fn layer<S>(
    settings: &Otlp,
) -> Result<tracing_opentelemetry::OpenTelemetryLayer<S, opentelemetry_sdk::trace::Tracer>, String>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    let base = settings.endpoint.trim_end_matches('/');
    let endpoint = if base.ends_with("/v1/traces") { base.to_string() } else { format!("{base}/v1/traces") };
    let protocol = match settings.protocol {
        OtlpProtocol::HttpProtobuf => Protocol::HttpBinary,
        OtlpProtocol::HttpJson => Protocol::HttpJson,
    };
    let http = Http {
        client: reqwest::Client::new(),
        runtime: tokio::runtime::Handle::try_current().map_err(|e| e.to_string())?,
    };
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(http)
        .with_endpoint(endpoint)
        .with_protocol(protocol)
        .with_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| e.to_string())?;
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(Resource::builder().with_service_name(settings.service_name.clone()).build())
        .build();
    let tracer = provider.tracer("ota-gateway");
    let _ = PROVIDER.set(provider);
    Ok(tracing_opentelemetry::layer().with_tracer(tracer))
}

/// True when spans are exported.
pub fn enabled() -> bool {
    PROVIDER.get().is_some()
}

/// Sends the spans not yet exported and stops the exporter (when the gateway stops).
pub fn shutdown() {
    if let Some(provider) = PROVIDER.get()
        && let Err(e) = provider.shutdown()
    {
        tracing::warn!(error = %e, "the OpenTelemetry exporter did not stop cleanly");
    }
}

/// Makes a request's span the child of the caller's span (its `traceparent`), and gives the
/// trace and span ids the exported span has (hex), for the logs and `traceresponse`; `None`
/// when nothing is exported.
pub fn continue_trace(span: &tracing::Span, caller: Option<(&str, &str, u8)>) -> Option<(String, String)> {
    if !enabled() {
        return None;
    }
    if let Some((trace_id, parent_id, flags)) = caller {
        let (Ok(trace_id), Ok(parent_id)) = (TraceId::from_hex(trace_id), SpanId::from_hex(parent_id)) else {
            return None;
        };
        let parent = SpanContext::new(trace_id, parent_id, TraceFlags::new(flags), true, TraceState::default());
        let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(parent));
    }
    let cx = span.context();
    let ours = cx.span().span_context().clone();
    ours.is_valid().then(|| (ours.trace_id().to_string(), ours.span_id().to_string()))
}
