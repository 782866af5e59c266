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
mod tests;
