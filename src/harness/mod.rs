//! The harness: runs any MCP server as a real child process (or reaches one
//! already running over HTTP), talks to it with an rmcp client through a
//! recording proxy, and answers elicitations with raw JSON.
//!
//! ```text
//! rmcp client (CaseClient) ⇄ duplex ⇄ proxy (record, inject answer, tap) ⇄ child stdin/stdout
//!                                                                      ⇄ http bridge ⇄ POST/GET/DELETE (Streamable HTTP)
//! ```
//! Every await has a bound ([`Limits`]); a session that hangs ends with an error
//! in its evidence, never with a hung test.

pub mod child;
pub mod client;
pub mod cross_session;
pub mod era;
pub mod hooks;
pub use crate::evidence;
pub mod hostile;
pub mod http;
pub mod in_flight;
pub mod limits;
pub mod mrtr;
pub mod mutation;
pub mod proxy;
pub mod request_header;
pub mod rounds;
mod session_end;
mod spawn;
pub mod standard_headers;
pub mod tamper;
pub mod transport;

use std::sync::atomic::Ordering;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value};
use tokio::task::JoinHandle;

use crate::case::{Case, WireAnswer};
use crate::error::Error;
pub use crate::evidence::{Call, Evidence, Finished};
use crate::evidence::{Handshake, HarnessFailure};
pub use in_flight::{IN_FLIGHT, InFlight};
pub use limits::Limits;
use proxy::{Frame, ProxyState, ServerTap};
pub use transport::Transport;

/// How long a server [`Session::stop`] ends over stdio has after SIGTERM
/// before its process group is killed: 1 s, enough to flush and remove what
/// it must, and short, since such a server has shown that it does not end
/// when its stdin closes.
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The tool every session calls.
pub const TOOL_NAME: &str = "calculate";

/// What one [`Session::call_tool`] produced, as it crossed the wire.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCall {
    /// The `result` member of the reply to `tools/call` (a `CallToolResult`).
    pub result: Option<Value>,
    /// The `error` member of the reply (a JSON-RPC error object).
    pub error: Option<Value>,
    /// Why there is no reply at all: no session, a timeout, a closed transport.
    pub failure: Option<HarnessFailure>,
    /// The frames recorded during this call.
    pub frames: Vec<Frame>,
}

impl ToolCall {
    /// The reply as the evidence keeps it: `{"result": ..}` (a result wins
    /// over an error), `{"error": ..}`, or `{}` when none came.
    pub fn reply(&self) -> Value {
        match (&self.result, &self.error) {
            (Some(result), _) => serde_json::json!({"result": result}),
            (None, Some(error)) => serde_json::json!({"error": error}),
            (None, None) => serde_json::json!({}),
        }
    }
}

/// A live session with one server process.
pub struct Session {
    client: Option<RunningService<RoleClient, client::CaseClient>>,
    state: ProxyState,
    /// The server process, when the harness started one (none: an HTTP
    /// server that was already running).
    process: Option<child::ServerProcess>,
    pumps: [JoinHandle<()>; 2],
    /// The Streamable HTTP bridge (none over stdio).
    bridge: Option<JoinHandle<()>>,
    callbacks: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    limits: Limits,
    startup_error: Option<HarnessFailure>,
    in_flight: Option<in_flight::Registration>,
    /// Session mode: what the handshake recorded, taken before the
    /// first [`Session::run_case_in_session`] and shown in every case's evidence.
    handshake: Option<proxy::Recording>,
    /// The `--url` as given, over Streamable HTTP (for each case's evidence).
    url: Option<String>,
}

impl Session {
    /// Spawns `command`, initializes an rmcp client declaring `capabilities`
    /// (raw JSON, sent byte for byte) and checks that the server lists `calculate`.
    ///
    /// `tap`, when given, rewrites server→client frames (wire mutants).
    ///
    /// # Errors
    /// [`Error::Spawn`] when the process cannot start. A failed handshake is not an
    /// error here: it is kept for the evidence (see [`Finished::startup_error`]).
    pub async fn start(
        command: &[String],
        capabilities: &Value,
        limits: Limits,
        tap: Option<ServerTap>,
    ) -> Result<Session, Error> {
        Session::start_over(command, &Transport::Stdio, capabilities, limits, tap).await
    }

    /// [`Session::start`] over `transport` (`run --url`: Streamable HTTP, the
    /// server started on a free `{port}` or already running).
    ///
    /// # Errors
    /// As [`Session::start`].
    pub async fn start_over(
        command: &[String],
        transport: &Transport,
        capabilities: &Value,
        limits: Limits,
        tap: Option<ServerTap>,
    ) -> Result<Session, Error> {
        let mut session = Session::open_in(
            command,
            &child::Environment::default(),
            transport,
            capabilities,
            limits,
            tap,
        )
        .await?;
        if session.startup_error.is_none() {
            session.startup_error = session.check_tool_listed().await.err();
        }
        Ok(session)
    }

    /// As [`Session::start`], but checks for no tool: for servers with tools of
    /// their own (`elicit-check check`); see [`Session::list_tools`] and
    /// [`Session::call_tool`].
    ///
    /// # Errors
    /// [`Error::Spawn`] when the process cannot start; a failed `initialize` is
    /// kept in [`Session::startup_error`].
    pub async fn open(
        command: &[String],
        capabilities: &Value,
        limits: Limits,
        tap: Option<ServerTap>,
    ) -> Result<Session, Error> {
        Session::open_in(
            command,
            &child::Environment::default(),
            &Transport::Stdio,
            capabilities,
            limits,
            tap,
        )
        .await
    }

    /// [`Session::open`] with the server started in `environment` (`check --env`,
    /// `--cwd`) and reached over `transport`. Once the handshake has finished,
    /// the recording holds it whole, the client's `notifications/initialized`
    /// included (waited for within the startup limit).
    ///
    /// # Errors
    /// As [`Session::open`].
    pub async fn open_in(
        command: &[String],
        environment: &child::Environment,
        transport: &Transport,
        capabilities: &Value,
        limits: Limits,
        tap: Option<ServerTap>,
    ) -> Result<Session, Error> {
        let (mut session, client_io, handler) = Session::spawn_unconnected(
            command,
            environment,
            transport,
            capabilities,
            limits,
            tap,
            None,
            "",
        )?;
        match tokio::time::timeout(limits.startup, handler.serve(client_io)).await {
            Ok(Ok(client)) => {
                session.client = Some(client);
                // rmcp has written `notifications/initialized`; the handshake
                // is whole once the proxy has recorded it.
                session
                    .state
                    .client_frame_recorded("notifications/initialized", limits.startup)
                    .await;
            }
            Ok(Err(error)) => {
                session.startup_error = Some(HarnessFailure::HandshakeFailed {
                    request: Handshake::Initialize,
                    error: error.to_string(),
                    http: session.state.http_failure(),
                });
            }
            Err(_) => {
                session.startup_error = Some(HarnessFailure::HandshakeTimedOut {
                    request: Handshake::Initialize,
                    within: limits.startup,
                    http: session.state.http_failure(),
                });
            }
        }
        Ok(session)
    }

    /// The names of the tools the server lists at `tools/list` (bounded by the
    /// startup limit).
    ///
    /// # Errors
    /// A message naming the reason: no session, a timeout, or a JSON-RPC error.
    pub async fn list_tools(&self) -> Result<Vec<String>, HarnessFailure> {
        Ok(self
            .list_tool_schemas()
            .await?
            .into_iter()
            .map(|(name, _)| name)
            .collect())
    }

    /// The tools the server lists at `tools/list`, each its name and its
    /// `inputSchema` (bounded by the startup limit).
    ///
    /// # Errors
    /// As [`Session::list_tools`].
    pub async fn list_tool_schemas(&self) -> Result<Vec<(String, Value)>, HarnessFailure> {
        let Some(client) = &self.client else {
            return Err(self
                .startup_error
                .clone()
                .unwrap_or(HarnessFailure::NotStarted));
        };
        let listed = self.listed(client).await?;
        Ok(listed
            .tools
            .iter()
            .map(|tool| {
                (
                    tool.name.to_string(),
                    Value::Object(tool.input_schema.as_ref().clone()),
                )
            })
            .collect())
    }

    /// Over Streamable HTTP, plants `answer` in another session before the
    /// client's next elicitation reply ([`cross_session`]); ignored over stdio.
    pub fn plant_cross_session_answer(&self, answer: Option<cross_session::CrossSessionAnswer>) {
        self.state.set_cross_session_answer(answer);
    }

    /// Sets the responder that answers every `elicitation/create` from now on
    /// (see [`proxy::Responder`]); `None` goes back to [`Session::call`]'s answer.
    pub fn set_responder(&self, responder: Option<proxy::Responder>) {
        self.state.set_responder(responder);
    }

    /// Calls tool `name` with `arguments` (none: no `arguments` key) and returns
    /// the reply exactly as it crossed the wire: `result` or `error` of the
    /// JSON-RPC response to this `tools/call`, read from the recorded frames, so
    /// a result rmcp cannot parse is still judged by its meaning.
    pub async fn call_tool(
        &mut self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> ToolCall {
        let first_frame = self.state.frame_count();
        let mut call = ToolCall::default();
        match &self.client {
            None => {
                call.failure = Some(
                    self.startup_error
                        .clone()
                        .unwrap_or(HarnessFailure::NotStarted),
                );
            }
            Some(client) => {
                let mut params = CallToolRequestParams::new(name.to_owned());
                if let Some(arguments) = arguments {
                    params = params.with_arguments(arguments);
                }
                match tokio::time::timeout(self.limits.call, client.peer().call_tool(params)).await
                {
                    Ok(_) => {}
                    Err(_) => {
                        call.failure = Some(HarnessFailure::CallTimedOut {
                            within: self.limits.call,
                        });
                    }
                }
            }
        }
        call.frames = self.state.frames_since(first_frame);
        if let Some(reply) = reply_to_call(&call.frames) {
            call.result = reply.message.get("result").cloned();
            call.error = reply.message.get("error").cloned();
        } else if call.failure.is_none() {
            call.failure = Some(HarnessFailure::NoReply {
                http: self.state.http_failure(),
            });
        }
        call
    }

    /// Lists the server's tools and checks that [`TOOL_NAME`] is among them.
    async fn check_tool_listed(&self) -> Result<(), HarnessFailure> {
        let Some(client) = &self.client else {
            return Err(HarnessFailure::NotStarted);
        };
        let listed = self.listed(client).await?;
        if listed.tools.iter().any(|tool| tool.name == TOOL_NAME) {
            Ok(())
        } else {
            Err(HarnessFailure::ToolNotOffered {
                tool: TOOL_NAME.to_owned(),
                offered: listed
                    .tools
                    .iter()
                    .map(|tool| tool.name.to_string())
                    .collect(),
            })
        }
    }

    /// The server's `tools/list` result, bounded by the startup limit.
    async fn listed(
        &self,
        client: &RunningService<RoleClient, client::CaseClient>,
    ) -> Result<rmcp::model::ListToolsResult, HarnessFailure> {
        tokio::time::timeout(self.limits.startup, client.peer().list_tools(None))
            .await
            .map_err(|_| HarnessFailure::ToolsListTimedOut {
                within: self.limits.startup,
            })?
            .map_err(|error| HarnessFailure::ToolsListFailed {
                error: error.to_string(),
            })
    }

    /// Runs `case` as the next `tools/call` of this running session (session
    /// mode) and returns its evidence as a fresh process would show it:
    /// the session's handshake frames (its `initialize` declares this session's
    /// capabilities, which must be `case.capabilities`), then this call's frames;
    /// the stray stdout lines of the handshake and of this call; the
    /// elicitation callbacks of this call. The process has not ended yet, so the
    /// exit is written as clean (code 0, no kill) and stderr as empty: the
    /// caller must [`Session::finish`] the session and re-run its cases in fresh
    /// processes when it did not end cleanly ([`Finished::ended_cleanly`]).
    pub async fn run_case_in_session(&mut self, command: &[String], case: &Case) -> Evidence {
        if self.handshake.is_none() {
            self.handshake = Some(self.state.recording());
        }
        let callbacks = self.callbacks.load(Ordering::SeqCst);
        let before = self.state.mark();
        // In flight while its call runs: a stopped run keeps it as interrupted.
        let in_flight = in_flight::Registration::for_case(
            &self.state,
            self.pid(),
            case.clone(),
            command.to_vec(),
            self.url.clone(),
        );
        let call = self.call(&case.policy, case.wire_answer()).await;
        if let Some(registration) = in_flight {
            registration.done();
        }
        let during = self.state.recording_since(before);
        let mut recording = self.handshake.clone().unwrap_or_default();
        recording.wire.extend(during.wire);
        recording.stray_stdout.extend(during.stray_stdout);
        recording.stray_stdout_not_kept += during.stray_stdout_not_kept;
        recording.timeline.extend(during.timeline);
        recording.http.extend(during.http);
        let finished = Finished {
            recording,
            exit: child::Exit {
                code: Some(0),
                forced_kill: false,
                stderr: String::new(),
                group_left_running: false,
            },
            callbacks: self.callbacks.load(Ordering::SeqCst) - callbacks,
            protocol_version: self.protocol_version(),
            pid: self.pid(),
            startup_error: self.startup_error.clone(),
            shutdown_grace: self.limits.shutdown,
            stopped_by_harness: false,
            url: self.url.clone(),
        };
        Evidence::new(case, command, finished, call)
    }

    /// Where this session's recording stands now (frames, stray lines, events).
    pub fn mark(&self) -> proxy::Mark {
        self.state.mark()
    }

    /// What this session recorded after `from` (a [`Session::mark`]).
    pub fn recording_since(&self, from: proxy::Mark) -> proxy::Recording {
        self.state.recording_since(from)
    }

    /// Stray stdout lines recorded so far in this session.
    pub fn stray_line_count(&self) -> usize {
        self.state.mark().stray_stdout
    }

    /// The protocol version the server answered at `initialize`, if it did.
    fn protocol_version(&self) -> Option<String> {
        self.client
            .as_ref()
            .and_then(|client| client.peer().peer_info())
            .map(|info| info.protocol_version.to_string())
    }

    /// The server's process id (also its process group's), while it runs:
    /// what a benchmark reads `/proc/PID/status` of (the server's peak RSS).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|process| process.pid)
    }

    /// Why the session could not start, if it could not.
    pub fn startup_error(&self) -> Option<&HarnessFailure> {
        self.startup_error.as_ref()
    }

    /// Calls `calculate` with `{"policy": policy}` and answers its elicitation, if
    /// any, with `answer`, its JSON text written into the reply frame byte for byte
    /// (build one from a `serde_json::Value` with `WireAnswer::from(&answer)` or
    /// from raw text with [`WireAnswer::result_text`]).
    pub async fn call(&mut self, policy: &str, answer: Option<WireAnswer>) -> Call {
        let first_frame = self.state.frame_count();
        let mut call = Call {
            outcome: None,
            text_outcome: None,
            error: None,
            frames: Vec::new(),
        };
        match &self.client {
            None => {
                call.error = Some(
                    self.startup_error
                        .clone()
                        .unwrap_or(HarnessFailure::NotStarted),
                );
            }
            Some(client) => {
                self.state.set_answer(answer);
                let mut arguments = Map::new();
                arguments.insert("policy".into(), Value::String(policy.to_owned()));
                let params = CallToolRequestParams::new(TOOL_NAME).with_arguments(arguments);
                match tokio::time::timeout(self.limits.call, client.peer().call_tool(params)).await
                {
                    Ok(Ok(result)) => read_result(&result, &mut call),
                    Ok(Err(error)) => {
                        call.error = Some(HarnessFailure::CallFailed {
                            error: error.to_string(),
                            http: self.state.http_failure(),
                        });
                    }
                    Err(_) => {
                        call.error = Some(HarnessFailure::CallTimedOut {
                            within: self.limits.call,
                        });
                    }
                }
            }
        }
        call.frames = self.state.frames_since(first_frame);
        call
    }
}

/// Fills `call` from a tool result: `structuredContent` and `content[0]` text.
fn read_result(result: &CallToolResult, call: &mut Call) {
    call.outcome = result.structured_content.clone();
    call.text_outcome = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .and_then(|text| serde_json::from_str(&text.text).ok());
    if result.is_error == Some(true) {
        call.error = Some(HarnessFailure::ToolError);
    }
}

/// Runs one case in a fresh server process and returns its evidence.
///
/// # Errors
/// [`Error::Spawn`] only; every other failure (handshake, timeout, crash) is
/// recorded in the evidence so nothing is lost.
pub async fn run_case(
    command: &[String],
    case: &Case,
    limits: Limits,
    tap: Option<ServerTap>,
) -> Result<Evidence, Error> {
    run_case_over(command, &Transport::Stdio, case, limits, tap).await
}

/// [`run_case`] over `transport`; over Streamable HTTP the evidence keeps the
/// URL as given (`Evidence::url`) and the HTTP exchanges (`Evidence::http`).
///
/// # Errors
/// As [`run_case`].
pub async fn run_case_over(
    command: &[String],
    transport: &Transport,
    case: &Case,
    limits: Limits,
    tap: Option<ServerTap>,
) -> Result<Evidence, Error> {
    in_flight::scoped(case, command, async {
        let mut session =
            Session::start_over(command, transport, &case.capabilities, limits, tap).await?;
        let call = session.call(&case.policy, case.wire_answer()).await;
        let (finished, signal) = session.finish_with_signal().await;
        let mut evidence = Evidence::new(case, command, finished, call);
        evidence.exit_signal = signal;
        Ok(evidence)
    })
    .await
}

/// The server's reply to the client's `tools/call` among one call's frames:
/// the first server frame with no `method` whose `id` is the request's.
/// JSON-RPC ids are per direction (both sides count from 0), so a client's
/// answer to a server request (an `elicitation/create`, a `ping`) may carry the
/// same id as the call and is never the call's request or its reply; a call
/// with no `tools/call` request among its frames has no reply.
fn reply_to_call(frames: &[Frame]) -> Option<&Frame> {
    let request_id = frames.iter().find_map(|frame| {
        (frame.from == proxy::Side::Client
            && frame.message.get("method").and_then(Value::as_str) == Some("tools/call"))
        .then(|| frame.message.get("id").cloned())
        .flatten()
    })?;
    frames.iter().find(|frame| {
        frame.from == proxy::Side::Server
            && frame.message.get("method").is_none()
            && frame.message.get("id") == Some(&request_id)
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{ToolCall, reply_to_call};
    use crate::evidence::wire::{Side, frame};

    /// The evidence keeps a result, else an error, else nothing (`{}`).
    #[test]
    fn a_calls_reply_is_kept_as_its_result_its_error_or_nothing() {
        let call = |result: Option<serde_json::Value>, error: Option<serde_json::Value>| ToolCall {
            result,
            error,
            ..ToolCall::default()
        };
        let result = json!({"content": []});
        let error = json!({"code": -32602, "message": "bad"});
        assert_eq!(
            call(Some(result.clone()), Some(error.clone())).reply(),
            json!({"result": result})
        );
        assert_eq!(
            call(None, Some(error.clone())).reply(),
            json!({"error": error})
        );
        assert_eq!(call(None, None).reply(), json!({}));
    }

    /// A call whose client first answers a server `ping` (id 5) and whose
    /// server asks for a form with the call's own id (1): only the server's
    /// result with id 1 is the reply.
    #[test]
    fn the_reply_is_the_servers_frame_with_the_calls_id_in_its_direction() {
        let frames = vec![
            frame(
                0,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 5, "result": {}}),
            ),
            frame(
                1,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book"}}),
            ),
            frame(
                2,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {}}),
            ),
            frame(
                3,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}}),
            ),
            frame(
                4,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 5, "result": {"stale": true}}),
            ),
            frame(
                5,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
            ),
        ];
        assert_eq!(reply_to_call(&frames).map(|reply| reply.seq), Some(5));
    }

    /// No `tools/call` request (the call never reached the wire): a server
    /// frame with neither `id` nor `method` is not its reply.
    #[test]
    fn a_call_with_no_request_has_no_reply() {
        let frames = vec![
            frame(
                0,
                Side::Client,
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ),
            frame(1, Side::Server, json!({"jsonrpc": "2.0", "result": {}})),
            frame(2, Side::Client, json!({"jsonrpc": "2.0", "result": {}})),
        ];
        assert_eq!(reply_to_call(&frames).map(|reply| reply.seq), None);
    }
}
