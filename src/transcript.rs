//! A readable transcript of a recorded wire: one line per frame, for snapshots and reports.
//!
//! Each line reads `#SEQ DIRECTION ID KIND PAYLOAD`: the frame's sequence number,
//! `client → server` or `server → client`, the JSON-RPC id (`-` for a
//! notification), the method of a request or notification, or `result` / `error`
//! for a response (with the method it answers in parentheses when the request is
//! in the wire), then the payload (`params`, `result` or `error`) as compact JSON
//! in wire key order. The `accept_valid` contract case reads:
//!
//! ```text
//! #0 client → server id 0 initialize {"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"elicit-check","version":"[version]"}}
//! #1 server → client id 0 result (initialize) {"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"elicit-check","version":"[version]"}}
//! #2 client → server - notifications/initialized
//! #3 client → server id 1 tools/list {"_meta":{"progressToken":0}}
//! #4 server → client id 1 result (tools/list) tools: calculate
//! #5 client → server id 2 tools/call {"_meta":{"progressToken":1},"name":"calculate","arguments":{"policy":"validated"}}
//! #6 server → client id 0 elicitation/create {"_meta":{"progressToken":0},"mode":"form","message":"...","requestedSchema":{...}}
//! #7 client → server id 0 result (elicitation/create) {"action":"accept","content":{"units":3,"unit_value":7}}
//! #8 server → client id 2 result (tools/call) {"content":[{"type":"text","text":"{\"status\":\"calculated\",\"computed\":true,\"value\":21}"}],"structuredContent":{"status":"calculated","computed":true,"value":21},"isError":false}
//! ```
//!
//! (lines 6 and 8 shortened here; a transcript never shortens a payload).
//!
//! Only what varies between builds is redacted: `clientInfo.version` and
//! `serverInfo.version` of `initialize` become [`REDACTED_VERSION`]. The
//! `tools/list` result is folded to the tool names (its descriptions are the
//! server's prose, not the contract). Everything else, every id included, is
//! kept byte for byte.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use crate::evidence::wire::{Frame, Side, StrayLine};

/// What a redacted version string reads in a transcript.
pub const REDACTED_VERSION: &str = "[version]";

/// Renders `wire` as one line per frame (see the module docs), each ending in `\n`.
pub fn render(wire: &[Frame]) -> String {
    render_with_stray(wire, &[])
}

/// Like [`render`], with the server's non-JSON-RPC stdout lines interleaved by
/// sequence number as `#SEQ server → client (not JSON-RPC) "LINE"`.
pub fn render_with_stray(wire: &[Frame], stray: &[StrayLine]) -> String {
    // Requests seen so far, by (sender, id): a response is matched to the request
    // the other side sent with the same id.
    let mut requests: BTreeMap<(&'static str, String), String> = BTreeMap::new();
    let mut lines: Vec<(u64, String)> = Vec::with_capacity(wire.len() + stray.len());
    for frame in wire {
        lines.push((frame.seq, render_frame(frame, &mut requests)));
    }
    for line in stray {
        lines.push((
            line.seq,
            format!(
                "#{} {} (not JSON-RPC) {}",
                line.seq,
                arrow(Side::Server),
                Value::String(line.line.clone())
            ),
        ));
    }
    lines.sort_by_key(|(seq, _)| *seq);
    let mut out = String::new();
    for (_, line) in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The direction of a frame's sender.
pub fn arrow(from: Side) -> &'static str {
    match from {
        Side::Client => "client → server",
        Side::Server => "server → client",
    }
}

fn render_frame(frame: &Frame, requests: &mut BTreeMap<(&'static str, String), String>) -> String {
    let message = &frame.message;
    if let (Value::Null, Some(text)) = (message, &frame.text) {
        // A hostile client line serde_json could not parse (not JSON, not UTF-8, a
        // number beyond f64; harness::hostile): shown as sent.
        return format!(
            "#{} {} (not parsed as JSON) {}",
            frame.seq,
            arrow(frame.from),
            Value::String(text.clone())
        );
    }
    let id = message.get("id");
    let mut line = format!(
        "#{} {} {}",
        frame.seq,
        arrow(frame.from),
        id.map_or_else(|| "-".to_owned(), |id| format!("id {id}"))
    );
    if let Some(method) = message.get("method") {
        let method = method
            .as_str()
            .map_or_else(|| method.to_string(), str::to_owned);
        if let Some(id) = id {
            requests.insert((arrow(frame.from), id.to_string()), method.clone());
        }
        let _ = write!(line, " {method}");
        if let Some(params) = message.get("params") {
            let params = if method == "initialize" {
                redact_version(params, "clientInfo")
            } else {
                params.clone()
            };
            let _ = write!(line, " {params}");
        }
        return line;
    }
    let answers = id.and_then(|id| requests.get(&(arrow(other(frame.from)), id.to_string())));
    let (kind, payload) = match (message.get("result"), message.get("error")) {
        (Some(result), None) => ("result", result),
        (None, Some(error)) => ("error", error),
        // Not a well-formed response: show the whole message.
        _ => ("malformed", message),
    };
    line.push(' ');
    line.push_str(kind);
    if let Some(method) = answers {
        let _ = write!(line, " ({method})");
    }
    let payload = match (kind, answers.map(String::as_str)) {
        ("result", Some("initialize")) => redact_version(payload, "serverInfo").to_string(),
        ("result", Some("tools/list")) => fold_tools(payload),
        // An answer sent as raw text is shown as sent (`-0`, `3e0` kept).
        _ => frame
            .text
            .as_deref()
            .and_then(|text| raw_member(text, kind))
            .unwrap_or_else(|| payload.to_string()),
    };
    let _ = write!(line, " {payload}");
    line
}

/// The exact text of `member` in the JSON object `text`, if it has one.
fn raw_member(text: &str, member: &str) -> Option<String> {
    let members: std::collections::HashMap<String, Box<serde_json::value::RawValue>> =
        serde_json::from_str(text).ok()?;
    members.get(member).map(|raw| raw.get().to_owned())
}

/// A 2026-07-28 wire made reproducible for snapshots: every distinct
/// `requestState` (sealed with a per-process random key and an expiry) becomes
/// `[requestState N]`, numbered by first appearance, so an echo still reads as
/// the same state and a changed one as another; the versions in
/// `_meta["io.modelcontextprotocol/clientInfo"]` and `serverInfo` become
/// [`REDACTED_VERSION`]. Everything else is kept.
pub fn redact_mrtr(wire: &[Frame]) -> Vec<Frame> {
    let mut states: Vec<String> = Vec::new();
    wire.iter()
        .map(|frame| {
            let mut frame = frame.clone();
            for member in ["params", "result"] {
                let Some(payload) = frame.message.get_mut(member) else {
                    continue;
                };
                if let Some(Value::String(state)) = payload.get_mut("requestState") {
                    let number = match states.iter().position(|seen| seen == state) {
                        Some(index) => index + 1,
                        None => {
                            states.push(state.clone());
                            states.len()
                        }
                    };
                    *state = format!("[requestState {number}]");
                }
                for info in [
                    "io.modelcontextprotocol/clientInfo",
                    "io.modelcontextprotocol/serverInfo",
                ] {
                    if let Some(Value::String(version)) = payload
                        .get_mut("_meta")
                        .and_then(|meta| meta.get_mut(info))
                        .and_then(|info| info.get_mut("version"))
                    {
                        *version = REDACTED_VERSION.to_owned();
                    }
                }
            }
            frame
        })
        .collect()
}

fn other(side: Side) -> Side {
    match side {
        Side::Client => Side::Server,
        Side::Server => Side::Client,
    }
}

/// `payload` with `payload[info].version` replaced by [`REDACTED_VERSION`].
fn redact_version(payload: &Value, info: &str) -> Value {
    let mut payload = payload.clone();
    if let Some(version) = payload
        .get_mut(info)
        .filter(|info| info.is_object())
        .and_then(|info| info.get_mut("version"))
    {
        *version = Value::String(REDACTED_VERSION.to_owned());
    }
    payload
}

/// A `tools/list` result as `tools: a, b` (or the compact JSON when it has another shape).
fn fold_tools(result: &Value) -> String {
    let names: Option<Vec<&str>> =
        result
            .get("tools")
            .and_then(Value::as_array)
            .and_then(|tools| {
                tools
                    .iter()
                    .map(|tool| tool.get("name").and_then(Value::as_str))
                    .collect()
            });
    match names {
        Some(names) if result.as_object().is_some_and(|r| r.len() == 1) => {
            format!("tools: {}", names.join(", "))
        }
        _ => result.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::evidence::wire::frame;

    #[test]
    fn responses_name_the_request_they_answer_by_direction_and_id() {
        // Ids are per direction: the client's id 0 and the server's id 0 are different requests.
        let wire = [
            frame(
                0,
                Side::Client,
                json!({"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"calculate"}}),
            ),
            frame(
                1,
                Side::Server,
                json!({"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"mode":"form"}}),
            ),
            frame(
                2,
                Side::Client,
                json!({"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"no"}}),
            ),
            frame(
                4,
                Side::Server,
                json!({"jsonrpc":"2.0","id":0,"result":{"isError":false}}),
            ),
        ];
        let stray = [StrayLine {
            seq: 3,
            line: "hello".into(),
            bytes: 5,
        }];
        assert_eq!(
            render_with_stray(&wire, &stray),
            concat!(
                "#0 client → server id 0 tools/call {\"name\":\"calculate\"}\n",
                "#1 server → client id 0 elicitation/create {\"mode\":\"form\"}\n",
                "#2 client → server id 0 error (elicitation/create) {\"code\":-32602,\"message\":\"no\"}\n",
                "#3 server → client (not JSON-RPC) \"hello\"\n",
                "#4 server → client id 0 result (tools/call) {\"isError\":false}\n",
            )
        );
    }

    #[test]
    fn initialize_versions_are_redacted_and_tools_folded() {
        let wire = [
            frame(
                0,
                Side::Client,
                json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1.2.3"}}}),
            ),
            frame(
                1,
                Side::Server,
                json!({"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"name":"s","version":"9"}}}),
            ),
            frame(
                2,
                Side::Client,
                json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            ),
            frame(
                3,
                Side::Client,
                json!({"jsonrpc":"2.0","id":"a","method":"tools/list"}),
            ),
            frame(
                5,
                Side::Server,
                json!({"jsonrpc":"2.0","id":"a","result":{"tools":[{"name":"x","description":"d"},{"name":"y"}]}}),
            ),
        ];
        assert_eq!(
            render(&wire),
            concat!(
                "#0 client → server id 0 initialize {\"clientInfo\":{\"name\":\"c\",\"version\":\"[version]\"}}\n",
                "#1 server → client id 0 result (initialize) {\"serverInfo\":{\"name\":\"s\",\"version\":\"[version]\"}}\n",
                "#2 client → server - notifications/initialized\n",
                "#3 client → server id \"a\" tools/list\n",
                "#5 server → client id \"a\" result (tools/list) tools: x, y\n",
            )
        );
    }
}
