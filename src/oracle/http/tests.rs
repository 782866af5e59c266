//! The unit tests of the Streamable HTTP transport's own rules, on HTTP
//! steps written by hand.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;

/// Builds a session's HTTP steps in order, numbering `seq` as it goes.
#[derive(Default)]
struct Steps(Vec<HttpRecord>);

impl Steps {
    fn push(&mut self, exchange: u32, step: HttpStep) -> &mut Self {
        let seq = self.0.len() as u64;
        self.0.push(HttpRecord {
            seq,
            exchange,
            step,
        });
        self
    }

    fn post(&mut self, exchange: u32, message: Value) -> &mut Self {
        self.push(
            exchange,
            HttpStep::Request {
                method: "POST".into(),
                path: "/mcp".into(),
                headers: BTreeMap::new(),
                carries: Carried::of(&message),
            },
        )
    }

    /// A request under the `Mcp-Session-Id` `session` (none: no header).
    fn request(
        &mut self,
        exchange: u32,
        method: &str,
        session: Option<&str>,
        message: Option<Value>,
    ) -> &mut Self {
        let headers = session
            .map(|session| BTreeMap::from([("mcp-session-id".to_owned(), session.to_owned())]))
            .unwrap_or_default();
        self.push(
            exchange,
            HttpStep::Request {
                method: method.into(),
                path: "/mcp".into(),
                headers,
                carries: message.as_ref().and_then(Carried::of),
            },
        )
    }

    fn get(&mut self, exchange: u32) -> &mut Self {
        self.push(
            exchange,
            HttpStep::Request {
                method: "GET".into(),
                path: "/mcp".into(),
                headers: BTreeMap::new(),
                carries: None,
            },
        )
    }

    fn status(&mut self, exchange: u32, status: u16, content_type: &str) -> &mut Self {
        let headers = if content_type.is_empty() {
            BTreeMap::new()
        } else {
            BTreeMap::from([("content-type".to_owned(), content_type.to_owned())])
        };
        self.push(exchange, HttpStep::Response { status, headers })
    }

    fn body(&mut self, exchange: u32, text: &str) -> &mut Self {
        self.push(
            exchange,
            HttpStep::Body {
                bytes: text.len(),
                cut: false,
                text: Some(text.to_owned()),
                carries: None,
            },
        )
    }

    fn event(&mut self, exchange: u32, id: Option<&str>, message: Value) -> &mut Self {
        self.push(
            exchange,
            HttpStep::Event {
                id: id.map(str::to_owned),
                event: None,
                data_bytes: message.to_string().len(),
                carries: Carried::of(&message),
            },
        )
    }

    fn ended(&mut self, exchange: u32, how: &str) -> &mut Self {
        self.push(
            exchange,
            HttpStep::Ended {
                how: how.to_owned(),
            },
        )
    }

    fn failures(&self) -> Vec<String> {
        check(&self.0).iter().map(ToString::to_string).collect()
    }
}

fn call() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "calculate"}})
}

fn elicitation() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {}})
}

fn result() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "result": {}})
}

#[test]
fn an_error_status_to_a_request_or_a_notification_is_a_failure() {
    let mut steps = Steps::default();
    steps
        .post(1, call())
        .status(1, 500, "text/plain")
        .body(1, "Internal Server Error")
        .post(
            2,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .status(2, 400, "");
    assert_eq!(
        steps.failures(),
        [
            "POST /mcp (tools/call id 2, exchange 1) got status 500: \"Internal Server Error\"",
            "POST /mcp (notifications/initialized, exchange 2) got status 400"
        ]
    );
}

#[test]
fn a_request_answered_with_its_json_rpc_error_under_an_error_status_is_answered() {
    let mut steps = Steps::default();
    steps
        .post(1, call())
        .status(1, 400, "application/json")
        .push(
            1,
            HttpStep::Body {
                bytes: 80,
                cut: false,
                text: None,
                carries: Carried::of(
                    &json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32021}}),
                ),
            },
        );
    assert_eq!(steps.failures(), Vec::<String>::new());
    // The error of another request does not answer it.
    let mut other = Steps::default();
    other
        .post(1, call())
        .status(1, 400, "application/json")
        .push(
            1,
            HttpStep::Body {
                bytes: 80,
                cut: false,
                text: None,
                carries: Carried::of(
                    &json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32021}}),
                ),
            },
        );
    assert_eq!(
        other.failures(),
        ["POST /mcp (tools/call id 2, exchange 1) got status 400"]
    );
}

#[test]
fn the_optional_get_stream_a_delete_and_a_refused_answer_are_not_its_failures() {
    let mut steps = Steps::default();
    steps
        .get(1)
        .status(1, 405, "")
        .post(
            2,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "decline"}}),
        )
        .status(2, 400, "text/plain")
        .body(2, "Bad Request")
        .push(
            3,
            HttpStep::Request {
                method: "DELETE".into(),
                path: "/mcp".into(),
                headers: BTreeMap::new(),
                carries: None,
            },
        )
        .status(3, 405, "");
    assert_eq!(steps.failures(), Vec::<String>::new());
}

#[test]
fn a_request_answered_in_another_content_type_is_a_failure() {
    let mut steps = Steps::default();
    steps
        .post(1, call())
        .status(1, 200, "text/plain")
        .body(1, &"x".repeat(QUOTED_BODY + 5));
    assert_eq!(
        steps.failures(),
        [format!(
            "POST /mcp (tools/call id 2, exchange 1) got 200 with Content-Type text/plain, not application/json or text/event-stream: \"{}\"…",
            "x".repeat(QUOTED_BODY)
        )]
    );
    let mut untyped = Steps::default();
    untyped.post(1, call()).status(1, 200, "").body(1, "{}");
    assert_eq!(
        untyped.failures(),
        [
            "POST /mcp (tools/call id 2, exchange 1) got 200 with no Content-Type, not application/json or text/event-stream: \"{}\""
        ]
    );
    // A request accepted with 202 and no body is never answered.
    let mut accepted = Steps::default();
    accepted.post(1, call()).status(1, 202, "");
    assert_eq!(
        accepted.failures(),
        [
            "POST /mcp (tools/call id 2, exchange 1) got 202 with no Content-Type, not application/json or text/event-stream"
        ]
    );
    let mut json_body = Steps::default();
    json_body
        .post(1, call())
        .status(1, 200, "Application/JSON; charset=utf-8")
        .push(
            1,
            HttpStep::Body {
                bytes: 40,
                cut: false,
                text: None,
                carries: Carried::of(&result()),
            },
        );
    assert_eq!(json_body.failures(), Vec::<String>::new());
}

#[test]
fn a_request_stream_that_ends_before_its_response_is_a_failure() {
    let mut steps = Steps::default();
    steps
        .post(1, call())
        .status(1, 200, "text/event-stream")
        .event(1, None, elicitation())
        .ended(1, "end of stream");
    assert_eq!(
        steps.failures(),
        [
            "the event stream of POST /mcp (tools/call id 2, exchange 1) ended (end of stream) before its response, with no event id to resume from"
        ]
    );
}

#[test]
fn a_stream_with_its_response_an_event_id_or_closed_by_the_harness_is_no_failure() {
    let mut answered = Steps::default();
    answered
        .post(1, call())
        .status(1, 200, "text/event-stream")
        .event(1, None, elicitation())
        .event(1, None, result())
        .ended(1, "end of stream");
    assert_eq!(answered.failures(), Vec::<String>::new());
    // MCP 2025-11-25: the server may close the stream after an event id.
    let mut resumable = Steps::default();
    resumable
        .post(1, call())
        .status(1, 200, "text/event-stream")
        .push(
            1,
            HttpStep::Event {
                id: Some("e1".into()),
                event: None,
                data_bytes: 0,
                carries: None,
            },
        )
        .ended(1, "end of stream");
    assert_eq!(resumable.failures(), Vec::<String>::new());
    let mut closed = Steps::default();
    closed
        .post(1, call())
        .status(1, 200, "text/event-stream")
        .ended(1, CLOSED_BY_HARNESS);
    assert_eq!(closed.failures(), Vec::<String>::new());
    // A response to another id does not answer the call.
    let mut other = Steps::default();
    other
        .post(1, call())
        .status(1, 200, "text/event-stream")
        .event(
            1,
            Some(""),
            json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
        )
        .ended(1, "error decoding response body");
    assert_eq!(
        other.failures(),
        [
            "the event stream of POST /mcp (tools/call id 2, exchange 1) ended (error decoding response body) before its response, with no event id to resume from"
        ]
    );
}

fn cancel(request_id: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": request_id, "reason": "request abandoned by the caller"}})
}

/// The call (id 2) of session `s-1` on exchange 1, its event stream open
/// and carrying the elicitation, no event id.
fn call_in_s1() -> Steps {
    let mut steps = Steps::default();
    steps
        .request(1, "POST", Some("s-1"), Some(call()))
        .status(1, 200, "text/event-stream")
        .event(1, None, elicitation());
    steps
}

const CALL_STREAM_ENDED: &str = "the event stream of POST /mcp (tools/call id 2, exchange 1) ended (end of stream) before its response, with no event id to resume from";

#[test]
fn a_stream_that_ends_after_the_clients_cancel_or_delete_is_no_failure() {
    // MCP 2025-11-25, basic/utilities/cancellation: no response is due
    // for a cancelled request.
    let mut cancelled = call_in_s1();
    cancelled
        .request(2, "POST", Some("s-1"), Some(cancel(json!(2))))
        .status(2, 202, "")
        .ended(1, "end of stream");
    assert_eq!(cancelled.failures(), Vec::<String>::new());
    // basic/transports, "Session Management": the client ended the session.
    let mut deleted = call_in_s1();
    deleted
        .request(2, "DELETE", Some("s-1"), None)
        .ended(1, "end of stream")
        .status(2, 200, "");
    assert_eq!(deleted.failures(), Vec::<String>::new());
    // Both, as a call that timed out shows them: cancel, DELETE, end.
    let mut both = call_in_s1();
    both.request(2, "POST", Some("s-1"), Some(cancel(json!(2))))
        .status(2, 202, "")
        .request(3, "DELETE", Some("s-1"), None)
        .ended(1, "end of stream")
        .status(3, 200, "");
    assert_eq!(both.failures(), Vec::<String>::new());
    // A server with no sessions: the DELETE carries no id either.
    let mut stateless = Steps::default();
    stateless
        .post(1, call())
        .status(1, 200, "text/event-stream")
        .request(2, "DELETE", None, None)
        .ended(1, "error decoding response body");
    assert_eq!(stateless.failures(), Vec::<String>::new());
}

#[test]
fn a_stream_that_ends_before_the_clients_cancel_or_delete_is_still_a_failure() {
    let mut before_cancel = call_in_s1();
    before_cancel
        .ended(1, "end of stream")
        .request(2, "POST", Some("s-1"), Some(cancel(json!(2))))
        .status(2, 202, "");
    assert_eq!(before_cancel.failures(), [CALL_STREAM_ENDED]);
    let mut before_delete = call_in_s1();
    before_delete
        .ended(1, "end of stream")
        .request(2, "DELETE", Some("s-1"), None)
        .status(2, 200, "");
    assert_eq!(before_delete.failures(), [CALL_STREAM_ENDED]);
}

#[test]
fn a_cancel_of_another_request_or_a_delete_of_another_session_excuses_nothing() {
    // Another request's id, and the same id written as a string (JSON-RPC
    // 2.0: "2" is not 2).
    for other in [json!(7), json!("2")] {
        let mut steps = call_in_s1();
        steps
            .request(2, "POST", Some("s-1"), Some(cancel(other.clone())))
            .status(2, 202, "")
            .ended(1, "end of stream");
        assert_eq!(steps.failures(), [CALL_STREAM_ENDED], "{other}");
    }
    // The cancellation in another session, and that session's DELETE
    // (the second session of a planted reply ends so).
    let mut elsewhere = call_in_s1();
    elsewhere
        .request(2, "POST", Some("s-2"), Some(cancel(json!(2))))
        .status(2, 202, "")
        .request(3, "DELETE", Some("s-2"), None)
        .status(3, 200, "")
        .ended(1, "end of stream");
    assert_eq!(elsewhere.failures(), [CALL_STREAM_ENDED]);
    // A notification that only looks like one: no `requestId` in params.
    let mut unnamed = call_in_s1();
    unnamed
        .request(
            2,
            "POST",
            Some("s-1"),
            Some(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}})),
        )
        .status(2, 202, "")
        .ended(1, "end of stream");
    assert_eq!(unnamed.failures(), [CALL_STREAM_ENDED]);
    // A cancellation sent before the request (of an earlier request
    // under the same id).
    let mut earlier = Steps::default();
    earlier
        .request(1, "POST", Some("s-1"), Some(cancel(json!(2))))
        .status(1, 202, "")
        .request(2, "POST", Some("s-1"), Some(call()))
        .status(2, 200, "text/event-stream")
        .ended(2, "end of stream");
    assert_eq!(
        earlier.failures(),
        [
            "the event stream of POST /mcp (tools/call id 2, exchange 2) ended (end of stream) before its response, with no event id to resume from"
        ]
    );
}

#[test]
fn an_elicitation_on_another_request_stream_is_a_failure() {
    let mut steps = Steps::default();
    steps
        .post(
            1,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
        )
        .status(1, 200, "text/event-stream")
        .event(1, None, json!({"jsonrpc": "2.0", "id": 0, "result": {}}))
        .post(2, call())
        .status(2, 200, "text/event-stream")
        .event(1, None, elicitation())
        .event(2, None, result())
        .ended(2, "end of stream");
    assert_eq!(
        steps.failures(),
        [
            "elicitation/create id 0 came on the event stream of POST /mcp (initialize id 0, exchange 1), not on that of POST /mcp (tools/call id 2, exchange 2) or the standalone GET stream"
        ]
    );
    let mut before_any_call = Steps::default();
    before_any_call
        .post(
            1,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
        )
        .status(1, 200, "text/event-stream")
        .event(1, None, elicitation());
    assert_eq!(
        before_any_call.failures(),
        [
            "elicitation/create id 0 came on the event stream of POST /mcp (initialize id 0, exchange 1), not on a tools/call's stream or the standalone GET stream"
        ]
    );
}

#[test]
fn an_elicitation_on_its_call_stream_or_the_get_stream_is_no_failure() {
    let mut steps = Steps::default();
    steps
        .get(1)
        .status(1, 200, "text/event-stream")
        .post(2, call())
        .status(2, 200, "text/event-stream")
        .event(2, None, elicitation())
        .event(
            1,
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create"}),
        )
        .event(2, None, result())
        .ended(2, "end of stream");
    assert_eq!(steps.failures(), Vec::<String>::new());
    // Other messages on another request's stream are not elicitations.
    let mut other = Steps::default();
    other
        .post(
            1,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
        )
        .status(1, 200, "text/event-stream")
        .post(2, call())
        .status(2, 200, "text/event-stream")
        .event(
            1,
            None,
            json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
        )
        .event(
            1,
            None,
            json!({"jsonrpc": "2.0", "method": "elicitation/create"}),
        )
        .event(2, None, result());
    assert_eq!(other.failures(), Vec::<String>::new());
}
