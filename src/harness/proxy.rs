//! The recording line proxy between the rmcp client and the server's stdio.
//!
//! Every line in both directions is recorded in order with a sequence number,
//! before rmcp can skip it. Client→server: the reply to an `elicitation/create`
//! gets the case's raw answer written into it, and `initialize` declares the
//! case's capabilities byte for byte. Server→client: stdout lines that are not
//! JSON-RPC messages are recorded apart and not forwarded; an optional
//! [`ServerTap`] may rewrite frames before the client and the checks see them.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

use super::cross_session::CrossSessionAnswer;
use crate::case::{Answer, WireAnswer};
use crate::evidence::http::{HttpRecord, HttpStep};

/// Longest line the proxy reads, as rmcp's stdio transport (16 MiB).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

#[cfg(test)]
pub(crate) use crate::evidence::wire::frame;
pub use crate::evidence::wire::{
    Event, Frame, MAX_STRAY_BYTES, MAX_STRAY_LINES, Mark, Recording, Side, StrayLine,
};

/// Rewrites one server→client frame into zero or more lines to deliver instead
/// (wire mutants). Given the frame and the recording so far.
pub type ServerTap = Box<dyn FnMut(Value, &Recording) -> Vec<TapLine> + Send>;

/// Chooses the reply to one `elicitation/create`, given the whole request frame
/// as the server sent it (`{"jsonrpc":"2.0","id":..,"method":"elicitation/create","params":{..}}`).
/// Set with [`ProxyState::set_responder`]; it replaces whatever the rmcp client
/// answered (result or error), so every request of a call can get an answer built
/// from its own `requestedSchema` (`elicit-check check`).
pub type Responder = Arc<dyn Fn(&Value) -> Answer + Send + Sync>;

/// A line a [`ServerTap`] delivers to the client.
#[derive(Debug, Clone, PartialEq)]
pub enum TapLine {
    /// A JSON-RPC frame (recorded as from the server).
    Frame(Value),
    /// Raw text (recorded as a stray line when it is not a JSON-RPC message).
    Raw(String),
}

/// Rewrites every client→server frame instead of the 2025-11-25 rewriting
/// (protocol 2026-07-28: capabilities in each request's `_meta`, the raw answer
/// in a retry's `inputResponses`; see `super::mrtr`). Returns the message and the
/// exact line to send (an injected answer's text spliced in as written).
pub type ClientHook = Box<dyn FnMut(Value) -> (Value, String) + Send>;

/// A [`ClientHook`] slot that can sit in a `#[derive(Debug)]` struct.
#[derive(Default)]
struct HookSlot(Option<ClientHook>);

impl std::fmt::Debug for HookSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(hook)"
        } else {
            "None"
        })
    }
}

/// State shared by both directions.
#[derive(Debug)]
pub struct Shared {
    started: Instant,
    next_seq: u64,
    recording: Recording,
    /// Ids of `elicitation/create` requests from the server awaiting the client's reply.
    pending_elicitations: BTreeSet<String>,
    /// The answer to write into the next elicitation reply.
    answer: Option<WireAnswer>,
    /// The exact `capabilities` object to declare at `initialize`.
    capabilities: Value,
    /// Replaces the client→server rewriting when set (protocol 2026-07-28).
    client_hook: HookSlot,
    /// The pending `elicitation/create` requests, by id key (for the responder).
    pending_requests: BTreeMap<String, Value>,
    /// When set, chooses every elicitation reply (see [`Responder`]).
    responder: Option<ResponderSlot>,
    /// Streamable HTTP: a reply to plant in another session before the
    /// client's next elicitation reply (taken once by the bridge).
    cross_session: Option<CrossSessionAnswer>,
    /// Woken each time a client frame is recorded and when the client→server
    /// pump ends ([`ProxyState::client_frame_recorded`]).
    client_progress: Arc<Notify>,
    /// Whether the client→server pump has ended: no client frame comes after.
    client_pump_ended: bool,
}

/// A [`Responder`] in the shared state (shown as `Responder` in debug output).
#[derive(Clone)]
struct ResponderSlot(Responder);

impl std::fmt::Debug for ResponderSlot {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Responder")
    }
}

/// A handle on the proxy's shared state.
#[derive(Debug, Clone)]
pub struct ProxyState(Arc<Mutex<Shared>>);

impl ProxyState {
    /// A new state declaring `capabilities`.
    pub fn new(capabilities: Value, started: Instant) -> Self {
        ProxyState(Arc::new(Mutex::new(Shared {
            started,
            next_seq: 0,
            recording: Recording::default(),
            pending_elicitations: BTreeSet::new(),
            answer: None,
            capabilities,
            client_hook: HookSlot::default(),
            pending_requests: BTreeMap::new(),
            responder: None,
            cross_session: None,
            client_progress: Arc::new(Notify::new()),
            client_pump_ended: false,
        })))
    }

    /// Over Streamable HTTP, plants `answer` in another session before the
    /// client's next reply to an `elicitation/create` (see
    /// [`super::cross_session`]); ignored over stdio.
    pub fn set_cross_session_answer(&self, answer: Option<CrossSessionAnswer>) {
        self.lock().cross_session = answer;
    }

    /// The reply to plant, if one is set; it is planted once.
    pub fn take_cross_session_answer(&self) -> Option<CrossSessionAnswer> {
        self.lock().cross_session.take()
    }

    /// Routes every client→server frame through `hook` instead of the
    /// 2025-11-25 rewriting (`initialize` capabilities, elicitation replies).
    pub fn set_client_hook(&self, hook: ClientHook) {
        self.lock().client_hook = HookSlot(Some(hook));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        // A panic while holding the lock cannot leave the recording half-written in a
        // way that matters more than losing it; keep going with what is there.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sets the answer the proxy writes into elicitation replies from now on.
    pub fn set_answer(&self, answer: Option<WireAnswer>) {
        self.lock().answer = answer;
    }

    /// Sets (or clears) the responder that chooses every elicitation reply from
    /// now on; while set, it takes precedence over [`ProxyState::set_answer`].
    pub fn set_responder(&self, responder: Option<Responder>) {
        self.lock().responder = responder.map(ResponderSlot);
    }

    /// Records a timed event.
    pub fn event(&self, event: impl Into<String>) {
        let mut shared = self.lock();
        let ms = u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        shared.recording.timeline.push(Event {
            ms,
            event: event.into(),
        });
    }

    /// A copy of the recording so far.
    pub fn recording(&self) -> Recording {
        self.lock().recording.clone()
    }

    /// Where the recording stands now.
    pub fn mark(&self) -> Mark {
        let shared = self.lock();
        Mark {
            wire: shared.recording.wire.len(),
            stray_stdout: shared.recording.stray_lines_seen(),
            timeline: shared.recording.timeline.len(),
            http: shared.recording.http.len(),
        }
    }

    /// What was recorded after `from` (a [`ProxyState::mark`]).
    pub fn recording_since(&self, from: Mark) -> Recording {
        let shared = self.lock();
        let recording = &shared.recording;
        // The kept lines come first: a line seen after `from` is kept when its
        // position is below the number kept.
        let kept = recording.stray_stdout.len();
        let seen = recording.stray_lines_seen();
        Recording {
            wire: recording.wire.get(from.wire..).unwrap_or_default().to_vec(),
            stray_stdout: recording
                .stray_stdout
                .get(from.stray_stdout..)
                .unwrap_or_default()
                .to_vec(),
            stray_stdout_not_kept: seen - from.stray_stdout.max(kept),
            timeline: recording
                .timeline
                .get(from.timeline..)
                .unwrap_or_default()
                .to_vec(),
            http: recording.http.get(from.http..).unwrap_or_default().to_vec(),
        }
    }

    /// Frames recorded from position `from` on (for per-call slices).
    pub fn frames_since(&self, from: usize) -> Vec<Frame> {
        self.lock().recording.wire[from..].to_vec()
    }

    /// Number of frames recorded so far.
    pub fn frame_count(&self) -> usize {
        self.lock().recording.wire.len()
    }

    /// Waits until a client frame whose `method` is `method` is recorded (the
    /// rmcp client has written it, but the pump that records and forwards it
    /// runs apart), the client→server pump has ended, or `within` has passed;
    /// whether the frame is recorded. Used after the handshake, so that a
    /// recording taken then holds the client's `notifications/initialized`
    /// (MCP 2025-11-25, lifecycle: the client sends it after the
    /// `initialize` result) and no later part of the recording does.
    pub async fn client_frame_recorded(&self, method: &str, within: Duration) -> bool {
        let wait = async {
            loop {
                let progress = Arc::clone(&self.lock().client_progress);
                let next = progress.notified();
                tokio::pin!(next);
                next.as_mut().enable();
                {
                    let shared = self.lock();
                    let recorded = shared.recording.wire.iter().any(|frame| {
                        frame.from == Side::Client
                            && frame.message.get("method").and_then(Value::as_str) == Some(method)
                    });
                    if recorded || shared.client_pump_ended {
                        return recorded;
                    }
                }
                next.await;
            }
        };
        tokio::time::timeout(within, wait).await.unwrap_or(false)
    }

    /// Marks the client→server pump ended and wakes whoever waits on a client
    /// frame ([`ProxyState::client_frame_recorded`]).
    fn client_pump_ended(&self) {
        let progress = {
            let mut shared = self.lock();
            shared.client_pump_ended = true;
            Arc::clone(&shared.client_progress)
        };
        progress.notify_waiters();
    }

    fn record(&self, from: Side, message: Value, text: Option<String>) {
        let progress = self.record_frame(from, message, text);
        if from == Side::Client {
            progress.notify_waiters();
        }
    }

    /// Records one frame; the notifier of client frames, woken once the lock
    /// is released.
    fn record_frame(&self, from: Side, message: Value, text: Option<String>) -> Arc<Notify> {
        let mut shared = self.lock();
        let seq = shared.next_seq;
        shared.next_seq += 1;
        let ms = u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let summary = summarize(from, &message);
        shared.recording.timeline.push(Event { ms, event: summary });
        shared.recording.wire.push(Frame {
            seq,
            from,
            message,
            text,
        });
        Arc::clone(&shared.client_progress)
    }

    /// Records one HTTP step of `exchange` (Streamable HTTP) in the session's order.
    pub fn record_http(&self, exchange: u32, step: HttpStep) {
        let mut shared = self.lock();
        let seq = shared.next_seq;
        shared.next_seq += 1;
        shared.recording.http.push(HttpRecord {
            seq,
            exchange,
            step,
        });
    }

    /// Over HTTP, the last step that stopped a POST short (no response, or
    /// an error status), else the last that stopped any request short (the
    /// optional GET stream's `405` comes on its own task, after or before the
    /// POST that mattered), as a clause for an error:
    /// `; HTTP: POST /mcp got status 404`; empty when there is none.
    pub fn http_failure(&self) -> String {
        let shared = self.lock();
        let http = &shared.recording.http;
        let request = |exchange: u32| {
            http.iter().find_map(|earlier| match &earlier.step {
                HttpStep::Request { method, path, .. } if earlier.exchange == exchange => {
                    Some((method.as_str(), path.as_str()))
                }
                _ => None,
            })
        };
        let clause = |record: &HttpRecord| {
            let (method, path) = request(record.exchange)?;
            match &record.step {
                HttpStep::Failed { error } => {
                    Some(format!("; HTTP: {method} {path} got no response: {error}"))
                }
                HttpStep::Response { status, .. } if !(200..300).contains(status) => Some(format!(
                    "; HTTP: {method} {path} got status {status}{}",
                    credentials(*status)
                )),
                _ => None,
            }
        };
        let post = http.iter().rev().find_map(|record| {
            clause(record).filter(|_| request(record.exchange).is_some_and(|(m, _)| m == "POST"))
        });
        post.or_else(|| http.iter().rev().find_map(clause))
            .unwrap_or_default()
    }

    /// Records one raw line the harness writes to the server's stdin itself
    /// (hostile client frames, [`super::hostile`]): a frame from the client whose
    /// `message` is the parsed line, or `null` with `text` holding the line
    /// (lossily decoded) when it is not JSON.
    pub fn record_client_line(&self, line: &[u8]) {
        let text = String::from_utf8_lossy(line).into_owned();
        match std::str::from_utf8(line)
            .ok()
            .and_then(|line| serde_json::from_str::<Value>(line).ok())
        {
            Some(message) => {
                let serialized = message.to_string();
                let exact = (serialized != text).then_some(text);
                self.record(Side::Client, message, exact);
            }
            None => self.record(Side::Client, Value::Null, Some(text)),
        }
    }

    fn record_stray(&self, mut line: String) {
        let bytes = line.len();
        // At most MAX_STRAY_BYTES: cut before the first character that would end
        // past it (so on a character boundary).
        if let Some((end, _)) = line
            .char_indices()
            .find(|&(start, c)| start + c.len_utf8() > MAX_STRAY_BYTES)
        {
            line.truncate(end);
        }
        let mut shared = self.lock();
        let seq = shared.next_seq;
        shared.next_seq += 1;
        let recording = &mut shared.recording;
        if recording.stray_stdout.len() < MAX_STRAY_LINES {
            recording.stray_stdout.push(StrayLine { seq, line, bytes });
        } else {
            recording.stray_stdout_not_kept += 1;
        }
    }

    /// Client→server rewriting: exact capabilities at `initialize`, the case's answer
    /// in an elicitation reply. Returns the message and the exact line to send
    /// (the message serialized, with an injected answer's text spliced in as written).
    fn rewrite_client_frame(&self, mut message: Value) -> (Value, String) {
        let mut shared = self.lock();
        if let Some(hook) = shared.client_hook.0.as_mut() {
            return hook(message);
        }
        if message.get("method").and_then(Value::as_str) == Some("initialize") {
            if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
                params.insert("capabilities".into(), shared.capabilities.clone());
            }
            let text = message.to_string();
            return (message, text);
        }
        let is_response = message.get("method").is_none();
        let id = message.get("id").map(id_key);
        let pending = match &id {
            Some(id) => is_response && shared.pending_elicitations.remove(id),
            None => false,
        };
        let request = match (&id, pending) {
            (Some(id), true) => shared.pending_requests.remove(id),
            _ => None,
        };
        if let (Some(responder), Some(request)) = (shared.responder.clone(), request) {
            drop(shared);
            // The responder chooses the whole reply, over the client's result or error.
            if let Some(object) = message.as_object_mut() {
                object.remove("error");
            }
            let answer = WireAnswer::from((responder.0)(&request));
            let text = with_member(&mut message, answer.member.key(), answer.text.get());
            let message = serde_json::from_str(&text).expect("a spliced answer is valid JSON");
            return (message, text);
        }
        // Only a result is replaced: a client that refused (mode not declared) keeps its error.
        let answer = shared.answer.clone();
        match (pending, message.get("result").is_some(), answer) {
            (true, true, Some(answer)) => {
                let text = with_member(&mut message, answer.member.key(), answer.text.get());
                let message = serde_json::from_str(&text).expect("a spliced answer is valid JSON");
                (message, text)
            }
            _ => {
                let text = message.to_string();
                (message, text)
            }
        }
    }

    fn note_server_frame(&self, message: &Value) {
        let is_elicitation =
            message.get("method").and_then(Value::as_str) == Some("elicitation/create");
        if let (true, Some(id)) = (is_elicitation, message.get("id")) {
            let mut shared = self.lock();
            shared.pending_elicitations.insert(id_key(id));
            shared.pending_requests.insert(id_key(id), message.clone());
        }
    }
}

/// What an HTTP status that refuses the client's credentials means for the
/// user (RFC 9110 sections 15.5.2 and 15.5.4): ` (401 Unauthorized: …)`;
/// empty for any other status.
fn credentials(status: u16) -> &'static str {
    match status {
        401 => {
            " (Unauthorized: the server wants credentials; check sends them with --header, e.g. --header 'Authorization: Bearer ${TOKEN}')"
        }
        403 => " (Forbidden: the server refuses the credentials sent, or their absence)",
        _ => "",
    }
}

/// The text of `message` (a response object) with its `result` removed and
/// `member` set to `raw`, written exactly as given, as the last key.
fn with_member(message: &mut Value, member: &str, raw: &str) -> String {
    if let Some(object) = message.as_object_mut() {
        object.remove("result");
        object.remove(member);
    }
    let head = message.to_string();
    // `head` is an object `{...}`: the member goes before its closing brace.
    let body = &head[1..head.len() - 1];
    let separator = if body.is_empty() { "" } else { "," };
    format!("{{{body}{separator}{}:{raw}}}", Value::from(member))
}

/// A request id as a map key: JSON text, so `1` and `"1"` stay distinct.
fn id_key(id: &Value) -> String {
    id.to_string()
}

/// A one-line description of a frame for the timeline.
fn summarize(from: Side, message: &Value) -> String {
    let id = message
        .get("id")
        .map_or_else(|| "-".to_owned(), Value::to_string);
    let kind = match (message.get("method"), message.get("error")) {
        (Some(method), _) => method.as_str().unwrap_or("?").to_owned(),
        (None, Some(_)) => "error".to_owned(),
        (None, None) => "result".to_owned(),
    };
    let from = match from {
        Side::Client => "client",
        Side::Server => "server",
    };
    format!("{from} {kind} id {id}")
}

/// The line parsed, when it is a JSON-RPC 2.0 message; `None` for anything else
/// (not JSON, or JSON without `"jsonrpc": "2.0"`).
fn jsonrpc_message(line: &str) -> Option<Value> {
    serde_json::from_str::<Value>(line).ok().filter(is_jsonrpc)
}

/// Whether a parsed line is a JSON-RPC 2.0 message.
pub fn is_jsonrpc(message: &Value) -> bool {
    message.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
}

/// Reads one line (without the newline); `None` at end of stream. Lines longer
/// than [`MAX_LINE_BYTES`] are cut there (the rest is read and dropped).
pub(crate) async fn read_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<String> {
    let mut buffer = Vec::new();
    loop {
        let available = match reader.fill_buf().await {
            Ok(available) => available,
            Err(_) => return None,
        };
        if available.is_empty() {
            return (!buffer.is_empty()).then(|| String::from_utf8_lossy(&buffer).into_owned());
        }
        let (chunk, found) = match available.iter().position(|byte| *byte == b'\n') {
            Some(end) => (&available[..end], Some(end + 1)),
            None => (available, None),
        };
        let room = MAX_LINE_BYTES.saturating_sub(buffer.len());
        buffer.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let consumed = found.unwrap_or(available.len());
        reader.consume(consumed);
        if found.is_some() {
            if buffer.last() == Some(&b'\r') {
                buffer.pop();
            }
            return Some(String::from_utf8_lossy(&buffer).into_owned());
        }
    }
}

/// Writes `text` and a newline to `to` in one write (so the reader wakes once
/// for the whole line), then flushes it.
///
/// # Errors
/// The first write or flush error (the other side closed its end).
async fn write_line<W: AsyncWrite + Unpin>(to: &mut W, text: &str) -> std::io::Result<()> {
    let mut line = text.as_bytes().to_vec();
    line.push(b'\n');
    to.write_all(&line).await?;
    to.flush().await
}

/// Pumps client→server: records, rewrites, writes to the server's stdin. Ends when
/// the client closes; then closes the server's stdin.
pub async fn client_to_server<R, W>(state: ProxyState, from_client: R, mut to_server: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(from_client);
    while let Some(line) = read_line(&mut reader).await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue; // rmcp writes only JSON; nothing to forward
        };
        let (message, text) = state.rewrite_client_frame(message);
        let serialized = serde_json::to_string(&message).unwrap_or_default();
        let exact = (serialized != text).then(|| text.clone());
        state.record(Side::Client, message, exact);
        if write_line(&mut to_server, &text).await.is_err() {
            state.event("server stdin closed while writing");
            break;
        }
    }
    state.client_pump_ended();
    let _ = to_server.shutdown().await;
    state.event("client closed; server stdin closed");
}

/// Pumps server→client: records every stdout line, forwards JSON-RPC frames
/// (after the tap, if any). Ends at the server's end of stdout.
pub async fn server_to_client<R, W>(
    state: ProxyState,
    from_server: R,
    mut to_client: W,
    mut tap: Option<ServerTap>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(from_server);
    let mut client_open = true;
    while let Some(line) = read_line(&mut reader).await {
        let Some(message) = jsonrpc_message(&line) else {
            state.record_stray(line);
            continue;
        };
        let lines = match tap.as_mut() {
            Some(tap) => tap(message, &state.recording()),
            None => vec![TapLine::Frame(message)],
        };
        for line in lines {
            // A tap's raw line is judged like any stdout line: a frame when it is a
            // JSON-RPC message, else a stray line.
            let message = match line {
                TapLine::Frame(message) => Ok(message),
                TapLine::Raw(text) => jsonrpc_message(&text).ok_or(text),
            };
            let text = match message {
                Ok(message) => {
                    state.note_server_frame(&message);
                    let text = message.to_string();
                    state.record(Side::Server, message, None);
                    text
                }
                Err(text) => {
                    state.record_stray(text.clone());
                    text
                }
            };
            if client_open && write_line(&mut to_client, &text).await.is_err() {
                // Keep draining and recording the server's stdout even if the client left.
                client_open = false;
            }
        }
    }
    let _ = to_client.shutdown().await;
    state.event("server stdout closed");
}

#[cfg(test)]
mod tests;
