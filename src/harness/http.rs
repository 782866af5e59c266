//! The Streamable HTTP end of the recording proxy (MCP 2025-11-25,
//! basic/transports, "Streamable HTTP"): the proxy writes and reads JSON-RPC
//! lines as it does over stdio, and this bridge carries them over HTTP,
//! recording every step ([`crate::evidence::http`]).
//!
//! ```text
//! proxy ─line→ bridge ─POST /mcp (body: the line, byte for byte)→ server
//! proxy ←line─ bridge ←application/json body, or each SSE event's data─ server
//! ```
//! - Each line is one POST, sent in the order the client wrote them; the next
//!   POST waits for the status line of the one before (so the `Mcp-Session-Id`
//!   the `initialize` response assigns goes on every later request), not for
//!   its event stream, which is read on its own task.
//! - After `notifications/initialized` is accepted, a GET opens the standalone
//!   event stream (a 405 is recorded and is not an error: the stream is
//!   optional), and the next POST waits for its status line, at most
//!   [`STANDALONE_STREAM_WAIT`]: a server may send its requests on that stream
//!   (MCP 2025-11-25, basic/transports, "Listening for Messages from the
//!   Server"), and one that has no such stream yet may drop them (the
//!   TypeScript SDK 1.x does, for an `elicitInput` with no related request), so
//!   the stream is established before the tool is called, as a client that
//!   listens first does.
//! - When the client side closes, a DELETE ends the session.
//! - Bounds: connecting (until the server answers at all) by the startup
//!   limit, a status line and a JSON body by the call limit, an event stream
//!   or a body by 16 MiB (cut and recorded as such).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use reqwest::{Method, Response, Url};
use serde_json::Value;
use sse_stream::SseStream;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::cross_session::{CrossSessionAnswer, PlantedSession};
use super::limits::Limits;
use super::proxy::{MAX_LINE_BYTES, ProxyState, read_line};
use crate::evidence::http::{CLOSED_BY_HARNESS, Carried, HttpStep, RECORDED_HEADERS};

/// The `Accept` header of every POST (the transport requires both types).
pub const POST_ACCEPT: &str = "application/json, text/event-stream";

/// Most bytes of a non-forwarded body kept in its record.
const MAX_BODY_TEXT: usize = 1024;

/// How often a refused connection is tried again while the server starts.
const CONNECT_RETRY: Duration = Duration::from_millis(50);

/// How long the next POST after `notifications/initialized` waits for the
/// status line of the standalone GET (a 405, an error status or a failure
/// ends the wait at once): long enough for a server on the loopback or a LAN
/// to register the stream, short beside the call bound, since a server may
/// hold that status line until it has something to send.
pub const STANDALONE_STREAM_WAIT: Duration = Duration::from_secs(2);

/// The `_meta` key carrying the protocol version on 2026-07-28 requests.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// Carries the proxy's lines over Streamable HTTP until `from_proxy` ends,
/// then ends the session (DELETE) and closes `to_proxy`. `hold` is kept open
/// until then (a started server's stdin, which some servers read as their
/// lifetime). `headers` (`--header`) go on every request: each POST, the
/// standalone GET, a resumption, the DELETE, and the second session of a
/// planted reply.
pub(crate) async fn bridge<R, W, H>(
    url: Url,
    headers: HeaderMap,
    state: ProxyState,
    limits: Limits,
    from_proxy: R,
    to_proxy: W,
    hold: H,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
    H: Send,
{
    let (out, lines) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(write_lines(lines, to_proxy));
    let (stop, mut stopped) = mpsc::unbounded_channel::<()>();
    let mut bridge = Bridge {
        url,
        state,
        limits,
        client: reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(limits.startup)
            .default_headers(headers)
            .build()
            .unwrap_or_default(),
        session_id: None,
        protocol_version: Arc::new(Mutex::new(None)),
        exchanges: Arc::new(AtomicU32::new(0)),
        out,
        streams: Vec::new(),
        open: Arc::new(Mutex::new(BTreeSet::new())),
        answered_once: false,
        started: Instant::now(),
        stop,
        cancelled: Arc::new(Mutex::new(Vec::new())),
        initialize: None,
    };
    let mut reader = BufReader::new(from_proxy);
    loop {
        let line = tokio::select! {
            line = read_line(&mut reader) => line,
            // A request's event stream ended without its response and with
            // nothing to resume from: the request will never be answered.
            _ = stopped.recv() => None,
        };
        let Some(line) = line else { break };
        if !bridge.post(line.into_bytes()).await {
            break;
        }
    }
    bridge.end().await;
    drop(hold);
    let Bridge { out, .. } = bridge;
    drop(out);
    let _ = writer.await;
}

/// Writes each line (and a newline) to the proxy until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(mut lines: mpsc::UnboundedReceiver<String>, mut to: W) {
    while let Some(line) = lines.recv().await {
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        let written = async {
            to.write_all(&bytes).await?;
            to.flush().await
        };
        if written.await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

struct Bridge {
    url: Url,
    state: ProxyState,
    limits: Limits,
    client: reqwest::Client,
    /// The `Mcp-Session-Id` the server assigned, sent on every later request.
    session_id: Option<String>,
    /// The version negotiated at `initialize`, sent as `MCP-Protocol-Version`.
    protocol_version: Arc<Mutex<Option<String>>>,
    /// The number of the last exchange recorded (shared with the tasks
    /// that resume event streams).
    exchanges: Arc<AtomicU32>,
    out: mpsc::UnboundedSender<String>,
    streams: Vec<JoinHandle<()>>,
    /// Exchanges whose event stream is still being read.
    open: Arc<Mutex<BTreeSet<u32>>>,
    /// Whether the server has answered any request (until then a refused
    /// connection is the server still starting).
    answered_once: bool,
    started: Instant,
    /// Stops the session (see [`read_events`]).
    stop: mpsc::UnboundedSender<()>,
    /// The ids of the requests the client cancelled with
    /// `notifications/cancelled`: their streams may end without a response.
    cancelled: Arc<Mutex<Vec<Value>>>,
    /// The `initialize` request's body, byte for byte (a second session for a
    /// planted reply opens with it).
    initialize: Option<Vec<u8>>,
}

impl Bridge {
    /// POSTs one line; false when the session cannot go on (no response,
    /// or an error status to a request the client awaits).
    async fn post(&mut self, line: Vec<u8>) -> bool {
        let message: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
        let carries = Carried::of(&message);
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let awaits_reply = carries.as_ref().is_some_and(Carried::is_request);
        let version = message
            .pointer("/params/_meta")
            .and_then(|meta| meta.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| lock(&self.protocol_version).clone());
        let mut headers = json_headers(self.session_id.as_deref(), version.as_deref());
        for (name, value) in super::standard_headers::for_request(&message, version.as_deref()) {
            if let Ok(value) = value.parse() {
                headers.insert(name, value);
            }
        }
        if let Some(id) = carries.as_ref().and_then(|carried| carried.cancels.clone()) {
            lock(&self.cancelled).push(id);
        }
        if method == "initialize" {
            // The first one: a second session opens as this one did.
            self.initialize.get_or_insert_with(|| line.clone());
        }
        if carries
            .as_ref()
            .is_some_and(|carried| carried.answers(&message["id"]))
            && let Some(planted) = self.state.take_cross_session_answer()
        {
            self.plant(planted, &message["id"]).await;
        }
        let answer = awaits_reply.then(|| message["id"].clone());
        let exchange = self.request(Method::POST, &headers, carries);
        let response = self
            .send(
                self.client
                    .post(self.url.clone())
                    .headers(headers)
                    .body(line),
                exchange,
            )
            .await;
        let Some(response) = response else {
            return !awaits_reply;
        };
        let status = response.status();
        if self.session_id.is_none()
            && let Some(id) = header(response.headers(), "mcp-session-id")
        {
            self.session_id = Some(id);
        }
        let forwarded = self.read_response(exchange, response, method == "initialize", answer);
        let forwarded = forwarded.await;
        if method == "notifications/initialized" && status.is_success() {
            self.open_standalone_stream().await;
        }
        forwarded || !awaits_reply
    }

    /// POSTs a reply to the server's request `id` carrying `planted.result`
    /// under another session's id or none ([`super::cross_session`]), before
    /// the client's own reply; a second session is opened for it and ended
    /// after. Nothing is planted when the server assigned no session id (a
    /// stateless server has no sessions to keep apart): the timeline says so.
    async fn plant(&mut self, planted: CrossSessionAnswer, id: &Value) {
        if self.session_id.is_none() {
            self.state.event(
                "HTTP: no reply planted in another session: the server assigned no Mcp-Session-Id",
            );
            return;
        }
        let session = match planted.session {
            PlantedSession::Missing => None,
            PlantedSession::Another => match self.second_session().await {
                Some(session) => Some(session),
                None => return,
            },
        };
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": planted.result});
        self.state.event(format!(
            "HTTP: planting a reply to id {id} under {}",
            planted.session.describe()
        ));
        let headers = self.json_headers(session.as_deref());
        let exchange = self.request(Method::POST, &headers, Carried::of(&reply));
        let request = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(reply.to_string());
        if let Some(response) = self.send(request, exchange).await {
            self.record_unforwarded(exchange, response).await;
        }
        if let Some(session) = session {
            let headers = self.json_headers(Some(&session));
            let exchange = self.request(Method::DELETE, &headers, None);
            let request = self.client.delete(self.url.clone()).headers(headers);
            if let Some(response) = self.send(request, exchange).await {
                self.record_unforwarded(exchange, response).await;
            }
        }
    }

    /// Opens a second session with the first one's `initialize` body and
    /// `notifications/initialized`: its `Mcp-Session-Id`, none when the
    /// server assigned none (the timeline says why).
    async fn second_session(&mut self) -> Option<String> {
        let initialize = self.initialize.clone()?;
        let headers = self.json_headers(None);
        let exchange = self.request(Method::POST, &headers, None);
        let request = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(initialize);
        let response = self.send(request, exchange).await?;
        let session = header(response.headers(), "mcp-session-id");
        // Its initialize result is not the client's: read within the call
        // bound (an event stream until its first message), not forwarded.
        let _ = tokio::time::timeout(self.limits.call, first_message(response)).await;
        let Some(session) = session.filter(|session| Some(session) != self.session_id.as_ref())
        else {
            self.state.event(
                "HTTP: no reply planted in another session: a second initialize got no new Mcp-Session-Id",
            );
            return None;
        };
        let headers = self.json_headers(Some(&session));
        let exchange = self.request(Method::POST, &headers, None);
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let request = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(initialized);
        if let Some(response) = self.send(request, exchange).await {
            self.record_unforwarded(exchange, response).await;
        }
        Some(session)
    }

    /// The headers of a POST of JSON under `session` (none: no
    /// `Mcp-Session-Id`), with the negotiated `MCP-Protocol-Version`.
    fn json_headers(&self, session: Option<&str>) -> HeaderMap {
        let version = lock(&self.protocol_version).clone();
        json_headers(session, version.as_deref())
    }

    /// Reads a body that is not forwarded to the client, within the call
    /// bound, and records its size and start (nothing for an empty one).
    async fn record_unforwarded(&self, exchange: u32, response: Response) {
        let (body, cut, _) = read_body(response, self.limits.call).await;
        if !body.is_empty() {
            self.state
                .record_http(exchange, unforwarded_body(&body, cut));
        }
    }

    /// Adds the session's `Mcp-Session-Id` and `MCP-Protocol-Version` when known.
    fn session_headers(&self, headers: &mut HeaderMap, version: Option<&str>) {
        add_session(headers, self.session_id.as_deref(), version);
    }

    /// The headers of a GET of an event stream: `Accept: text/event-stream`
    /// and the session's headers.
    fn event_stream_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, "text/event-stream".parse().expect("a header value"));
        let version = lock(&self.protocol_version).clone();
        self.session_headers(&mut headers, version.as_deref());
        headers
    }

    /// Records a request of a new exchange (carrying the JSON-RPC message
    /// `carries`, for a POST); returns the exchange's number.
    fn request(&mut self, method: Method, headers: &HeaderMap, carries: Option<Carried>) -> u32 {
        record_request(
            &self.state,
            &self.exchanges,
            &self.url,
            &method,
            headers,
            carries,
        )
    }

    /// Sends `request`, retrying a refused connection until the startup limit
    /// while the server has not answered yet; records the status line, or
    /// why there is none.
    async fn send(&mut self, request: reqwest::RequestBuilder, exchange: u32) -> Option<Response> {
        loop {
            let attempt = request.try_clone()?;
            let error = match tokio::time::timeout(self.limits.call, attempt.send()).await {
                Ok(Ok(response)) => {
                    self.answered_once = true;
                    self.state.record_http(
                        exchange,
                        HttpStep::Response {
                            status: response.status().as_u16(),
                            headers: recorded(response.headers()),
                        },
                    );
                    return Some(response);
                }
                Ok(Err(error)) => {
                    let starting = !self.answered_once
                        && error.is_connect()
                        && self.started.elapsed() + CONNECT_RETRY < self.limits.startup;
                    if starting {
                        tokio::time::sleep(CONNECT_RETRY).await;
                        continue;
                    }
                    describe_error(&error)
                }
                Err(_) => format!(
                    "no status line within {}",
                    crate::format::seconds(self.limits.call)
                ),
            };
            self.state
                .event(format!("HTTP exchange {exchange}: {error}"));
            self.state.record_http(exchange, HttpStep::Failed { error });
            return None;
        }
    }

    /// Forwards what the response carries: a JSON body as one line, an event
    /// stream event by event (on its own task; `answer` is the id of the
    /// request the stream must answer). Returns whether the request can
    /// still be answered (false: an error status, or a JSON body that could
    /// not be read).
    async fn read_response(
        &mut self,
        exchange: u32,
        response: Response,
        initialize: bool,
        answer: Option<Value>,
    ) -> bool {
        let status = response.status();
        let kind = header(response.headers(), "content-type")
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if status.is_success() && kind == "text/event-stream" {
            self.read_stream(exchange, response, initialize, answer);
            return true;
        }
        let (body, cut, how) = read_body(response, self.limits.call).await;
        // 2026-07-28 answers some JSON-RPC errors to a request with an HTTP
        // error status (`-32021` with 400, `-32601` with 404): the error is
        // the request's reply, forwarded as any reply.
        let reply = (!status.is_success() && kind == "application/json" && how.is_none())
            .then(|| serde_json::from_slice::<Value>(&body).ok())
            .flatten()
            .filter(|message| {
                answer.as_ref().is_some_and(|id| {
                    Carried::of(message).is_some_and(|carried| carried.answers(id))
                })
            });
        if let Some(reply) = reply {
            self.state.record_http(
                exchange,
                HttpStep::Body {
                    bytes: body.len(),
                    cut,
                    text: None,
                    carries: Carried::of(&reply),
                },
            );
            let _ = self.out.send(reply.to_string());
            return true;
        }
        if !status.is_success() {
            self.state
                .record_http(exchange, unforwarded_body(&body, cut));
            self.state.event(format!(
                "HTTP exchange {exchange}: status {}",
                status.as_u16()
            ));
            return false;
        }
        if body.is_empty() && how.is_none() {
            return true; // 202 Accepted and the like: nothing to forward
        }
        let forward = kind == "application/json";
        let carries = forward
            .then(|| serde_json::from_slice::<Value>(&body).ok())
            .flatten()
            .and_then(|message| Carried::of(&message));
        self.state.record_http(
            exchange,
            HttpStep::Body {
                bytes: body.len(),
                cut,
                text: (!forward).then(|| text_start(&body)),
                carries,
            },
        );
        if let Some(how) = how {
            self.state.record_http(exchange, HttpStep::Ended { how });
            return false;
        }
        if !forward {
            return false;
        }
        let line = one_line(&body);
        if initialize {
            learn_version(&self.protocol_version, &line);
        }
        let _ = self.out.send(line);
        true
    }

    /// Reads `response`'s event stream on its own task (see [`read_events`]).
    fn read_stream(
        &mut self,
        exchange: u32,
        response: Response,
        initialize: bool,
        answer: Option<Value>,
    ) {
        let resume = answer.is_some().then(|| Resume {
            client: self.client.clone(),
            url: self.url.clone(),
            headers: self.event_stream_headers(),
            exchanges: Arc::clone(&self.exchanges),
            limit: self.limits.call,
        });
        let events = Events {
            state: self.state.clone(),
            out: self.out.clone(),
            open: Arc::clone(&self.open),
            version: initialize.then(|| Arc::clone(&self.protocol_version)),
            exchange,
            answer: answer.map(|id| Awaited {
                id,
                stop: self.stop.clone(),
                cancelled: Arc::clone(&self.cancelled),
            }),
            resume,
        };
        self.streams
            .push(tokio::spawn(read_events(events, response)));
    }

    /// Opens the standalone event stream with a GET, read on its own task,
    /// and waits for its status line (or why there is none) at most
    /// [`STANDALONE_STREAM_WAIT`] before the next POST: a server that sends a
    /// request on that stream can only deliver it once the stream is
    /// established (MCP 2025-11-25, basic/transports, "Listening for Messages
    /// from the Server"). A server may hold the status line until it has
    /// something to send: past the wait, the next POST goes out without it and
    /// the timeline says so; the GET's own bound stays the call bound.
    async fn open_standalone_stream(&mut self) {
        let headers = self.event_stream_headers();
        let exchange = self.request(Method::GET, &headers, None);
        let request = self.client.get(self.url.clone()).headers(headers);
        let limit = self.limits.call;
        let (status_line, waited) = tokio::sync::oneshot::channel::<()>();
        let events = Events {
            state: self.state.clone(),
            out: self.out.clone(),
            open: Arc::clone(&self.open),
            version: None,
            exchange,
            answer: None,
            resume: None,
        };
        self.streams.push(tokio::spawn(async move {
            let response = send_once(&events.state, exchange, request, limit, "").await;
            let _ = status_line.send(());
            if let Some(response) = response.filter(|response| response.status().is_success()) {
                read_events(events, response).await;
            }
        }));
        if tokio::time::timeout(STANDALONE_STREAM_WAIT, waited)
            .await
            .is_err()
        {
            self.state.event(format!(
                "HTTP exchange {exchange}: no status line to the standalone GET within {}; the next request goes out without waiting for it",
                crate::format::seconds(STANDALONE_STREAM_WAIT)
            ));
        }
    }

    /// Ends the session: a DELETE when the server assigned a session id
    /// (bounded by the shutdown limit), then every stream still open is
    /// closed and recorded as closed by the harness.
    async fn end(&mut self) {
        if let Some(id) = self.session_id.clone() {
            let mut headers = HeaderMap::new();
            let version = lock(&self.protocol_version).clone();
            self.session_headers(&mut headers, version.as_deref());
            let exchange = self.request(Method::DELETE, &headers, None);
            let request = self.client.delete(self.url.clone()).headers(headers);
            let session = format!(" (session {id})");
            send_once(
                &self.state,
                exchange,
                request,
                self.limits.shutdown,
                &session,
            )
            .await;
        }
        let still_open: Vec<u32> = std::mem::take(&mut *lock(&self.open)).into_iter().collect();
        for stream in self.streams.drain(..) {
            stream.abort();
        }
        for exchange in still_open {
            self.state.record_http(
                exchange,
                HttpStep::Ended {
                    how: CLOSED_BY_HARNESS.to_owned(),
                },
            );
        }
    }
}

/// Where one event stream's events go.
struct Events {
    state: ProxyState,
    out: mpsc::UnboundedSender<String>,
    /// Exchanges whose stream is being read (the bridge records the ones it
    /// closes at the session's end).
    open: Arc<Mutex<BTreeSet<u32>>>,
    /// Set from the stream's `initialize` result (the stream of an
    /// `initialize` POST only).
    version: Option<Arc<Mutex<Option<String>>>>,
    exchange: u32,
    /// The request the stream answers (a POST's).
    answer: Option<Awaited>,
    /// How to resume the stream when the server ends it before the response
    /// (a POST's stream).
    resume: Option<Resume>,
}

/// The request whose response a POST's event stream is to carry.
struct Awaited {
    id: Value,
    /// Stops the session when the stream ends without that response.
    stop: mpsc::UnboundedSender<()>,
    /// The ids the client cancelled: a stream that ends after its request
    /// was cancelled leaves the session going (MCP 2025-11-25,
    /// basic/utilities/cancellation: the server SHOULD NOT send a response
    /// for a cancelled request).
    cancelled: Arc<Mutex<Vec<Value>>>,
}

/// How a request's event stream that the server ended before the response,
/// after an event id, is resumed (MCP 2025-11-25, basic/transports,
/// "Resumability and Redelivery"; SEP-1699, SSE polling): a GET carrying
/// `Last-Event-ID`, after the wait the server's `retry` field asked for.
struct Resume {
    client: reqwest::Client,
    url: Url,
    /// `Accept: text/event-stream` and the session's `Mcp-Session-Id` and
    /// `MCP-Protocol-Version`.
    headers: HeaderMap,
    exchanges: Arc<AtomicU32>,
    /// The call bound: on each GET's status line, and on the wait.
    limit: Duration,
}

/// Most GETs that resume one request's stream (a server that ends each
/// resumed stream at once is not followed for ever).
const MAX_RESUMPTIONS: usize = 100;

/// The wait before resuming when the server's events set no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// What one event stream showed.
struct StreamRead {
    /// Whether the server ended it (or it failed): false when it passed
    /// [`MAX_LINE_BYTES`] or the harness closed it, which is not resumed.
    by_server: bool,
    /// Whether it carried the response to the request it answers.
    answered: bool,
    /// The last non-empty event id (what a GET resumes after).
    last_id: Option<String>,
    /// The last `retry` field, in milliseconds.
    retry: Option<u64>,
}

/// Records each event of `response`'s stream and forwards its data as one
/// line (see [`read_stream_events`]). A POST's stream that the server ends
/// before the response to its request is resumed after its last event id
/// with a GET carrying `Last-Event-ID`, as often as the server ends the
/// resumed stream again (at most [`MAX_RESUMPTIONS`] times); without an event
/// id to resume from, it stops the session: the request can never be
/// answered (MCP 2025-11-25, basic/transports, "Sending Messages to the
/// Server": the server may close the stream before the response only after
/// an event id), unless the client had cancelled the request
/// ([`Awaited::cancelled`]). A resumption that gets no event stream is recorded and
/// leaves the session to its call bound (the response may still come on the
/// standalone stream).
async fn read_events(events: Events, response: Response) {
    let Events {
        state,
        out,
        open,
        version,
        mut exchange,
        answer,
        resume,
    } = events;
    let answer_id = answer.as_ref().map(|awaited| &awaited.id);
    let mut response = response;
    let mut last_id: Option<String> = None;
    let mut retry = None;
    let mut resumptions = 0;
    let answered = loop {
        let read = read_stream_events(
            &state,
            &out,
            &open,
            version.as_deref(),
            exchange,
            answer_id,
            response,
        )
        .await;
        last_id = read.last_id.or(last_id);
        retry = read.retry.or(retry);
        if !read.by_server {
            break read.answered;
        }
        let resume = match (&resume, &last_id) {
            (Some(resume), Some(after)) if !read.answered && resumptions < MAX_RESUMPTIONS => {
                (resume, after.clone())
            }
            _ => break read.answered,
        };
        let (resume, after) = resume;
        resumptions += 1;
        let wait = retry.map_or(DEFAULT_RETRY, Duration::from_millis);
        tokio::time::sleep(wait.min(resume.limit)).await;
        let Some(resumed) = resume_stream(&state, resume, exchange, &after).await else {
            return;
        };
        (exchange, response) = resumed;
    };
    if let Some(awaited) = answer
        && !answered
        && last_id.is_none()
        && !lock(&awaited.cancelled).contains(&awaited.id)
    {
        let _ = awaited.stop.send(());
    }
}

/// GETs the stream of exchange `from` again after event id `after`: the new
/// exchange and its response, when it is an event stream; otherwise none,
/// with why recorded.
async fn resume_stream(
    state: &ProxyState,
    resume: &Resume,
    from: u32,
    after: &str,
) -> Option<(u32, Response)> {
    let mut headers = resume.headers.clone();
    if let Ok(value) = after.parse() {
        headers.insert("last-event-id", value);
    }
    let exchange = record_request(
        state,
        &resume.exchanges,
        &resume.url,
        &Method::GET,
        &headers,
        None,
    );
    state.event(format!(
        "HTTP exchange {exchange}: resuming the event stream of exchange {from} after event id {after}"
    ));
    let request = resume.client.get(resume.url.clone()).headers(headers);
    let response = send_once(state, exchange, request, resume.limit, "").await?;
    let event_stream = header(response.headers(), "content-type")
        .is_some_and(|kind| kind.trim_start().starts_with("text/event-stream"));
    if response.status().is_success() && event_stream {
        return Some((exchange, response));
    }
    let (body, cut, _) = read_body(response, resume.limit).await;
    if !body.is_empty() {
        state.record_http(exchange, unforwarded_body(&body, cut));
    }
    None
}

/// Records each event of `response`'s stream (exchange `exchange`) and
/// forwards its data as one line, until the stream ends, fails or passes
/// [`MAX_LINE_BYTES`]; then records how it ended. `answer` is the id of the
/// request the stream answers; `version` is set from an `initialize` result.
async fn read_stream_events(
    state: &ProxyState,
    out: &mpsc::UnboundedSender<String>,
    open: &Mutex<BTreeSet<u32>>,
    version: Option<&Mutex<Option<String>>>,
    exchange: u32,
    answer: Option<&Value>,
    response: Response,
) -> StreamRead {
    let mut answered = false;
    let mut last_id = None;
    let mut retry = None;
    lock(open).insert(exchange);
    let cut = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&cut);
    let mut total = 0usize;
    let bytes = response.bytes_stream().take_while(move |chunk| {
        if let Ok(chunk) = chunk {
            total += chunk.len();
        }
        let within = total <= MAX_LINE_BYTES;
        if !within {
            seen.store(true, Ordering::SeqCst);
        }
        std::future::ready(within)
    });
    let mut stream = SseStream::from_bytes_stream(bytes);
    let end = loop {
        match stream.next().await {
            None if cut.load(Ordering::SeqCst) => break (cut_words(), false),
            None => break ("end of stream".to_owned(), true),
            Some(Err(error)) => break (error.to_string(), true),
            Some(Ok(event)) => {
                let data = event.data.unwrap_or_default();
                let carries = serde_json::from_str::<Value>(&data)
                    .ok()
                    .and_then(|message| Carried::of(&message));
                answered |= matches!(
                    (&carries, answer),
                    (Some(carried), Some(id)) if carried.answers(id)
                );
                if let Some(id) = event.id.as_deref().filter(|id| !id.is_empty()) {
                    last_id = Some(id.to_owned());
                }
                retry = event.retry.or(retry);
                state.record_http(
                    exchange,
                    HttpStep::Event {
                        id: event.id,
                        event: event.event,
                        data_bytes: data.len(),
                        carries,
                    },
                );
                if data.trim().is_empty() {
                    continue;
                }
                let line = one_line(data.as_bytes());
                if let Some(version) = version {
                    learn_version(version, &line);
                }
                if out.send(line).is_err() {
                    break (CLOSED_BY_HARNESS.to_owned(), false);
                }
            }
        }
    };
    let (how, by_server) = end;
    // Not in the set any more: the harness closed it and recorded so.
    let recorded = lock(open).remove(&exchange);
    if recorded {
        state.record_http(exchange, HttpStep::Ended { how });
    }
    StreamRead {
        by_server: by_server && recorded,
        answered,
        last_id,
        retry,
    }
}

/// Sends `request` of `exchange` once, within `limit`, and records its status
/// line, or why there is none (`no status line within 5 s`, then `context`).
async fn send_once(
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
fn record_request(
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
fn json_headers(session: Option<&str>, version: Option<&str>) -> HeaderMap {
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
fn add_session(headers: &mut HeaderMap, session: Option<&str>, version: Option<&str>) {
    if let Some(id) = session.and_then(|id| id.parse().ok()) {
        headers.insert("mcp-session-id", id);
    }
    if let Some(version) = version.and_then(|version| version.parse().ok()) {
        headers.insert("mcp-protocol-version", version);
    }
}

/// Reads `response` until its first message: a whole body, or an event
/// stream's first event with data.
async fn first_message(response: Response) {
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

/// Locks `mutex`, keeping what a panicking holder left.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sets the negotiated version from an `initialize` result line, once.
fn learn_version(version: &Mutex<Option<String>>, line: &str) {
    if let Ok(message) = serde_json::from_str::<Value>(line)
        && let Some(negotiated) = message
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
    {
        lock(version).get_or_insert_with(|| negotiated.to_owned());
    }
}

/// `cut at 16 MiB`-style words for a body or stream cut at the line limit.
fn cut_words() -> String {
    format!("cut at {} MiB", MAX_LINE_BYTES >> 20)
}

/// A header's value as text, when present and printable.
fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// The [`RECORDED_HEADERS`] present in `headers`.
fn recorded(headers: &HeaderMap) -> BTreeMap<String, String> {
    RECORDED_HEADERS
        .iter()
        .filter_map(|name| header(headers, name).map(|value| ((*name).to_owned(), value)))
        .collect()
}

/// An HTTP client error in a few words: `connection refused (http://…)`.
fn describe_error(error: &reqwest::Error) -> String {
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
async fn read_body(response: Response, limit: Duration) -> (Vec<u8>, bool, Option<String>) {
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
fn unforwarded_body(body: &[u8], cut: bool) -> HttpStep {
    HttpStep::Body {
        bytes: body.len(),
        cut,
        text: Some(text_start(body)),
        carries: None,
    }
}

/// The start of a body for its record: at most [`MAX_BODY_TEXT`] bytes,
/// lossily decoded.
fn text_start(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(MAX_BODY_TEXT)]).into_owned()
}

/// A message as one line for the proxy: a JSON body re-serialized without its
/// line breaks, other text with line breaks turned into spaces (the proxy then
/// records it as a line that is no JSON-RPC message).
fn one_line(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(message) => message.to_string(),
        Err(_) => String::from_utf8_lossy(body).replace(['\r', '\n'], " "),
    }
}

#[cfg(test)]
mod tests;
