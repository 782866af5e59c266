//! A failed check of one case, typed: which rule family it breaks and the data
//! that shows it (docs/src/verdicts.md).
//!
//! The oracles of `run` (the contract of each era, judging by meaning, the
//! generated cases, the hostile clients) return [`Failure`]s; the primary
//! verdict of a case and which failures are consequences of a broken session
//! are `match`es on these types (`crate::verdict`), never on their wording.
//! `Display` gives the message a user reads (`outcome $.value: 22 != 21`), and
//! `results.json` keeps that message: a [`Failure`] serializes as its text.

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::http::HttpFailure;
use crate::compare::Mismatch;
use crate::evidence::HarnessFailure;
use crate::format::counted;
use crate::verdict::primary::Finding;

/// One failed check. The message ([`fmt::Display`]) names the JSON path or the
/// frame (`#N`, the frame's place in the session's line order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The harness could not finish the session: the transport's or the
    /// bound's words (`harness: tools/call did not finish within 10 s`).
    Harness(HarnessFailure),
    /// The outcome the server reported for the call.
    Outcome(OutcomeFailure),
    /// The process around the session: the negotiated version, the exit,
    /// stdout.
    Process(ProcessFailure),
    /// Protocol 2025-11-25's wire: the calls, the `elicitation/create` and the
    /// client's reply to it, in order, with the contract's `requestedSchema`.
    Wire(WireFailure),
    /// Protocol 2026-07-28's refusal of a call with a JSON-RPC error (the era's
    /// table, docs/src/eras.md).
    Refusal(RefusalFailure),
    /// Protocol 2026-07-28's rounds: call → `input_required` → retry → result.
    Round(RoundFailure),
    /// The two eras of one case gave results the 2026-07-28 table does not
    /// relate (`--protocol both`): the 2025-11-25 outcome and the 2026-07-28
    /// result (`null` for none).
    ErasDiffer {
        /// The 2025-11-25 outcome.
        legacy: Value,
        /// The 2026-07-28 result.
        modern: Value,
    },
    /// A generated case beyond the contract: its two oracles, its reason.
    Generated(GeneratedFailure),
    /// A case the run has no expected outcome for (its name).
    NoExpectedOutcome(String),
    /// A hostile-client check (docs/src/hostile.md), tagged with the verdict it
    /// shows by `crate::oracle::hostile::findings`.
    Hostile(Finding),
    /// The run was stopped while the case was in flight: how
    /// (`interrupted by Ctrl-C`).
    Interrupted(String),
    /// The Streamable HTTP transport's rules (`crate::oracle::http`).
    Http(HttpFailure),
}

/// The outcome of the call (docs/src/contract.md, "Statuses").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutcomeFailure {
    /// A member of the outcome differs from the expected one.
    Mismatch(Mismatch),
    /// Judging by meaning, rule 3: no reported `errors` location at or under
    /// an expected one.
    Unnamed {
        /// The expected location (`["units"]`).
        location: Value,
        /// Every reported location.
        reported: Value,
    },
    /// Neither `structuredContent` nor a JSON object in `content[0].text`.
    NoOutcome,
    /// Protocol 2026-07-28: the result has no `structuredContent`.
    NoStructuredContent,
    /// `content[0].text` holds JSON that says otherwise than `structuredContent`.
    TextDisagrees(Mismatch),
    /// `structuredContent` without JSON in `content[0].text`.
    NotJsonText,
}

/// The process: its version, its exit, its stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessFailure {
    /// Another protocol version, or none, was negotiated.
    Version {
        /// What the server answered (`None`: nothing was negotiated).
        negotiated: Option<String>,
        /// The era's version (`2025-11-25`).
        expected: &'static str,
    },
    /// The server exited with this non-zero code.
    ExitCode(i32),
    /// The server was ended by a signal (no exit code).
    Signalled,
    /// The server did not exit after its stdin closed and was killed.
    NotExited,
    /// A stdout line that is no JSON-RPC message.
    StrayLine {
        /// Its place in the session's line order.
        seq: u64,
        /// The line.
        line: String,
    },
    /// More stray stdout lines than are named one by one (this many).
    MoreStrayLines(usize),
}

/// Protocol 2025-11-25's wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireFailure {
    /// `initialize` declared other capabilities than the case's.
    Capabilities(Mismatch),
    /// Not exactly one `tools/call` (this many).
    Calls(usize),
    /// Not exactly one reply to the `tools/call` (shared by both eras).
    CallReplies {
        /// The call's id.
        id: Value,
        /// How many replies carry it.
        count: usize,
    },
    /// The reply to the call (at `completed`) came before the call (at `sent`).
    CompletedBeforeSent {
        /// The call's id.
        id: Value,
        /// The reply's place.
        completed: u64,
        /// The call's place.
        sent: u64,
    },
    /// Not the expected number of `elicitation/create` requests (1, or 0 when
    /// the contract asks nothing).
    Elicitations {
        /// How many were sent.
        count: usize,
        /// How many were expected.
        want: usize,
    },
    /// An `elicitation/create` outside the call it belongs to.
    ElicitationOutsideCall {
        /// The request's id.
        id: Value,
        /// Its place.
        seq: u64,
        /// The call's place.
        call: u64,
        /// The call's reply's place.
        completion: u64,
    },
    /// An `elicitation/create` in a mode other than form.
    Mode {
        /// The request's id.
        id: Value,
        /// Its `mode`.
        mode: Value,
    },
    /// The `requestedSchema` differs from the contract's.
    Schema(Mismatch),
    /// Not exactly one client reply to the `elicitation/create`.
    Answers {
        /// The request's id.
        id: Value,
        /// How many replies carry it.
        count: usize,
    },
    /// The client's reply (at `seq`) is before its request or after the call ended.
    AnswerOutOfOrder {
        /// The request's id.
        id: Value,
        /// The reply's place.
        seq: u64,
    },
    /// The client's reply has no `result` (or no `error`) member.
    AnswerMissing {
        /// The request's id.
        id: Value,
        /// `result` or `error`.
        member: &'static str,
    },
    /// The client's reply differs from the answer the case sends.
    Answer {
        /// The request's id.
        id: Value,
        /// `result` or `error`.
        member: &'static str,
        /// The difference.
        mismatch: Mismatch,
    },
}

/// Protocol 2026-07-28: a call refused with a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefusalFailure {
    /// A tool result where the error was expected.
    GotResult {
        /// The expected error code.
        code: Value,
        /// The outcome the server gave.
        outcome: Value,
    },
    /// No error at all (with the harness's words for what happened instead).
    Missing {
        /// The expected error code.
        code: Value,
        /// Why there was no result either.
        error: Option<HarnessFailure>,
    },
    /// Another error code.
    Code {
        /// The code sent.
        got: Value,
        /// The code expected.
        want: Value,
    },
    /// Another error message.
    Message {
        /// The message sent.
        got: Value,
        /// The message expected.
        want: Value,
    },
    /// `-32021` without `elicitation` in `data.requiredCapabilities`.
    UnnamedCapability {
        /// The error's `data`.
        data: Value,
    },
}

/// Protocol 2026-07-28: the rounds of a call (docs/src/eras.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoundFailure {
    /// The server sent a request (2026-07-28 servers must not).
    ServerRequest {
        /// Its method.
        method: String,
        /// Its id.
        id: Value,
        /// Its place.
        seq: u64,
    },
    /// A client frame declared other capabilities in `_meta` than the case's.
    Capabilities {
        /// The frame's method (`None`: no method).
        method: Option<String>,
        /// Its place.
        seq: u64,
        /// What it declared (`null`: nothing).
        declared: Value,
        /// The case's capabilities.
        expected: Value,
    },
    /// A reply to a call came before the call.
    AnsweredBeforeSent {
        /// The call's id.
        id: Value,
        /// The reply's place.
        answered: u64,
        /// The call's place.
        sent: u64,
    },
    /// `inputRequests` sent to a client without form elicitation.
    Undeclared {
        /// The response's place.
        seq: u64,
        /// The `inputRequests` it carried.
        requests: Value,
    },
    /// Not the expected number of calls: 1 for a refusal, 2 (call and retry)
    /// otherwise.
    Calls {
        /// How many were sent.
        count: usize,
        /// Whether the call was to be refused.
        refused: bool,
    },
    /// The first call's result is not `input_required`.
    ResultType {
        /// The call's id.
        id: Value,
        /// Its `resultType` (`null`: none).
        got: Value,
    },
    /// The first call already carries `inputResponses` or `requestState`.
    FirstCarries(&'static str),
    /// Not exactly one entry in `inputRequests` (this many).
    InputRequests(usize),
    /// An input request's method is not `elicitation/create`.
    RequestMethod {
        /// Its key.
        key: String,
        /// Its method (`null`: none).
        method: Value,
    },
    /// An input request's mode is not form.
    RequestMode {
        /// Its key.
        key: String,
    },
    /// An input request's `requestedSchema` differs from the contract's.
    RequestSchema {
        /// Its key.
        key: String,
        /// The difference.
        mismatch: Mismatch,
    },
    /// The retry has no answer under an input request's key.
    NoResponse {
        /// The key.
        key: String,
    },
    /// The retry's answer differs from the case's.
    Response {
        /// The key.
        key: String,
        /// The difference.
        mismatch: Mismatch,
    },
    /// The retry does not carry the `requestState` as it was sent.
    StateNotEchoed,
    /// `input_required` carries a `requestState` that is no string.
    StateNotString(Value),
    /// The retry reuses the call's id.
    ReusedId(Value),
    /// The retry changed the call's arguments.
    ArgumentsChanged,
}

/// A generated case's own checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GeneratedFailure {
    /// The reference model and the case's reason expect different outcomes (a
    /// defect of elicit-check's oracles, not of the server).
    OraclesDisagree(Mismatch),
    /// Why the case expects what it does, added under a failed generated case.
    Reason(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        #[cfg(test)]
        if reword::ON.get() {
            return reword::reversed(self, f);
        }
        self.write(f)
    }
}

impl Failure {
    /// The message, as `Display` writes it outside the reword test.
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Harness(error) => write!(f, "harness: {error}"),
            Failure::Outcome(failure) => fmt::Display::fmt(failure, f),
            Failure::Process(failure) => fmt::Display::fmt(failure, f),
            Failure::Wire(failure) => fmt::Display::fmt(failure, f),
            Failure::Refusal(failure) => fmt::Display::fmt(failure, f),
            Failure::Round(failure) => fmt::Display::fmt(failure, f),
            Failure::ErasDiffer { legacy, modern } => write!(
                f,
                "the eras differ: 2025-11-25 gave {legacy}, 2026-07-28 gave {modern}"
            ),
            Failure::Generated(GeneratedFailure::OraclesDisagree(mismatch)) => {
                write!(f, "the oracles disagree (model vs reason): {mismatch}")
            }
            Failure::Generated(GeneratedFailure::Reason(reason)) => write!(f, "reason: {reason}"),
            Failure::NoExpectedOutcome(case) => write!(
                f,
                "no expected outcome for case {}",
                Value::String(case.clone())
            ),
            Failure::Hostile(finding) => f.write_str(&finding.evidence),
            Failure::Interrupted(how) => write!(f, "{how} while the case was in flight"),
            Failure::Http(failure) => fmt::Display::fmt(failure, f),
        }
    }
}

impl fmt::Display for OutcomeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutcomeFailure::Mismatch(mismatch) => write!(f, "outcome {mismatch}"),
            OutcomeFailure::Unnamed { location, reported } => write!(
                f,
                "outcome $.errors: no location at or under {location} (reported {reported})"
            ),
            OutcomeFailure::NoOutcome => f.write_str(
                "no outcome: the calculate result has no structuredContent and no JSON object in content[0].text",
            ),
            OutcomeFailure::NoStructuredContent => {
                f.write_str("no structuredContent in the calculate result")
            }
            OutcomeFailure::TextDisagrees(mismatch) => write!(
                f,
                "content[0].text disagrees with structuredContent: {mismatch}"
            ),
            OutcomeFailure::NotJsonText => f.write_str("content[0] is not JSON text"),
        }
    }
}

impl fmt::Display for ProcessFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcessFailure::Version {
                negotiated: None,
                expected,
            } => write!(f, "no protocol version negotiated, expected \"{expected}\""),
            ProcessFailure::Version {
                negotiated: Some(version),
                expected,
            } => write!(
                f,
                "negotiated protocol version {}, expected \"{expected}\"",
                Value::String(version.clone())
            ),
            ProcessFailure::ExitCode(code) => write!(f, "exit code {code}, expected 0"),
            ProcessFailure::Signalled => f.write_str("no exit code: killed by a signal"),
            ProcessFailure::NotExited => {
                f.write_str("the server did not exit after stdin closed and was killed")
            }
            ProcessFailure::StrayLine { seq, line } => write!(
                f,
                "non-JSON-RPC line on stdout (#{seq}): {}",
                Value::String(line.clone())
            ),
            ProcessFailure::MoreStrayLines(more) => write!(
                f,
                "and {} on stdout",
                counted(*more, "more non-JSON-RPC line")
            ),
        }
    }
}

impl fmt::Display for WireFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireFailure::Capabilities(mismatch) => {
                write!(f, "initialize declared other capabilities: {mismatch}")
            }
            WireFailure::Calls(count) => {
                write!(f, "{count} tools/call requests, expected exactly 1")
            }
            WireFailure::CallReplies { id, count } => write!(
                f,
                "{count} responses to tools/call id {id}, expected exactly 1"
            ),
            WireFailure::CompletedBeforeSent {
                id,
                completed,
                sent,
            } => write!(
                f,
                "tools/call id {id} completed (#{completed}) before it was sent (#{sent})"
            ),
            WireFailure::Elicitations { count, want } => write!(
                f,
                "{}, expected {want}",
                counted(*count, "elicitation/create request")
            ),
            WireFailure::ElicitationOutsideCall {
                id,
                seq,
                call,
                completion,
            } => write!(
                f,
                "elicitation/create id {id} (#{seq}) is not between tools/call (#{call}) and its completion (#{completion})"
            ),
            WireFailure::Mode { id, mode } => write!(
                f,
                "elicitation/create id {id}: mode {mode}, expected \"form\" (or no mode)"
            ),
            WireFailure::Schema(mismatch) => write!(f, "requestedSchema {mismatch}"),
            WireFailure::Answers { id, count } => write!(
                f,
                "{count} replies to elicitation/create id {id}, expected 1"
            ),
            WireFailure::AnswerOutOfOrder { id, seq } => write!(
                f,
                "reply to elicitation/create id {id} (#{seq}) is out of order"
            ),
            WireFailure::AnswerMissing { id, member } => {
                write!(f, "reply to elicitation/create id {id} has no {member:?}")
            }
            WireFailure::Answer {
                id,
                member,
                mismatch,
            } => write!(
                f,
                "reply to elicitation/create id {id}: {member} {mismatch}"
            ),
        }
    }
}

impl fmt::Display for RefusalFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefusalFailure::GotResult { code, outcome } => write!(
                f,
                "expected JSON-RPC error {code}, got the tool result {outcome}"
            ),
            RefusalFailure::Missing { code, error } => {
                write!(f, "expected JSON-RPC error {code}, got none")?;
                match error {
                    Some(error) => write!(f, " ({error})"),
                    None => Ok(()),
                }
            }
            RefusalFailure::Code { got, want } => {
                write!(f, "JSON-RPC error code {got}, expected {want}")
            }
            RefusalFailure::Message { got, want } => {
                write!(f, "JSON-RPC error message {got}, expected {want}")
            }
            RefusalFailure::UnnamedCapability { data } => write!(
                f,
                "JSON-RPC error -32021 does not name elicitation in data.requiredCapabilities: data {data}"
            ),
        }
    }
}

impl fmt::Display for RoundFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundFailure::ServerRequest { method, id, seq } => write!(
                f,
                "server sent request {method} id {id} (#{seq}): 2026-07-28 servers must not send requests"
            ),
            RoundFailure::Capabilities {
                method,
                seq,
                declared,
                expected,
            } => write!(
                f,
                "{} (#{seq}) declared capabilities {declared}, expected {expected}",
                method.as_deref().unwrap_or("message")
            ),
            RoundFailure::AnsweredBeforeSent { id, answered, sent } => write!(
                f,
                "tools/call id {id} answered (#{answered}) before it was sent (#{sent})"
            ),
            RoundFailure::Undeclared { seq, requests } => write!(
                f,
                "inputRequests sent to a client that declared no form elicitation (#{seq}): {requests}"
            ),
            RoundFailure::Calls { count, refused } => write!(
                f,
                "{}, expected {} ({})",
                counted(*count, "tools/call request"),
                if *refused { 1 } else { 2 },
                if *refused {
                    "the call, refused"
                } else {
                    "call → input_required → retry → result"
                }
            ),
            RoundFailure::ResultType { id, got } => write!(
                f,
                "tools/call id {id} answered resultType {got}, expected \"input_required\""
            ),
            RoundFailure::FirstCarries(key) => write!(f, "the first tools/call carries {key}"),
            RoundFailure::InputRequests(count) => write!(
                f,
                "{count} inputRequests, expected exactly 1 form elicitation"
            ),
            RoundFailure::RequestMethod { key, method } => write!(
                f,
                "inputRequests[{key:?}] method {method}, expected \"elicitation/create\""
            ),
            RoundFailure::RequestMode { key } => {
                write!(f, "inputRequests[{key:?}] mode is not \"form\"")
            }
            RoundFailure::RequestSchema { key, mismatch } => {
                write!(f, "inputRequests[{key:?}] requestedSchema {mismatch}")
            }
            RoundFailure::NoResponse { key } => {
                write!(f, "the retry has no inputResponses[{key:?}]")
            }
            RoundFailure::Response { key, mismatch } => {
                write!(f, "retry inputResponses[{key:?}] {mismatch}")
            }
            RoundFailure::StateNotEchoed => {
                f.write_str("the retry does not echo requestState byte for byte")
            }
            RoundFailure::StateNotString(state) => write!(
                f,
                "input_required carries requestState {state}, expected an opaque string"
            ),
            RoundFailure::ReusedId(id) => {
                write!(f, "the retry reuses id {id}; it must be a new request")
            }
            RoundFailure::ArgumentsChanged => f.write_str("the retry changed the call's arguments"),
        }
    }
}

/// `results.json` and `run.json` keep a failure as its message.
impl Serialize for Failure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A failure equals the message it is written as (tests and reports compare
/// with the text a user reads).
impl PartialEq<str> for Failure {
    fn eq(&self, text: &str) -> bool {
        let message = self.to_string();
        message == text
    }
}

impl PartialEq<&str> for Failure {
    fn eq(&self, text: &&str) -> bool {
        *self == **text
    }
}

impl PartialEq<String> for Failure {
    fn eq(&self, text: &String) -> bool {
        *self == **text
    }
}

impl From<OutcomeFailure> for Failure {
    fn from(failure: OutcomeFailure) -> Self {
        Failure::Outcome(failure)
    }
}

impl From<ProcessFailure> for Failure {
    fn from(failure: ProcessFailure) -> Self {
        Failure::Process(failure)
    }
}

impl From<WireFailure> for Failure {
    fn from(failure: WireFailure) -> Self {
        Failure::Wire(failure)
    }
}

impl From<RefusalFailure> for Failure {
    fn from(failure: RefusalFailure) -> Self {
        Failure::Refusal(failure)
    }
}

impl From<HttpFailure> for Failure {
    fn from(failure: HttpFailure) -> Self {
        Failure::Http(failure)
    }
}

impl From<RoundFailure> for Failure {
    fn from(failure: RoundFailure) -> Self {
        Failure::Round(failure)
    }
}

/// The reword test's switch (`crate::verdict`'s tests): while on, every
/// failure on this thread is written backwards, so no prefix, suffix or
/// phrase of a message survives, and whatever reads the wording shows.
#[cfg(test)]
pub(crate) mod reword {
    use std::cell::Cell;
    use std::fmt;

    thread_local! {
        /// Whether failures are written backwards on this thread.
        pub(crate) static ON: Cell<bool> = const { Cell::new(false) };
    }

    /// `failure`'s message backwards.
    pub(super) fn reversed(failure: &super::Failure, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Plain<'a>(&'a super::Failure);
        impl fmt::Display for Plain<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write(f)
            }
        }
        f.write_str(&Plain(failure).to_string().chars().rev().collect::<String>())
    }

    /// Runs `body` with every failure written backwards on this thread.
    pub(crate) fn reworded<T>(body: impl FnOnce() -> T) -> T {
        use crate::evidence::harness_failure::reword as harness;
        ON.set(true);
        harness::ON.set(true);
        let out = body();
        ON.set(false);
        harness::ON.set(false);
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_failure_equals_its_message_and_no_other_text() {
        let failure = Failure::from(ProcessFailure::ExitCode(3));
        assert_eq!(failure, "exit code 3, expected 0");
        assert_ne!(failure, "exit code 4, expected 0");
        assert_eq!(failure, "exit code 3, expected 0".to_owned());
        assert_ne!(failure, String::new());
        assert_eq!(
            serde_json::to_value(&failure).expect("a string"),
            json!("exit code 3, expected 0")
        );
    }

    #[test]
    fn a_refusal_without_an_error_says_what_happened_instead_when_known() {
        let missing = |error: Option<HarnessFailure>| {
            Failure::from(RefusalFailure::Missing {
                code: json!(-32021),
                error,
            })
            .to_string()
        };
        assert_eq!(missing(None), "expected JSON-RPC error -32021, got none");
        assert_eq!(
            missing(Some(HarnessFailure::CallTimedOut {
                within: std::time::Duration::from_secs(10)
            })),
            "expected JSON-RPC error -32021, got none (tools/call did not finish within 10 s)"
        );
    }

    #[test]
    fn the_reword_switch_writes_every_message_backwards_on_its_thread_only() {
        let failure = Failure::from(RoundFailure::ArgumentsChanged);
        let backwards = reword::reworded(|| failure.to_string());
        assert_eq!(backwards, "stnemugra s'llac eht degnahc yrter eht");
        assert_eq!(
            failure.to_string(),
            "the retry changed the call's arguments"
        );
    }
}
