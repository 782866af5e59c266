//! The evidence of one case: everything needed to judge it and to read it later.
//!
//! The bottom layer of the judging side: the harness writes these types, the
//! oracles, verdicts and reports read them, and this module imports none of them.
//!
//! Written to `run-output/` for every case, passing or failing (docs/src/verdicts.md).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::case::Case;

pub mod exit;
pub mod harness_failure;
pub mod http;
pub mod wire;

pub use harness_failure::{Handshake, HarnessFailure, Wait};

use wire::{Event, Frame, StrayLine};

/// The rmcp version this crate is built against (checked against Cargo.lock by a test).
pub const RMCP_VERSION: &str = "3.11.0";

/// What one `tools/call` produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// `structuredContent` of the tool result.
    pub outcome: Option<Value>,
    /// `content[0].text` parsed as JSON.
    pub text_outcome: Option<Value>,
    /// Why there is no result: a JSON-RPC error, a timeout, a closed transport.
    pub error: Option<HarnessFailure>,
    /// The frames recorded during this call.
    pub frames: Vec<Frame>,
}

/// What a finished session leaves behind.
#[derive(Debug, Clone)]
pub struct Finished {
    /// All frames, stray lines and events.
    pub recording: wire::Recording,
    /// How the process ended.
    pub exit: exit::Exit,
    /// `create_elicitation` callbacks the client received.
    pub callbacks: usize,
    /// The protocol version the server answered at `initialize`.
    pub protocol_version: Option<String>,
    /// The process id.
    pub pid: Option<u32>,
    /// Why the session could not start (initialize or tools/list failed or timed out).
    pub startup_error: Option<HarnessFailure>,
    /// The shutdown grace period the session allowed before killing the server.
    pub shutdown_grace: Duration,
    /// Whether the harness stopped the server itself rather than waiting for
    /// it to exit: over Streamable HTTP a server outlives its sessions by
    /// design, so it is sent SIGTERM (or was never started by the harness);
    /// over stdio, `check` stops the sessions of a server already shown to
    /// ignore stdin close. Its exit then says nothing about the session.
    pub stopped_by_harness: bool,
    /// The `--url` the session reached its server at, as given (Streamable
    /// HTTP); `None` over stdio.
    pub url: Option<String>,
}

/// Evidence of one case run in one server process. JSON keys are the field names.
#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    /// The case's name.
    pub case: String,
    /// The case itself (inputs).
    pub input: Case,
    /// This crate's version.
    pub elicit_check_version: &'static str,
    /// rmcp's version.
    pub rmcp_version: &'static str,
    /// The server command (program and arguments).
    pub server_command: Vec<String>,
    /// The server's process id.
    pub pid: Option<u32>,
    /// The protocol version the server answered at `initialize`.
    pub protocol_version: Option<String>,
    /// Every JSON-RPC frame in both directions, in order.
    pub wire: Vec<Frame>,
    /// Timed events (milliseconds since spawn).
    pub timeline: Vec<Event>,
    /// How many times the client's `create_elicitation` callback ran.
    pub callbacks: usize,
    /// Server stdout lines that were not JSON-RPC messages, the first
    /// [`wire::MAX_STRAY_LINES`].
    pub stray_stdout: Vec<StrayLine>,
    /// How many more such lines the server printed: counted, not kept (absent
    /// when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub stray_stdout_not_kept: usize,
    /// The server's whole stderr.
    pub stderr: String,
    /// The server's exit code (`None`: ended by a signal).
    pub exit_code: Option<i32>,
    /// The signal that ended the server (`9` for SIGKILL), when one did and the
    /// harness did not kill it after the grace; absent otherwise (the
    /// `crashed` verdict names its exit code or signal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_signal: Option<i32>,
    /// Whether the harness killed the server after the shutdown grace period.
    pub forced_kill: bool,
    /// The shutdown grace period in seconds: how long the server was given to
    /// exit after its stdin closed before it was killed.
    pub shutdown_grace_secs: f64,
    /// Whether processes of the server's process group (a wrapper's children) were
    /// still running after the server exited, and were killed (docs/src/verdicts.md).
    pub group_left_running: bool,
    /// `structuredContent` of the `calculate` result.
    pub outcome: Option<Value>,
    /// `content[0].text` of the `calculate` result, parsed as JSON.
    pub text_outcome: Option<Value>,
    /// Why there is no outcome (handshake failure, timeout, JSON-RPC error),
    /// written as its text.
    pub error: Option<HarnessFailure>,
    /// Whether `initialize` and `tools/list` succeeded (the session started).
    pub started: bool,
    /// Protocol 2026-07-28: the JSON-RPC error object the call was refused with
    /// (`{"code": -32021, "message": ..., "data": {...}}`); absent otherwise (the
    /// 2026-07-28 table, docs/src/eras.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpc_error: Option<Value>,
    /// The `--url` the case was run over (Streamable HTTP, as given, `{port}`
    /// kept); absent over stdio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Over Streamable HTTP, every request, response, server-sent event and
    /// failure of the session, in order ([`http::HttpRecord`]); absent over stdio.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<http::HttpRecord>,
    /// Whether the harness stopped the server itself (SIGTERM after the HTTP
    /// session ended) rather than waiting for it to exit on stdin's close: its
    /// exit then says nothing about the case. Absent when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stopped_by_harness: bool,
}

impl Evidence {
    /// Assembles the evidence of `case` from a finished session and its one call
    /// (`exit_signal` is left for the caller: `Session::finish_with_signal`).
    pub fn new(case: &Case, command: &[String], finished: Finished, call: Call) -> Self {
        Evidence {
            case: case.name.clone(),
            input: case.clone(),
            elicit_check_version: env!("CARGO_PKG_VERSION"),
            rmcp_version: RMCP_VERSION,
            server_command: command.to_vec(),
            pid: finished.pid,
            protocol_version: finished.protocol_version,
            wire: finished.recording.wire,
            timeline: finished.recording.timeline,
            callbacks: finished.callbacks,
            stray_stdout: finished.recording.stray_stdout,
            stray_stdout_not_kept: finished.recording.stray_stdout_not_kept,
            stderr: finished.exit.stderr,
            exit_code: finished.exit.code,
            exit_signal: None,
            forced_kill: finished.exit.forced_kill,
            shutdown_grace_secs: finished.shutdown_grace.as_secs_f64(),
            group_left_running: finished.exit.group_left_running,
            outcome: call.outcome,
            text_outcome: call.text_outcome,
            started: finished.startup_error.is_none(),
            error: finished.startup_error.or(call.error),
            rpc_error: None,
            url: finished.url,
            http: finished.recording.http,
            stopped_by_harness: finished.stopped_by_harness,
        }
    }
}

/// Whether a count is zero (serde's `skip_serializing_if` takes a reference).
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(count: &usize) -> bool {
    *count == 0
}
