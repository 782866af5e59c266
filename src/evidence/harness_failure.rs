//! Why a session or a `tools/call` produced no result, as the harness saw it:
//! a handshake that failed or timed out, a call that timed out, failed or was
//! refused, a transport that closed.
//!
//! The harness writes one [`HarnessFailure`] into the evidence; verdicts and
//! oracles match on its variant, never on its wording, and reports print its
//! [`Display`](std::fmt::Display) text, which is also what `results.json`
//! holds (an evidence's `error` is a string).

use std::fmt;
use std::time::Duration;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::format::{counted, seconds};

/// The request that opens a session: `initialize` (2025-11-25) or
/// `server/discover` (2026-07-28, the discover lifecycle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handshake {
    /// `initialize`.
    Initialize,
    /// `server/discover`.
    Discover,
}

impl fmt::Display for Handshake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Handshake::Initialize => "initialize",
            Handshake::Discover => "server/discover",
        })
    }
}

/// How a raw (hostile) client's wait for a server frame ended without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// The server's stdout closed first, after `frames` frames of the session.
    StdoutClosed {
        /// Frames recorded when the wait ended.
        frames: usize,
    },
    /// The bound ran out, after `frames` frames of the session.
    Elapsed {
        /// The bound waited.
        within: Duration,
        /// Frames recorded when the wait ended.
        frames: usize,
    },
}

impl fmt::Display for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wait::StdoutClosed { frames } => write!(
                f,
                "stdout closed before the awaited frame (after {})",
                counted(*frames, "frame")
            ),
            Wait::Elapsed { within, frames } => write!(
                f,
                "no awaited frame within {}s (after {})",
                within.as_secs_f64(),
                counted(*frames, "frame")
            ),
        }
    }
}

/// Why there is no result: the harness's own failure, by kind. `http` fields
/// hold the Streamable HTTP clause that explains a transport failure
/// (`; HTTP: POST /mcp got status 500`), empty over stdio or when none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HarnessFailure {
    /// The handshake request got an error, or its transport failed.
    HandshakeFailed {
        /// `initialize` or `server/discover`.
        request: Handshake,
        /// rmcp's error.
        error: String,
        /// The HTTP clause, if any.
        http: String,
    },
    /// No reply to the handshake request within the startup bound.
    HandshakeTimedOut {
        /// `initialize` or `server/discover`.
        request: Handshake,
        /// The startup bound.
        within: Duration,
        /// The HTTP clause, if any.
        http: String,
    },
    /// No reply to `tools/list` within the startup bound.
    ToolsListTimedOut {
        /// The startup bound.
        within: Duration,
    },
    /// `tools/list` got an error, or its transport failed.
    ToolsListFailed {
        /// rmcp's error.
        error: String,
    },
    /// `tools/list` lists no tool of the contract's name.
    ToolNotOffered {
        /// The tool looked for.
        tool: String,
        /// The tools the server lists.
        offered: Vec<String>,
    },
    /// No session to call in (its start failed without a reason kept).
    NotStarted,
    /// No reply to `tools/call` within the call bound.
    CallTimedOut {
        /// The call bound.
        within: Duration,
    },
    /// `tools/call` failed on the transport (closed, unreadable reply).
    CallFailed {
        /// rmcp's error.
        error: String,
        /// The HTTP clause, if any.
        http: String,
    },
    /// 2026-07-28: `tools/call` was refused with a JSON-RPC error.
    CallRefused {
        /// The JSON-RPC error code.
        code: i64,
        /// The JSON-RPC error message.
        message: String,
    },
    /// 2026-07-28: the reply to `tools/call` is neither a result nor an
    /// `InputRequiredResult`.
    NeitherResultNorInputRequired,
    /// 2026-07-28: the server asked for input in every one of `requests`
    /// `tools/call` requests, the most the harness sends.
    StillInputRequired {
        /// The `tools/call` requests sent.
        requests: usize,
    },
    /// 2026-07-28: an `inputRequests` entry asks for what the client did not
    /// declare.
    UndeclaredInputRequest {
        /// The entry's key.
        key: String,
        /// The client's declared capabilities.
        capabilities: Value,
    },
    /// The recording holds no reply to `tools/call`.
    NoReply {
        /// The HTTP clause, if any.
        http: String,
    },
    /// The tool result has `isError: true`.
    ToolError,
    /// The run was stopped (a signal) while the case was in flight.
    StoppedInFlight,
    /// A raw client's `initialize` got no result: the wait, when one ran out.
    InitializeUnanswered {
        /// How the wait ended, when the client waited.
        wait: Option<Wait>,
    },
    /// A raw client's request got no reply.
    Unanswered {
        /// How the wait ended.
        wait: Wait,
    },
}

impl fmt::Display for HarnessFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(test)]
        if reword::ON.get() {
            struct Plain<'a>(&'a HarnessFailure);
            impl fmt::Display for Plain<'_> {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    self.0.write(f)
                }
            }
            return f.write_str(&Plain(self).to_string().chars().rev().collect::<String>());
        }
        self.write(f)
    }
}

/// The reword test's switch (`crate::verdict`'s tests, through
/// `crate::oracle::failure::reword`): while on, every harness failure is
/// written backwards on this thread, so a verdict that read its wording
/// would change.
#[cfg(test)]
pub(crate) mod reword {
    use std::cell::Cell;

    thread_local! {
        /// Whether harness failures are written backwards on this thread.
        pub(crate) static ON: Cell<bool> = const { Cell::new(false) };
    }
}

impl HarnessFailure {
    /// The message, as `Display` writes it outside the reword test.
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HarnessFailure::HandshakeFailed {
                request,
                error,
                http,
            } => write!(f, "{request} failed: {error}{http}"),
            HarnessFailure::HandshakeTimedOut {
                request,
                within,
                http,
            } => write!(
                f,
                "{request} did not finish within {}{http}",
                seconds(*within)
            ),
            HarnessFailure::ToolsListTimedOut { within } => {
                write!(f, "tools/list did not finish within {}", seconds(*within))
            }
            HarnessFailure::ToolsListFailed { error } => write!(f, "tools/list failed: {error}"),
            HarnessFailure::ToolNotOffered { tool, offered } => write!(
                f,
                "the server offers no tool named {} (it offers {})",
                Value::from(tool.as_str()),
                Value::from(offered.clone())
            ),
            HarnessFailure::NotStarted => f.write_str("session not started"),
            HarnessFailure::CallTimedOut { within } => {
                write!(f, "tools/call did not finish within {}", seconds(*within))
            }
            HarnessFailure::CallFailed { error, http } => {
                write!(f, "tools/call failed: {error}{http}")
            }
            HarnessFailure::CallRefused { code, message } => {
                write!(f, "tools/call refused: JSON-RPC error {code}: {message}")
            }
            HarnessFailure::NeitherResultNorInputRequired => {
                f.write_str("tools/call answered neither a result nor input_required")
            }
            HarnessFailure::StillInputRequired { requests } => write!(
                f,
                "the server still answered input_required after {requests} tools/call requests"
            ),
            HarnessFailure::UndeclaredInputRequest { key, capabilities } => write!(
                f,
                "inputRequests[{key:?}] asks for what the client did not declare (capabilities {capabilities})"
            ),
            HarnessFailure::NoReply { http } => write!(f, "no reply to tools/call{http}"),
            HarnessFailure::ToolError => f.write_str("the tool result has isError: true"),
            HarnessFailure::StoppedInFlight => {
                f.write_str("the run was stopped while this case was in flight")
            }
            HarnessFailure::InitializeUnanswered { wait: None } => {
                f.write_str("no result to initialize")
            }
            HarnessFailure::InitializeUnanswered { wait: Some(wait) } => {
                write!(f, "initialize did not finish: {wait}")
            }
            HarnessFailure::Unanswered { wait } => write!(f, "no reply: {wait}"),
        }
    }
}

/// Written as its text: an evidence's `error` in `results.json` is a string.
impl Serialize for HarnessFailure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::{Handshake, HarnessFailure, Wait};

    #[test]
    fn each_failure_reads_as_the_harness_says_it() {
        let ten = Duration::from_secs(10);
        let cases = [
            (
                HarnessFailure::HandshakeFailed {
                    request: Handshake::Initialize,
                    error: "connection closed".into(),
                    http: "; HTTP: POST /mcp got status 500".into(),
                },
                "initialize failed: connection closed; HTTP: POST /mcp got status 500",
            ),
            (
                HarnessFailure::HandshakeTimedOut {
                    request: Handshake::Discover,
                    within: ten,
                    http: String::new(),
                },
                "server/discover did not finish within 10 s",
            ),
            (
                HarnessFailure::ToolsListTimedOut { within: ten },
                "tools/list did not finish within 10 s",
            ),
            (
                HarnessFailure::ToolNotOffered {
                    tool: "calculate".into(),
                    offered: vec!["add".into()],
                },
                "the server offers no tool named \"calculate\" (it offers [\"add\"])",
            ),
            (
                HarnessFailure::CallTimedOut {
                    within: Duration::from_millis(300),
                },
                "tools/call did not finish within 0.3 s",
            ),
            (
                HarnessFailure::CallRefused {
                    code: -32021,
                    message: "bad state".into(),
                },
                "tools/call refused: JSON-RPC error -32021: bad state",
            ),
            (
                HarnessFailure::StillInputRequired { requests: 8 },
                "the server still answered input_required after 8 tools/call requests",
            ),
            (
                HarnessFailure::UndeclaredInputRequest {
                    key: "u".into(),
                    capabilities: json!({}),
                },
                "inputRequests[\"u\"] asks for what the client did not declare (capabilities {})",
            ),
            (
                HarnessFailure::InitializeUnanswered {
                    wait: Some(Wait::StdoutClosed { frames: 1 }),
                },
                "initialize did not finish: stdout closed before the awaited frame (after 1 frame)",
            ),
            (
                HarnessFailure::Unanswered {
                    wait: Wait::Elapsed {
                        within: Duration::from_secs(1),
                        frames: 3,
                    },
                },
                "no reply: no awaited frame within 1s (after 3 frames)",
            ),
        ];
        for (failure, text) in cases {
            assert_eq!(failure.to_string(), text);
            assert_eq!(serde_json::to_value(&failure).unwrap(), json!(text));
        }
    }
}
