//! Any tool's call through protocol 2026-07-28's multi round-trip requests,
//! for `check`: a discover-lifecycle session, and a driver that answers each
//! `InputRequiredResult`'s input requests and retries the call.
//!
//! ```text
//! client  server/discover                 (_meta: version, the case's capabilities)
//! client  tools/call {name, arguments}    -> {resultType: input_required,
//!                                             inputRequests: {key: elicitation/create}, requestState}
//! client  tools/call {name, arguments, inputResponses: {key: answer}, requestState}
//!                                         -> the result, a JSON-RPC error, or another round
//! ```
//!
//! Each input request is answered by the same [`Responder`] that answers a
//! 2025-11-25 `elicitation/create`, from the request exactly as the server sent
//! it (read from the recorded frame, not from rmcp's typed copy); its
//! `Answer::Result` is the input response, and an `Answer::Error`'s error object
//! is written as the response itself (`inputResponses` has no error channel).
//! The `requestState` goes back exactly as received.

use rmcp::model::{CallToolRequestParams, CallToolResponse, InputResponses, ProtocolVersion};
use rmcp::service::ServiceError;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Map, Value};

use super::child::Environment;
use super::mrtr::{DRIVER_MAX_ROUNDS, client_hook};
use super::proxy::{self, Responder};
use super::tamper::tampered;
use super::{Limits, Session, ToolCall};
use crate::case::Answer;
use crate::error::Error;
use crate::evidence::{Handshake, HarnessFailure};

impl Session {
    /// Spawns `command` in `environment` and opens a protocol 2026-07-28 session
    /// (`server/discover`), every request's `_meta` declaring `capabilities`
    /// exactly; checks for no tool.
    ///
    /// # Errors
    /// [`Error::Spawn`] when the process cannot start; a failed discovery is
    /// kept in [`Session::startup_error`].
    pub async fn open_discover(
        command: &[String],
        environment: &Environment,
        transport: &super::Transport,
        capabilities: &Value,
        limits: Limits,
    ) -> Result<Session, Error> {
        let hook = client_hook(capabilities.clone(), None);
        let (mut session, client_io, handler) = Session::spawn_unconnected(
            command,
            environment,
            transport,
            capabilities,
            limits,
            None,
            Some(hook),
            " (protocol 2026-07-28)",
        )?;
        session.discover(client_io, handler, limits).await;
        Ok(session)
    }

    /// Connects `handler` over `client_io` in the discover lifecycle
    /// (`server/discover`, 2026-07-28), bounded by the startup limit; a failure
    /// is kept in [`Session::startup_error`].
    pub(crate) async fn discover(
        &mut self,
        client_io: tokio::io::DuplexStream,
        handler: super::client::CaseClient,
        limits: Limits,
    ) {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        match tokio::time::timeout(
            limits.startup,
            handler.serve_with_lifecycle(client_io, lifecycle),
        )
        .await
        {
            Ok(Ok(client)) => self.client = Some(client),
            Ok(Err(error)) => {
                self.startup_error = Some(HarnessFailure::HandshakeFailed {
                    request: Handshake::Discover,
                    error: error.to_string(),
                    http: self.state.http_failure(),
                });
            }
            Err(_) => {
                self.startup_error = Some(HarnessFailure::HandshakeTimedOut {
                    request: Handshake::Discover,
                    within: limits.startup,
                    http: self.state.http_failure(),
                });
            }
        }
    }

    /// Calls `name` through its 2026-07-28 rounds, answering every input
    /// request with `responder` and echoing each `requestState`; at most
    /// [`DRIVER_MAX_ROUNDS`] `tools/call` requests, each bounded by the call
    /// limit. The result or error is the reply to the last `tools/call`.
    pub async fn call_tool_rounds(
        &mut self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        responder: &Responder,
    ) -> ToolCall {
        self.call_tool_retried(name, arguments, responder, None)
            .await
    }

    /// Sends one `tools/call` for `name` with `arguments` and returns the
    /// `requestState` of its reply, when the reply is an `InputRequiredResult`
    /// that carries one; the input requests are left unanswered. Bounded by the
    /// call limit.
    pub async fn first_request_state(
        &mut self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Option<String> {
        let client = self.client.as_ref()?;
        let before = self.state.frame_count();
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let _ = tokio::time::timeout(self.limits.call, client.call_tool_once(params)).await;
        let frames = self.state.frames_since(before);
        let reply = last_reply(&frames)?;
        reply
            .pointer("/result/requestState")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    /// As [`Session::call_tool_rounds`], with `fault` applied to the first
    /// retry that answers a form (see [`RetryFault`]): the retries before it
    /// (a URL-mode sign-in before the form) go as answered. After a faulted
    /// retry the call ends at the next reply: a new `InputRequiredResult` is
    /// the server asking again, and is not answered.
    pub async fn call_tool_retried(
        &mut self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        responder: &Responder,
        fault: Option<&RetryFault>,
    ) -> ToolCall {
        let first_frame = self.state.frame_count();
        let mut call = ToolCall::default();
        let Some(client) = &self.client else {
            call.failure = Some(
                self.startup_error
                    .clone()
                    .unwrap_or(HarnessFailure::NotStarted),
            );
            return call;
        };
        let request = |responses: Option<InputResponses>, state: Option<String>| {
            let mut params = CallToolRequestParams::new(name.to_owned());
            if let Some(arguments) = arguments.clone() {
                params = params.with_arguments(arguments);
            }
            params.input_responses = responses;
            params.request_state = state;
            params
        };
        let mut params = request(None, None);
        let mut rounds = 0;
        let mut faulted = false;
        loop {
            rounds += 1;
            let before = self.state.frame_count();
            let response =
                tokio::time::timeout(self.limits.call, client.call_tool_once(params)).await;
            match response {
                Err(_) => {
                    call.failure = Some(HarnessFailure::CallTimedOut {
                        within: self.limits.call,
                    });
                    break;
                }
                Ok(Ok(CallToolResponse::InputRequired(_))) if faulted => {
                    break;
                }
                Ok(Ok(CallToolResponse::InputRequired(_))) if rounds >= DRIVER_MAX_ROUNDS => {
                    call.failure = Some(HarnessFailure::StillInputRequired {
                        requests: DRIVER_MAX_ROUNDS,
                    });
                    break;
                }
                Ok(Ok(CallToolResponse::InputRequired(typed))) => {
                    let frames = self.state.frames_since(before);
                    let sent = last_reply(&frames).and_then(|reply| reply.get("result"));
                    let requests = sent
                        .and_then(|result| result.get("inputRequests"))
                        .and_then(Value::as_object);
                    let asks_form = requests
                        .into_iter()
                        .flatten()
                        .any(|(_, request)| crate::harness::client::asks_form(request));
                    let mut responses = Some(InputResponses::new());
                    for (key, request) in requests.into_iter().flatten() {
                        let (Answer::Result(answer) | Answer::Error(answer)) = responder(request);
                        if let Some(responses) = responses.as_mut() {
                            responses.insert(key.clone(), answer);
                        }
                    }
                    let mut state = sent
                        .and_then(|result| result.get("requestState"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .or(typed.request_state);
                    if let Some(fault) = fault.filter(|_| asks_form && !faulted) {
                        fault.apply(&mut responses, &mut state);
                        faulted = true;
                    }
                    params = request(responses, state);
                }
                Ok(Ok(_)) | Ok(Err(ServiceError::McpError(_))) => break,
                Ok(Err(error)) => {
                    call.failure = Some(HarnessFailure::CallFailed {
                        error: error.to_string(),
                        http: self.state.http_failure(),
                    });
                    break;
                }
            }
        }
        call.frames = self.state.frames_since(first_frame);
        match last_reply(&call.frames) {
            Some(reply) => {
                call.result = reply.get("result").cloned();
                call.error = reply.get("error").cloned();
            }
            None => {
                call.failure.get_or_insert_with(|| HarnessFailure::NoReply {
                    http: self.state.http_failure(),
                });
            }
        }
        call
    }
}

/// What the client changes in the first retry of a call: a `requestState` the
/// server did not issue for this call (MCP 2026-07-28, multi round-trip
/// requests: the state is attacker-controlled input the server must verify),
/// or an answer that never comes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryFault {
    /// The state with one byte changed ([`tampered`]).
    Tampered,
    /// The state the server issued in another call (another arguments object).
    Foreign(String),
    /// No `requestState` at all; the `inputResponses` as answered.
    WithoutState,
    /// The state echoed, no `inputResponses` (the answer never comes).
    WithoutResponses,
    /// The state echoed, each answer under a key the server never asked
    /// ([`OTHER_KEY`] appended to its own).
    OtherKey,
}

/// Appended to each input key by [`RetryFault::OtherKey`].
pub const OTHER_KEY: &str = "-not-asked";

impl RetryFault {
    /// Changes a retry's `inputResponses` and `requestState` as this fault says.
    pub fn apply(&self, responses: &mut Option<InputResponses>, state: &mut Option<String>) {
        match self {
            RetryFault::Tampered => *state = state.as_deref().map(tampered),
            RetryFault::Foreign(other) => *state = Some(other.clone()),
            RetryFault::WithoutState => *state = None,
            RetryFault::WithoutResponses => *responses = None,
            RetryFault::OtherKey => {
                if let Some(answered) = responses.take() {
                    let mut moved = InputResponses::new();
                    for (key, answer) in answered {
                        moved.insert(format!("{key}{OTHER_KEY}"), answer);
                    }
                    *responses = Some(moved);
                }
            }
        }
    }
}

/// The server's reply to the last `tools/call` request among `frames`.
fn last_reply(frames: &[proxy::Frame]) -> Option<&Value> {
    let id = frames.iter().rev().find_map(|frame| {
        (frame.from == proxy::Side::Client
            && frame.message.get("method").and_then(Value::as_str) == Some("tools/call"))
        .then(|| frame.message.get("id"))
        .flatten()
    })?;
    frames
        .iter()
        .rev()
        .find(|frame| {
            frame.from == proxy::Side::Server
                && frame.message.get("method").is_none()
                && frame.message.get("id") == Some(id)
        })
        .map(|frame| &frame.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::proxy::{Side, frame};
    use serde_json::json;

    #[test]
    fn the_reply_read_is_the_one_to_the_last_tools_call() {
        let frames = vec![
            frame(
                0,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}),
            ),
            frame(
                1,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required"}}),
            ),
            frame(
                2,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}),
            ),
            frame(
                3,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 9, "result": {"other": true}}),
            ),
            frame(
                4,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 2, "result": {"done": true}}),
            ),
        ];
        assert_eq!(
            last_reply(&frames),
            Some(&json!({"jsonrpc": "2.0", "id": 2, "result": {"done": true}}))
        );
        assert_eq!(last_reply(&frames[..4]), None, "no reply to id 2 yet");
        assert_eq!(last_reply(&[]), None);
    }

    #[test]
    fn a_client_request_after_the_call_is_not_the_call() {
        // JSON-RPC ids are per direction: a client `ping` after the last
        // `tools/call` has its own id and its own reply, neither of them
        // the call's.
        let frames = vec![
            frame(
                0,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}),
            ),
            frame(
                1,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 2, "result": {"done": true}}),
            ),
            frame(
                2,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
            ),
            frame(
                3,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 3, "result": {}}),
            ),
        ];
        assert_eq!(
            last_reply(&frames),
            Some(&json!({"jsonrpc": "2.0", "id": 2, "result": {"done": true}}))
        );
    }

    #[test]
    fn each_fault_changes_only_its_part_of_the_retry() {
        let answered = || {
            let mut responses = InputResponses::new();
            responses.insert("form".to_owned(), json!({"action": "accept"}));
            Some(responses)
        };
        let state = || Some("s1.tag".to_owned());
        let applied = |fault: RetryFault| {
            let (mut responses, mut state) = (answered(), state());
            fault.apply(&mut responses, &mut state);
            (
                responses.map(|r| serde_json::to_value(r).expect("json")),
                state,
            )
        };
        let asked = Some(json!({"form": {"action": "accept"}}));
        assert_eq!(
            applied(RetryFault::Tampered),
            (asked.clone(), Some("s1.Nag".to_owned()))
        );
        assert_eq!(
            applied(RetryFault::Foreign("other".to_owned())),
            (asked.clone(), Some("other".to_owned()))
        );
        assert_eq!(applied(RetryFault::WithoutState), (asked, None));
        assert_eq!(applied(RetryFault::WithoutResponses), (None, state()));
        assert_eq!(
            applied(RetryFault::OtherKey),
            (
                Some(json!({"form-not-asked": {"action": "accept"}})),
                state()
            )
        );
    }
}
