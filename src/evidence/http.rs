//! What crossed HTTP when the server speaks MCP's Streamable HTTP transport
//! (MCP 2025-11-25, basic/transports, "Streamable HTTP"): every request the
//! harness made, every response's status and headers, every server-sent event,
//! each with a place in the same order as the JSON-RPC frames it carried.
//!
//! The frames themselves stay in [`super::wire::Recording::wire`], so every
//! oracle reads them as it reads stdio frames; these records say how they
//! travelled: on which POST's event stream, under which `Mcp-Session-Id`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// The headers the transport's rules are about, recorded on requests and
/// responses (lower-case, as HTTP/2 writes them; values as sent).
pub const RECORDED_HEADERS: [&str; 8] = [
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "accept",
    "content-type",
    "last-event-id",
    "allow",
];

/// How [`HttpStep::Ended`] says the harness closed a stream still open at the
/// session's end (not the server's doing).
pub const CLOSED_BY_HARNESS: &str = "closed by the harness";

/// The JSON-RPC message a request's body or an event's data carried, in
/// brief: what the transport's rules are about (JSON-RPC 2.0, section 4: a
/// request has a `method` and an `id`, a notification a `method` only, a
/// response an `id` only). `{"method": "tools/call", "id": 2}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Carried {
    /// The method of a request or a notification; none for a response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The id of a request or a response; none for a notification.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The `requestId` a `notifications/cancelled` names: the request the
    /// sender no longer awaits (MCP 2025-11-25, basic/utilities/cancellation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancels: Option<Value>,
}

impl Carried {
    /// The brief of `message`; none when it is not a JSON object.
    pub fn of(message: &Value) -> Option<Carried> {
        let message = message.as_object()?;
        Some(Carried {
            method: message
                .get("method")
                .and_then(Value::as_str)
                .map(str::to_owned),
            id: message.get("id").cloned(),
            cancels: (message.get("method").and_then(Value::as_str)
                == Some("notifications/cancelled"))
            .then(|| message.get("params")?.get("requestId").cloned())
            .flatten(),
        })
    }

    /// Whether it is a request (a `method` and an `id`): what a POST's
    /// response must answer.
    pub fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    /// Whether it is the response (no `method`) to the request with `id`.
    pub fn answers(&self, id: &Value) -> bool {
        self.method.is_none() && self.id.as_ref() == Some(id)
    }

    /// `tools/call id 2`, `notifications/initialized`, `response to id 0`.
    pub fn describe(&self) -> String {
        match (&self.method, &self.id) {
            (Some(method), Some(id)) => format!("{method} id {id}"),
            (Some(method), None) => method.clone(),
            (None, Some(id)) => format!("response to id {id}"),
            (None, None) => "a message with neither method nor id".to_owned(),
        }
    }
}

/// One HTTP step, in the recording's order:
/// `{"seq": 4, "exchange": 2, "step": "request", "method": "POST", ...}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HttpRecord {
    /// Position in the session's order, shared with frames and stray lines.
    pub seq: u64,
    /// Which exchange (one request, its response and its event stream), from 1
    /// in the order the requests were made.
    pub exchange: u32,
    /// What happened.
    #[serde(flatten)]
    pub step: HttpStep,
}

/// One step of an exchange.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum HttpStep {
    /// The harness sent a request: `POST /mcp` with a JSON-RPC message as its
    /// body, `GET /mcp` opening the standalone event stream, `DELETE /mcp`
    /// ending the session.
    Request {
        /// `POST`, `GET` or `DELETE`.
        method: String,
        /// The path and query.
        path: String,
        /// The [`RECORDED_HEADERS`] it carried.
        headers: BTreeMap<String, String>,
        /// The JSON-RPC message its body carried (a POST's).
        #[serde(skip_serializing_if = "Option::is_none")]
        carries: Option<Carried>,
    },
    /// The server's status line and headers.
    Response {
        /// The HTTP status code.
        status: u16,
        /// The [`RECORDED_HEADERS`] it carried.
        headers: BTreeMap<String, String>,
    },
    /// A whole response body that was not an event stream (a JSON-RPC message
    /// as `application/json`, or an error page), cut at the line limit.
    Body {
        /// Bytes received.
        bytes: usize,
        /// Whether it was longer than the harness reads (16 MiB) and was cut.
        cut: bool,
        /// The start of a body that was not forwarded as a JSON-RPC message
        /// (at most 1 KiB, lossily decoded); absent for a forwarded one.
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// The JSON-RPC message it carried, when it was forwarded as one.
        #[serde(skip_serializing_if = "Option::is_none")]
        carries: Option<Carried>,
    },
    /// One server-sent event. Its `data`, when it is a JSON-RPC message, is
    /// the next server frame recorded.
    Event {
        /// The event's `id:` field (what a client resumes from with `Last-Event-ID`).
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The event's `event:` field (`message` or none for a message).
        #[serde(skip_serializing_if = "Option::is_none")]
        event: Option<String>,
        /// Bytes of its `data:` lines (0: a priming event with no data).
        data_bytes: usize,
        /// The JSON-RPC message its data carried.
        #[serde(skip_serializing_if = "Option::is_none")]
        carries: Option<Carried>,
    },
    /// The event stream or the body ended: how.
    Ended {
        /// `end of stream`, `cut at 16 MiB`, `not answered within 30 s`, an
        /// I/O error's words, or `closed by the harness` at the session's end.
        how: String,
    },
    /// The request got no response at all: the connection was refused or
    /// dropped, or no status line came in time.
    Failed {
        /// Why, in the words of the HTTP client.
        error: String,
    },
}

impl HttpStep {
    /// A one-line description for transcripts: `POST /mcp`, `200 text/event-stream`,
    /// `event 7 (314 bytes)`.
    pub fn describe(&self) -> String {
        match self {
            HttpStep::Request {
                method,
                path,
                headers,
                carries,
            } => {
                let carries = carried_suffix(carries.as_ref());
                match headers.get("mcp-session-id") {
                    Some(session) => {
                        format!("{method} {path}{carries} (Mcp-Session-Id {session})")
                    }
                    None => format!("{method} {path}{carries}"),
                }
            }
            HttpStep::Response { status, headers } => match headers.get("content-type") {
                Some(kind) => format!("{status} {kind}"),
                None => status.to_string(),
            },
            HttpStep::Body { bytes, cut, .. } => {
                let cut = if *cut { ", cut" } else { "" };
                format!("body ({bytes} bytes{cut})")
            }
            HttpStep::Event {
                id,
                data_bytes,
                carries,
                ..
            } => {
                let carries = carried_suffix(carries.as_ref());
                match id {
                    Some(id) => format!("event {id} ({data_bytes} bytes){carries}"),
                    None => format!("event ({data_bytes} bytes){carries}"),
                }
            }
            HttpStep::Ended { how } => format!("ended: {how}"),
            HttpStep::Failed { error } => format!("no response: {error}"),
        }
    }
}

/// `: tools/call id 2` for a step that carried a message, empty otherwise.
fn carried_suffix(carries: Option<&Carried>) -> String {
    carries
        .map(|carried| format!(": {}", carried.describe()))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_step_reads_as_one_line_of_a_sequence_diagram() {
        let session: BTreeMap<String, String> =
            [("mcp-session-id".to_owned(), "s-1".to_owned())].into();
        let kind: BTreeMap<String, String> =
            [("content-type".to_owned(), "text/event-stream".to_owned())].into();
        let request = HttpStep::Request {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: session,
            carries: Some(Carried {
                method: Some("tools/call".into()),
                id: Some(json!(2)),
                cancels: None,
            }),
        };
        assert_eq!(
            request.describe(),
            "POST /mcp: tools/call id 2 (Mcp-Session-Id s-1)"
        );
        let first = HttpStep::Request {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: BTreeMap::new(),
            carries: None,
        };
        assert_eq!(first.describe(), "POST /mcp");
        let response = HttpStep::Response {
            status: 200,
            headers: kind,
        };
        assert_eq!(response.describe(), "200 text/event-stream");
        let accepted = HttpStep::Response {
            status: 202,
            headers: BTreeMap::new(),
        };
        assert_eq!(accepted.describe(), "202");
        let event = HttpStep::Event {
            id: Some("7".into()),
            event: Some("message".into()),
            data_bytes: 314,
            carries: Some(Carried {
                method: None,
                id: Some(json!(2)),
                cancels: None,
            }),
        };
        assert_eq!(event.describe(), "event 7 (314 bytes): response to id 2");
        let priming = HttpStep::Event {
            id: None,
            event: None,
            data_bytes: 0,
            carries: None,
        };
        assert_eq!(priming.describe(), "event (0 bytes)");
        let cut = HttpStep::Body {
            bytes: 16,
            cut: true,
            text: None,
            carries: None,
        };
        assert_eq!(cut.describe(), "body (16 bytes, cut)");
        let whole = HttpStep::Body {
            bytes: 2,
            cut: false,
            text: None,
            carries: None,
        };
        assert_eq!(whole.describe(), "body (2 bytes)");
        let ended = HttpStep::Ended {
            how: "end of stream".into(),
        };
        assert_eq!(ended.describe(), "ended: end of stream");
        let failed = HttpStep::Failed {
            error: "connection refused".into(),
        };
        assert_eq!(failed.describe(), "no response: connection refused");
    }

    #[test]
    fn a_message_is_briefed_as_request_notification_or_response() {
        let request = Carried::of(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}))
            .expect("an object");
        assert!(request.is_request());
        assert!(!request.answers(&json!(0)));
        assert_eq!(request.describe(), "initialize id 0");
        let notification =
            Carried::of(&json!({"method": "notifications/initialized"})).expect("an object");
        assert!(!notification.is_request());
        assert_eq!(notification.describe(), "notifications/initialized");
        assert_eq!(notification.cancels, None);
        // A cancellation names the request it gives up (its `requestId`).
        let cancel = Carried::of(&json!({"method": "notifications/cancelled",
                                         "params": {"requestId": "a", "reason": "timed out"}}))
        .expect("an object");
        assert_eq!(cancel.cancels, Some(json!("a")));
        assert!(!cancel.is_request());
        assert_eq!(
            serde_json::to_value(&cancel).expect("serializes"),
            json!({"method": "notifications/cancelled", "cancels": "a"})
        );
        // Only a cancellation names one.
        let other = Carried::of(&json!({"method": "notifications/progress",
                                        "params": {"requestId": "a"}}))
        .expect("an object");
        assert_eq!(other.cancels, None);
        let response = Carried::of(&json!({"id": "a", "result": {}})).expect("an object");
        assert!(!response.is_request());
        assert!(response.answers(&json!("a")));
        assert!(!response.answers(&json!(0)));
        assert_eq!(response.describe(), "response to id \"a\"");
        assert_eq!(
            Carried::of(&json!({})).expect("an object").describe(),
            "a message with neither method nor id"
        );
        assert_eq!(Carried::of(&json!([1])), None);
    }

    #[test]
    fn a_record_serializes_flat_with_its_step_named() {
        let record = HttpRecord {
            seq: 4,
            exchange: 2,
            step: HttpStep::Event {
                id: Some("e1".into()),
                event: None,
                data_bytes: 10,
                carries: Some(Carried {
                    method: Some("notifications/progress".into()),
                    id: None,
                    cancels: None,
                }),
            },
        };
        assert_eq!(
            serde_json::to_value(&record).expect("serializes"),
            json!({"seq": 4, "exchange": 2, "step": "event", "id": "e1", "data_bytes": 10,
                   "carries": {"method": "notifications/progress"}})
        );
    }
}
