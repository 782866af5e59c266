//! The Streamable HTTP transport's own rules (MCP 2025-11-25, basic/transports,
//! "Streamable HTTP", "Sending Messages to the Server"), checked on the HTTP
//! steps of one session ([`crate::evidence::http`]): faults that stdio cannot
//! show, whatever the JSON-RPC frames say.
//!
//! - A POST carrying a request or a notification the server accepts gets a
//!   2xx status ([`HttpFailure::ErrorStatus`]); a request answered with its
//!   own JSON-RPC error under an error status (2026-07-28 maps `-32021` to
//!   400, `-32601` to 404) is answered, and that error is judged as a reply.
//! - A POST carrying a request is answered with `Content-Type:
//!   application/json` or `text/event-stream`, nothing else, not even an
//!   empty `202` ([`HttpFailure::NotJson`]).
//! - A request's event stream does not end before the request's response,
//!   unless the server sent an event id to resume from
//!   ([`HttpFailure::StreamEnded`]), or the client had given the request up
//!   first. A stream that ends after the client's own `notifications/cancelled`
//!   naming the request (MCP 2025-11-25, basic/utilities/cancellation: the
//!   receiver SHOULD NOT send a response for a cancelled request) or after the
//!   session's `DELETE` (basic/transports, "Session Management": the client
//!   terminates the session, and the streams of a terminated session end with
//!   it) is never counted against the server, whatever it carried.
//! - An `elicitation/create` of a `tools/call` comes on that call's event
//!   stream ("these messages SHOULD relate to the originating client
//!   request") or on the standalone GET stream, never on another request's
//!   stream ([`HttpFailure::ForeignStream`]).
//!
//! Over stdio there are no HTTP steps and nothing is found.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::evidence::http::{CLOSED_BY_HARNESS, Carried, HttpRecord, HttpStep};

/// Most characters of a body quoted in a failure.
const QUOTED_BODY: usize = 120;

/// A broken rule of the transport, with the exchange that shows it
/// (exchanges are numbered from 1 in the order the requests were made).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpFailure {
    /// A POST carrying a request or a notification got a status outside 2xx.
    ErrorStatus {
        /// Its exchange.
        exchange: u32,
        /// The request: `POST /mcp (tools/call id 2, exchange 5)`.
        request: String,
        /// The status code.
        status: u16,
        /// The start of the response's body (empty: none).
        body: String,
    },
    /// A POST carrying a request got a 2xx response that is neither
    /// `application/json` nor `text/event-stream` (a `202` with no body
    /// included: the request is then never answered).
    NotJson {
        /// Its exchange.
        exchange: u32,
        /// The request.
        request: String,
        /// The status code.
        status: u16,
        /// The `Content-Type` it carried (empty: none).
        content_type: String,
        /// The start of the body.
        body: String,
    },
    /// A request's event stream ended on the server's side before the
    /// request's response, with no event id sent to resume from, while the
    /// client still awaited it (before any `notifications/cancelled` naming
    /// the request and before the session's `DELETE`).
    StreamEnded {
        /// Its exchange.
        exchange: u32,
        /// The request.
        request: String,
        /// How it ended, in the HTTP client's words (`end of stream`).
        how: String,
    },
    /// An `elicitation/create` came on the event stream of an exchange that is
    /// neither the `tools/call` in flight nor the standalone GET stream.
    ForeignStream {
        /// The `elicitation/create`, `elicitation/create id 0`.
        elicitation: String,
        /// The exchange it came on.
        exchange: u32,
        /// That exchange's request.
        request: String,
        /// The `tools/call` in flight: its exchange and its request (none:
        /// no call was made yet).
        call: Option<(u32, String)>,
    },
}

impl fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpFailure::ErrorStatus {
                request,
                status,
                body,
                ..
            } => {
                write!(f, "{request} got status {status}")?;
                if !body.is_empty() {
                    write!(f, ": {}", quote(body))?;
                }
                Ok(())
            }
            HttpFailure::NotJson {
                request,
                status,
                content_type,
                body,
                ..
            } => {
                let content_type = if content_type.is_empty() {
                    "no Content-Type".to_owned()
                } else {
                    format!("Content-Type {content_type}")
                };
                write!(
                    f,
                    "{request} got {status} with {content_type}, not application/json or text/event-stream"
                )?;
                if !body.is_empty() {
                    write!(f, ": {}", quote(body))?;
                }
                Ok(())
            }
            HttpFailure::StreamEnded { request, how, .. } => write!(
                f,
                "the event stream of {request} ended ({how}) before its response, with no event id to resume from"
            ),
            HttpFailure::ForeignStream {
                elicitation,
                request,
                call,
                ..
            } => {
                write!(
                    f,
                    "{elicitation} came on the event stream of {request}, not on "
                )?;
                match call {
                    Some((_, call)) => {
                        write!(f, "that of {call} or the standalone GET stream")
                    }
                    None => f.write_str("a tools/call's stream or the standalone GET stream"),
                }
            }
        }
    }
}

/// `body` as a JSON string, cut at [`QUOTED_BODY`] characters.
fn quote(body: &str) -> String {
    let cut: String = body.chars().take(QUOTED_BODY).collect();
    let more = if cut.len() < body.len() { "…" } else { "" };
    format!("{}{more}", serde_json::Value::String(cut))
}

/// One exchange's steps, in order.
struct Exchange<'a> {
    number: u32,
    /// The method (`POST`, `GET`, `DELETE`) and the JSON-RPC message of its body.
    method: &'a str,
    carries: Option<&'a Carried>,
    /// The `Mcp-Session-Id` its request carried.
    session: Option<&'a str>,
    /// Its request: `POST /mcp (tools/call id 2, exchange 5)`.
    request: String,
    steps: Vec<&'a HttpRecord>,
}

impl Exchange<'_> {
    fn status(&self) -> Option<(u16, String)> {
        self.steps.iter().find_map(|record| match &record.step {
            HttpStep::Response { status, headers } => Some((
                *status,
                headers.get("content-type").cloned().unwrap_or_default(),
            )),
            _ => None,
        })
    }

    /// Whether a body of this exchange carried the response to `request`.
    fn answered(&self, request: &Carried) -> bool {
        request.id.as_ref().is_some_and(|id| {
            self.steps.iter().any(|record| {
                matches!(&record.step, HttpStep::Body { carries: Some(carried), .. } if carried.answers(id))
            })
        })
    }

    fn body_text(&self) -> String {
        self.steps
            .iter()
            .find_map(|record| match &record.step {
                HttpStep::Body { text, .. } => text.clone(),
                _ => None,
            })
            .unwrap_or_default()
    }
}

/// The exchanges of `http`, by number, each with its request.
fn exchanges(http: &[HttpRecord]) -> Vec<Exchange<'_>> {
    let mut exchanges: Vec<Exchange<'_>> = Vec::new();
    for record in http {
        if let HttpStep::Request {
            method,
            path,
            headers,
            carries,
        } = &record.step
        {
            let exchange = record.exchange;
            let request = match carries {
                Some(carried) => format!(
                    "{method} {path} ({}, exchange {exchange})",
                    carried.describe()
                ),
                None => format!("{method} {path} (exchange {exchange})"),
            };
            exchanges.push(Exchange {
                number: record.exchange,
                method,
                carries: carries.as_ref(),
                session: session_of(headers),
                request,
                steps: Vec::new(),
            });
        }
    }
    for record in http {
        if let Some(exchange) = exchanges
            .iter_mut()
            .find(|exchange| exchange.number == record.exchange)
        {
            exchange.steps.push(record);
        }
    }
    exchanges
}

/// Every rule of the transport that `http` breaks, in the order of the
/// exchanges; empty when none (or over stdio).
pub fn check(http: &[HttpRecord]) -> Vec<HttpFailure> {
    let exchanges = exchanges(http);
    let mut failures = Vec::new();
    for exchange in &exchanges {
        let Some(carried) = exchange.carries.filter(|_| exchange.method == "POST") else {
            continue;
        };
        let Some((status, content_type)) = exchange.status() else {
            continue;
        };
        // A request or a notification (a response refused is the
        // call's to show: it goes unanswered); not a request answered with
        // its JSON-RPC error under an error status, as 2026-07-28 answers
        // some (`-32021` with 400): that reply is judged as any reply.
        if carried.method.is_some() && !(200..300).contains(&status) && !exchange.answered(carried)
        {
            failures.push(HttpFailure::ErrorStatus {
                exchange: exchange.number,
                request: exchange.request.clone(),
                status,
                body: exchange.body_text(),
            });
            continue;
        }
        if !carried.is_request() {
            continue;
        }
        let kind = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let body = exchange.body_text();
        if kind != "application/json" && kind != "text/event-stream" {
            failures.push(HttpFailure::NotJson {
                exchange: exchange.number,
                request: exchange.request.clone(),
                status,
                content_type,
                body,
            });
            continue;
        }
        if kind == "text/event-stream"
            && let Some(failure) = stream_ended(exchange, carried, http)
        {
            failures.push(failure);
        }
    }
    failures.extend(foreign_streams(&exchanges, http));
    failures
}

/// A request's stream that ended on the server's side without the response
/// and without an event id, while the client still awaited the response: the
/// session's records are read in order from the request on, and once the
/// client gave the request up ([`gives_up`]) its stream may end.
fn stream_ended(
    exchange: &Exchange<'_>,
    carried: &Carried,
    http: &[HttpRecord],
) -> Option<HttpFailure> {
    let id = carried.id.as_ref()?;
    let mut resumable = false;
    let mut given_up = false;
    let from_the_request = http
        .iter()
        .skip_while(|record| record.exchange != exchange.number);
    for record in from_the_request {
        given_up |= gives_up(record, exchange.session, id);
        if record.exchange != exchange.number {
            continue;
        }
        match &record.step {
            HttpStep::Event {
                id: event_id,
                carries,
                ..
            } => {
                if carries.as_ref().is_some_and(|message| message.answers(id)) {
                    return None;
                }
                resumable |= event_id
                    .as_deref()
                    .is_some_and(|event_id| !event_id.is_empty());
            }
            HttpStep::Ended { how } if how != CLOSED_BY_HARNESS && !resumable && !given_up => {
                return Some(HttpFailure::StreamEnded {
                    exchange: exchange.number,
                    request: exchange.request.clone(),
                    how: how.clone(),
                });
            }
            _ => {}
        }
    }
    None
}

/// Whether `record` is the client giving up request `id` of `session`: a
/// `notifications/cancelled` naming `id` (MCP 2025-11-25,
/// basic/utilities/cancellation) or the session's `DELETE` (basic/transports,
/// "Session Management"), under that session's `Mcp-Session-Id`.
fn gives_up(record: &HttpRecord, session: Option<&str>, id: &Value) -> bool {
    match &record.step {
        HttpStep::Request {
            method,
            headers,
            carries,
            ..
        } => {
            session_of(headers) == session
                && (method == "DELETE"
                    || carries
                        .as_ref()
                        .is_some_and(|carried| carried.cancels.as_ref() == Some(id)))
        }
        _ => false,
    }
}

/// The `Mcp-Session-Id` among a request's recorded headers.
fn session_of(headers: &BTreeMap<String, String>) -> Option<&str> {
    headers.get("mcp-session-id").map(String::as_str)
}

/// Each `elicitation/create` that came on neither the stream of the
/// `tools/call` in flight (the last one POSTed before it) nor a GET stream.
fn foreign_streams(exchanges: &[Exchange<'_>], http: &[HttpRecord]) -> Vec<HttpFailure> {
    let mut failures = Vec::new();
    let mut call: Option<&Exchange<'_>> = None;
    for record in http {
        match &record.step {
            HttpStep::Request { carries, .. }
                if carries.as_ref().is_some_and(|carried| {
                    carried.is_request() && carried.method.as_deref() == Some("tools/call")
                }) =>
            {
                call = exchanges
                    .iter()
                    .find(|exchange| exchange.number == record.exchange);
            }
            HttpStep::Event {
                carries: Some(carried),
                ..
            } if carried.is_request()
                && carried.method.as_deref() == Some("elicitation/create") =>
            {
                let Some(stream) = exchanges
                    .iter()
                    .find(|exchange| exchange.number == record.exchange)
                else {
                    continue;
                };
                let on_call = call.is_some_and(|call| call.number == stream.number);
                if on_call || stream.method == "GET" {
                    continue;
                }
                failures.push(HttpFailure::ForeignStream {
                    elicitation: carried.describe(),
                    exchange: stream.number,
                    request: stream.request.clone(),
                    call: call.map(|call| (call.number, call.request.clone())),
                });
            }
            _ => {}
        }
    }
    failures
}

#[cfg(test)]
mod tests {
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
}
