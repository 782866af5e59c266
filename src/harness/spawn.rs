//! Starting a session's server: the child process (or the server already
//! running at a URL), the recording proxy between it and the rmcp client, and
//! over Streamable HTTP the bridge ([`super::http`]). In: the command, its
//! environment, the transport, the declared capabilities; out: a [`Session`]
//! with no client connected yet.

use std::time::Instant;

use serde_json::Value;

use super::proxy::{self, ProxyState, ServerTap};
use super::{
    Limits, Session, Transport, child, client, http, in_flight, request_header, transport,
};
use crate::error::Error;

impl Session {
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
