//! Hostile client frames (docs/src/hostile.md): the harness writes raw lines to
//! the server's stdin itself, as a misbehaving client would, while the proxy
//! records both directions as for every other case.
//!
//! ```text
//! script (raw lines) → server stdin            (each line recorded as a client frame)
//! server stdout → proxy::server_to_client → script reads frames
//! ```
//! What each case sends is [`HostileCase::play`]; what it must see is
//! [`crate::oracle::hostile`].

use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::process::ChildStdin;
use tokio::task::JoinHandle;

use super::Limits;
use super::child::{self, Exit, ServerProcess};
use super::in_flight::Registration;
use super::proxy::{self, ProxyState, Recording};
use crate::error::Error;
use crate::evidence::Wait;

/// The client capabilities every hostile case declares: form elicitation.
pub const CAPABILITIES: &str = r#"{"elicitation":{"form":{}}}"#;

/// The valid answer of the contract: `{"action":"accept","content":{"units":3,"unit_value":7}}`.
pub const VALID_ACCEPT: &str = r#"{"action":"accept","content":{"units":3,"unit_value":7}}"#;

/// One hostile-client case. The expected behaviour of each is in docs/src/hostile.md's
/// "Hostile clients" table and in [`crate::oracle::hostile::judge`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HostileCase {
    /// `tools/call` after `initialize`, before `notifications/initialized`.
    CallBeforeInitialized,
    /// The elicitation answered under id `"0"` (a string) for request id `0`
    /// with accept {3, 7}, then under `0` with decline.
    ReplyIdMistyped,
    /// The elicitation answered under an id the server never used (accept
    /// {3, 7}), then under its own id with decline.
    ReplyIdUnknown,
    /// The elicitation answered twice under its own id, in one write: decline,
    /// then accept {3, 7}; then a `ping` (id 42) whose reply is awaited, so a
    /// second result to the call would be on the wire by then.
    ReplyTwice,
    /// A line that is not JSON, then a request object with an `id` but no
    /// `method`, then a normal call.
    NotJsonAndNoMethod,
    /// A line that is not UTF-8 (byte 0xFF inside a string), then a normal call.
    InvalidUtf8,
    /// The answer's `action` spelled `ACCEPT` (valid content).
    ActionUpperCase,
    /// The answer's `action` spelled `Accept` (valid content).
    ActionCapitalized,
    /// The answer's `action` is `reject` (valid content).
    ActionReject,
    /// The answer's `action` is `""` (valid content).
    ActionEmpty,
    /// An accept whose `units` is a 1 MiB string, with 10,000 extra keys; then a
    /// normal call.
    OversizedAnswer,
    /// An accept whose content is nested 10,000 levels deep; then a normal call.
    DeepAnswer,
    /// An accept with `units` `1e400` (beyond f64); then a normal call.
    HugeExponent,
    /// An accept whose content names `units` twice (`"3"`, then `3`); then a normal call.
    DuplicateKeys,
    /// stdin closed while the server waits for the elicitation's answer.
    EofWhileElicitationPending,
    /// stdin closed right after a `tools/list` request.
    EofRightAfterRequest,
    /// The elicitation answered (accept {3, 7}) only after the call's reply, then
    /// a second call answered at once. Only for a server that bounds its wait
    /// (`serve --elicitation-timeout SECS`, the reference server under bad
    /// answers), so not in [`HostileCase::ALL`].
    LateAnswerAfterTimeout,
}

impl HostileCase {
    /// Every case, in the order of docs/src/hostile.md's table (H1 to H16).
    pub const ALL: [HostileCase; 16] = [
        HostileCase::CallBeforeInitialized,
        HostileCase::ReplyIdMistyped,
        HostileCase::ReplyIdUnknown,
        HostileCase::ReplyTwice,
        HostileCase::NotJsonAndNoMethod,
        HostileCase::InvalidUtf8,
        HostileCase::ActionUpperCase,
        HostileCase::ActionCapitalized,
        HostileCase::ActionReject,
        HostileCase::ActionEmpty,
        HostileCase::OversizedAnswer,
        HostileCase::DeepAnswer,
        HostileCase::HugeExponent,
        HostileCase::DuplicateKeys,
        HostileCase::EofWhileElicitationPending,
        HostileCase::EofRightAfterRequest,
    ];

    /// The case's name (snake case, as in docs/src/hostile.md and the snapshots).
    pub fn name(self) -> &'static str {
        match self {
            HostileCase::CallBeforeInitialized => "call_before_initialized",
            HostileCase::ReplyIdMistyped => "reply_id_mistyped",
            HostileCase::ReplyIdUnknown => "reply_id_unknown",
            HostileCase::ReplyTwice => "reply_twice",
            HostileCase::NotJsonAndNoMethod => "not_json_and_no_method",
            HostileCase::InvalidUtf8 => "invalid_utf8",
            HostileCase::ActionUpperCase => "action_upper_case",
            HostileCase::ActionCapitalized => "action_capitalized",
            HostileCase::ActionReject => "action_reject",
            HostileCase::ActionEmpty => "action_empty",
            HostileCase::OversizedAnswer => "oversized_answer",
            HostileCase::DeepAnswer => "deep_answer",
            HostileCase::HugeExponent => "huge_exponent",
            HostileCase::DuplicateKeys => "duplicate_keys",
            HostileCase::EofWhileElicitationPending => "eof_while_elicitation_pending",
            HostileCase::EofRightAfterRequest => "eof_right_after_request",
            HostileCase::LateAnswerAfterTimeout => "late_answer_after_timeout",
        }
    }

    /// The answer of the four bad-answer cases (the reference server under bad
    /// answers), as sent.
    pub fn bad_answer(self) -> Option<String> {
        match self {
            HostileCase::OversizedAnswer => {
                let extra: String = (0..10_000).map(|key| format!(",\"k{key}\":0")).collect();
                Some(format!(
                    r#"{{"action":"accept","content":{{"units":"{}","unit_value":7{extra}}}}}"#,
                    "x".repeat(1 << 20)
                ))
            }
            HostileCase::DeepAnswer => Some(format!(
                r#"{{"action":"accept","content":{{"units":3,"unit_value":7,"deep":{}{}}}}}"#,
                "[".repeat(10_000),
                "]".repeat(10_000)
            )),
            HostileCase::HugeExponent => {
                Some(r#"{"action":"accept","content":{"units":1e400,"unit_value":7}}"#.to_owned())
            }
            HostileCase::DuplicateKeys => Some(
                r#"{"action":"accept","content":{"units":"3","units":3,"unit_value":7}}"#
                    .to_owned(),
            ),
            _ => None,
        }
    }

    /// The misspelt action of the four action cases.
    pub fn action(self) -> Option<&'static str> {
        match self {
            HostileCase::ActionUpperCase => Some("ACCEPT"),
            HostileCase::ActionCapitalized => Some("Accept"),
            HostileCase::ActionReject => Some("reject"),
            HostileCase::ActionEmpty => Some(""),
            _ => None,
        }
    }

    /// Spawns `command`, plays the case's script and shuts the server down.
    ///
    /// # Errors
    /// [`Error::Spawn`] when the process cannot start. A server that does not
    /// answer is no error: each wait is bounded by `limits.call` and the
    /// evidence shows what was missing.
    pub async fn play(self, command: &[String], limits: Limits) -> Result<Played, Error> {
        let mut raw = RawSession::spawn(command, limits)?;
        raw.send(&initialize(0)).await;
        raw.expect_within(limits.startup, |message| is_reply_to(message, &json!(0)))
            .await;
        if self == HostileCase::CallBeforeInitialized {
            raw.send(&call(1)).await;
            raw.expect(|message| is_reply_to(message, &json!(1)) || is_elicitation(message))
                .await;
            raw.send(INITIALIZED.as_bytes()).await;
            raw.send(&call(2)).await;
            raw.answer_next(VALID_ACCEPT).await;
            raw.expect(|message| is_reply_to(message, &json!(2))).await;
            return Ok(raw.finish().await);
        }
        raw.send(INITIALIZED.as_bytes()).await;
        match self {
            HostileCase::CallBeforeInitialized => unreachable!("played above"),
            HostileCase::ReplyIdMistyped | HostileCase::ReplyIdUnknown => {
                raw.send(&call(1)).await;
                if let Some(id) = raw.expect(is_elicitation).await.map(|m| m["id"].clone()) {
                    let wrong = match self {
                        HostileCase::ReplyIdMistyped => mistyped(&id),
                        _ => json!(987_654),
                    };
                    raw.send(&reply(&wrong, VALID_ACCEPT)).await;
                    raw.send(&reply(&id, r#"{"action":"decline"}"#)).await;
                }
                raw.expect(|message| is_reply_to(message, &json!(1))).await;
            }
            HostileCase::ReplyTwice => {
                raw.send(&call(1)).await;
                if let Some(id) = raw.expect(is_elicitation).await.map(|m| m["id"].clone()) {
                    // One write: a server reads both replies before it answers.
                    raw.send_all(&[
                        &reply(&id, r#"{"action":"decline"}"#),
                        &reply(&id, VALID_ACCEPT),
                    ])
                    .await;
                }
                raw.expect(|message| is_reply_to(message, &json!(1))).await;
                raw.send(BARRIER_PING.as_bytes()).await;
                raw.expect(|message| is_reply_to(message, &json!(42))).await;
            }
            HostileCase::NotJsonAndNoMethod | HostileCase::InvalidUtf8 => {
                // The bad lines, then a `ping` (id 42) whose reply is awaited: a
                // server reads its stdin in order, so by then it has answered the
                // bad lines, if it answers them at all. The error replies are
                // judged from the wire; a server that sends none costs no wait.
                // They go out in one write, so the recorded order is fixed.
                let bad: &[&[u8]] = if self == HostileCase::NotJsonAndNoMethod {
                    &[b"this is not JSON {", br#"{"jsonrpc":"2.0","id":41}"#]
                } else {
                    &[b"{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}"]
                };
                raw.send_all(&[bad, &[BARRIER_PING.as_bytes()]].concat())
                    .await;
                raw.expect(|message| is_reply_to(message, &json!(42))).await;
                raw.send(&call(1)).await;
                raw.answer_next(VALID_ACCEPT).await;
                raw.expect(|message| is_reply_to(message, &json!(1))).await;
            }
            HostileCase::ActionUpperCase
            | HostileCase::ActionCapitalized
            | HostileCase::ActionReject
            | HostileCase::ActionEmpty => {
                let action = self.action().unwrap_or_default();
                let answer =
                    json!({"action": action, "content": {"units": 3, "unit_value": 7}}).to_string();
                raw.send(&call(1)).await;
                raw.answer_next(&answer).await;
                raw.expect(|message| is_reply_to(message, &json!(1))).await;
            }
            HostileCase::OversizedAnswer
            | HostileCase::DeepAnswer
            | HostileCase::HugeExponent
            | HostileCase::DuplicateKeys => {
                raw.send(&call(1)).await;
                raw.answer_next(&self.bad_answer().unwrap_or_default())
                    .await;
                raw.expect(|message| is_reply_to(message, &json!(1))).await;
                raw.send(&call(2)).await;
                raw.answer_next(VALID_ACCEPT).await;
                raw.expect(|message| is_reply_to(message, &json!(2))).await;
            }
            HostileCase::EofWhileElicitationPending => {
                raw.send(&call(1)).await;
                raw.expect(is_elicitation).await;
            }
            HostileCase::LateAnswerAfterTimeout => {
                raw.send(&call(1)).await;
                let request = raw.expect(is_elicitation).await;
                raw.expect(|message| is_reply_to(message, &json!(1))).await;
                if let Some(request) = request {
                    raw.send(&reply(&request["id"], VALID_ACCEPT)).await;
                }
                raw.send(&call(2)).await;
                raw.answer_next(VALID_ACCEPT).await;
                raw.expect(|message| is_reply_to(message, &json!(2))).await;
            }
            HostileCase::EofRightAfterRequest => {
                raw.send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
                    .await;
            }
        }
        Ok(raw.finish().await)
    }
}

/// What a hostile case leaves behind.
#[derive(Debug, Clone)]
pub struct Played {
    /// Every frame both ways (client lines as written), stray stdout, timeline.
    pub recording: Recording,
    /// How the server ended after its stdin closed.
    pub exit: Exit,
    /// The signal that ended the server, when one did ([`child::Ended::signal`]).
    pub signal: Option<i32>,
    /// Waits that ended without the awaited frame, in order.
    pub timeouts: Vec<Wait>,
    /// The server's process id.
    pub pid: Option<u32>,
}

/// The `ping` (id 42) sent after the bad lines of `not_json_and_no_method` and
/// `invalid_utf8`, and after the call of `reply_twice`: its reply shows the
/// server has read (and answered) everything before it.
pub const BARRIER_PING: &str = r#"{"jsonrpc":"2.0","id":42,"method":"ping"}"#;

/// `notifications/initialized`.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// An `initialize` request under `id` declaring [`CAPABILITIES`], protocol 2025-11-25.
pub fn initialize(id: u64) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{CAPABILITIES},"clientInfo":{{"name":"elicit-check-hostile","version":"{}"}}}}}}"#,
        env!("CARGO_PKG_VERSION")
    )
    .into_bytes()
}

/// A `tools/call` of `calculate` (policy `validated`) under `id`.
pub fn call(id: u64) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"calculate","arguments":{{"policy":"validated"}}}}}}"#
    )
    .into_bytes()
}

/// A reply under `id` whose `result` is `result` (raw JSON text, sent as written).
pub fn reply(id: &Value, result: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).into_bytes()
}

/// The same id in the other JSON type: `0` → `"0"`, `"7"` → `7` (a string that
/// is no number → the number `0`).
pub fn mistyped(id: &Value) -> Value {
    match id {
        Value::String(text) => text.parse::<u64>().map_or(json!(0), Value::from),
        other => Value::String(other.to_string()),
    }
}

fn is_elicitation(message: &Value) -> bool {
    message.get("method").and_then(Value::as_str) == Some("elicitation/create")
}

fn is_reply_to(message: &Value, id: &Value) -> bool {
    message.get("method").is_none() && message.get("id") == Some(id)
}

/// A server process driven line by line, recorded by the proxy. While it runs
/// it is registered as the case in flight (`super::in_flight`), so a run stopped
/// by Ctrl-C or SIGTERM keeps its frames so far as an `interrupted` verdict.
struct RawSession {
    state: ProxyState,
    process: ServerProcess,
    in_flight: Option<Registration>,
    stdin: Option<ChildStdin>,
    frames: Lines<BufReader<DuplexStream>>,
    pump: JoinHandle<()>,
    limits: Limits,
    timeouts: Vec<Wait>,
}

impl RawSession {
    fn spawn(command: &[String], limits: Limits) -> Result<RawSession, Error> {
        let started = std::time::Instant::now();
        let (process, stdin, stdout) = child::spawn(command)?;
        let capabilities: Value =
            serde_json::from_str(CAPABILITIES).expect("the capabilities are JSON");
        let state = ProxyState::new(capabilities, started);
        state.event(format!("spawned pid {}", process.pid.unwrap_or(0)));
        let (to_script, from_proxy) = tokio::io::duplex(1 << 20);
        let pump = tokio::spawn(proxy::server_to_client(
            state.clone(),
            stdout,
            to_script,
            None,
        ));
        let in_flight = Registration::new(&state, process.pid, None);
        Ok(RawSession {
            state,
            process,
            in_flight,
            stdin: Some(stdin),
            frames: BufReader::new(from_proxy).lines(),
            pump,
            limits,
            timeouts: Vec::new(),
        })
    }

    /// Writes `line` and a newline to the server's stdin and records it.
    async fn send(&mut self, line: &[u8]) {
        self.send_all(&[line]).await;
    }

    /// Records `lines`, then writes them, each with a newline, in one write.
    async fn send_all(&mut self, lines: &[&[u8]]) {
        let mut bytes = Vec::new();
        for line in lines {
            self.state.record_client_line(line);
            bytes.extend_from_slice(line);
            bytes.push(b'\n');
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return;
        };
        let written = stdin.write_all(&bytes).await.is_ok() && stdin.flush().await.is_ok();
        if !written {
            self.state.event("server stdin closed while writing");
            self.stdin = None;
        }
    }

    /// Reads server frames until one matches (within `limits.call`); `None`
    /// when none did (the wait is kept in [`Played::timeouts`]).
    async fn expect(&mut self, wanted: impl Fn(&Value) -> bool) -> Option<Value> {
        self.expect_within(self.limits.call, wanted).await
    }

    /// [`RawSession::expect`] within `bound`. Once one wait has run out, later
    /// ones return `None` at once: the case has failed, and a server that hangs
    /// must not cost one bound per step.
    async fn expect_within(
        &mut self,
        bound: std::time::Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        if !self.timeouts.is_empty() {
            return None;
        }
        let found = tokio::time::timeout(bound, async {
            while let Ok(Some(line)) = self.frames.next_line().await {
                match serde_json::from_str::<Value>(&line) {
                    Ok(message) if wanted(&message) => return Ok(message),
                    _ => {}
                }
            }
            Err(())
        })
        .await;
        let frame = self.state.frame_count();
        match found {
            Ok(Ok(message)) => return Some(message),
            Ok(Err(())) => self.timeouts.push(Wait::StdoutClosed { frames: frame }),
            Err(_) => self.timeouts.push(Wait::Elapsed {
                within: bound,
                frames: frame,
            }),
        }
        None
    }

    /// Waits for the next `elicitation/create` and answers it under its id with `answer`.
    async fn answer_next(&mut self, answer: &str) {
        if let Some(request) = self.expect(is_elicitation).await {
            self.send(&reply(&request["id"], answer)).await;
        }
    }

    /// Closes stdin, waits for the exit (killing the group after the grace) and
    /// for the end of stdout; the case is then no longer in flight.
    async fn finish(mut self) -> Played {
        let pid = self.process.pid;
        self.stdin = None;
        self.state.event("server stdin closed");
        let child::Ended { exit, signal } = self.process.end(self.limits.shutdown).await;
        drop(self.frames);
        if tokio::time::timeout(self.limits.shutdown, &mut self.pump)
            .await
            .is_err()
        {
            self.pump.abort();
            self.state.event("server stdout still open after exit");
        }
        if let Some(registration) = self.in_flight.take() {
            registration.done();
        }
        Played {
            recording: self.state.recording(),
            exit,
            signal,
            timeouts: self.timeouts,
            pid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_id_is_the_same_value_in_the_other_json_type() {
        assert_eq!(mistyped(&json!(0)), json!("0"));
        assert_eq!(mistyped(&json!("7")), json!(7));
        assert_eq!(mistyped(&json!("x")), json!(0));
    }

    #[test]
    fn every_case_has_its_own_name() {
        let names: std::collections::BTreeSet<_> =
            HostileCase::ALL.iter().map(|case| case.name()).collect();
        assert_eq!(names.len(), HostileCase::ALL.len());
        assert_eq!(HostileCase::ActionEmpty.action(), Some(""));
        assert_eq!(HostileCase::ReplyIdUnknown.action(), None);
    }
}
