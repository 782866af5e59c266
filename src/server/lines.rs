//! The stdio line filter in front of rmcp: what the reference server does with
//! client frames rmcp alone would mishandle (docs/src/hostile.md).
//!
//! rmcp 3.11's stdio transport drops a line that is not JSON without a word,
//! answers a request object without `method` with `-32600` but without its `id`,
//! matches a reply to `elicitation/create` under id `"0"` to the request with id
//! `0`, serves `tools/call` (and so elicits) before `notifications/initialized`,
//! and keeps waiting for an answer after stdin has closed. This filter reads
//! every client line before rmcp does and decides, in JSON-RPC 2.0 and MCP
//! 2025-11-25 terms ([`classify`] is the pure part):
//!
//! | client line | the server |
//! |---|---|
//! | not UTF-8, not JSON | `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,...}}` |
//! | JSON that is not an object (a batch, a number) | `-32600`, id null |
//! | an object with neither `method` nor `result`/`error` | `-32600` with its `id` (null when it has none) |
//! | a request other than `ping` after `initialize` and before `notifications/initialized` | `-32600` with its `id`; nothing is asked or computed |
//! | a reply to a pending request that serde_json cannot read (nested deeper than 128 levels, a number beyond f64 like `1e400`), with a member name twice, or whose `error` is no JSON-RPC error object (`{}`, `null`, a `code` that is no 32-bit integer, no string `message`) | passed as `{"action":"unreadable reply"}`: the core reads a malformed elicitation result, nothing is computed, the call does not stall |
//! | a reply whose `id` is not exactly (same JSON type and value) the id of a pending server request, or a second reply to one | dropped, logged to stderr |
//! | anything else | passed to rmcp (a reply keeps only the `ElicitResult` members, [`reply::without_extra_members`]) |
//!
//! At the end of stdin the server stops once every client request it received
//! has its reply on stdout, except requests that wait for an answer the client
//! can no longer send (a pending `elicitation/create`): those end without a
//! reply and without computing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::lock::lock;
use crate::server::reply;
use crate::unique_names::UniqueNames;

/// JSON-RPC 2.0 parse error: the line is not JSON (or not UTF-8).
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0 invalid request: JSON, but not a request, notification or reply.
pub const INVALID_REQUEST: i64 = -32600;

/// Where the session is in the MCP lifecycle (2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Phase {
    /// No `initialize` seen (also every 2026-07-28 session, which has none).
    #[default]
    Fresh,
    /// `initialize` seen, `notifications/initialized` not yet.
    AwaitingInitialized,
    /// `notifications/initialized` seen.
    Ready,
}

/// What the filter keeps between lines.
#[derive(Debug, Default)]
pub struct Gate {
    /// The lifecycle phase.
    pub phase: Phase,
    /// Ids of server→client requests (`elicitation/create`) awaiting the client's reply.
    pub pending: Vec<Value>,
    /// Ids of client requests passed to rmcp and not yet answered.
    pub in_flight: Vec<Value>,
}

impl Gate {
    /// Whether the server may stop after stdin closed: every client request not
    /// yet answered can be accounted for by a server request the client will
    /// never answer now.
    pub fn settled(&self) -> bool {
        self.in_flight.len() <= self.pending.len()
    }

    /// Notes a line rmcp writes to stdout: a request's id becomes pending, a
    /// reply takes its id out of the requests in flight, `notifications/cancelled`
    /// takes its `requestId` out of the pending ones (a late answer is dropped).
    pub fn note_outbound(&mut self, message: &Value) {
        if message.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            // The server gave up on its request: the client's answer is no longer awaited.
            let cancelled = message.pointer("/params/requestId");
            self.pending.retain(|id| Some(id) != cancelled);
            return;
        }
        let Some(id) = message.get("id").filter(|id| !id.is_null()) else {
            return;
        };
        if message.get("method").is_some() {
            self.pending.push(id.clone());
        } else if let Some(at) = self.in_flight.iter().position(|seen| seen == id) {
            self.in_flight.remove(at);
        }
    }
}

/// What to do with one client line.
#[derive(Debug, Clone, PartialEq)]
pub enum Disposition {
    /// Pass this text to rmcp.
    Pass(String),
    /// Do not pass it; write this JSON-RPC error reply to stdout.
    Answer(Value),
    /// Do not pass it; say why on stderr.
    Drop(String),
}

/// A JSON-RPC error reply: `{"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":MESSAGE}}`.
pub fn error_reply(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `id` of a message when it is one JSON-RPC admits (a string or a number), else null.
fn reply_id(message: &Value) -> Value {
    match message.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// Decides one client line (without its newline) and updates `gate`.
pub fn classify(line: &[u8], gate: &mut Gate) -> Disposition {
    let Ok(text) = std::str::from_utf8(line) else {
        return Disposition::Answer(error_reply(
            Value::Null,
            PARSE_ERROR,
            "Parse error: the line is not UTF-8",
        ));
    };
    let Ok(message) = serde_json::from_str::<Value>(text) else {
        return unreadable_reply(text, gate).unwrap_or_else(|| {
            Disposition::Answer(error_reply(
                Value::Null,
                PARSE_ERROR,
                "Parse error: the line is not JSON",
            ))
        });
    };
    let Some(object) = message.as_object() else {
        return Disposition::Answer(error_reply(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC object",
        ));
    };
    match object.get("method") {
        Some(Value::String(method)) => match object.get("id") {
            Some(id) => {
                if method == "initialize" && gate.phase == Phase::Fresh {
                    gate.phase = Phase::AwaitingInitialized;
                } else if gate.phase == Phase::AwaitingInitialized && method != "ping" {
                    return Disposition::Answer(error_reply(
                        reply_id(&message),
                        INVALID_REQUEST,
                        &format!("Invalid Request: {method} before notifications/initialized"),
                    ));
                }
                gate.in_flight.push(id.clone());
                Disposition::Pass(text.to_owned())
            }
            None => {
                if method == "notifications/initialized" && gate.phase == Phase::AwaitingInitialized
                {
                    gate.phase = Phase::Ready;
                }
                Disposition::Pass(text.to_owned())
            }
        },
        Some(_) => Disposition::Answer(error_reply(
            reply_id(&message),
            INVALID_REQUEST,
            "Invalid Request: method is not a string",
        )),
        None if object.contains_key("result") || object.contains_key("error") => {
            let id = object.get("id").cloned().unwrap_or(Value::Null);
            match gate.pending.iter().position(|pending| *pending == id) {
                Some(at) => {
                    gate.pending.remove(at);
                    if serde_json::from_str::<UniqueNames>(text).is_err() {
                        tracing::warn!(%id, "reply with duplicate member names: read as malformed");
                        return Disposition::Pass(malformed_reply(&id));
                    }
                    if object
                        .get("error")
                        .is_some_and(|error| !is_error_object(error))
                    {
                        tracing::warn!(%id, "reply whose error is no JSON-RPC error object: read as malformed");
                        return Disposition::Pass(malformed_reply(&id));
                    }
                    Disposition::Pass(reply::without_extra_members(text).unwrap_or(text.to_owned()))
                }
                None => Disposition::Drop(format!(
                    "reply under id {id} answers no pending request (ids pending: {}); ignored",
                    Value::from(gate.pending.clone())
                )),
            }
        }
        None => Disposition::Answer(error_reply(
            reply_id(&message),
            INVALID_REQUEST,
            "Invalid Request: no method",
        )),
    }
}

/// Whether `error` is a JSON-RPC error object rmcp reads (`ErrorData`: an
/// `i32` `code` and a string `message`); rmcp answers any other error reply with
/// `-32600` and no id, and the request it answers would wait forever.
fn is_error_object(error: &Value) -> bool {
    serde_json::from_value::<rmcp::model::ErrorData>(error.clone()).is_ok()
}

/// `line` without its trailing `\n` and `\r` bytes.
fn trim_line_end(line: &mut Vec<u8>) -> &[u8] {
    while line
        .last()
        .is_some_and(|byte| *byte == b'\n' || *byte == b'\r')
    {
        line.pop();
    }
    line
}

/// Whether a line holds nothing but ASCII whitespace (skipped, as rmcp does).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// The action a reply is rewritten to when the server cannot read it as sent
/// (no spec action, so the core reads it as "malformed elicitation result").
pub const UNREADABLE_ACTION: &str = "unreadable reply";

/// A reply under `id` that the core reads as a malformed elicitation result.
fn malformed_reply(id: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"action": UNREADABLE_ACTION}}).to_string()
}

/// A line serde_json cannot read as a whole (nested deeper than its 128 levels,
/// a number beyond f64 such as `1e400`) that is still a JSON object whose top
/// level reads: when it is a reply to a pending request, that request gets a
/// malformed reply (nothing is computed and the call does not stall); a reply
/// to nothing is dropped; anything else is `None` (a parse error).
fn unreadable_reply(text: &str, gate: &mut Gate) -> Option<Disposition> {
    let members: HashMap<String, Box<RawValue>> = serde_json::from_str(text).ok()?;
    let is_reply = !members.contains_key("method")
        && (members.contains_key("result") || members.contains_key("error"));
    if !is_reply {
        return None;
    }
    let id: Value = members
        .get("id")
        .and_then(|id| serde_json::from_str(id.get()).ok())
        .unwrap_or(Value::Null);
    let Some(at) = gate.pending.iter().position(|pending| *pending == id) else {
        return Some(Disposition::Drop(format!(
            "unreadable reply under id {id} answers no pending request; ignored"
        )));
    };
    gate.pending.remove(at);
    tracing::warn!(%id, "reply too deep or with a number beyond f64: read as malformed");
    Some(Disposition::Pass(malformed_reply(&id)))
}

/// Reads client lines from `from`, passes the admitted ones to rmcp (`to`),
/// sends error replies to `errors`; closes `to` at the end of `from`.
pub async fn filter_inbound(
    from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    gate: Arc<Mutex<Gate>>,
    errors: mpsc::UnboundedSender<Value>,
) {
    let mut reader = BufReader::new(from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if is_blank(trim_line_end(&mut line)) {
            continue;
        }
        let verdict = classify(&line, &mut lock(&gate));
        match verdict {
            Disposition::Pass(mut text) => {
                // One write per line, so rmcp's reader wakes once for it.
                text.push('\n');
                if to.write_all(text.as_bytes()).await.is_err() {
                    break;
                }
            }
            Disposition::Answer(reply) => {
                tracing::warn!(%reply, "client line refused");
                let _ = errors.send(reply);
            }
            Disposition::Drop(why) => tracing::warn!("{why}"),
        }
    }
    let _ = to.shutdown().await;
}

/// Writes rmcp's lines (`from`) and the filter's error replies to `to`, each
/// line whole and flushed, noting every outbound frame in `gate`; ends when rmcp's
/// side closes, after writing the error replies still queued.
pub async fn merge_outbound(
    from: impl AsyncRead + Unpin,
    mut errors: mpsc::UnboundedReceiver<Value>,
    mut to: impl AsyncWrite + Unpin,
    gate: Arc<Mutex<Gate>>,
) {
    let mut lines = BufReader::new(from).lines();
    let mut errors_open = true;
    loop {
        // Error replies first: each was queued before the filter passed any later
        // line to rmcp, so it goes out before rmcp's replies to those lines.
        let line = tokio::select! {
            biased;
            reply = errors.recv(), if errors_open => match reply {
                Some(reply) => reply.to_string(),
                None => {
                    errors_open = false;
                    continue;
                }
            },
            line = lines.next_line() => match line {
                Ok(Some(line)) => line,
                _ => break,
            },
        };
        let message = serde_json::from_str::<Value>(&line).unwrap_or_default();
        // A request's id is pending before the client can see it (its reply may
        // come back at once); a reply leaves the requests in flight only once
        // written (the server may stop as soon as none is left).
        let is_request = message.get("method").is_some();
        if is_request {
            lock(&gate).note_outbound(&message);
        }
        // One write per line: the frame and its newline together.
        let mut line = line;
        line.push('\n');
        let written = to.write_all(line.as_bytes()).await.is_ok() && to.flush().await.is_ok();
        if !is_request {
            lock(&gate).note_outbound(&message);
        }
        if !written {
            return;
        }
    }
    // rmcp is done: error replies already queued still go out.
    while let Ok(reply) = errors.try_recv() {
        let line = reply.to_string();
        if to.write_all(line.as_bytes()).await.is_err() || to.write_all(b"\n").await.is_err() {
            return;
        }
    }
    let _ = to.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passed(line: &str, gate: &mut Gate) -> bool {
        matches!(classify(line.as_bytes(), gate), Disposition::Pass(_))
    }

    fn answered(line: &[u8], gate: &mut Gate) -> Value {
        match classify(line, gate) {
            Disposition::Answer(reply) => reply,
            other => panic!("expected an error reply, got {other:?}"),
        }
    }

    #[test]
    fn a_line_that_is_not_json_or_not_utf8_gets_a_parse_error_with_id_null() {
        let mut gate = Gate::default();
        for line in [
            &b"hello {"[..],
            b"{\"id\":1,\"method\":\"ping\",\"x\":\"\xff\"}",
        ] {
            let reply = answered(line, &mut gate);
            assert_eq!(reply["id"], Value::Null);
            assert_eq!(reply["error"]["code"], json!(-32700));
        }
        assert!(gate.in_flight.is_empty());
    }

    #[test]
    fn an_object_without_method_or_result_gets_invalid_request_with_its_id() {
        let mut gate = Gate::default();
        let reply = answered(br#"{"jsonrpc":"2.0","id":7}"#, &mut gate);
        assert_eq!(
            reply,
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: no method"}})
        );
        assert_eq!(
            answered(br#"{"jsonrpc":"2.0","id":"a","method":3}"#, &mut gate)["id"],
            json!("a")
        );
        assert_eq!(answered(b"[1]", &mut gate)["error"]["code"], json!(-32600));
        assert_eq!(answered(br#"{"id":{"x":1}}"#, &mut gate)["id"], Value::Null);
    }

    #[test]
    fn requests_between_initialize_and_initialized_are_refused_except_ping() {
        let mut gate = Gate::default();
        assert!(passed(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize"}"#,
            &mut gate
        ));
        assert_eq!(gate.phase, Phase::AwaitingInitialized);
        let reply = answered(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            &mut gate,
        );
        assert_eq!(reply["id"], json!(1));
        assert_eq!(
            reply["error"]["message"],
            json!("Invalid Request: tools/call before notifications/initialized")
        );
        assert!(passed(
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            &mut gate
        ));
        // A second initialize is no reason to go back.
        assert!(passed(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            &mut gate
        ));
        assert_eq!(gate.phase, Phase::Ready);
        assert!(passed(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call"}"#,
            &mut gate
        ));
        assert!(passed(
            r#"{"jsonrpc":"2.0","id":4,"method":"initialize"}"#,
            &mut gate
        ));
        assert_eq!(gate.phase, Phase::Ready);
        assert_eq!(gate.in_flight, vec![json!(0), json!(2), json!(3), json!(4)]);
    }

    #[test]
    fn a_session_without_initialize_is_never_gated() {
        let mut gate = Gate::default();
        assert!(passed(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            &mut gate
        ));
        assert!(passed(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            &mut gate
        ));
        assert_eq!(gate.phase, Phase::Fresh);
    }

    #[test]
    fn a_reply_passes_only_under_the_exact_pending_id_and_only_once() {
        let mut gate = Gate::default();
        gate.note_outbound(&json!({"jsonrpc":"2.0","id":0,"method":"elicitation/create"}));
        assert_eq!(gate.pending, vec![json!(0)]);
        for wrong in [r#""0""#, "5", "0.0", "null"] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":{wrong},"result":{{"action":"accept"}}}}"#);
            assert!(
                matches!(classify(line.as_bytes(), &mut gate), Disposition::Drop(_)),
                "{wrong}"
            );
        }
        assert!(passed(
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-1,"message":"x"}}"#,
            &mut gate
        ));
        assert!(gate.pending.is_empty());
        assert!(!passed(
            r#"{"jsonrpc":"2.0","id":0,"result":{"action":"decline"}}"#,
            &mut gate
        ));
    }

    #[test]
    fn a_reply_too_deep_with_a_huge_exponent_or_a_duplicate_member_is_read_as_malformed() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":0,"result":{{"action":"accept","content":{}{}}}}}"#,
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        let answers = [
            deep,
            // Error members rmcp cannot read as an error object.
            r#"{"jsonrpc":"2.0","id":0,"error":{}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"error":null}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":"x","message":1}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32603}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":2147483648,"message":"m"}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"units":1e400,"unit_value":7}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"units":"3","units":3,"unit_value":7}}}"#.to_owned(),
        ];
        for answer in answers {
            let mut gate = Gate::default();
            gate.note_outbound(&json!({"id":0,"method":"elicitation/create"}));
            assert_eq!(
                classify(answer.as_bytes(), &mut gate),
                Disposition::Pass(
                    r#"{"jsonrpc":"2.0","id":0,"result":{"action":"unreadable reply"}}"#.to_owned()
                ),
                "{}",
                &answer[..80]
            );
            assert!(gate.pending.is_empty());
            // The same line again answers nothing any more; a request that deep is a parse error.
            assert!(matches!(
                classify(answer.as_bytes(), &mut gate),
                Disposition::Drop(_)
            ));
        }
        let deep_request = format!(
            r#"{{"id":1,"method":"ping","params":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(
            answered(deep_request.as_bytes(), &mut Gate::default())["error"]["code"],
            json!(-32700)
        );
        // Unreadable and neither request nor reply (no method, no result, no
        // error) under a pending id: a parse error, not an answer to the elicitation.
        let mut gate = Gate::default();
        gate.note_outbound(&json!({"id":0,"method":"elicitation/create"}));
        let neither = r#"{"jsonrpc":"2.0","id":0,"content":{"units":1e400}}"#;
        assert_eq!(
            answered(neither.as_bytes(), &mut gate)["error"]["code"],
            json!(-32700)
        );
        assert_eq!(gate.pending, [json!(0)]);
        // Unique names at every depth pass as sent.
        let mut gate = Gate::default();
        gate.note_outbound(&json!({"id":0,"method":"elicitation/create"}));
        let nested = r#"{"id":0,"result":{"action":"accept","content":{"a":[{"x":1},{"x":2}],"b":null,"c":true,"d":-1,"e":1.5}}}"#;
        assert_eq!(
            classify(nested.as_bytes(), &mut gate),
            Disposition::Pass(nested.to_owned())
        );
    }

    #[test]
    fn a_reply_keeps_only_the_elicit_result_members() {
        let mut gate = Gate::default();
        gate.note_outbound(&json!({"id":1,"method":"elicitation/create"}));
        assert_eq!(
            classify(
                br#"{"id":1,"result":{"action":"decline","roots":[]}}"#,
                &mut gate
            ),
            Disposition::Pass(r#"{"id":1,"result":{"action":"decline"}}"#.to_owned())
        );
    }

    #[test]
    fn a_line_loses_its_line_end_only_and_blank_lines_are_skipped() {
        assert_eq!(trim_line_end(&mut b"{}\r\n".to_vec()), b"{}");
        assert_eq!(trim_line_end(&mut b"a b\n".to_vec()), b"a b");
        assert!(is_blank(b" \t"));
        assert!(!is_blank(b" x"));
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
    }

    #[test]
    fn the_inbound_filter_passes_admitted_lines_and_sends_error_replies_apart() {
        let input =
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n  \nnot json\n{\"id\":5}";
        let gate = Arc::new(Mutex::new(Gate::default()));
        let (errors, mut replies) = mpsc::unbounded_channel();
        let mut passed = Vec::new();
        runtime().block_on(filter_inbound(
            &input[..],
            &mut passed,
            gate.clone(),
            errors,
        ));
        assert_eq!(
            String::from_utf8(passed).expect("UTF-8"),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
        );
        assert_eq!(
            replies.try_recv().expect("a reply")["error"]["code"],
            json!(-32700)
        );
        assert_eq!(replies.try_recv().expect("a reply")["id"], json!(5));
        assert!(replies.try_recv().is_err());
        assert_eq!(lock(&gate).in_flight, vec![json!(1)]);
    }

    #[test]
    fn the_writer_merges_both_sources_line_by_line_and_keeps_the_gate() {
        let from = b"{\"id\":0,\"method\":\"elicitation/create\"}\n{\"id\":1,\"result\":{}}\n";
        let gate = Arc::new(Mutex::new(Gate::default()));
        lock(&gate).in_flight = vec![json!(1), json!(2)];
        let (errors, replies) = mpsc::unbounded_channel();
        errors
            .send(error_reply(Value::Null, PARSE_ERROR, "x"))
            .expect("open");
        drop(errors);
        let mut written = Vec::new();
        runtime().block_on(merge_outbound(
            &from[..],
            replies,
            &mut written,
            gate.clone(),
        ));
        let written = String::from_utf8(written).expect("UTF-8");
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines.len(), 3, "{written}");
        assert!(lines.contains(&r#"{"id":0,"method":"elicitation/create"}"#));
        assert!(lines.contains(&r#"{"id":1,"result":{}}"#));
        assert!(
            lines.contains(&r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#)
        );
        let gate = lock(&gate);
        assert_eq!(
            (gate.pending.clone(), gate.in_flight.clone()),
            (vec![json!(0)], vec![json!(2)])
        );
    }

    #[test]
    fn settled_when_every_request_in_flight_waits_on_the_client() {
        let mut gate = Gate::default();
        assert!(gate.settled());
        gate.in_flight.push(json!(1));
        assert!(!gate.settled());
        gate.note_outbound(&json!({"id":0,"method":"elicitation/create"}));
        assert!(gate.settled());
        gate.in_flight.push(json!(2));
        assert!(!gate.settled());
        gate.note_outbound(&json!({"id":2,"result":{}}));
        assert_eq!(gate.in_flight, vec![json!(1)]);
        assert!(gate.settled());
        // Cancelling a request the client never answered: its answer is no longer awaited.
        gate.note_outbound(&json!({"id":5,"method":"elicitation/create"}));
        gate.note_outbound(&json!({"method":"notifications/cancelled","params":{"requestId":5}}));
        assert_eq!(gate.pending, vec![json!(0)]);
        // A notification (no id) and an error reply with id null change nothing.
        gate.note_outbound(&json!({"method":"notifications/message"}));
        gate.note_outbound(&json!({"id":null,"error":{}}));
        assert_eq!((gate.pending.len(), gate.in_flight.len()), (1, 1));
    }
}
