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
pub mod standard_headers;
pub mod tamper;
pub mod transport;

use std::sync::atomic::Ordering;
use std::time::Instant;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value};
use tokio::task::JoinHandle;

use crate::case::{Case, WireAnswer};
use crate::error::Error;
pub use crate::evidence::{Call, Evidence, Finished};
pub use in_flight::{IN_FLIGHT, InFlight};
pub use limits::Limits;
use proxy::{Frame, ProxyState, ServerTap};
pub use transport::Transport;

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
    pub failure: Option<String>,
    /// The frames recorded during this call.
    pub frames: Vec<Frame>,
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
    startup_error: Option<String>,
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
    /// `--cwd`) and reached over `transport`.
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
            Ok(Ok(client)) => session.client = Some(client),
            Ok(Err(error)) => {
                session.startup_error = Some(format!(
                    "initialize failed: {error}{}",
                    session.state.http_failure()
                ));
            }
            Err(_) => {
                session.startup_error = Some(format!(
                    "initialize did not finish within {}{}",
                    crate::format::seconds(limits.startup),
                    session.state.http_failure()
                ));
            }
        }
        Ok(session)
    }

    /// Spawns `command` behind a recording proxy, with no client connected yet:
    /// the session (no client, no startup error), the client's end of the proxy,
    /// and the client handler declaring `capabilities`. Over
    /// [`Transport::Http`] the proxy's lines go through the HTTP bridge
    /// ([`http`]); `command` is then started on a free port (`{port}`), or,
    /// when empty, the server is already running at the URL. `tap` rewrites
    /// server frames (wire mutants); `hook` replaces the client→server
    /// rewriting (protocol 2026-07-28); `label` follows the pid in the
    /// timeline's spawn event.
    ///
    /// # Errors
    /// [`Error::Spawn`] when the process cannot start (or no local port can be
    /// bound for it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn spawn_unconnected(
        command: &[String],
        environment: &child::Environment,
        transport: &Transport,
        capabilities: &Value,
        limits: Limits,
        tap: Option<ServerTap>,
        hook: Option<proxy::ClientHook>,
        label: &str,
    ) -> Result<(Session, tokio::io::DuplexStream, client::CaseClient), Error> {
        let started = Instant::now();
        let state = ProxyState::new(capabilities.clone(), started);
        if let Some(hook) = hook {
            state.set_client_hook(hook);
        }
        let (client_io, proxy_io) = tokio::io::duplex(PIPE_BYTES);
        let (proxy_read, proxy_write) = tokio::io::split(proxy_io);
        let (process, pumps, bridge) = match transport {
            Transport::Stdio => {
                let (process, stdin, stdout) = child::spawn_in(command, environment)?;
                state.event(format!("spawned pid {}{label}", process.pid.unwrap_or(0)));
                let pumps = [
                    tokio::spawn(proxy::client_to_server(state.clone(), proxy_read, stdin)),
                    tokio::spawn(proxy::server_to_client(
                        state.clone(),
                        stdout,
                        proxy_write,
                        tap,
                    )),
                ];
                (Some(process), pumps, None)
            }
            Transport::Http { url, headers } => {
                let (url, process, stdin) = http_server(command, environment, url, &state, label)?;
                let (bridge_in, to_bridge) = tokio::io::duplex(PIPE_BYTES);
                let (from_bridge, bridge_out) = tokio::io::duplex(PIPE_BYTES);
                let pumps = [
                    tokio::spawn(proxy::client_to_server(
                        state.clone(),
                        proxy_read,
                        to_bridge,
                    )),
                    tokio::spawn(proxy::server_to_client(
                        state.clone(),
                        from_bridge,
                        proxy_write,
                        tap,
                    )),
                ];
                let bridge = tokio::spawn(http::bridge(
                    url,
                    request_header::header_map(headers),
                    state.clone(),
                    limits,
                    bridge_in,
                    bridge_out,
                    stdin,
                ));
                (process, pumps, Some(bridge))
            }
        };
        let handler = client::CaseClient::new(capabilities.clone());
        let pid = process.as_ref().and_then(|process| process.pid);
        let url = transport.url().map(str::to_owned);
        let in_flight = in_flight::Registration::new(&state, pid, url.clone());
        let session = Session {
            client: None,
            state,
            process,
            pumps,
            bridge,
            callbacks: handler.callbacks(),
            limits,
            startup_error: None,
            in_flight,
            handshake: None,
            url,
        };
        Ok((session, client_io, handler))
    }

    /// The names of the tools the server lists at `tools/list` (bounded by the
    /// startup limit).
    ///
    /// # Errors
    /// A message naming the reason: no session, a timeout, or a JSON-RPC error.
    pub async fn list_tools(&self) -> Result<Vec<String>, String> {
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
    pub async fn list_tool_schemas(&self) -> Result<Vec<(String, Value)>, String> {
        let Some(client) = &self.client else {
            return Err(self
                .startup_error
                .clone()
                .unwrap_or_else(|| "session not started".into()));
        };
        let listed = tokio::time::timeout(self.limits.startup, client.peer().list_tools(None))
            .await
            .map_err(|_| {
                format!(
                    "tools/list did not finish within {}",
                    crate::format::seconds(self.limits.startup)
                )
            })?
            .map_err(|error| format!("tools/list failed: {error}"))?;
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
                        .unwrap_or_else(|| "session not started".into()),
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
                        call.failure = Some(format!(
                            "tools/call did not finish within {}",
                            crate::format::seconds(self.limits.call)
                        ));
                    }
                }
            }
        }
        call.frames = self.state.frames_since(first_frame);
        let request_id = call.frames.iter().find_map(|frame| {
            (frame.from == proxy::Side::Client
                && frame.message.get("method").and_then(Value::as_str) == Some("tools/call"))
            .then(|| frame.message.get("id").cloned())
            .flatten()
        });
        let reply = call.frames.iter().find(|frame| {
            frame.from == proxy::Side::Server
                && frame.message.get("method").is_none()
                && request_id.is_some()
                && frame.message.get("id") == request_id.as_ref()
        });
        if let Some(reply) = reply {
            call.result = reply.message.get("result").cloned();
            call.error = reply.message.get("error").cloned();
        } else if call.failure.is_none() {
            call.failure = Some(format!(
                "no reply to tools/call{}",
                self.state.http_failure()
            ));
        }
        call
    }

    /// Lists the server's tools and checks that [`TOOL_NAME`] is among them.
    async fn check_tool_listed(&self) -> Result<(), String> {
        let Some(client) = &self.client else {
            return Err("no client".into());
        };
        let listed = tokio::time::timeout(self.limits.startup, client.peer().list_tools(None))
            .await
            .map_err(|_| {
                format!(
                    "tools/list did not finish within {}",
                    crate::format::seconds(self.limits.startup)
                )
            })?
            .map_err(|error| format!("tools/list failed: {error}"))?;
        if listed.tools.iter().any(|tool| tool.name == TOOL_NAME) {
            Ok(())
        } else {
            let names: Vec<_> = listed
                .tools
                .iter()
                .map(|tool| tool.name.to_string())
                .collect();
            Err(format!(
                "the server offers no tool named \"{TOOL_NAME}\" (it offers {})",
                Value::from(names)
            ))
        }
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
    pub fn startup_error(&self) -> Option<&str> {
        self.startup_error.as_deref()
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
                        .unwrap_or_else(|| "session not started".into()),
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
                        call.error = Some(format!(
                            "tools/call failed: {error}{}",
                            self.state.http_failure()
                        ));
                    }
                    Err(_) => {
                        call.error = Some(format!(
                            "tools/call did not finish within {}",
                            crate::format::seconds(self.limits.call)
                        ));
                    }
                }
            }
        }
        call.frames = self.state.frames_since(first_frame);
        call
    }

    /// Closes the client, then the server's stdin; waits for the server to exit
    /// (killing it after the grace period) and returns everything recorded.
    pub async fn finish(self) -> Finished {
        self.finish_with_signal().await.0
    }

    /// [`Session::finish`], also giving the signal that ended the server
    /// ([`child::Ended::signal`]), for the evidence's `exit_signal`.
    pub async fn finish_with_signal(self) -> (Finished, Option<i32>) {
        self.end(false).await
    }

    /// Ends the session without waiting for the server to exit on its own:
    /// closes the client and the server's stdin, then SIGTERM to its process
    /// group at once (SIGKILL after [`STOP_GRACE`], or the shutdown grace when
    /// shorter; over HTTP, after the shutdown grace, as a server on a port is
    /// stopped). How it ended is then the harness's doing, not the server's
    /// ([`Finished::stopped_by_harness`]): `check` ends its sessions so once a
    /// server has shown that it ignores stdin close (MCP 2025-11-25,
    /// basic/lifecycle, "Shutdown", stdio), which is then judged once, not
    /// paid for per case.
    pub async fn stop(self) -> Finished {
        self.end(true).await.0
    }

    /// Ends the session: waits for the server to exit after its stdin closed
    /// (killing it after the grace), or, when `stop` or over HTTP, stops it.
    async fn end(mut self, stop: bool) -> (Finished, Option<i32>) {
        let protocol_version = self.protocol_version();
        if let Some(client) = self.client.take() {
            let _ = tokio::time::timeout(self.limits.shutdown, client.cancel()).await;
        }
        let pid = self.pid();
        let [mut to_server, mut to_client] = self.pumps;
        // The client side is gone; the pump closes the server's stdin (or the
        // HTTP bridge's input) when it sees that.
        if tokio::time::timeout(self.limits.shutdown, &mut to_server)
            .await
            .is_err()
        {
            to_server.abort(); // drops the server's stdin
            self.state
                .event("client pump did not end; server stdin dropped");
        }
        // Over HTTP the bridge ends the session (DELETE) before the server is
        // stopped, and the server is stopped rather than awaited: a server
        // on a port outlives its sessions by design.
        let http = self.bridge.is_some();
        if let Some(mut bridge) = self.bridge.take()
            && tokio::time::timeout(self.limits.shutdown, &mut bridge)
                .await
                .is_err()
        {
            bridge.abort();
            self.state.event("HTTP session did not end; bridge closed");
        }
        let stopped = http || stop;
        // A server on a port gets the grace to end on SIGTERM; one the harness
        // stops for having ignored stdin close gets at most STOP_GRACE.
        let grace = if http {
            self.limits.shutdown
        } else {
            self.limits.shutdown.min(STOP_GRACE)
        };
        let (exit, signal) = match self.process.take() {
            Some(process) if stopped => {
                let child::Ended { exit, signal } = process.terminate(grace).await;
                (exit, signal)
            }
            Some(process) => {
                let child::Ended { exit, signal } = process.end(self.limits.shutdown).await;
                (exit, signal)
            }
            None => (evidence::exit::Exit::default(), None),
        };
        if tokio::time::timeout(self.limits.shutdown, &mut to_client)
            .await
            .is_err()
        {
            to_client.abort();
            self.state.event("server stdout still open after exit");
        }
        if pid.is_some() {
            self.state
                .event(match (exit.code, exit.forced_kill, signal) {
                    (Some(code), false, _) => format!("exited with code {code}"),
                    (None, false, Some(signal)) => {
                        format!("killed by {}", child::describe_signal(signal))
                    }
                    (None, false, None) => "ended by a signal".to_owned(),
                    (_, true, _) => "killed after the shutdown grace period".to_owned(),
                });
        }
        if exit.group_left_running {
            self.state.event(
                "processes of the server's group were still running after it exited; killed",
            );
        }
        if let Some(registration) = self.in_flight.take() {
            registration.done();
        }
        let finished = Finished {
            recording: self.state.recording(),
            exit,
            callbacks: self.callbacks.load(Ordering::SeqCst),
            protocol_version,
            pid,
            startup_error: self.startup_error,
            shutdown_grace: self.limits.shutdown,
            stopped_by_harness: stopped,
            url: self.url.clone(),
        };
        (finished, signal)
    }
}

/// The URL to reach and the process behind it for an HTTP session: with a
/// `command`, it is started with `{port}` replaced by a free local port in
/// the URL, its arguments and its environment's values (its stdout lines go
/// to the timeline, its stdin is held open for the bridge); without one, the
/// URL as given and no process.
fn http_server(
    command: &[String],
    environment: &child::Environment,
    url: &str,
    state: &ProxyState,
    label: &str,
) -> Result<
    (
        reqwest::Url,
        Option<child::ServerProcess>,
        Option<tokio::process::ChildStdin>,
    ),
    Error,
> {
    let spawn_error = |source| Error::Spawn {
        command: command.to_vec(),
        source,
    };
    let bad_url =
        |why: String| spawn_error(std::io::Error::new(std::io::ErrorKind::InvalidInput, why));
    if command.is_empty() {
        let url = reqwest::Url::parse(url).map_err(|error| bad_url(format!("{url}: {error}")))?;
        state.event(format!("connecting to {url}{label}"));
        return Ok((url, None, None));
    }
    let port = transport::free_port().map_err(spawn_error)?;
    let command: Vec<String> = command
        .iter()
        .map(|word| transport::with_port(word, port))
        .collect();
    let environment = child::Environment {
        vars: environment
            .vars
            .iter()
            .map(|(key, value)| (key.clone(), transport::with_port(value, port)))
            .collect(),
        cwd: environment.cwd.clone(),
    };
    let url = transport::with_port(url, port);
    let url = reqwest::Url::parse(&url).map_err(|error| bad_url(format!("{url}: {error}")))?;
    let (process, stdin, stdout) = child::spawn_in(&command, &environment)?;
    state.event(format!(
        "spawned pid {}{label}, serving {url}",
        process.pid.unwrap_or(0)
    ));
    tokio::spawn(log_stdout(state.clone(), stdout));
    Ok((url, Some(process), Some(stdin)))
}

/// How long a server [`Session::stop`] ends over stdio has after SIGTERM
/// before its process group is killed: 1 s, enough to flush and remove what
/// it must, and short, since such a server has shown that it does not end
/// when its stdin closes.
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Bytes each in-process pipe buffers (client ↔ proxy, proxy ↔ HTTP bridge):
/// 1 MiB, so a large frame never waits on the reader mid-line.
const PIPE_BYTES: usize = 1 << 20;

/// Most stdout lines of an HTTP server kept in the timeline.
const MAX_LOGGED_STDOUT_LINES: usize = 100;

/// An HTTP server's stdout is its log, not the protocol: its first lines go
/// to the timeline (`server stdout: ...`, at most 1 KiB each), the rest is read
/// and dropped so the server never blocks on a full pipe.
async fn log_stdout(state: ProxyState, stdout: tokio::process::ChildStdout) {
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(stdout).split(b'\n');
    let mut logged = 0;
    while let Ok(Some(line)) = lines.next_segment().await {
        if logged < MAX_LOGGED_STDOUT_LINES {
            logged += 1;
            let text = String::from_utf8_lossy(&line[..line.len().min(1024)]).into_owned();
            state.event(format!("server stdout: {}", text.trim_end()));
        }
    }
}

impl Finished {
    /// Whether the process ended as the contract wants: exit code 0 after its
    /// stdin closed (over HTTP, where the harness stops the server: ending
    /// when asked), not killed, nothing of its group left running, and no
    /// stray stdout line after the first `stray_lines_seen` (lines a session's
    /// cases did not already show).
    pub fn ended_cleanly(&self, stray_lines_seen: usize) -> bool {
        (self.exit.code == Some(0) || self.stopped_by_harness)
            && !self.exit.forced_kill
            && !self.exit.group_left_running
            && self.recording.stray_lines_seen() <= stray_lines_seen
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
        call.error = Some("the tool result has isError: true".into());
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
