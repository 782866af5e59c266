//! The bridge against a scripted HTTP server: each test answers the bridge's
//! requests by hand (a status, a JSON body, an event stream, nothing) and
//! reads back what the server received, what the client side got and what
//! was recorded (MCP 2025-11-25, basic/transports, "Streamable HTTP").

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::events::*;
use super::exchange::*;
use super::*;
use crate::evidence::http::{CLOSED_BY_HARNESS, HttpStep, RECORDED_HEADERS};
use crate::evidence::wire::Recording;
use crate::harness::cross_session::{CrossSessionAnswer, PlantedSession};
use crate::harness::proxy::MAX_LINE_BYTES;
use std::sync::atomic::Ordering;

/// One request as the scripted server received it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    /// Header names in lower case.
    headers: BTreeMap<String, String>,
    body: String,
}

impl Seen {
    /// The JSON-RPC method its body carries, or `response` for a reply, or
    /// the HTTP method when there is no body.
    fn what(&self) -> String {
        match serde_json::from_str::<Value>(&self.body) {
            Ok(message) => match message["method"].as_str() {
                Some(method) => method.to_owned(),
                None => "response".to_owned(),
            },
            Err(_) => self.method.clone(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// What the scripted server answers a request with.
enum Reply {
    /// A status and an `application/json` body (empty: no body).
    Json {
        status: u16,
        session: Option<&'static str>,
        body: String,
    },
    /// A status and a `text/plain` body.
    Text { status: u16, body: String },
    /// An event stream: each event's text as written (`id: 1\ndata: {…}`),
    /// then the connection closes, or stays open when `hold`.
    Events {
        session: Option<&'static str>,
        events: Vec<String>,
        hold: bool,
    },
    /// An event stream of these events whose connection closes once the
    /// server has received a request carrying the JSON-RPC method `until`
    /// (within 30 s).
    EventsUntil {
        events: Vec<String>,
        until: &'static str,
    },
    /// This reply, written after this long.
    Delayed(Duration, Box<Reply>),
    /// The connection is accepted and nothing is ever written.
    Silent,
    /// The request is read and the connection closed without a status line.
    Close,
}

fn json(status: u16, body: Value) -> Reply {
    Reply::Json {
        status,
        session: None,
        body: body.to_string(),
    }
}

fn accepted() -> Reply {
    Reply::Json {
        status: 202,
        session: None,
        body: String::new(),
    }
}

type Script = dyn Fn(&Seen) -> Reply + Send + Sync;

/// A scripted server on a loopback port: every request is kept, in order.
struct Server {
    url: Url,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    async fn start(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("an address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let kept = Arc::clone(&seen);
        tokio::spawn(async move {
            // Connections held open stay here until the test's runtime ends.
            let held = Arc::new(Mutex::new(Vec::new()));
            while let Ok((stream, _)) = listener.accept().await {
                let (script, kept, held) =
                    (Arc::clone(&script), Arc::clone(&kept), Arc::clone(&held));
                tokio::spawn(async move {
                    let mut stream = stream;
                    let Some(request) = read_request(&mut stream).await else {
                        return;
                    };
                    let reply = script(&request);
                    lock(&kept).push(request);
                    if let Some(stream) = answer(stream, reply, &kept).await {
                        lock(&held).push(stream);
                    }
                });
            }
        });
        Server {
            url: Url::parse(&format!("http://127.0.0.1:{port}/mcp?v=1")).expect("a URL"),
            seen,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        lock(&self.seen).clone()
    }
}

/// Reads one HTTP/1.1 request (a `Content-Length` body at most).
async fn read_request(stream: &mut TcpStream) -> Option<Seen> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|four| four == b"\r\n\r\n") {
            break at + 4;
        }
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers: BTreeMap<String, String> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|length| length.parse().ok())
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&chunk[..read]);
    }
    Some(Seen {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&bytes[head_end..head_end + length]).into_owned(),
    })
}

/// Writes `reply` (`seen`: what the server received so far); the stream back
/// when it is to stay open.
async fn answer(mut stream: TcpStream, reply: Reply, seen: &Mutex<Vec<Seen>>) -> Option<TcpStream> {
    let reply = match reply {
        Reply::Delayed(wait, reply) => {
            tokio::time::sleep(wait).await;
            *reply
        }
        reply => reply,
    };
    let head = |status: u16, kind: &str, session: Option<&str>, length: Option<usize>| {
        let mut head =
            format!("HTTP/1.1 {status} Scripted\r\nContent-Type: {kind}\r\nConnection: close\r\n");
        if let Some(session) = session {
            head.push_str(&format!("Mcp-Session-Id: {session}\r\n"));
        }
        if let Some(length) = length {
            head.push_str(&format!("Content-Length: {length}\r\n"));
        }
        head + "\r\n"
    };
    let stream_of = |session: Option<&str>, events: Vec<String>| {
        let mut text = head(200, "text/event-stream", session, None);
        for event in events {
            text.push_str(&event);
            text.push_str("\n\n");
        }
        text
    };
    let (text, after) = match reply {
        Reply::Json {
            status,
            session,
            body,
        } => (
            head(status, "application/json", session, Some(body.len())) + &body,
            After::Close,
        ),
        Reply::Text { status, body } => (
            head(status, "text/plain", None, Some(body.len())) + &body,
            After::Close,
        ),
        Reply::Events {
            session,
            events,
            hold,
        } => (
            stream_of(session, events),
            if hold { After::Hold } else { After::Close },
        ),
        Reply::EventsUntil { events, until } => (stream_of(None, events), After::CloseOn(until)),
        Reply::Delayed(..) => unreachable!("unwrapped above"),
        Reply::Silent => return Some(stream),
        Reply::Close => return None,
    };
    let _ = stream.write_all(text.as_bytes()).await;
    let _ = stream.flush().await;
    match after {
        After::Close => None,
        After::Hold => Some(stream),
        After::CloseOn(until) => {
            let arrived = || lock(seen).iter().any(|seen| seen.what() == until);
            let deadline = Instant::now() + Duration::from_secs(30);
            while !arrived() && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            None
        }
    }
}

/// What becomes of a connection once its reply is written.
enum After {
    Close,
    Hold,
    /// Closed once the server received a request carrying this method.
    CloseOn(&'static str),
}

/// An event stream's event carrying `message`, with an event id when given.
fn event(id: Option<&str>, message: &Value) -> String {
    match id {
        Some(id) => format!("id: {id}\ndata: {message}"),
        None => format!("data: {message}"),
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"test","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{}}}"#;
/// The client's reply to the server's `elicitation/create` id 0.
const ACCEPT_REPLY: &str =
    r#"{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"units":3}}}"#;

fn initialize_result() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "scripted", "version": "1"}
    }})
}

fn elicitation() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {
        "mode": "form", "message": "Units?", "requestedSchema": {"type": "object", "properties": {}}
    }})
}

fn call_result() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "30"}]}})
}

/// The usual server: a session `s-1` from `initialize`, 202 to notifications
/// and replies, the call's event stream carrying `events`, 200 to DELETE.
fn session_server(events: Vec<String>) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |seen| match (seen.method.as_str(), seen.what().as_str()) {
        ("POST", "initialize") => Reply::Json {
            status: 200,
            session: Some("s-1"),
            body: initialize_result().to_string(),
        },
        ("POST", "tools/call") => Reply::Events {
            session: None,
            events: events.clone(),
            hold: false,
        },
        ("GET", _) => Reply::Text {
            status: 405,
            body: String::new(),
        },
        ("DELETE", _) => Reply::Json {
            status: 200,
            session: None,
            body: String::new(),
        },
        _ => accepted(),
    }
}

/// What one bridge session did.
struct Ran {
    /// The lines the client side read, in order.
    forwarded: Vec<String>,
    recording: Recording,
    seen: Vec<Seen>,
}

impl Ran {
    /// The HTTP steps in brief: `1 POST /mcp?v=1`, `1 status 200`,
    /// `1 body 120 bytes`, `1 event id 7`, `1 ended: end of stream`,
    /// `1 failed: …`.
    fn steps(&self) -> Vec<String> {
        self.recording
            .http
            .iter()
            .map(|record| {
                let step = match &record.step {
                    HttpStep::Request { method, path, .. } => format!("{method} {path}"),
                    HttpStep::Response { status, .. } => format!("status {status}"),
                    HttpStep::Body {
                        bytes, text, cut, ..
                    } => match (text, cut) {
                        (_, true) => format!("body {bytes} bytes, cut"),
                        (Some(text), false) => format!("body {bytes} bytes: {text}"),
                        (None, false) => format!("body {bytes} bytes"),
                    },
                    HttpStep::Event { id, .. } => match id {
                        Some(id) => format!("event id {id}"),
                        None => "event".to_owned(),
                    },
                    HttpStep::Ended { how } => format!("ended: {how}"),
                    HttpStep::Failed { error } => format!("failed: {error}"),
                };
                format!("{} {step}", record.exchange)
            })
            .collect()
    }

    /// The recorded steps of one exchange, in brief.
    fn exchange(&self, exchange: u32) -> Vec<String> {
        let prefix = format!("{exchange} ");
        self.steps()
            .into_iter()
            .filter_map(|step| step.strip_prefix(&prefix).map(str::to_owned))
            .collect()
    }

    /// The recorded request headers of one exchange.
    fn request_headers(&self, exchange: u32) -> BTreeMap<String, String> {
        self.recording
            .http
            .iter()
            .find_map(|record| match &record.step {
                HttpStep::Request { headers, .. } if record.exchange == exchange => {
                    Some(headers.clone())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    fn timeline(&self) -> Vec<String> {
        self.recording
            .timeline
            .iter()
            .map(|event| event.event.clone())
            .collect()
    }

    /// Whether the timeline says the next request went out without the
    /// standalone GET's status line.
    fn went_on_without_the_get(&self) -> bool {
        self.timeline()
            .iter()
            .any(|event| event.contains("no status line to the standalone GET"))
    }

    /// What the server received, in brief: `POST initialize`, `GET GET`.
    fn received(&self) -> Vec<String> {
        self.seen
            .iter()
            .map(|seen| format!("{} {}", seen.method, seen.what()))
            .collect()
    }
}

/// Bounds of a test session: long enough never to be reached by a server
/// that answers, short where a test waits for a bound.
fn limits(call: Duration) -> Limits {
    Limits {
        startup: Duration::from_secs(5),
        call,
        shutdown: Duration::from_secs(5),
    }
}

/// Bounds no answering server reaches.
fn roomy() -> Limits {
    limits(Duration::from_secs(20))
}

/// When the client side closes.
enum Close {
    /// Once this many lines came back (or the bridge closed its side); the
    /// rest is read until the bridge ends.
    AfterLines(usize),
    /// After this long, or when the bridge closed its side first.
    AfterWindow(Duration),
}

/// Runs the bridge to `url` with `state`: writes `lines` on the client side
/// and closes it as `close` says. The lines that came back, and whether the
/// bridge closed its side before the client closed its own (it does so
/// only when the session cannot go on).
async fn drive_until(
    url: Url,
    state: ProxyState,
    limits: Limits,
    lines: &[&str],
    close: Close,
) -> (Vec<String>, bool) {
    let (mut client_writes, bridge_reads) = tokio::io::duplex(1 << 20);
    let (bridge_writes, client_reads) = tokio::io::duplex(1 << 20);
    let client = async move {
        for line in lines {
            client_writes
                .write_all(format!("{line}\n").as_bytes())
                .await
                .expect("the bridge reads");
        }
        let mut reader = BufReader::new(client_reads).lines();
        let mut forwarded = Vec::new();
        let bound = match close {
            Close::AfterLines(_) => Duration::from_secs(30),
            Close::AfterWindow(window) => window,
        };
        let wait_for = match close {
            Close::AfterLines(count) => count,
            Close::AfterWindow(_) => usize::MAX,
        };
        let mut ended = false;
        while forwarded.len() < wait_for {
            match tokio::time::timeout(bound, reader.next_line()).await {
                Ok(Ok(Some(line))) => forwarded.push(line),
                Ok(_) => {
                    ended = true;
                    break;
                }
                Err(_) => break,
            }
        }
        drop(client_writes);
        while let Ok(Ok(Some(line))) = tokio::time::timeout(bound, reader.next_line()).await {
            forwarded.push(line);
        }
        (forwarded, ended)
    };
    let bridged = bridge(
        url,
        HeaderMap::new(),
        state,
        limits,
        bridge_reads,
        bridge_writes,
        (),
    );
    let ((), outcome) = tokio::time::timeout(Duration::from_secs(60), async {
        tokio::join!(bridged, client)
    })
    .await
    .expect("the bridge ends once the client side closes");
    outcome
}

/// [`drive_until`] closing the client side after `wait_for` lines came back.
async fn drive(
    url: Url,
    state: ProxyState,
    limits: Limits,
    lines: &[&str],
    wait_for: usize,
) -> Vec<String> {
    drive_until(url, state, limits, lines, Close::AfterLines(wait_for))
        .await
        .0
}

fn new_state() -> ProxyState {
    ProxyState::new(json!({}), Instant::now())
}

async fn run(server: &Server, lines: &[&str], wait_for: usize) -> Ran {
    run_with(server, new_state(), roomy(), lines, wait_for).await
}

async fn run_with(
    server: &Server,
    state: ProxyState,
    limits: Limits,
    lines: &[&str],
    wait_for: usize,
) -> Ran {
    let forwarded = drive(server.url.clone(), state.clone(), limits, lines, wait_for).await;
    Ran {
        forwarded,
        recording: state.recording(),
        seen: server.seen(),
    }
}

#[test]
fn a_body_becomes_one_line_and_text_keeps_its_words() {
    assert_eq!(
        one_line(b"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1\n}"),
        r#"{"jsonrpc":"2.0","id":1}"#
    );
    assert_eq!(one_line(b"not\r\njson"), "not  json");
    assert_eq!(text_start(&[b'a'; 2000]).len(), MAX_BODY_TEXT);
    assert_eq!(text_start(b"short"), "short");
}

#[test]
fn only_the_transport_headers_are_recorded() {
    let mut headers = HeaderMap::new();
    headers.insert("mcp-session-id", "s-1".parse().expect("value"));
    headers.insert("content-type", "text/event-stream".parse().expect("value"));
    headers.insert("x-powered-by", "Express".parse().expect("value"));
    assert_eq!(
        recorded(&headers),
        BTreeMap::from([
            ("content-type".to_owned(), "text/event-stream".to_owned()),
            ("mcp-session-id".to_owned(), "s-1".to_owned()),
        ])
    );
}

#[test]
fn the_version_is_learned_from_the_first_initialize_result_only() {
    let version = Mutex::new(None);
    learn_version(&version, r#"{"jsonrpc":"2.0","id":0,"error":{"code":1}}"#);
    assert_eq!(*lock(&version), None);
    learn_version(
        &version,
        r#"{"id":0,"result":{"protocolVersion":"2025-11-25"}}"#,
    );
    learn_version(
        &version,
        r#"{"id":0,"result":{"protocolVersion":"2025-06-18"}}"#,
    );
    assert_eq!(lock(&version).as_deref(), Some("2025-11-25"));
}

/// The headers the scripted server received on request `index`, among the
/// transport's.
fn transport_headers(seen: &Seen) -> BTreeMap<String, String> {
    seen.headers
        .iter()
        .filter(|(name, _)| RECORDED_HEADERS.contains(&name.as_str()))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

fn headers_of(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

/// The requests the server received other than the standalone GET.
fn without_get(seen: &[Seen]) -> Vec<&Seen> {
    seen.iter().filter(|seen| seen.method != "GET").collect()
}

#[tokio::test]
async fn each_line_is_one_post_under_the_session_and_version_the_initialize_response_gave() {
    let server = Server::start(session_server(vec![
        event(Some("1"), &elicitation()),
        event(Some("2"), &call_result()),
    ]))
    .await;
    let ran = run(&server, &[INITIALIZE, INITIALIZED, CALL], 3).await;

    // The client side got the initialize result, then the call's stream's two
    // messages, each as one line.
    assert_eq!(
        ran.forwarded,
        [
            initialize_result().to_string(),
            elicitation().to_string(),
            call_result().to_string()
        ]
    );
    // Each line went out as its own POST, byte for byte, then a DELETE
    // ended the session; one GET opened the standalone stream.
    let posts = without_get(&ran.seen);
    let bodies: Vec<&str> = posts.iter().map(|seen| seen.body.as_str()).collect();
    assert_eq!(bodies, [INITIALIZE, INITIALIZED, CALL, ""]);
    let methods: Vec<&str> = posts.iter().map(|seen| seen.method.as_str()).collect();
    assert_eq!(methods, ["POST", "POST", "POST", "DELETE"]);
    assert!(ran.seen.iter().all(|seen| seen.path == "/mcp?v=1"));
    let gets: Vec<&Seen> = ran
        .seen
        .iter()
        .filter(|seen| seen.method == "GET")
        .collect();
    assert_eq!(gets.len(), 1, "{:?}", ran.received());

    // Headers: none of the session before the initialize response; its
    // Mcp-Session-Id and negotiated version on everything after.
    let json_post = [
        ("accept", POST_ACCEPT),
        ("content-type", "application/json"),
    ];
    let session = [
        ("mcp-protocol-version", "2025-06-18"),
        ("mcp-session-id", "s-1"),
    ];
    assert_eq!(transport_headers(posts[0]), headers_of(&json_post));
    let later = headers_of(&[json_post.as_slice(), session.as_slice()].concat());
    assert_eq!(transport_headers(posts[1]), later);
    assert_eq!(transport_headers(posts[2]), later);
    // (reqwest sends `Accept: */*` when a request names none.)
    assert_eq!(
        transport_headers(posts[3]),
        headers_of(&[[("accept", "*/*")].as_slice(), session.as_slice()].concat())
    );
    assert_eq!(
        transport_headers(gets[0]),
        headers_of(
            &[
                [("accept", "text/event-stream")].as_slice(),
                session.as_slice()
            ]
            .concat()
        )
    );

    // The record: one exchange per request, numbered in the order they were
    // made (the GET's request is recorded before the call's).
    let initialize_bytes = initialize_result().to_string().len();
    assert_eq!(
        ran.exchange(1),
        [
            "POST /mcp?v=1",
            "status 200",
            &format!("body {initialize_bytes} bytes")
        ]
    );
    assert_eq!(ran.exchange(2), ["POST /mcp?v=1", "status 202"]);
    assert_eq!(ran.exchange(3), ["GET /mcp?v=1", "status 405"]);
    assert_eq!(
        ran.exchange(4),
        [
            "POST /mcp?v=1",
            "status 200",
            "event id 1",
            "event id 2",
            "ended: end of stream"
        ]
    );
    assert_eq!(ran.exchange(5), ["DELETE /mcp?v=1", "status 200"]);
    assert_eq!(ran.recording.http.len(), 14, "{:?}", ran.steps());
    assert_eq!(ran.request_headers(2), later);
    let response_headers = ran
        .recording
        .http
        .iter()
        .find_map(|record| match &record.step {
            HttpStep::Response { headers, .. } if record.exchange == 1 => Some(headers.clone()),
            _ => None,
        });
    assert_eq!(
        response_headers,
        Some(headers_of(&[
            ("content-type", "application/json"),
            ("mcp-session-id", "s-1")
        ]))
    );
    // What the exchanges carried, as the transport's rules read them.
    let carried: Vec<(u32, String)> = ran
        .recording
        .http
        .iter()
        .filter_map(|record| match &record.step {
            HttpStep::Request {
                carries: Some(carried),
                ..
            }
            | HttpStep::Body {
                carries: Some(carried),
                ..
            }
            | HttpStep::Event {
                carries: Some(carried),
                ..
            } => Some((record.exchange, carried.describe())),
            _ => None,
        })
        .collect();
    let carried: Vec<(u32, &str)> = carried
        .iter()
        .map(|(n, what)| (*n, what.as_str()))
        .collect();
    assert_eq!(
        carried,
        [
            (1, "initialize id 0"),
            (1, "response to id 0"),
            (2, "notifications/initialized"),
            (4, "tools/call id 1"),
            (4, "elicitation/create id 0"),
            (4, "response to id 1"),
        ]
    );
}

#[tokio::test]
async fn a_2026_request_carries_its_own_version_and_the_standard_headers() {
    let server =
        Server::start(|_: &Seen| json(200, json!({"jsonrpc": "2.0", "id": 1, "result": {}}))).await;
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let ran = run(&server, &[call], 1).await;
    assert_eq!(ran.forwarded, [r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]);
    assert_eq!(
        transport_headers(&ran.seen[0]),
        headers_of(&[
            ("accept", POST_ACCEPT),
            ("content-type", "application/json"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "calculate"),
            ("mcp-protocol-version", "2026-07-28"),
        ])
    );
    // No session id was assigned: no DELETE.
    assert_eq!(ran.received(), ["POST tools/call"]);
}

/// A server that assigns `s-1` at `initialize` and answers the rest with `reply`.
fn initializing(
    reply: impl Fn(&Seen) -> Reply + Send + Sync + 'static,
) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    move |seen| match seen.what().as_str() {
        "initialize" => Reply::Json {
            status: 200,
            session: Some("s-1"),
            body: initialize_result().to_string(),
        },
        _ => reply(seen),
    }
}

const CALL_2: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculate","arguments":{}}}"#;

fn is_call(seen: &Seen, id: u64) -> bool {
    seen.what() == "tools/call"
        && serde_json::from_str::<Value>(&seen.body).is_ok_and(|message| message["id"] == id)
}

/// What a server receives when a session stops at its first call: the
/// notification before it went out, the second call did not.
const STOPPED_AT_THE_CALL: [&str; 4] = [
    "POST initialize",
    "POST notifications/initialized",
    "POST tools/call",
    "DELETE DELETE",
];

#[tokio::test]
async fn a_request_without_a_response_ends_the_session_and_a_notification_without_one_does_not() {
    // The connection is closed without a status line for the notification
    // and for the first call.
    let server = Server::start(initializing(|seen: &Seen| match seen.what().as_str() {
        "notifications/initialized" | "tools/call" if !is_call(seen, 2) => Reply::Close,
        "DELETE" => accepted(),
        _ => json(200, json!({"jsonrpc": "2.0", "id": 2, "result": {}})),
    }))
    .await;
    let ran = run(&server, &[INITIALIZE, INITIALIZED, CALL, CALL_2], 2).await;
    assert_eq!(ran.forwarded, [initialize_result().to_string()]);
    // The notification's failure did not stop the session (and opened no
    // GET); the call's did: the second call never went out.
    assert_eq!(ran.received(), STOPPED_AT_THE_CALL);
    for exchange in [2, 3] {
        let steps = ran.exchange(exchange);
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert!(
            steps[1].starts_with("failed: error sending request for url (http://127.0.0.1:"),
            "{steps:?}"
        );
    }
    assert!(
        ran.timeline()
            .iter()
            .any(|event| event.starts_with("HTTP exchange 3: error sending request")),
        "{:?}",
        ran.timeline()
    );
}

#[tokio::test]
async fn an_error_status_ends_the_session_for_a_request_and_not_for_a_notification() {
    let server = Server::start(initializing(|seen: &Seen| match seen.what().as_str() {
        "notifications/initialized" => Reply::Text {
            status: 400,
            body: "bad".to_owned(),
        },
        "tools/call" if is_call(seen, 1) => Reply::Text {
            status: 500,
            body: "boom".to_owned(),
        },
        _ => accepted(),
    }))
    .await;
    let ran = run(&server, &[INITIALIZE, INITIALIZED, CALL, CALL_2], 2).await;
    assert_eq!(ran.forwarded, [initialize_result().to_string()]);
    assert_eq!(ran.received(), STOPPED_AT_THE_CALL);
    assert_eq!(
        ran.exchange(2),
        ["POST /mcp?v=1", "status 400", "body 3 bytes: bad"]
    );
    assert_eq!(
        ran.exchange(3),
        ["POST /mcp?v=1", "status 500", "body 4 bytes: boom"]
    );
    assert!(ran.has_event("HTTP exchange 3: status 500"));
    assert_eq!(ran.recording.http.len(), 11, "{:?}", ran.steps());
}

#[tokio::test]
async fn a_json_rpc_error_for_the_request_under_an_error_status_is_its_reply() {
    // 2026-07-28 answers some JSON-RPC errors with an HTTP error status: the
    // error answering the request is forwarded as its reply. The same error
    // as text/plain is not a reply, and ends the session.
    let error =
        |id: u64| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "no"}});
    let server = Server::start(move |seen: &Seen| {
        if is_call(seen, 1) {
            json(400, error(1))
        } else if is_call(seen, 2) {
            json(404, error(7))
        } else {
            Reply::Text {
                status: 400,
                body: error(3).to_string(),
            }
        }
    })
    .await;
    let call_3 = CALL_2.replace("\"id\":2", "\"id\":3");
    let call_4 = CALL_2.replace("\"id\":2", "\"id\":4");
    let ran = run(&server, &[CALL, call_3.as_str(), call_4.as_str()], 1).await;
    assert_eq!(ran.forwarded, [error(1).to_string()]);
    assert_eq!(ran.received(), ["POST tools/call", "POST tools/call"]);
    let error_bytes = error(1).to_string().len();
    assert_eq!(
        ran.exchange(1),
        [
            "POST /mcp?v=1",
            "status 400",
            &format!("body {error_bytes} bytes")
        ]
    );
    assert_eq!(
        ran.exchange(2),
        [
            "POST /mcp?v=1".to_owned(),
            "status 400".to_owned(),
            format!("body {error_bytes} bytes: {}", error(3))
        ]
    );

    // An error for another id is no reply either.
    let ran = run(&server, &[CALL_2, call_4.as_str()], 1).await;
    assert_eq!(ran.forwarded, Vec::<String>::new());
    assert_eq!(ran.exchange(1).len(), 3, "{:?}", ran.steps());
    assert_eq!(ran.exchange(1)[1], "status 404");
}

#[tokio::test]
async fn a_body_that_is_not_json_is_recorded_and_not_forwarded() {
    let server = Server::start(|_: &Seen| Reply::Text {
        status: 200,
        body: "hello\nworld".to_owned(),
    })
    .await;
    let ran = run(&server, &[CALL, CALL_2], 1).await;
    assert_eq!(ran.forwarded, Vec::<String>::new());
    assert_eq!(ran.received(), ["POST tools/call"]);
    assert_eq!(
        ran.exchange(1),
        ["POST /mcp?v=1", "status 200", "body 11 bytes: hello\nworld"]
    );
}

/// Runs the bridge with the client side kept open after `lines` for
/// `window` (see [`drive_until`]).
async fn run_open(server: &Server, lines: &[&str], window: Duration) -> (Ran, bool) {
    let close = Close::AfterWindow(window);
    let state = new_state();
    let (forwarded, ended) =
        drive_until(server.url.clone(), state.clone(), roomy(), lines, close).await;
    let ran = Ran {
        forwarded,
        recording: state.recording(),
        seen: server.seen(),
    };
    (ran, ended)
}

#[tokio::test]
async fn a_stream_that_ends_without_the_response_and_no_event_id_ends_the_session() {
    // MCP 2025-11-25, basic/transports: the server may close a request's
    // stream before its response only after an event id to resume from.
    let server = Server::start(initializing(|seen: &Seen| match seen.method.as_str() {
        "POST" if seen.what() == "tools/call" => Reply::Events {
            session: None,
            events: vec![String::from(": priming"), event(None, &elicitation())],
            hold: false,
        },
        _ => accepted(),
    }))
    .await;
    let (ran, ended) = run_open(&server, &[INITIALIZE, CALL], Duration::from_secs(30)).await;
    assert!(
        ended,
        "the bridge kept a session whose call can never be answered"
    );
    assert_eq!(
        ran.forwarded,
        [initialize_result().to_string(), elicitation().to_string()]
    );
    assert_eq!(
        server.seen().last().map(|seen| seen.method.as_str()),
        Some("DELETE")
    );
}

#[tokio::test]
async fn a_stream_that_answered_or_that_can_resume_keeps_the_session() {
    // The first call's stream answers it (no event ids); the second's ends
    // before its response with an event id to resume from, and the GET that
    // resumes it gets no event stream.
    let server = Server::start(initializing(|seen: &Seen| {
        if is_call(seen, 1) {
            Reply::Events {
                session: None,
                events: vec![event(None, &call_result())],
                hold: false,
            }
        } else if is_call(seen, 2) {
            Reply::Events {
                session: None,
                events: vec![format!("retry: 10\n{}", event(Some("7"), &elicitation()))],
                hold: false,
            }
        } else if seen.method == "GET" {
            Reply::Text {
                status: 405,
                body: "no streams here".to_owned(),
            }
        } else {
            accepted()
        }
    }))
    .await;
    let (ran, ended) = run_open(&server, &[INITIALIZE, CALL, CALL_2], Duration::from_secs(2)).await;
    assert!(!ended, "the bridge ended a session that could go on");
    assert_eq!(
        ran.forwarded,
        [
            initialize_result().to_string(),
            call_result().to_string(),
            elicitation().to_string()
        ]
    );
    let resumed = the_resumption(&ran);
    assert_eq!(
        ran.exchange(resumed),
        [
            "GET /mcp?v=1",
            "status 405",
            "body 15 bytes: no streams here"
        ]
    );
    assert_eq!(ran.request_headers(resumed)["last-event-id"], "7");
}

/// The one exchange that resumed a stream (it fails the test when there
/// is not exactly one).
fn the_resumption(ran: &Ran) -> u32 {
    let resumed = resumptions(ran);
    assert_eq!(resumed.len(), 1, "{:?}", ran.steps());
    resumed[0]
}

/// The exchanges that resumed a stream: GETs carrying `Last-Event-ID`.
fn resumptions(ran: &Ran) -> Vec<u32> {
    ran.recording
        .http
        .iter()
        .filter_map(|record| match &record.step {
            HttpStep::Request {
                method, headers, ..
            } if method == "GET" && headers.contains_key("last-event-id") => Some(record.exchange),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_stream_the_server_ends_after_an_event_id_is_resumed_with_last_event_id() {
    // MCP 2025-11-25, basic/transports, "Resumability and Redelivery" (SSE
    // polling): a priming event with an id and a retry, the elicitation, the
    // stream closed; the GET after the last id gets the call's result.
    let server = Server::start(initializing(|seen: &Seen| {
        match (seen.method.as_str(), seen.what().as_str()) {
            ("POST", "tools/call") => Reply::Events {
                session: None,
                events: vec![
                    "id: a1\nretry: 10\ndata:".to_owned(),
                    event(Some("a2"), &elicitation()),
                ],
                hold: false,
            },
            ("GET", _) if seen.header("last-event-id") == Some("a2") => Reply::Events {
                session: None,
                events: vec![event(Some("a3"), &call_result())],
                hold: false,
            },
            ("GET", _) => Reply::Text {
                status: 405,
                body: String::new(),
            },
            _ => accepted(),
        }
    }))
    .await;
    let ran = run(&server, &[INITIALIZE, INITIALIZED, CALL, ACCEPT_REPLY], 3).await;
    assert_eq!(
        ran.forwarded,
        [
            initialize_result().to_string(),
            elicitation().to_string(),
            call_result().to_string()
        ]
    );
    let resumed = the_resumption(&ran);
    assert_eq!(
        ran.exchange(resumed),
        [
            "GET /mcp?v=1",
            "status 200",
            "event id a3",
            "ended: end of stream"
        ]
    );
    assert_eq!(
        ran.request_headers(resumed),
        headers_of(&[
            ("accept", "text/event-stream"),
            ("last-event-id", "a2"),
            ("mcp-protocol-version", "2025-06-18"),
            ("mcp-session-id", "s-1"),
        ])
    );
    assert!(
        ran.has_event(&format!(
            "HTTP exchange {}: resuming the event stream of exchange 4 after event id a2",
            resumed
        )),
        "{:?}",
        ran.timeline()
    );
}

#[tokio::test]
async fn a_stream_ended_again_and_again_is_resumed_a_bounded_number_of_times() {
    let server = Server::start(initializing(|seen: &Seen| match seen.method.as_str() {
        "POST" if seen.what() == "tools/call" => Reply::Events {
            session: None,
            events: vec!["id: 0\nretry: 0\ndata:".to_owned()],
            hold: false,
        },
        "GET" => Reply::Events {
            session: None,
            events: vec!["id: 1\ndata:".to_owned()],
            hold: false,
        },
        _ => accepted(),
    }))
    .await;
    let (ran, ended) = run_open(&server, &[INITIALIZE, CALL], Duration::from_secs(5)).await;
    assert!(!ended, "a stream with an event id does not end the session");
    assert_eq!(resumptions(&ran).len(), MAX_RESUMPTIONS);
}

/// A JSON string of `bytes` bytes in all (quotes included).
fn json_string_of(bytes: usize) -> String {
    format!("\"{}\"", "x".repeat(bytes - 2))
}

#[tokio::test]
async fn a_body_or_an_event_stream_past_16_mib_is_cut_and_recorded_as_cut() {
    let over = MAX_LINE_BYTES + 1024 * 1024;
    let server = Server::start(move |seen: &Seen| {
        if is_call(seen, 1) {
            Reply::Json {
                status: 200,
                session: None,
                body: json_string_of(over),
            }
        } else {
            Reply::Events {
                session: None,
                events: vec![format!("data: {}", json_string_of(over))],
                hold: false,
            }
        }
    })
    .await;
    let ran = run(&server, &[CALL], 1).await;
    assert_eq!(ran.forwarded, Vec::<String>::new());
    assert_eq!(
        ran.exchange(1),
        [
            "POST /mcp?v=1".to_owned(),
            "status 200".to_owned(),
            format!("body {MAX_LINE_BYTES} bytes, cut"),
            "ended: cut at 16 MiB".to_owned()
        ]
    );
    let ran = run(&server, &[CALL_2], 1).await;
    assert_eq!(ran.forwarded, Vec::<String>::new());
    assert_eq!(
        ran.exchange(1),
        ["POST /mcp?v=1", "status 200", "ended: cut at 16 MiB"]
    );
}

#[tokio::test]
async fn a_body_of_exactly_16_mib_is_whole() {
    let server = Server::start(|_: &Seen| Reply::Text {
        status: 200,
        body: "y".repeat(MAX_LINE_BYTES),
    })
    .await;
    let ran = run(&server, &[CALL], 1).await;
    assert_eq!(
        ran.exchange(1),
        [
            "POST /mcp?v=1".to_owned(),
            "status 200".to_owned(),
            format!("body {MAX_LINE_BYTES} bytes: {}", "y".repeat(MAX_BODY_TEXT))
        ]
    );
}

#[tokio::test]
async fn no_status_line_within_the_call_bound_is_a_failed_exchange() {
    let server = Server::start(initializing(|seen: &Seen| match seen.method.as_str() {
        "GET" => Reply::Silent,
        "DELETE" => accepted(),
        _ if seen.what() == "tools/call" => Reply::Silent,
        _ => accepted(),
    }))
    .await;
    let ran = run_with(
        &server,
        new_state(),
        limits(Duration::from_millis(500)),
        &[INITIALIZE, INITIALIZED, CALL, CALL_2],
        1,
    )
    .await;
    assert_eq!(
        ran.exchange(3),
        ["GET /mcp?v=1", "failed: no status line within 0.5 s"]
    );
    assert_eq!(
        ran.exchange(4),
        ["POST /mcp?v=1", "failed: no status line within 0.5 s"]
    );
    assert!(ran.has_event("HTTP exchange 4: no status line within 0.5 s"));
    // The call was never answered: the second one did not go out.
    assert_eq!(
        ran.received()
            .iter()
            .filter(|what| what.ends_with("tools/call"))
            .count(),
        1
    );
    assert_eq!(ran.exchange(5), ["DELETE /mcp?v=1", "status 202"]);
}

/// The `seq` of the first recorded step of `exchange` matching `step`.
fn seq_of(ran: &Ran, exchange: u32, step: impl Fn(&HttpStep) -> bool) -> u64 {
    ran.recording
        .http
        .iter()
        .find(|record| record.exchange == exchange && step(&record.step))
        .map(|record| record.seq)
        .unwrap_or_else(|| panic!("no such step of exchange {exchange}: {:?}", ran.steps()))
}

/// What the server receives from one call after the handshake: the
/// standalone GET before the call's POST.
const GET_BEFORE_THE_CALL: [&str; 5] = [
    "POST initialize",
    "POST notifications/initialized",
    "GET GET",
    "POST tools/call",
    "DELETE DELETE",
];

#[tokio::test]
async fn the_next_post_waits_for_the_status_line_of_the_standalone_get() {
    // MCP 2025-11-25, basic/transports, "Listening for Messages from the
    // Server": a server may send its requests on the GET stream, and may
    // drop them while it has none. The GET's status line comes a moment
    // late; the call's POST goes out only after it.
    let server = Server::start(initializing(|seen: &Seen| match seen.method.as_str() {
        "GET" => Reply::Delayed(
            Duration::from_millis(300),
            Box::new(Reply::Events {
                session: None,
                events: Vec::new(),
                hold: true,
            }),
        ),
        "POST" if seen.what() == "tools/call" => Reply::Events {
            session: None,
            events: vec![event(None, &call_result())],
            hold: false,
        },
        _ => accepted(),
    }))
    .await;
    let ran = run(&server, &[INITIALIZE, INITIALIZED, CALL], 2).await;
    assert_eq!(
        ran.forwarded,
        [initialize_result().to_string(), call_result().to_string()]
    );
    assert_eq!(ran.received(), GET_BEFORE_THE_CALL);
    // The GET (exchange 3) had its status line before the call's POST
    // (exchange 4) was sent; the stream stayed open until the session's end.
    let get_status = seq_of(&ran, 3, |step| matches!(step, HttpStep::Response { .. }));
    let call_sent = seq_of(&ran, 4, |step| matches!(step, HttpStep::Request { .. }));
    assert!(get_status < call_sent, "{:?}", ran.steps());
    assert_eq!(
        ran.exchange(3),
        [
            "GET /mcp?v=1",
            "status 200",
            &format!("ended: {CLOSED_BY_HARNESS}")
        ]
    );
    assert!(!ran.went_on_without_the_get(), "{:?}", ran.timeline());
}

#[tokio::test]
async fn a_standalone_get_with_no_status_line_holds_the_next_post_only_for_the_wait() {
    // The GET never gets a status line and the call bound is far away: the
    // call goes out after STANDALONE_STREAM_WAIT, not after the call bound
    // (which the test's own bound of 60 s would not survive).
    let server = Server::start(initializing(|seen: &Seen| match seen.method.as_str() {
        "GET" => Reply::Silent,
        "POST" if seen.what() == "tools/call" => Reply::Events {
            session: None,
            events: vec![event(None, &elicitation()), event(None, &call_result())],
            hold: false,
        },
        _ => accepted(),
    }))
    .await;
    let ran = run_with(
        &server,
        new_state(),
        limits(Duration::from_secs(300)),
        &[INITIALIZE, INITIALIZED, CALL],
        3,
    )
    .await;
    assert_eq!(
        ran.forwarded,
        [
            initialize_result().to_string(),
            elicitation().to_string(),
            call_result().to_string()
        ]
    );
    assert_eq!(ran.received(), GET_BEFORE_THE_CALL);
    assert!(ran.went_on_without_the_get(), "{:?}", ran.timeline());
    assert!(ran.has_event(
        "HTTP exchange 3: no status line to the standalone GET within 2 s; the next request goes out without waiting for it"
    ));
    // The GET is still waiting when the session ends: no status line, no end.
    assert_eq!(ran.exchange(3), ["GET /mcp?v=1"]);
}

#[tokio::test]
async fn a_405_to_the_standalone_get_ends_the_wait_and_the_session_goes_on() {
    let server = Server::start(session_server(vec![event(None, &call_result())])).await;
    let ran = run(&server, &[INITIALIZE, INITIALIZED, CALL], 2).await;
    assert_eq!(ran.exchange(3), ["GET /mcp?v=1", "status 405"]);
    assert_eq!(ran.received(), GET_BEFORE_THE_CALL);
    assert!(!ran.went_on_without_the_get(), "{:?}", ran.timeline());
}

/// The client's `notifications/cancelled` for the call with id 1.
const CANCEL_1: &str = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"request abandoned by the caller"}}"#;

#[tokio::test]
async fn a_stream_that_ends_after_its_request_was_cancelled_keeps_the_session() {
    // MCP 2025-11-25, basic/utilities/cancellation: the server SHOULD NOT
    // answer a cancelled request; the call's stream ends once the server has
    // the cancellation, with no event id, and the session goes on.
    let server = Server::start(initializing(|seen: &Seen| {
        if is_call(seen, 1) {
            Reply::EventsUntil {
                events: vec![event(None, &elicitation())],
                until: "notifications/cancelled",
            }
        } else {
            accepted()
        }
    }))
    .await;
    let (ran, ended) = run_open(
        &server,
        &[INITIALIZE, CALL, CANCEL_1],
        Duration::from_secs(2),
    )
    .await;
    assert!(
        !ended,
        "the bridge ended a session whose call was cancelled"
    );
    assert_eq!(
        ran.forwarded,
        [initialize_result().to_string(), elicitation().to_string()]
    );
    // Recorded as the server ended it: judging it is the oracle's part.
    assert_eq!(
        ran.exchange(2),
        [
            "POST /mcp?v=1",
            "status 200",
            "event",
            "ended: end of stream"
        ]
    );
    assert_eq!(ran.exchange(3), ["POST /mcp?v=1", "status 202"]);
}

/// A server of sessions `s-1`, `s-2`, … (one per `initialize`, or always
/// `s-1` when `one_session`): the call's stream sends the elicitation and
/// stays open; a reply under a session other than `s-1` gets a 404 naming
/// it; everything else 202.
fn sessions(one_session: bool) -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    let initialized = std::sync::atomic::AtomicUsize::new(0);
    move |seen| match seen.what().as_str() {
        "initialize" => {
            let count = initialized.fetch_add(1, Ordering::SeqCst);
            let session = if one_session || count == 0 {
                "s-1"
            } else {
                "s-2"
            };
            Reply::Json {
                status: 200,
                session: Some(session),
                body: initialize_result().to_string(),
            }
        }
        "tools/call" => Reply::Events {
            session: None,
            events: vec![event(Some("1"), &elicitation())],
            hold: true,
        },
        "response" if seen.header("mcp-session-id") != Some("s-1") => Reply::Text {
            status: 404,
            body: "unknown session".to_owned(),
        },
        "GET" => Reply::Text {
            status: 405,
            body: String::new(),
        },
        _ => accepted(),
    }
}

fn planting(session: PlantedSession) -> ProxyState {
    let state = new_state();
    state.set_cross_session_answer(Some(CrossSessionAnswer {
        session,
        result: json!({"action": "accept", "content": {"units": 9}}),
    }));
    state
}

const PLANTED: &str =
    r#"{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"units":9}}}"#;

impl Ran {
    /// The requests other than the standalone GET, in brief with the
    /// session they carried: `POST tools/call s-1`, `POST initialize -`.
    fn sent(&self) -> Vec<String> {
        without_get(&self.seen)
            .into_iter()
            .map(|seen| {
                let session = seen.header("mcp-session-id").unwrap_or("-");
                format!("{} {} {session}", seen.method, seen.what())
            })
            .collect()
    }

    /// The bodies of [`Ran::sent`]'s requests.
    fn bodies(&self) -> Vec<&str> {
        without_get(&self.seen)
            .into_iter()
            .map(|seen| seen.body.as_str())
            .collect()
    }

    fn has_event(&self, event: &str) -> bool {
        self.recording
            .timeline
            .iter()
            .any(|seen| seen.event == event)
    }
}

/// A session with `server` whose client answers the elicitation, with a
/// reply planted under `session` first.
async fn planted_run(
    server: impl Fn(&Seen) -> Reply + Send + Sync + 'static,
    session: PlantedSession,
) -> Ran {
    let server = Server::start(server).await;
    let lines = [INITIALIZE, INITIALIZED, CALL, ACCEPT_REPLY];
    run_with(&server, planting(session), roomy(), &lines, 2).await
}

#[tokio::test]
async fn a_reply_planted_in_a_second_session_goes_out_before_the_clients_own() {
    let ran = planted_run(sessions(false), PlantedSession::Another).await;
    assert_eq!(
        ran.forwarded,
        [initialize_result().to_string(), elicitation().to_string()]
    );
    assert_eq!(
        ran.sent(),
        [
            "POST initialize -",
            "POST notifications/initialized s-1",
            "POST tools/call s-1",
            // The second session opens as the first did, carries the planted
            // reply and is ended.
            "POST initialize -",
            "POST notifications/initialized s-2",
            "POST response s-2",
            "DELETE DELETE s-2",
            // Then the client's own reply, and the end of the first session.
            "POST response s-1",
            "DELETE DELETE s-1",
        ]
    );
    assert_eq!(
        ran.bodies(),
        [
            INITIALIZE,
            INITIALIZED,
            CALL,
            INITIALIZE,
            INITIALIZED,
            PLANTED,
            "",
            ACCEPT_REPLY,
            ""
        ]
    );
    let planted = without_get(&ran.seen)[5];
    assert_eq!(planted.header("content-type"), Some("application/json"));
    assert_eq!(planted.header("mcp-protocol-version"), Some("2025-06-18"));
    // The second session's initialize result is read, not forwarded nor
    // recorded; the 404 to the planted reply is recorded with its body.
    assert_eq!(ran.exchange(5), ["POST /mcp?v=1", "status 200"]);
    assert_eq!(ran.exchange(6), ["POST /mcp?v=1", "status 202"]);
    assert_eq!(
        ran.exchange(7),
        [
            "POST /mcp?v=1",
            "status 404",
            "body 15 bytes: unknown session"
        ]
    );
    assert_eq!(ran.exchange(8), ["DELETE /mcp?v=1", "status 202"]);
    assert_eq!(ran.exchange(9), ["POST /mcp?v=1", "status 202"]);
    // The call's stream was still open at the end: the harness closed it.
    assert_eq!(
        ran.exchange(4),
        [
            "POST /mcp?v=1",
            "status 200",
            "event id 1",
            "ended: closed by the harness"
        ]
    );
    assert!(
        ran.has_event("HTTP: planting a reply to id 0 under another session's Mcp-Session-Id"),
        "{:?}",
        ran.timeline()
    );
}

#[tokio::test]
async fn a_reply_planted_without_a_session_id_carries_none() {
    let ran = planted_run(sessions(false), PlantedSession::Missing).await;
    assert_eq!(
        ran.sent(),
        [
            "POST initialize -",
            "POST notifications/initialized s-1",
            "POST tools/call s-1",
            "POST response -",
            "POST response s-1",
            "DELETE DELETE s-1",
        ]
    );
    assert_eq!(ran.bodies()[3], PLANTED);
    assert!(ran.has_event("HTTP: planting a reply to id 0 under no Mcp-Session-Id"));
}

#[tokio::test]
async fn nothing_is_planted_without_sessions_to_keep_apart() {
    // A second initialize that gets the first session's id back.
    let ran = planted_run(sessions(true), PlantedSession::Another).await;
    assert_eq!(
        ran.sent(),
        [
            "POST initialize -",
            "POST notifications/initialized s-1",
            "POST tools/call s-1",
            "POST initialize -",
            "POST response s-1",
            "DELETE DELETE s-1"
        ]
    );
    assert_eq!(ran.bodies()[4], ACCEPT_REPLY);
    assert!(ran.has_event(
        "HTTP: no reply planted in another session: a second initialize got no new Mcp-Session-Id"
    ));

    // A server that assigns no session id at all.
    let stateless = |seen: &Seen| match seen.what().as_str() {
        "initialize" => json(200, initialize_result()),
        "tools/call" => Reply::Events {
            session: None,
            events: vec![event(None, &elicitation())],
            hold: true,
        },
        _ => accepted(),
    };
    let ran = planted_run(stateless, PlantedSession::Missing).await;
    assert_eq!(
        ran.sent(),
        [
            "POST initialize -",
            "POST notifications/initialized -",
            "POST tools/call -",
            "POST response -"
        ]
    );
    assert_eq!(ran.bodies()[3], ACCEPT_REPLY);
    assert!(ran.has_event(
        "HTTP: no reply planted in another session: the server assigned no Mcp-Session-Id"
    ));
}

#[tokio::test]
async fn the_second_sessions_event_stream_is_read_until_its_first_message() {
    let server = Server::start(|seen: &Seen| {
        let events = if seen.body.contains("first") {
            vec![
                String::from("data:"),
                event(Some("1"), &initialize_result()),
            ]
        } else {
            vec![String::from("data:")]
        };
        Reply::Events {
            session: None,
            events,
            hold: true,
        }
    })
    .await;
    let client = reqwest::Client::new();
    let response = client
        .post(server.url.clone())
        .body("first")
        .send()
        .await
        .expect("a status line");
    // The stream stays open after its first message: reading stops there.
    tokio::time::timeout(Duration::from_secs(30), first_message(response))
        .await
        .expect("first_message returns at the first event with data");
    // A priming event (no data) is not a message: still reading.
    let response = client
        .post(server.url.clone())
        .body("second")
        .send()
        .await
        .expect("a status line");
    let waited = tokio::time::timeout(Duration::from_secs(1), first_message(response)).await;
    assert!(waited.is_err(), "first_message returned before any message");
}

/// A loopback port nothing listens on (bound, then let go).
async fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    listener.local_addr().expect("an address").port()
}

/// Answers the connections of `listener` with `script`, one request each.
async fn serve_on(
    listener: TcpListener,
    script: impl Fn(&Seen) -> Reply,
    connections: usize,
    seen: &Mutex<Vec<Seen>>,
) {
    for _ in 0..connections {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        if let Some(request) = read_request(&mut stream).await {
            let reply = script(&request);
            lock(seen).push(request);
            let _ = answer(stream, reply, seen).await;
        }
    }
}

#[tokio::test]
async fn a_refused_connection_is_tried_again_until_the_server_first_answers() {
    // The server starts listening a moment after the bridge's first try.
    let port = free_port().await;
    let url = Url::parse(&format!("http://127.0.0.1:{port}/mcp")).expect("a URL");
    let seen = Mutex::new(Vec::new());
    let server = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("the port again");
        let serve = serve_on(listener, |_| json(200, initialize_result()), 1, &seen);
        // Bounded: a bridge that gave up never connects.
        let _ = tokio::time::timeout(Duration::from_secs(30), serve).await;
    };
    let state = new_state();
    let (forwarded, ()) =
        tokio::join!(drive(url, state.clone(), roomy(), &[INITIALIZE], 1), server);
    assert_eq!(forwarded, [initialize_result().to_string()]);
    let recording = state.recording();
    let steps: Vec<&HttpStep> = recording.http.iter().map(|record| &record.step).collect();
    assert!(
        matches!(
            steps.as_slice(),
            [
                HttpStep::Request { .. },
                HttpStep::Response { status: 200, .. },
                HttpStep::Body { .. }
            ]
        ),
        "{steps:?}"
    );
}

#[tokio::test]
async fn after_the_server_answered_a_refused_connection_is_a_failure_at_once() {
    // The server answers `initialize`, stops listening, and listens again a
    // moment later: the next POST is not tried again meanwhile.
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let port = listener.local_addr().expect("an address").port();
    let url = Url::parse(&format!("http://127.0.0.1:{port}/mcp")).expect("a URL");
    let seen = Mutex::new(Vec::new());
    let server = async {
        let serve = serve_on(listener, |_| json(200, initialize_result()), 1, &seen);
        let _ = tokio::time::timeout(Duration::from_secs(30), serve).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("the port again");
        // Whatever comes now is answered (a retry would be).
        let again = tokio::time::timeout(
            Duration::from_secs(3),
            serve_on(listener, |_| accepted(), 1, &seen),
        );
        let _ = again.await;
    };
    let state = new_state();
    let lines = [INITIALIZE, INITIALIZED];
    let (forwarded, ()) = tokio::join!(drive(url, state.clone(), roomy(), &lines, 1), server);
    assert_eq!(forwarded, [initialize_result().to_string()]);
    let recording = state.recording();
    let failed: Vec<&String> = recording
        .http
        .iter()
        .filter_map(|record| match &record.step {
            HttpStep::Failed { error } if record.exchange == 2 => Some(error),
            _ => None,
        })
        .collect();
    assert_eq!(failed.len(), 1, "{:?}", recording.http);
    assert!(failed[0].contains("Connection refused"), "{failed:?}");
    assert_eq!(lock(&seen).len(), 1, "only initialize reached the server");
}

#[tokio::test]
async fn a_resumption_answered_without_an_event_stream_is_not_read_as_one() {
    // A 200 with a JSON body to the GET that resumes: recorded, not resumed again.
    let server = Server::start(initializing(|seen: &Seen| match seen.method.as_str() {
        "POST" if seen.what() == "tools/call" => Reply::Events {
            session: None,
            events: vec!["id: r1\nretry: 0\ndata:".to_owned()],
            hold: false,
        },
        "GET" => json(200, json!({})),
        _ => accepted(),
    }))
    .await;
    let (ran, ended) = run_open(&server, &[INITIALIZE, CALL], Duration::from_secs(2)).await;
    assert!(!ended, "a stream with an event id does not end the session");
    let resumed = the_resumption(&ran);
    assert_eq!(
        ran.exchange(resumed),
        ["GET /mcp?v=1", "status 200", "body 2 bytes: {}"]
    );
}

#[tokio::test]
async fn a_stream_cut_at_16_mib_is_not_resumed() {
    let over = MAX_LINE_BYTES + 1024 * 1024;
    let server = Server::start(initializing(move |seen: &Seen| {
        match seen.method.as_str() {
            "POST" if seen.what() == "tools/call" => Reply::Events {
                session: None,
                events: vec![
                    "id: c1\nretry: 0\ndata:".to_owned(),
                    format!("data: {}", json_string_of(over)),
                ],
                hold: false,
            },
            "GET" => Reply::Events {
                session: None,
                events: vec![event(Some("c2"), &call_result())],
                hold: false,
            },
            _ => accepted(),
        }
    }))
    .await;
    let (ran, _) = run_open(&server, &[INITIALIZE, CALL], Duration::from_secs(2)).await;
    assert_eq!(resumptions(&ran), Vec::<u32>::new(), "{:?}", ran.steps());
    assert_eq!(
        ran.exchange(2),
        [
            "POST /mcp?v=1",
            "status 200",
            "event id c1",
            "ended: cut at 16 MiB"
        ]
    );
}
