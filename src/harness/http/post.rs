//! The bridge's POST path: each line the client writes is one POST under the
//! session's headers, its status line recorded, and what the response carries
//! (a JSON body, or an event stream read by [`super::events`]) forwarded.

use reqwest::header::{ACCEPT, HeaderMap};
use reqwest::{Method, Response};
use serde_json::Value;

use super::exchange::*;
use super::{Bridge, CONNECT_RETRY, META_PROTOCOL_VERSION};
use crate::evidence::http::{Carried, HttpStep};

impl Bridge {
    /// POSTs one line; false when the session cannot go on (no response,
    /// or an error status to a request the client awaits).
    pub(super) async fn post(&mut self, line: Vec<u8>) -> bool {
        let message: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
        let carries = Carried::of(&message);
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let awaits_reply = carries.as_ref().is_some_and(Carried::is_request);
        let version = message
            .pointer("/params/_meta")
            .and_then(|meta| meta.get(META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| lock(&self.protocol_version).clone());
        let mut headers = json_headers(self.session_id.as_deref(), version.as_deref());
        for (name, value) in
            crate::harness::standard_headers::for_request(&message, version.as_deref())
        {
            if let Ok(value) = value.parse() {
                headers.insert(name, value);
            }
        }
        if let Some(id) = carries.as_ref().and_then(|carried| carried.cancels.clone()) {
            lock(&self.cancelled).push(id);
        }
        if method == "initialize" {
            // The first one: a second session opens as this one did.
            self.initialize.get_or_insert_with(|| line.clone());
        }
        if carries
            .as_ref()
            .is_some_and(|carried| carried.answers(&message["id"]))
            && let Some(planted) = self.state.take_cross_session_answer()
        {
            self.plant(planted, &message["id"]).await;
        }
        let answer = awaits_reply.then(|| message["id"].clone());
        let exchange = self.request(Method::POST, &headers, carries);
        let response = self
            .send(
                self.client
                    .post(self.url.clone())
                    .headers(headers)
                    .body(line),
                exchange,
            )
            .await;
        let Some(response) = response else {
            return !awaits_reply;
        };
        let status = response.status();
        if self.session_id.is_none()
            && let Some(id) = header(response.headers(), "mcp-session-id")
        {
            self.session_id = Some(id);
        }
        let forwarded = self.read_response(exchange, response, method == "initialize", answer);
        let forwarded = forwarded.await;
        if method == "notifications/initialized" && status.is_success() {
            self.open_standalone_stream().await;
        }
        forwarded || !awaits_reply
    }

    /// The headers of a POST of JSON under `session` (none: no
    /// `Mcp-Session-Id`), with the negotiated `MCP-Protocol-Version`.
    pub(super) fn json_headers(&self, session: Option<&str>) -> HeaderMap {
        let version = lock(&self.protocol_version).clone();
        json_headers(session, version.as_deref())
    }

    /// Reads a body that is not forwarded to the client, within the call
    /// bound, and records its size and start (nothing for an empty one).
    pub(super) async fn record_unforwarded(&self, exchange: u32, response: Response) {
        let (body, cut, _) = read_body(response, self.limits.call).await;
        if !body.is_empty() {
            self.state
                .record_http(exchange, unforwarded_body(&body, cut));
        }
    }

    /// Adds the session's `Mcp-Session-Id` and `MCP-Protocol-Version` when known.
    pub(super) fn session_headers(&self, headers: &mut HeaderMap, version: Option<&str>) {
        add_session(headers, self.session_id.as_deref(), version);
    }

    /// The headers of a GET of an event stream: `Accept: text/event-stream`
    /// and the session's headers.
    pub(super) fn event_stream_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, "text/event-stream".parse().expect("a header value"));
        let version = lock(&self.protocol_version).clone();
        self.session_headers(&mut headers, version.as_deref());
        headers
    }

    /// Records a request of a new exchange (carrying the JSON-RPC message
    /// `carries`, for a POST); returns the exchange's number.
    pub(super) fn request(
        &mut self,
        method: Method,
        headers: &HeaderMap,
        carries: Option<Carried>,
    ) -> u32 {
        record_request(
            &self.state,
            &self.exchanges,
            &self.url,
            &method,
            headers,
            carries,
        )
    }

    /// Sends `request`, retrying a refused connection until the startup limit
    /// while the server has not answered yet; records the status line, or
    /// why there is none.
    pub(super) async fn send(
        &mut self,
        request: reqwest::RequestBuilder,
        exchange: u32,
    ) -> Option<Response> {
        loop {
            let attempt = request.try_clone()?;
            let error = match tokio::time::timeout(self.limits.call, attempt.send()).await {
                Ok(Ok(response)) => {
                    self.answered_once = true;
                    self.state.record_http(
                        exchange,
                        HttpStep::Response {
                            status: response.status().as_u16(),
                            headers: recorded(response.headers()),
                        },
                    );
                    return Some(response);
                }
                Ok(Err(error)) => {
                    let starting = !self.answered_once
                        && error.is_connect()
                        && self.started.elapsed() + CONNECT_RETRY < self.limits.startup;
                    if starting {
                        tokio::time::sleep(CONNECT_RETRY).await;
                        continue;
                    }
                    describe_error(&error)
                }
                Err(_) => format!(
                    "no status line within {}",
                    crate::format::seconds(self.limits.call)
                ),
            };
            self.state
                .event(format!("HTTP exchange {exchange}: {error}"));
            self.state.record_http(exchange, HttpStep::Failed { error });
            return None;
        }
    }

    /// Forwards what the response carries: a JSON body as one line, an event
    /// stream event by event (on its own task; `answer` is the id of the
    /// request the stream must answer). Returns whether the request can
    /// still be answered (false: an error status, or a JSON body that could
    /// not be read).
    pub(super) async fn read_response(
        &mut self,
        exchange: u32,
        response: Response,
        initialize: bool,
        answer: Option<Value>,
    ) -> bool {
        let status = response.status();
        let kind = header(response.headers(), "content-type")
            .unwrap_or_default()
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if status.is_success() && kind == "text/event-stream" {
            self.read_stream(exchange, response, initialize, answer);
            return true;
        }
        let (body, cut, how) = read_body(response, self.limits.call).await;
        // 2026-07-28 answers some JSON-RPC errors to a request with an HTTP
        // error status (`-32021` with 400, `-32601` with 404): the error is
        // the request's reply, forwarded as any reply.
        let reply = (!status.is_success() && kind == "application/json" && how.is_none())
            .then(|| serde_json::from_slice::<Value>(&body).ok())
            .flatten()
            .filter(|message| {
                answer.as_ref().is_some_and(|id| {
                    Carried::of(message).is_some_and(|carried| carried.answers(id))
                })
            });
        if let Some(reply) = reply {
            self.state.record_http(
                exchange,
                HttpStep::Body {
                    bytes: body.len(),
                    cut,
                    text: None,
                    carries: Carried::of(&reply),
                },
            );
            let _ = self.out.send(reply.to_string());
            return true;
        }
        if !status.is_success() {
            self.state
                .record_http(exchange, unforwarded_body(&body, cut));
            self.state.event(format!(
                "HTTP exchange {exchange}: status {}",
                status.as_u16()
            ));
            return false;
        }
        if body.is_empty() && how.is_none() {
            return true; // 202 Accepted and the like: nothing to forward
        }
        let forward = kind == "application/json";
        let carries = forward
            .then(|| serde_json::from_slice::<Value>(&body).ok())
            .flatten()
            .and_then(|message| Carried::of(&message));
        self.state.record_http(
            exchange,
            HttpStep::Body {
                bytes: body.len(),
                cut,
                text: (!forward).then(|| text_start(&body)),
                carries,
            },
        );
        if let Some(how) = how {
            self.state.record_http(exchange, HttpStep::Ended { how });
            return false;
        }
        if !forward {
            return false;
        }
        let line = one_line(&body);
        if initialize {
            learn_version(&self.protocol_version, &line);
        }
        let _ = self.out.send(line);
        true
    }
}
