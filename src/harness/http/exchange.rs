//! One HTTP exchange as the bridge records it: its request and headers, its
//! status line or why there is none, its body (bounded and cut), and the
//! small readers the other parts share.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use reqwest::{Method, Response, Url};
use serde_json::Value;
use sse_stream::SseStream;

use super::{MAX_BODY_TEXT, POST_ACCEPT};
use crate::evidence::http::{Carried, HttpStep, RECORDED_HEADERS};
use crate::harness::proxy::{MAX_LINE_BYTES, ProxyState};

/// Sends `request` of `exchange` once, within `limit`, and records its status
/// line, or why there is none (`no status line within 5 s`, then `context`).
pub(super) async fn send_once(
    state: &ProxyState,
    exchange: u32,
    request: reqwest::RequestBuilder,
    limit: Duration,
    context: &str,
) -> Option<Response> {
    let error = match tokio::time::timeout(limit, request.send()).await {
        Ok(Ok(response)) => {
            state.record_http(
                exchange,
                HttpStep::Response {
                    status: response.status().as_u16(),
                    headers: recorded(response.headers()),
                },
            );
            return Some(response);
        }
        Ok(Err(error)) => describe_error(&error),
        Err(_) => format!(
            "no status line within {}{context}",
            crate::format::seconds(limit)
        ),
    };
    state.record_http(exchange, HttpStep::Failed { error });
    None
}

/// Records the request of a new exchange (numbered after the last in
/// `exchanges`) to `url`, carrying the JSON-RPC message `carries` for a
/// POST; returns the exchange's number.
pub(super) fn record_request(
    state: &ProxyState,
    exchanges: &AtomicU32,
    url: &Url,
    method: &Method,
    headers: &HeaderMap,
    carries: Option<Carried>,
) -> u32 {
    let exchange = exchanges.fetch_add(1, Ordering::SeqCst) + 1;
    let path = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    state.record_http(
        exchange,
        HttpStep::Request {
            method: method.to_string(),
            path,
            headers: recorded(headers),
            carries,
        },
    );
    exchange
}

/// The headers of a POST of a JSON-RPC message under `session` and
/// `version` (each left out when none).
pub(super) fn json_headers(session: Option<&str>, version: Option<&str>) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        CONTENT_TYPE,
        "application/json".parse().expect("a header value"),
    );
    headers.insert(ACCEPT, POST_ACCEPT.parse().expect("a header value"));
    add_session(&mut headers, session, version);
    headers
}

/// Adds `Mcp-Session-Id: session` and `MCP-Protocol-Version: version`, each
/// when given and a valid header value.
pub(super) fn add_session(headers: &mut HeaderMap, session: Option<&str>, version: Option<&str>) {
    if let Some(id) = session.and_then(|id| id.parse().ok()) {
        headers.insert("mcp-session-id", id);
    }
    if let Some(version) = version.and_then(|version| version.parse().ok()) {
        headers.insert("mcp-protocol-version", version);
    }
}

/// Reads `response` until its first message: a whole body, or an event
/// stream's first event with data.
pub(super) async fn first_message(response: Response) {
    let event_stream = header(response.headers(), "content-type")
        .is_some_and(|kind| kind.trim_start().starts_with("text/event-stream"));
    if !event_stream {
        let _ = response.bytes().await;
        return;
    }
    let mut events = SseStream::from_bytes_stream(response.bytes_stream());
    while let Some(Ok(event)) = events.next().await {
        if event.data.is_some_and(|data| !data.trim().is_empty()) {
            return;
        }
    }
}

/// Locks a mutex, keeping what a panicking holder left.
pub(super) use crate::lock::lock;

/// Sets the negotiated version from an `initialize` result line, once.
pub(super) fn learn_version(version: &Mutex<Option<String>>, line: &str) {
    if let Ok(message) = serde_json::from_str::<Value>(line)
        && let Some(negotiated) = message
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
    {
        lock(version).get_or_insert_with(|| negotiated.to_owned());
    }
}

/// `cut at 16 MiB`-style words for a body or stream cut at the line limit.
pub(super) fn cut_words() -> String {
    format!("cut at {} MiB", MAX_LINE_BYTES >> 20)
}

/// A header's value as text, when present and printable.
pub(super) fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// The [`RECORDED_HEADERS`] present in `headers`.
pub(super) fn recorded(headers: &HeaderMap) -> BTreeMap<String, String> {
    RECORDED_HEADERS
        .iter()
        .filter_map(|name| header(headers, name).map(|value| ((*name).to_owned(), value)))
        .collect()
}

/// An HTTP client error in a few words: `connection refused (http://…)`.
pub(super) fn describe_error(error: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut words = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        words = format!("{words}: {cause}");
        source = cause.source();
    }
    words
}

/// Reads a whole body, at most [`MAX_LINE_BYTES`] of it, within `limit`:
/// the bytes, whether it was cut, and how reading stopped early (none when
/// it ended).
pub(super) async fn read_body(
    response: Response,
    limit: Duration,
) -> (Vec<u8>, bool, Option<String>) {
    let mut body = Vec::new();
    let mut cut = false;
    let mut chunks = response.bytes_stream();
    let read = tokio::time::timeout(limit, async {
        while let Some(chunk) = chunks.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => return Some(describe_error(&error)),
            };
            let room = MAX_LINE_BYTES - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                cut = true;
                return Some(cut_words());
            }
            body.extend_from_slice(&chunk);
        }
        None
    })
    .await;
    let how = read.unwrap_or_else(|_| {
        Some(format!(
            "body not finished within {}",
            crate::format::seconds(limit)
        ))
    });
    (body, cut, how)
}

/// The record of a body not forwarded as a JSON-RPC message: its size,
/// whether it was cut, and its start.
pub(super) fn unforwarded_body(body: &[u8], cut: bool) -> HttpStep {
    HttpStep::Body {
        bytes: body.len(),
        cut,
        text: Some(text_start(body)),
        carries: None,
    }
}

/// The start of a body for its record: at most [`MAX_BODY_TEXT`] bytes,
/// lossily decoded.
pub(super) fn text_start(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(MAX_BODY_TEXT)]).into_owned()
}

/// A message as one line for the proxy: a JSON body re-serialized without its
/// line breaks, other text with line breaks turned into spaces (the proxy then
/// records it as a line that is no JSON-RPC message).
pub(super) fn one_line(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(message) => message.to_string(),
        Err(_) => String::from_utf8_lossy(body).replace(['\r', '\n'], " "),
    }
}
