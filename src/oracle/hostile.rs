//! What a server must do with hostile client frames (docs/src/hostile.md): the
//! checks of one [`HostileCase`]'s evidence, written from JSON-RPC 2.0 and MCP
//! 2025-11-25, sharing no code with the reference server's line filter.
//!
//! Every case also requires: each awaited reply arrived within the call bound,
//! the server exited with code 0 on its own after stdin closed, and stdout held
//! JSON-RPC frames only. Each failed check carries the [`Primary`] verdict it
//! shows ([`findings`]); [`primary`] picks the one a failed case leads with.

use serde_json::Value;

use crate::evidence::Wait;
use crate::evidence::wire::{Frame, Side};
use crate::harness::hostile::{HostileCase, Played};
use crate::oracle::failure::Failure;
use crate::verdict::primary::{Finding, Primary};

/// The failures of one played case, in [`findings`] order; empty when it passed.
///
/// `exact`: also judge the free-text `error` of `invalid_response` word for word
/// (the reference server; a third-party server is judged by meaning).
pub fn judge(case: HostileCase, played: &Played, exact: bool) -> Vec<Failure> {
    findings(case, played, exact)
        .into_iter()
        .map(Failure::Hostile)
        .collect()
}

/// What each case requires, in a line (docs/src/hostile.md table), for the
/// `expected` member of the case's verdict in `results.json`.
pub fn expected(case: HostileCase) -> &'static str {
    match case {
        HostileCase::CallBeforeInitialized => {
            "no elicitation/create before notifications/initialized; call 1 refused or held, never computed; call 2 calculated 21"
        }
        HostileCase::ReplyIdMistyped | HostileCase::ReplyIdUnknown => {
            "the reply under a wrong id is ignored: declined, nothing computed"
        }
        HostileCase::ReplyTwice => {
            "only the first reply under the request's id counts: declined, nothing computed, one result"
        }
        HostileCase::NotJsonAndNoMethod => {
            "-32700 with id null; -32600 with id 41; the next call calculated 21"
        }
        HostileCase::InvalidUtf8 => "-32700 with id null; the next call calculated 21",
        HostileCase::ActionUpperCase
        | HostileCase::ActionCapitalized
        | HostileCase::ActionReject
        | HostileCase::ActionEmpty => "invalid_response, nothing computed",
        HostileCase::OversizedAnswer => {
            "invalid_content, nothing computed; the next call calculated 21"
        }
        HostileCase::DeepAnswer | HostileCase::HugeExponent | HostileCase::DuplicateKeys => {
            "invalid_response, nothing computed; the next call calculated 21"
        }
        HostileCase::EofWhileElicitationPending => {
            "exit code 0 soon after stdin closed, nothing computed"
        }
        HostileCase::EofRightAfterRequest => "the reply to tools/list id 1 written before exit",
        HostileCase::LateAnswerAfterTimeout => {
            "timed_out with notifications/cancelled; the late answer ignored; the next call calculated 21"
        }
    }
}

/// Every failed check of one played case, each with the verdict it shows: the
/// case's own checks first, then the waits that ran out ([`Primary::Hung`]), the
/// exit ([`Primary::IgnoredStdinClose`], [`Primary::Crashed`]) and stray stdout
/// ([`Primary::StdoutNotJsonRpc`]). A missing reply is tagged [`Primary::Hung`]
/// ([`primary`] tells a hang from a crash).
pub fn findings(case: HostileCase, played: &Played, exact: bool) -> Vec<Finding> {
    let wire = &played.recording.wire;
    let mut failures = match case {
        HostileCase::CallBeforeInitialized => call_before_initialized(wire),
        HostileCase::ReplyIdMistyped | HostileCase::ReplyIdUnknown => {
            let what = match case {
                HostileCase::ReplyIdMistyped => {
                    "an accept under the request's id in another JSON type (\"0\" for 0)"
                }
                _ => "an accept under an id the server never used",
            };
            expect_outcome(wire, 1, "declined", None, what, Primary::ComputedOnRefusal)
        }
        HostileCase::ReplyTwice => {
            let mut failures = expect_outcome(
                wire,
                1,
                "declined",
                None,
                "a decline, then an accept under the same id",
                Primary::ComputedOnRefusal,
            );
            failures.extend(one_reply(wire, 1));
            failures
        }
        HostileCase::NotJsonAndNoMethod => {
            let mut failures =
                expect_error(wire, &Value::Null, -32700, "the line that is not JSON");
            failures.extend(expect_error(
                wire,
                &Value::from(41),
                -32600,
                "the request object with id 41 and no method",
            ));
            failures.extend(next_call(wire, 1));
            failures
        }
        HostileCase::InvalidUtf8 => {
            let mut failures =
                expect_error(wire, &Value::Null, -32700, "the line that is not UTF-8");
            failures.extend(next_call(wire, 1));
            failures
        }
        HostileCase::ActionUpperCase
        | HostileCase::ActionCapitalized
        | HostileCase::ActionReject
        | HostileCase::ActionEmpty => {
            let action = Value::from(case.action().unwrap_or_default());
            let what = format!("an answer with action {action}, which is no spec action");
            let mut failures = expect_outcome(
                wire,
                1,
                "invalid_response",
                None,
                &what,
                Primary::ComputedOnInvalid,
            );
            if exact && failures.is_empty() {
                let error = outcome_of(wire, 1).and_then(|outcome| outcome.get("error").cloned());
                if error != Some(Value::from("malformed elicitation result")) {
                    failures.push(Finding::new(
                        Primary::WrongOutcome,
                        format!(
                            "tools/call id 1: error {}, expected \"malformed elicitation result\"",
                            error.map_or_else(|| "absent".to_owned(), |error| error.to_string())
                        ),
                    ));
                }
            }
            failures
        }
        HostileCase::OversizedAnswer
        | HostileCase::DeepAnswer
        | HostileCase::HugeExponent
        | HostileCase::DuplicateKeys => {
            let (status, what) = match case {
                HostileCase::OversizedAnswer => (
                    "invalid_content",
                    "an accept with a 1 MiB string and 10,000 extra keys",
                ),
                HostileCase::DeepAnswer => {
                    ("invalid_response", "an accept nested 10,000 levels deep")
                }
                HostileCase::HugeExponent => ("invalid_response", "an accept with units 1e400"),
                _ => ("invalid_response", "an accept naming units twice"),
            };
            let mut failures =
                expect_outcome(wire, 1, status, None, what, Primary::ComputedOnInvalid);
            // Judged by meaning, a number beyond f64 or a 10,000-level array is
            // also invalid content (not an integer in range, an undeclared key):
            // only the reference server's JSON reader cannot read them at all.
            let unreadable_here =
                matches!(case, HostileCase::DeepAnswer | HostileCase::HugeExponent);
            if !exact
                && unreadable_here
                && expect_outcome(
                    wire,
                    1,
                    "invalid_content",
                    None,
                    what,
                    Primary::WrongOutcome,
                )
                .is_empty()
            {
                failures.clear();
            }
            failures.extend(next_call(wire, 2));
            failures
        }
        HostileCase::EofWhileElicitationPending => {
            match outcome_of(wire, 1)
                .filter(|outcome| outcome.get("computed") != Some(&Value::Bool(false)))
            {
                Some(outcome) => vec![Finding::new(
                    Primary::ComputedOnRefusal,
                    format!(
                        "tools/call id 1: replied {outcome} after stdin closed with the elicitation unanswered; expected no computation"
                    ),
                )],
                None => Vec::new(),
            }
        }
        HostileCase::LateAnswerAfterTimeout => late_answer_after_timeout(wire),
        HostileCase::EofRightAfterRequest => {
            let answered = reply_to(wire, &Value::from(1))
                .is_some_and(|frame| frame.message.get("result").is_some());
            if answered {
                Vec::new()
            } else {
                vec![Finding::new(
                    Primary::DroppedRequest,
                    "tools/list id 1: no result before exit; a request read before stdin closed must be answered",
                )]
            }
        }
    };
    failures.extend(
        played
            .timeouts
            .iter()
            .map(|wait| Finding::new(Primary::Hung, format!("no reply: {wait}"))),
    );
    let exit = &played.exit;
    if exit.forced_kill {
        failures.push(Finding::new(
            Primary::IgnoredStdinClose,
            "no exit after stdin closed: killed after the shutdown grace",
        ));
    } else if exit.code != Some(0) {
        failures.push(Finding::new(
            Primary::Crashed,
            match (exit.code, played.signal) {
                (Some(code), _) => format!("exit code {code}, expected 0"),
                (None, Some(signal)) => format!(
                    "killed by {}, expected exit code 0",
                    crate::harness::child::describe_signal(signal)
                ),
                (None, None) => "ended by a signal, expected exit code 0".to_owned(),
            },
        ));
    }
    if let Some(stray) = played.recording.stray_stdout.first() {
        failures.push(Finding::new(
            Primary::StdoutNotJsonRpc,
            format!(
                "stdout line #{} is not JSON-RPC: {}",
                stray.seq,
                Value::String(stray.line.clone())
            ),
        ));
    }
    failures
}

/// Whether the server answered `initialize` (id 0) with a result: the session started.
pub fn started(played: &Played) -> bool {
    reply_to(&played.recording.wire, &Value::from(0))
        .is_some_and(|frame| frame.message.get("result").is_some())
}

/// The one verdict a failed case leads with, from its [`findings`] (in the
/// order of [`crate::verdict::classify`]):
/// - a stray stdout line: [`Primary::StdoutNotJsonRpc`] (a server that prints
///   `hello` first may never start: the line says why);
/// - no result to `initialize`: [`Primary::DidNotStart`] when the server closed
///   its stdout (ended) first, else [`Primary::NoInitializeReply`];
/// - else the first finding of the case's own checks that is not a missing reply;
/// - else a missing reply: [`Primary::Crashed`] when the server closed its stdout
///   before it (an exit, with its code), [`Primary::Hung`] when a wait ran out;
/// - else the exit's finding.
///
/// [`Primary::Passed`] when there is no finding.
pub fn primary(played: &Played, findings: &[Finding]) -> Finding {
    let Some(first) = findings.first() else {
        return Finding::new(Primary::Passed, "every check held");
    };
    let closed = played
        .timeouts
        .iter()
        .any(|wait| matches!(wait, Wait::StdoutClosed { .. }));
    let exit = describe_exit(played);
    let by_verdict = |verdict: Primary| findings.iter().find(|found| found.verdict == verdict);
    if let Some(stray) = by_verdict(Primary::StdoutNotJsonRpc) {
        return stray.clone();
    }
    if !started(played) {
        return if closed {
            Finding::new(
                Primary::DidNotStart,
                format!("stdout closed before a reply to initialize ({exit})"),
            )
        } else {
            Finding::new(
                Primary::NoInitializeReply,
                "no reply to initialize within the startup bound".to_owned(),
            )
        };
    }
    let session = [Primary::Hung, Primary::Crashed, Primary::IgnoredStdinClose];
    if let Some(own) = findings
        .iter()
        .find(|found| !session.contains(&found.verdict))
    {
        return own.clone();
    }
    if let Some(missing) = by_verdict(Primary::Hung) {
        return if closed && !played.exit.forced_kill {
            Finding::new(
                Primary::Crashed,
                format!("{exit} before its last reply ({})", missing.evidence),
            )
        } else {
            missing.clone()
        };
    }
    first.clone()
}

/// How the process ended, in the protocol's words: `exit code 3`, `killed by
/// signal 9 (SIGKILL)`, `no exit code: ended by a signal` (the signal unknown),
/// `no exit code: killed after the shutdown grace`.
fn describe_exit(played: &Played) -> String {
    match (played.exit.forced_kill, played.exit.code, played.signal) {
        (true, _, _) => "no exit code: killed after the shutdown grace".to_owned(),
        (false, Some(code), _) => format!("exit code {code}"),
        (false, None, Some(signal)) => format!(
            "killed by {}",
            crate::harness::child::describe_signal(signal)
        ),
        (false, None, None) => "no exit code: ended by a signal".to_owned(),
    }
}

/// The next call after a hostile frame computes 21 (the session stays usable).
fn next_call(wire: &[Frame], id: u64) -> Vec<Finding> {
    expect_outcome(
        wire,
        id,
        "calculated",
        Some(21),
        "the next call",
        Primary::WrongOutcome,
    )
}

/// No `elicitation/create` before the client's `notifications/initialized`, and
/// the call after it computes 21.
fn call_before_initialized(wire: &[Frame]) -> Vec<Finding> {
    let initialized = wire
        .iter()
        .find(|frame| {
            frame.from == Side::Client && method(frame) == Some("notifications/initialized")
        })
        .map_or(u64::MAX, |frame| frame.seq);
    let mut failures: Vec<Finding> = wire
        .iter()
        .filter(|frame| {
            frame.from == Side::Server
                && method(frame) == Some("elicitation/create")
                && frame.seq < initialized
        })
        .map(|frame| {
            Finding::new(
                Primary::ElicitedBeforeInitialized,
                format!(
                    "elicitation/create (frame #{}) sent before the client's notifications/initialized (frame #{initialized}); MCP 2025-11-25: a server SHOULD NOT send requests other than pings and logging before it",
                    frame.seq
                ),
            )
        })
        .collect();
    if let Some(outcome) =
        outcome_of(wire, 1).filter(|outcome| outcome.get("computed") == Some(&Value::Bool(true)))
    {
        failures.push(Finding::new(
            Primary::ComputedOnRefusal,
            format!("tools/call id 1 (sent before notifications/initialized) computed: {outcome}"),
        ));
    }
    failures.extend(expect_outcome(
        wire,
        2,
        "calculated",
        Some(21),
        "the call after notifications/initialized",
        Primary::WrongOutcome,
    ));
    failures
}

/// Call 1 ends `timed_out`, its `elicitation/create` is cancelled with
/// `notifications/cancelled`, the late answer changes nothing (one reply to
/// call 1), and call 2 computes 21.
fn late_answer_after_timeout(wire: &[Frame]) -> Vec<Finding> {
    let mut failures = expect_outcome(
        wire,
        1,
        "timed_out",
        None,
        "an elicitation left unanswered",
        Primary::ComputedOnRefusal,
    );
    let asked = wire
        .iter()
        .find(|frame| frame.from == Side::Server && method(frame) == Some("elicitation/create"))
        .and_then(|frame| frame.message.get("id"));
    let cancelled = wire.iter().any(|frame| {
        frame.from == Side::Server
            && method(frame) == Some("notifications/cancelled")
            && asked.is_some()
            && frame.message.pointer("/params/requestId") == asked
    });
    if !cancelled {
        failures.push(Finding::new(
            Primary::ContractFailure,
            format!(
                "no notifications/cancelled with requestId {} for the elicitation/create that timed out",
                asked.map_or_else(|| "(none asked)".to_owned(), Value::to_string)
            ),
        ));
    }
    failures.extend(one_reply(wire, 1));
    failures.extend(expect_outcome(
        wire,
        2,
        "calculated",
        Some(21),
        "the late answer",
        Primary::WrongOutcome,
    ));
    failures
}

/// At most one reply to the client's request `id` (JSON-RPC 2.0: one Response
/// per Request; none is [`expect_outcome`]'s to report): a second one is a
/// [`Primary::ContractFailure`].
fn one_reply(wire: &[Frame], id: u64) -> Vec<Finding> {
    let replies = wire
        .iter()
        .filter(|frame| {
            frame.from == Side::Server
                && method(frame).is_none()
                && frame.message.get("id") == Some(&Value::from(id))
        })
        .count();
    if replies > 1 {
        vec![Finding::new(
            Primary::ContractFailure,
            format!("tools/call id {id}: {replies} replies, expected exactly 1"),
        )]
    } else {
        Vec::new()
    }
}

fn method(frame: &Frame) -> Option<&str> {
    frame.message.get("method").and_then(Value::as_str)
}

/// The server's reply to the client's request `id` (exactly that JSON value).
fn reply_to<'a>(wire: &'a [Frame], id: &Value) -> Option<&'a Frame> {
    wire.iter().find(|frame| {
        frame.from == Side::Server && method(frame).is_none() && frame.message.get("id") == Some(id)
    })
}

/// The outcome object of the `tools/call` under `id`: `structuredContent`, else
/// the JSON of `content[0].text`.
fn outcome_of(wire: &[Frame], id: u64) -> Option<Value> {
    let result = reply_to(wire, &Value::from(id))?.message.get("result")?;
    result.get("structuredContent").cloned().or_else(|| {
        let text = result.pointer("/content/0/text")?.as_str()?;
        serde_json::from_str(text).ok()
    })
}

/// The call under `id` ended with `status` (and `value` when given) and
/// `computed` true exactly for `calculated`. A wrong outcome with `computed:
/// true` is tagged `computed` (the verdict of computing on that answer), any
/// other wrong outcome or an error reply [`Primary::WrongOutcome`], no reply at
/// all [`Primary::Hung`].
fn expect_outcome(
    wire: &[Frame],
    id: u64,
    status: &str,
    value: Option<i64>,
    after: &str,
    computed_verdict: Primary,
) -> Vec<Finding> {
    let Some(outcome) = outcome_of(wire, id) else {
        let (verdict, got) = reply_to(wire, &Value::from(id)).map_or_else(
            || (Primary::Hung, "no reply".to_owned()),
            |frame| (Primary::WrongOutcome, format!("reply {}", frame.message)),
        );
        return vec![Finding::new(
            verdict,
            format!("tools/call id {id} after {after}: {got}, expected status {status:?}"),
        )];
    };
    let computed = Value::Bool(status == "calculated");
    let wrong = outcome.get("status") != Some(&Value::from(status))
        || outcome.get("computed") != Some(&computed)
        || value.is_some_and(|value| outcome.get("value") != Some(&Value::from(value)));
    if wrong {
        let verdict =
            if status != "calculated" && outcome.get("computed") == Some(&Value::Bool(true)) {
                computed_verdict
            } else {
                Primary::WrongOutcome
            };
        let value = value.map_or_else(String::new, |value| format!(", value {value}"));
        vec![Finding::new(
            verdict,
            format!(
                "tools/call id {id} after {after}: outcome {outcome}, expected status {status:?}, computed {computed}{value}"
            ),
        )]
    } else {
        Vec::new()
    }
}

/// A JSON-RPC error reply under `id` (null for a line with no readable id) with
/// `code`; its absence is [`Primary::NoErrorReply`].
fn expect_error(wire: &[Frame], id: &Value, code: i64, to: &str) -> Vec<Finding> {
    let code_value = Value::from(code);
    let found = wire.iter().any(|frame| {
        frame.from == Side::Server
            && method(frame).is_none()
            && frame.message.get("id") == Some(id)
            && frame.message.pointer("/error/code") == Some(&code_value)
    });
    if found {
        Vec::new()
    } else {
        vec![Finding::new(
            Primary::NoErrorReply,
            format!("no JSON-RPC error {code} with id {id} in reply to {to}"),
        )]
    }
}

#[cfg(test)]
mod tests;
