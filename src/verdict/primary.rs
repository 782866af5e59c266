//! The closed list of primary verdicts a case can lead with ([`Primary`]) and
//! a verdict with the one line of evidence that shows it ([`Finding`]): the
//! vocabulary the oracles tag their failures with and [`super::classify`]
//! picks from (docs/src/verdicts.md).

use serde::Serialize;

/// The closed list of primary verdicts, in the order [`super::classify`] tries them
/// (the hostile-client verdicts among them are picked by
/// [`crate::oracle::hostile::primary`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Primary {
    /// Every check held.
    Passed,
    /// The server ended or failed before the session started (initialize
    /// refused, the transport closed, no `calculate` tool).
    DidNotStart,
    /// The server stayed up but never answered `initialize` within the startup bound.
    NoInitializeReply,
    /// A line on the server's stdout is not a JSON-RPC message.
    StdoutNotJsonRpc,
    /// A reply came under an id no request of the client carries (`"0"` for `0`).
    WrongReplyId,
    /// Streamable HTTP: a POST carrying a request or a notification got a
    /// status outside 2xx (MCP 2025-11-25, basic/transports).
    HttpErrorStatus,
    /// Streamable HTTP: a POST carrying a request was answered with a body
    /// that is neither `application/json` nor `text/event-stream`.
    HttpNotJson,
    /// Streamable HTTP: a request's event stream ended before its response,
    /// with no event id to resume from.
    StreamEndedWithoutResult,
    /// No reply to `tools/call` within the call bound.
    Hung,
    /// The server ended (exit code or signal) without replying to `tools/call`,
    /// or with a non-zero exit code after it.
    Crashed,
    /// More than one `elicitation/create` within one `tools/call`.
    ReAsked,
    /// An `elicitation/create` in a mode the client did not declare.
    UndeclaredMode,
    /// An `elicitation/create` sent before the client's
    /// `notifications/initialized` (hostile-client case `call_before_initialized`;
    /// MCP 2025-11-25: a server SHOULD NOT send requests other than pings and
    /// logging before it).
    ElicitedBeforeInitialized,
    /// No JSON-RPC error reply with the right code and id to a frame that is no
    /// request: `-32700` with id null for a line that is not JSON (or not UTF-8),
    /// `-32600` with its id for a request object without `method` (JSON-RPC 2.0,
    /// section 5.1; hostile-client cases).
    NoErrorReply,
    /// `computed: true` on a decline, a cancel or an error reply.
    ComputedOnRefusal,
    /// `computed: true` on an accept the contract computes nothing on: content
    /// that breaks the form rules (stricter than JSON Schema: `3.0` is no
    /// integer, keys the requestedSchema does not name are refused), no content,
    /// a malformed result, or a policy that never computes.
    ComputedOnInvalid,
    /// An outcome member of the wrong JSON type with the same meaning
    /// (`computed: 1` for `true`, `21.0` for `21`, `"21"` for `21`).
    TypeDrift,
    /// Streamable HTTP: an `elicitation/create` came on the event stream of
    /// another request than its `tools/call` (nor on the standalone GET stream).
    ElicitedOnForeignStream,
    /// The server did not exit after its stdin closed and was killed.
    IgnoredStdinClose,
    /// A request read before stdin closed got no reply before the server exited
    /// (hostile-client case `eof_right_after_request`).
    DroppedRequest,
    /// The outcome differs from the expected one (none of the above).
    WrongOutcome,
    /// The reference model and the generated case's reason disagree (a defect
    /// of elicit-check's oracles, not of the server).
    OraclesDisagree,
    /// Any other contract check failed (wire order, requestedSchema, ids).
    ContractFailure,
    /// The run was stopped (Ctrl-C, SIGTERM) while this case was in flight.
    Interrupted,
}

impl Primary {
    /// Every verdict, in classification order.
    pub const ALL: [Primary; 24] = [
        Primary::Passed,
        Primary::DidNotStart,
        Primary::NoInitializeReply,
        Primary::StdoutNotJsonRpc,
        Primary::WrongReplyId,
        Primary::HttpErrorStatus,
        Primary::HttpNotJson,
        Primary::StreamEndedWithoutResult,
        Primary::Hung,
        Primary::Crashed,
        Primary::ReAsked,
        Primary::UndeclaredMode,
        Primary::ElicitedBeforeInitialized,
        Primary::NoErrorReply,
        Primary::ComputedOnRefusal,
        Primary::ComputedOnInvalid,
        Primary::TypeDrift,
        Primary::ElicitedOnForeignStream,
        Primary::IgnoredStdinClose,
        Primary::DroppedRequest,
        Primary::WrongOutcome,
        Primary::OraclesDisagree,
        Primary::ContractFailure,
        Primary::Interrupted,
    ];

    /// The stable snake_case name (`crashed`, `stdout_not_json_rpc`).
    pub fn name(self) -> &'static str {
        match self {
            Primary::Passed => "passed",
            Primary::DidNotStart => "did_not_start",
            Primary::NoInitializeReply => "no_initialize_reply",
            Primary::StdoutNotJsonRpc => "stdout_not_json_rpc",
            Primary::WrongReplyId => "wrong_reply_id",
            Primary::HttpErrorStatus => "http_error_status",
            Primary::HttpNotJson => "http_not_json",
            Primary::StreamEndedWithoutResult => "stream_ended_without_result",
            Primary::Hung => "hung",
            Primary::Crashed => "crashed",
            Primary::ReAsked => "re_asked",
            Primary::UndeclaredMode => "undeclared_mode",
            Primary::ElicitedOnForeignStream => "elicited_on_foreign_stream",
            Primary::ElicitedBeforeInitialized => "elicited_before_initialized",
            Primary::NoErrorReply => "no_error_reply",
            Primary::DroppedRequest => "dropped_request",
            Primary::ComputedOnRefusal => "computed_on_refusal",
            Primary::ComputedOnInvalid => "computed_on_invalid",
            Primary::TypeDrift => "type_drift",
            Primary::IgnoredStdinClose => "ignored_stdin_close",
            Primary::WrongOutcome => "wrong_outcome",
            Primary::OraclesDisagree => "oracles_disagree",
            Primary::ContractFailure => "contract_failure",
            Primary::Interrupted => "interrupted",
        }
    }

    /// Whether the session itself broke (no judgeable call): every outcome,
    /// reply-count and exit failure is then a consequence, not news.
    pub(crate) fn session_broke(self) -> bool {
        matches!(
            self,
            Primary::DidNotStart
                | Primary::NoInitializeReply
                | Primary::WrongReplyId
                | Primary::HttpErrorStatus
                | Primary::HttpNotJson
                | Primary::StreamEndedWithoutResult
                | Primary::Hung
                | Primary::Crashed
                | Primary::Interrupted
        )
    }
}

impl std::fmt::Display for Primary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A primary verdict and the one line of evidence that shows it, e.g.
/// `crashed` / `exit code 3 during tools/call`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The verdict.
    pub verdict: Primary,
    /// The evidence, in the protocol's words.
    pub evidence: String,
}

impl Finding {
    /// `verdict` shown by `evidence`.
    pub fn new(verdict: Primary, evidence: impl Into<String>) -> Finding {
        Finding {
            verdict,
            evidence: evidence.into(),
        }
    }
}
