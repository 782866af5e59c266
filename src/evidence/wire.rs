//! What crossed the wire: JSON-RPC frames in order, the server's stdout lines
//! that were no JSON-RPC message, timed events, and a recording of all three.
//! Written by the harness's recording proxy, read by the oracles and verdicts.

use serde::Serialize;
use serde_json::Value;

use super::http::HttpRecord;

/// Which peer wrote a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The harness's client (its frames go to the server's stdin).
    Client,
    /// The server under test (its frames come from its stdout).
    Server,
}

/// One JSON-RPC frame as it crossed the proxy: `{"seq": 3, "from": "server", "message": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Frame {
    /// Position in the session's line order (frames and stray lines share it), from 0.
    pub seq: u64,
    /// The sender.
    pub from: Side,
    /// The parsed message, as delivered to the other side.
    pub message: Value,
    /// The exact line delivered, when `message` re-serialized would differ from
    /// it: a reply carrying an answer written as raw JSON text (`-0`, `3e0`, an
    /// integer beyond 64 bits), or a hostile client line that is not JSON at all
    /// (then `message` is `null`). `None` means the line is `message` serialized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Frame {
    /// Whether it is a JSON-RPC notification from the server (a `method`,
    /// no `id`: `notifications/message`, `notifications/progress`): nothing
    /// waits on it, and no property over stdio judges it by where it falls
    /// between two calls (a request, such as a late `elicitation/create`, is
    /// judged by its place).
    pub fn is_server_notification(&self) -> bool {
        self.from == Side::Server
            && self.message.get("method").is_some()
            && self.message.get("id").is_none()
    }
}

/// How many of `frames`, the first a session recorded, are its handshake:
/// up to the last frame the client sent or the last response the server
/// sent (MCP 2025-11-25, Lifecycle: `initialize`, its result and the
/// client's `notifications/initialized`; 2026-07-28: `server/discover` and
/// its result). A notification or request the server sent after those is
/// not the handshake's: it goes to the session's first call, not to every
/// call's copy of the handshake.
pub fn handshake_len(frames: &[Frame]) -> usize {
    frames
        .iter()
        .rposition(|frame| frame.from == Side::Client || frame.message.get("method").is_none())
        .map_or(0, |last| last + 1)
}

/// The server frames `wire` starts with, ahead of the client's first frame:
/// in a session's part for one call, those the server sent after the
/// previous call's part ended (frames of an earlier call).
pub fn leading_server_frames(wire: &[Frame]) -> &[Frame] {
    let ahead = wire
        .iter()
        .take_while(|frame| frame.from == Side::Server)
        .count();
    &wire[..ahead]
}

/// A frame whose line is `message` serialized, as the unit tests' evidence
/// builds them by hand.
#[cfg(test)]
pub(crate) fn frame(seq: u64, from: Side, message: Value) -> Frame {
    Frame {
        seq,
        from,
        message,
        text: None,
    }
}

/// Most bytes of one stray stdout line kept in the evidence.
pub const MAX_STRAY_BYTES: usize = 64 * 1024;

/// Most stray stdout lines one recording keeps (at most 100 × [`MAX_STRAY_BYTES`],
/// 6.25 MiB): the lines after them are counted in
/// [`Recording::stray_stdout_not_kept`], so a server that floods its stdout (`yes`)
/// costs neither memory nor evidence size in proportion to what it prints.
pub const MAX_STRAY_LINES: usize = 100;

/// A server stdout line that is not a JSON-RPC message (rmcp would skip it silently).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StrayLine {
    /// Position in the session's line order.
    pub seq: u64,
    /// The line, lossily decoded as UTF-8, without its newline; cut at
    /// [`MAX_STRAY_BYTES`] (on a character boundary).
    pub line: String,
    /// The line's whole length in bytes, as read (at most `MAX_LINE_BYTES`, 16 MiB).
    pub bytes: usize,
}

/// A timed event: `{"ms": 12, "event": "elicitation/create id 0 from server"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// Milliseconds since the session started.
    pub ms: u64,
    /// What happened.
    pub event: String,
}

/// Everything the proxy saw.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Recording {
    /// JSON-RPC frames in order.
    pub wire: Vec<Frame>,
    /// Non-JSON-RPC lines on the server's stdout, the first [`MAX_STRAY_LINES`].
    pub stray_stdout: Vec<StrayLine>,
    /// Non-JSON-RPC lines seen after the first [`MAX_STRAY_LINES`]: counted, not kept.
    pub stray_stdout_not_kept: usize,
    /// Timed events (the only place timings live, so `wire` is deterministic).
    pub timeline: Vec<Event>,
    /// The HTTP steps that carried the frames (Streamable HTTP only; empty
    /// over stdio).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<HttpRecord>,
}

impl Recording {
    /// Stray stdout lines seen: those kept and those only counted.
    pub fn stray_lines_seen(&self) -> usize {
        self.stray_stdout.len() + self.stray_stdout_not_kept
    }
}

/// Where a [`Recording`] stands: the lengths of its three lists, so the part
/// recorded after a point can be taken without copying what came before
/// (session mode).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mark {
    /// Frames recorded so far.
    pub wire: usize,
    /// Stray stdout lines seen so far, kept or not ([`MAX_STRAY_LINES`]).
    pub stray_stdout: usize,
    /// Timeline events recorded so far.
    pub timeline: usize,
    /// HTTP steps recorded so far.
    pub http: usize,
}

impl Mark {
    /// Where the recording stands once `since`, the part recorded after this
    /// mark (`recording_since(self)`), is added to it: each list's length plus
    /// the part's, stray lines counted whether kept or not. The mark from
    /// which the next part starts, so no frame falls between two parts
    /// (session mode: a frame the server sent between two calls belongs to
    /// the next call's part).
    pub fn after(self, since: &Recording) -> Mark {
        Mark {
            wire: self.wire + since.wire.len(),
            stray_stdout: self.stray_stdout + since.stray_lines_seen(),
            timeline: self.timeline + since.timeline.len(),
            http: self.http + since.http.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A handshake ends at the client's last frame or the server's last
    /// response: a server notification or request after it is not the
    /// handshake's, one before the client's last frame is; no frame, none.
    #[test]
    fn a_handshake_ends_at_the_clients_last_frame_or_the_servers_last_response() {
        let frames = |messages: &[(Side, Value)]| -> Vec<Frame> {
            messages
                .iter()
                .enumerate()
                .map(|(seq, (from, message))| frame(seq as u64, *from, message.clone()))
                .collect()
        };
        let initialize = (Side::Client, json!({"id": 0, "method": "initialize"}));
        let result = (Side::Server, json!({"id": 0, "result": {}}));
        let initialized = (Side::Client, json!({"method": "notifications/initialized"}));
        let log = (Side::Server, json!({"method": "notifications/message"}));
        let ping = (Side::Server, json!({"id": 0, "method": "ping"}));
        let whole = [initialize.clone(), result.clone(), initialized.clone()];
        assert_eq!(handshake_len(&frames(&whole)), 3);
        let after = [
            initialize.clone(),
            result.clone(),
            initialized.clone(),
            log.clone(),
            ping,
        ];
        assert_eq!(handshake_len(&frames(&after)), 3);
        let before = [initialize.clone(), result.clone(), log.clone(), initialized];
        assert_eq!(handshake_len(&frames(&before)), 4);
        let discover = [
            (Side::Client, json!({"id": 0, "method": "server/discover"})),
            result,
            log,
        ];
        assert_eq!(handshake_len(&frames(&discover)), 2);
        assert_eq!(handshake_len(&[]), 0);
    }

    #[test]
    fn the_leading_server_frames_end_at_the_clients_first_frame() {
        let server = |seq| {
            frame(
                seq,
                Side::Server,
                json!({"method": "notifications/message"}),
            )
        };
        let client = frame(2, Side::Client, json!({"id": 1, "method": "tools/call"}));
        let wire = vec![server(0), server(1), client.clone(), server(3)];
        assert_eq!(leading_server_frames(&wire), &wire[..2]);
        assert_eq!(leading_server_frames(&[client]), &[] as &[Frame]);
        assert_eq!(leading_server_frames(&[]), &[] as &[Frame]);
    }

    #[test]
    fn a_server_notification_has_a_method_and_no_id() {
        let log = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}});
        let ask = json!({"jsonrpc": "2.0", "id": 3, "method": "elicitation/create"});
        let reply = json!({"jsonrpc": "2.0", "id": 3, "result": {}});
        assert!(frame(0, Side::Server, log.clone()).is_server_notification());
        assert!(!frame(0, Side::Client, log).is_server_notification());
        assert!(!frame(0, Side::Server, ask).is_server_notification());
        assert!(!frame(0, Side::Server, reply).is_server_notification());
    }

    #[test]
    fn a_mark_after_a_part_adds_each_list_of_the_part_to_its_own() {
        let line = |seq| StrayLine {
            seq,
            line: "log".to_owned(),
            bytes: 3,
        };
        let event = |ms| Event {
            ms,
            event: "frame".to_owned(),
        };
        let part = Recording {
            wire: vec![frame(7, Side::Server, json!({"jsonrpc": "2.0"}))],
            stray_stdout: vec![line(8), line(9)],
            stray_stdout_not_kept: 4,
            timeline: vec![event(1), event(2), event(3)],
            http: vec![super::super::http::HttpRecord {
                seq: 10,
                exchange: 1,
                step: super::super::http::HttpStep::Request {
                    method: "POST".to_owned(),
                    path: "/mcp".to_owned(),
                    headers: std::collections::BTreeMap::new(),
                    carries: None,
                },
            }],
        };
        let from = Mark {
            wire: 5,
            stray_stdout: 100,
            timeline: 20,
            http: 2,
        };
        assert_eq!(
            from.after(&part),
            Mark {
                wire: 6,
                stray_stdout: 106,
                timeline: 23,
                http: 3,
            }
        );
        assert_eq!(
            Mark::default().after(&Recording::default()),
            Mark::default()
        );
    }
}
