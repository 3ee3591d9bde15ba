//! A typed async client of the gateway (over plain HTTP, with reqwest).
//!
//! ```no_run
//! # async fn demo() -> Result<(), ota_gateway::client::ClientError> {
//! use ota_gateway::Client;
//! use ota_messages::runtime::Message;
//! use ota_messages::hotel_descriptive_info::OtaHotelDescriptiveInfoRq;
//!
//! let xml = std::fs::read_to_string("spec/samples/hotel_descriptive_info.xml").unwrap_or_default();
//! let rq = OtaHotelDescriptiveInfoRq::from_xml(&xml)?;
//! let rs = Client::new("http://127.0.0.1:8080").send(&rq).await?; // typed OtaHotelDescriptiveInfoRs
//! # let _ = rs; Ok(()) }
//! ```

use ota_messages::runtime::{DecodeError, EncodeError, Message, Request};
use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, HeaderMap};

/// A request could not be sent or its answer not read.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The request did not reach the gateway or the answer did not come back.
    #[error("transport: {0}")]
    Transport(#[from] reqwest::Error),
    /// The gateway answered with a status other than 200.
    #[error("HTTP {status}: {body}")]
    Status {
        /// The status.
        status: StatusCode,
        /// The answer's body (an OTA error answer, for operation paths).
        body: String,
    },
    /// The request could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The answer is not the operation's response message.
    #[error("the answer is not a valid response: {0}")]
    Decode(#[from] DecodeError),
}

/// A client of one gateway.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    /// A client of the gateway at `base_url` (e.g. `http://127.0.0.1:8080`; a trailing `/` is
    /// ignored).
    pub fn new(base_url: impl Into<String>) -> Self {
        let base = base_url.into().trim_end_matches('/').to_string();
        Client { http: reqwest::Client::new(), base }
    }

    /// A client of the gateway at `base_url` that sends with a reqwest client of the caller's
    /// (a local address, time-outs, a proxy, …).
    pub fn with_http(base_url: impl Into<String>, http: reqwest::Client) -> Self {
        let base = base_url.into().trim_end_matches('/').to_string();
        Client { http, base }
    }

    /// The gateway's base URL.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// Sends a request to its operation's path and decodes the typed response.
    pub async fn send<R: Request>(&self, rq: &R) -> Result<R::Response, ClientError> {
        let body = rq.to_xml()?;
        let (status, _, text) = self.send_raw(R::PATH, body, "application/xml").await?;
        if status != StatusCode::OK {
            return Err(ClientError::Status { status, body: text });
        }
        Ok(<R::Response as Message>::from_xml(&text)?)
    }

    /// Posts any body with any content type to `path`; returns the status, headers and body as
    /// they came (for tests and tools).
    pub async fn send_raw(
        &self,
        path: &str,
        body: impl Into<reqwest::Body>,
        content_type: &str,
    ) -> Result<(StatusCode, HeaderMap, String), ClientError> {
        let res = self
            .http
            .post(format!("{}{}", self.base, path))
            .header(CONTENT_TYPE, content_type)
            .body(body)
            .send()
            .await?;
        let status = res.status();
        let headers = res.headers().clone();
        let text = res.text().await?;
        Ok((status, headers, text))
    }

    /// The underlying reqwest client (for requests `send_raw` does not cover: other methods,
    /// custom headers).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }
}
