//! The one primary verdict of a case: which of a closed list of faults its
//! evidence shows, with the one line of evidence that shows it (docs/src/verdicts.md).
//!
//! A server that misbehaves fails many checks at once: one that exits with
//! code 3 during `tools/call` also has no outcome, no reply to the call and a
//! wrong exit code. [`classify`] names the cause (`crashed: exit code 3 during
//! tools/call`), and [`secondary`] keeps only the failures that add information
//! beyond it. The names are stable snake_case strings, written to `results.json`,
//! `results.jsonl` and `run.json`, so a CI system can group failures by them.
//!
//! Written from the evidence alone (frames, exit, stderr) and the expected
//! outcome; it shares no code with the server core.
//!
//! A `check`'s verdicts, one per property and era, are made in [`check`].

use std::time::Duration;

use serde_json::Value;

use crate::case::{Answer, Case};
use crate::evidence::wire::{Frame, Side};
use crate::evidence::{Evidence, HarnessFailure};
use crate::format::{counted, seconds};
use crate::oracle::failure::{
    Failure, GeneratedFailure, OutcomeFailure, ProcessFailure, WireFailure,
};
use crate::oracle::http::HttpFailure;

pub mod check;
pub mod primary;

pub use primary::{Finding, Primary};

/// How the process ended, in the protocol's words: `exit code 3`, `killed by
/// signal 9 (SIGKILL)`, `no exit code: ended by a signal` (the signal unknown),
/// `no exit code: killed after 5 s`.
pub fn describe_exit(evidence: &Evidence) -> String {
    match (
        evidence.forced_kill,
        evidence.exit_code,
        evidence.exit_signal,
    ) {
        (true, _, _) => format!(
            "no exit code: killed after {}",
            seconds(Duration::from_secs_f64(evidence.shutdown_grace_secs))
        ),
        (false, Some(code), _) => format!("exit code {code}"),
        (false, None, Some(signal)) => format!(
            "killed by {}",
            crate::harness::child::describe_signal(signal)
        ),
        (false, None, None) => "no exit code: ended by a signal".to_owned(),
    }
}

/// The primary verdict of a case from its evidence, its expected outcome and
/// the failures its checks found (empty: [`Primary::Passed`]). Failures are
/// read by their type, never by their wording.
pub fn classify(evidence: &Evidence, expected: &Value, failures: &[Failure]) -> Finding {
    if failures.is_empty() {
        return Finding::new(Primary::Passed, "every check held");
    }
    let failure = evidence.error.as_ref();
    let error = failure.map(ToString::to_string).unwrap_or_default();
    let stray = evidence.stray_stdout.first().map(|stray| {
        Finding::new(
            Primary::StdoutNotJsonRpc,
            format!(
                "stdout line #{} is not a JSON-RPC message: {}",
                stray.seq,
                Value::String(stray.line.clone())
            ),
        )
    });
    if !evidence.started {
        if let Some(stray) = stray {
            return stray;
        }
        if let Some(HarnessFailure::HandshakeTimedOut {
            request,
            within,
            http,
        }) = failure
        {
            return Finding::new(
                Primary::NoInitializeReply,
                no_reply(&request.to_string(), *within, http),
            );
        }
        if evidence.stopped_by_harness {
            return Finding::new(Primary::DidNotStart, error);
        }
        return Finding::new(
            Primary::DidNotStart,
            format!("{error} ({})", describe_exit(evidence)),
        );
    }
    if let Some(finding) = wrong_reply_id(&evidence.wire) {
        return finding;
    }
    // Streamable HTTP: a transport fault that broke the call is its cause.
    if let Some(finding) = failures.iter().find_map(|failure| match failure {
        Failure::Http(failure) => {
            transport_fault(failure).map(|verdict| Finding::new(verdict, failure.to_string()))
        }
        _ => None,
    }) {
        return finding;
    }
    let no_result = evidence.outcome.is_none() && evidence.text_outcome.is_none();
    if let Some(HarnessFailure::CallTimedOut { within }) = failure {
        let after = answered_with_no_object(&evidence.wire)
            .map(|result| format!(" after a result that is not an object ({result}) answered its elicitation/create"))
            .unwrap_or_default();
        return Finding::new(
            Primary::Hung,
            format!("{}{after}", no_reply("tools/call", *within, "")),
        );
    }
    // Over Streamable HTTP the harness stops a server it started after the
    // session (SIGTERM): that exit says nothing about the case.
    let exit_judged = !evidence.stopped_by_harness;
    let ended_badly = exit_judged && (evidence.forced_kill || evidence.exit_code != Some(0));
    let call_failed = matches!(failure, Some(HarnessFailure::CallFailed { .. }));
    if no_result && evidence.rpc_error.is_none() && call_failed {
        let reason = if exit_judged {
            format!("{} before replying to tools/call", describe_exit(evidence))
        } else {
            error
        };
        return Finding::new(Primary::Crashed, reason);
    }
    if let Some(stray) = stray {
        return stray;
    }
    let elicitations: Vec<&Frame> = evidence
        .wire
        .iter()
        .filter(|frame| {
            frame.from == Side::Server
                && frame.message.get("method").and_then(Value::as_str) == Some("elicitation/create")
        })
        .collect();
    if elicitations.len() > 1 {
        let ids: Vec<String> = elicitations
            .iter()
            .map(|frame| frame.message["id"].to_string())
            .collect();
        return Finding::new(
            Primary::ReAsked,
            format!(
                "{} elicitation/create requests in one tools/call (ids {})",
                elicitations.len(),
                ids.join(", ")
            ),
        );
    }
    let declared = declared_modes(&evidence.input.capabilities);
    for frame in &elicitations {
        let mode = frame.message["params"]
            .get("mode")
            .and_then(Value::as_str)
            .unwrap_or("form");
        if !declared.contains(&mode) {
            return Finding::new(
                Primary::UndeclaredMode,
                format!(
                    "elicitation/create id {} asks for mode {}, but the client declared {}",
                    frame.message["id"],
                    Value::String(mode.to_owned()),
                    if declared.is_empty() {
                        "no elicitation capability".to_owned()
                    } else {
                        format!("only {}", declared.join(" and "))
                    }
                ),
            );
        }
    }
    let outcome = evidence.outcome.as_ref().or(evidence
        .text_outcome
        .as_ref()
        .filter(|text| text.is_object()));
    if let Some(outcome) = outcome {
        if let Some(finding) = computed_wrongly(evidence, expected, outcome) {
            return finding;
        }
        if let Some(finding) = type_drift(expected, outcome) {
            return finding;
        }
    }
    if let Some(failure) = failures
        .iter()
        .find(|failure| matches!(failure, Failure::Http(HttpFailure::ForeignStream { .. })))
    {
        return Finding::new(Primary::ElicitedOnForeignStream, failure.to_string());
    }
    if exit_judged && evidence.forced_kill {
        return Finding::new(
            Primary::IgnoredStdinClose,
            format!(
                "the server did not exit after its stdin closed ({})",
                describe_exit(evidence)
            ),
        );
    }
    if ended_badly {
        return Finding::new(
            Primary::Crashed,
            format!("{} after the call", describe_exit(evidence)),
        );
    }
    if let Some(failure) = failures.iter().find(|failure| is_wrong_outcome(failure)) {
        return Finding::new(Primary::WrongOutcome, failure.to_string());
    }
    if let Some(failure) = failures.iter().find(|failure| {
        matches!(
            failure,
            Failure::Generated(GeneratedFailure::OraclesDisagree(_))
        )
    }) {
        return Finding::new(Primary::OraclesDisagree, failure.to_string());
    }
    Finding::new(Primary::ContractFailure, failures[0].to_string())
}

/// The verdict of an HTTP failure that breaks the session (the call cannot
/// be answered); none for one that does not.
fn transport_fault(failure: &HttpFailure) -> Option<Primary> {
    match failure {
        HttpFailure::ErrorStatus { .. } => Some(Primary::HttpErrorStatus),
        HttpFailure::NotJson { .. } => Some(Primary::HttpNotJson),
        HttpFailure::StreamEnded { .. } => Some(Primary::StreamEndedWithoutResult),
        HttpFailure::ForeignStream { .. } => None,
    }
}

/// Whether `failure` says the outcome is not the expected one: a member
/// differs, an expected `errors` location is not named, or there is no
/// outcome at all.
fn is_wrong_outcome(failure: &Failure) -> bool {
    matches!(
        failure,
        Failure::Outcome(
            OutcomeFailure::Mismatch(_)
                | OutcomeFailure::Unnamed { .. }
                | OutcomeFailure::NoOutcome
        )
    )
}

/// The `result` of the client's reply to the server's `elicitation/create` in
/// `wire`, when that result is not an object (`173`): no `ElicitResult` at all
/// (MCP 2025-11-25), which some SDKs drop without a word, leaving the tool
/// waiting for an answer that already came.
fn answered_with_no_object(wire: &[Frame]) -> Option<&Value> {
    let asked = wire.iter().find(|frame| {
        frame.from == Side::Server
            && frame.message.get("method").and_then(Value::as_str) == Some("elicitation/create")
    })?;
    let id = asked.message.get("id")?;
    let reply = wire.iter().find(|frame| {
        frame.from == Side::Client
            && frame.message.get("method").is_none()
            && frame.message.get("id") == Some(id)
    })?;
    reply
        .message
        .get("result")
        .filter(|result| !result.is_object())
}

/// A request that timed out, said as `no reply to tools/call within 10 s`
/// (with its HTTP clause, if any).
fn no_reply(request: &str, within: Duration, http: &str) -> String {
    format!("no reply to {request} within {}{http}", seconds(within))
}

/// The modes the client declared at `initialize`: `{}` and `{"form": {}}` mean
/// form; `{"url": {}}` url only; no `elicitation` member, none (MCP 2025-11-25).
fn declared_modes(capabilities: &Value) -> Vec<&'static str> {
    match capabilities.get("elicitation") {
        Some(Value::Object(modes)) if modes.is_empty() => vec!["form"],
        Some(Value::Object(modes)) => ["form", "url"]
            .into_iter()
            .filter(|mode| modes.contains_key(*mode))
            .collect(),
        _ => Vec::new(),
    }
}

/// A server reply (no `method`) whose `id` no client request carries.
fn wrong_reply_id(wire: &[Frame]) -> Option<Finding> {
    let requests: Vec<&Frame> = wire
        .iter()
        .filter(|frame| frame.from == Side::Client && frame.message.get("method").is_some())
        .collect();
    let reply = wire.iter().find(|frame| {
        frame.from == Side::Server
            && frame.message.get("method").is_none()
            && frame.message.get("id").is_some_and(|id| !id.is_null())
            && !requests
                .iter()
                .any(|request| request.message.get("id") == frame.message.get("id"))
    })?;
    let id = &reply.message["id"];
    let pending = requests
        .iter()
        .rev()
        .filter(|request| request.seq < reply.seq)
        .find(|request| request.message.get("id").is_some())
        .map(|request| {
            format!(
                " (the pending request was {} id {})",
                request.message["method"].as_str().unwrap_or("?"),
                request.message["id"]
            )
        })
        .unwrap_or_default();
    Some(Finding::new(
        Primary::WrongReplyId,
        format!(
            "a reply (#{}) under id {id}, which no request of the client carries{pending}",
            reply.seq
        ),
    ))
}

/// `computed: true` where the expected outcome has `computed: false`: on a
/// refusal (decline, cancel, an error reply, no answer) or on invalid content.
fn computed_wrongly(evidence: &Evidence, expected: &Value, outcome: &Value) -> Option<Finding> {
    if outcome.get("computed") != Some(&Value::Bool(true))
        || expected.get("computed") != Some(&Value::Bool(false))
    {
        return None;
    }
    let value = outcome
        .get("value")
        .map(|value| format!(" (value {value})"))
        .unwrap_or_default();
    let action = match &evidence.input.answer {
        Some(Answer::Result(result)) => result.get("action").cloned(),
        _ => None,
    };
    Some(match action {
        Some(Value::String(action)) if action == "accept" => Finding::new(
            Primary::ComputedOnInvalid,
            computed_on_accept(&evidence.input, expected, &value),
        ),
        Some(Value::String(action)) if action == "decline" || action == "cancel" => Finding::new(
            Primary::ComputedOnRefusal,
            format!(
                "computed on a {action}{value}; expected {}",
                status_of(expected)
            ),
        ),
        _ => Finding::new(
            Primary::ComputedOnRefusal,
            format!(
                "computed without an accepted answer{value}; expected {}",
                status_of(expected)
            ),
        ),
    })
}

/// The fields of the contract's requestedSchema with their bounds (docs/src/contract.md:
/// `units` 1..=10, `unit_value` 1..=100), to name the rule a refused
/// accept breaks.
const FIELDS: [(&str, i64, i64); 2] = [("units", 1, 10), ("unit_value", 1, 100)];

/// Most failing paths of `invalid_content` named in one evidence line.
const RULES_NAMED: usize = 3;

/// The evidence of `computed_on_invalid`, true whatever the accept was: the
/// rule of the contract it breaks (`an accept the contract refuses (value 21):
/// units must be an integer from 1 to 10, written without fraction or
/// exponent`, the `error` of `invalid_response`), or the policy that never
/// computes. `value` is ` (value 21)` or empty.
fn computed_on_accept(case: &Case, expected: &Value, value: &str) -> String {
    let status = status_of(expected);
    let refused = match expected.get("status").and_then(Value::as_str) {
        Some("invalid_content") => Some(content_rules(case, expected)),
        Some("invalid_response") => Some(
            expected
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("it is no valid elicitation result")
                .to_owned(),
        ),
        _ => None,
    };
    match refused {
        Some(rule) => {
            format!("computed on an accept the contract refuses{value}: {rule}; expected {status}")
        }
        None if case.policy != "validated" => format!(
            "computed on an accept under policy {}, which never computes{value}; expected {status}",
            Value::String(case.policy.clone())
        ),
        None => format!(
            "computed on an accept where the contract computes nothing{value}; expected {status}"
        ),
    }
}

/// The rule each failing path of an `invalid_content` outcome breaks, for the
/// first [`RULES_NAMED`] paths (then `and N more failing paths`).
fn content_rules(case: &Case, expected: &Value) -> String {
    let content = match &case.answer {
        Some(Answer::Result(result)) => result.get("content"),
        _ => None,
    };
    let paths: &[Value] = expected
        .get("errors")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let mut rules: Vec<String> = paths
        .iter()
        .take(RULES_NAMED)
        .map(|path| path_rule(path, content))
        .collect();
    if paths.len() > RULES_NAMED {
        rules.push(format!(
            "and {}",
            counted(paths.len() - RULES_NAMED, "more failing path")
        ));
    }
    if rules.is_empty() {
        return "its content breaks the form rules".to_owned();
    }
    rules.join("; ")
}

/// The form rule the failing `path` (`[]`, `["units"]`, `["note"]`) of
/// `content` breaks.
fn path_rule(path: &Value, content: Option<&Value>) -> String {
    match path.as_array().map(Vec::as_slice) {
        Some([]) => "content must be a JSON object".to_owned(),
        Some([Value::String(key)]) => match FIELDS.iter().find(|(name, ..)| name == key) {
            Some(_) if content.and_then(|content| content.get(key)).is_none() => {
                format!("{key} is required")
            }
            Some((name, min, max)) => format!(
                "{name} must be an integer from {min} to {max}, written without fraction or exponent"
            ),
            None => format!(
                "{} is not a field of the requestedSchema (the contract refuses keys it does not name)",
                Value::String(key.clone())
            ),
        },
        _ => format!("content at {path} breaks the form rules"),
    }
}

/// `status "declined"` of an outcome, for messages.
fn status_of(outcome: &Value) -> String {
    match outcome.get("status") {
        Some(status) => format!("status {status}"),
        None => "no computation".to_owned(),
    }
}

/// The first member of `expected` whose value in `outcome` has another JSON
/// type but the same meaning (`1` for `true`, `21.0` for `21`, `"21"` for `21`),
/// or whose `computed` is not a boolean at all.
fn type_drift(expected: &Value, outcome: &Value) -> Option<Finding> {
    let expected = expected.as_object()?;
    for (key, want) in expected {
        let Some(got) = outcome.get(key) else {
            continue;
        };
        let drift = if key == "computed" {
            !got.is_boolean()
        } else {
            got != want && same_meaning(want, got)
        };
        if drift {
            return Some(Finding::new(
                Primary::TypeDrift,
                format!(
                    "$.{key} is {got} ({}), expected {want} ({})",
                    json_type(got),
                    json_type(want)
                ),
            ));
        }
    }
    None
}

/// Loose equality across JSON types: booleans as 0/1, numbers by value, a
/// string holding a number by that number.
fn same_meaning(want: &Value, got: &Value) -> bool {
    let number = |value: &Value| match value {
        Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
        Value::Number(number) => number.as_f64(),
        Value::String(text) => text.trim().parse::<f64>().ok(),
        _ => None,
    };
    number(want).is_some_and(|n| Some(n) == number(got))
}

/// The JSON type name of `value` (`a boolean`, `a number`, `a string`).
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_f64() => "a number with a fraction part",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The failures worth printing below `finding`: those that add information
/// beyond it. When the session broke (did not start, hung, crashed, a reply
/// under a wrong id, or `started` is false: stdout noise before `initialize`
/// was answered), the missing outcome, the reply counts, calls left without a
/// reply, the protocol version and the exit code are its consequences and are
/// left out (so a crash's exit code is not said twice); the failure the finding
/// restates is left out too.
/// `results.json` keeps them all.
pub fn secondary<'a>(
    finding: &Finding,
    evidence: &Evidence,
    failures: &'a [Failure],
) -> Vec<&'a Failure> {
    let broke = finding.verdict.session_broke() || !evidence.started;
    let quoted_line = evidence.stray_stdout.first().map(|stray| stray.seq);
    failures
        .iter()
        .filter(|failure| failure.to_string() != finding.evidence)
        .filter(|failure| !(broke && is_consequence(failure)))
        .filter(|failure| match (finding.verdict, failure) {
            (Primary::IgnoredStdinClose, Failure::Process(ProcessFailure::NotExited))
            | (Primary::ReAsked, Failure::Wire(WireFailure::Elicitations { .. })) => false,
            // The stray line the finding already quotes.
            (
                Primary::StdoutNotJsonRpc,
                Failure::Process(ProcessFailure::StrayLine { seq, .. }),
            ) => quoted_line != Some(*seq),
            _ => true,
        })
        .collect()
}

/// Failures that follow from a broken session rather than add to it: the
/// harness's own account of it, the missing outcome, the version never
/// negotiated, the call's missing or extra replies, the exit, the missing
/// `elicitation/create`, and the hostile-client checks that a session that
/// hung, crashed or ignored the end of its stdin fails on its way.
fn is_consequence(failure: &Failure) -> bool {
    match failure {
        Failure::Harness(_)
        | Failure::Outcome(OutcomeFailure::NoOutcome)
        | Failure::Process(
            ProcessFailure::Version {
                negotiated: None, ..
            }
            | ProcessFailure::ExitCode(_)
            | ProcessFailure::Signalled
            | ProcessFailure::NotExited,
        )
        | Failure::Wire(
            WireFailure::Calls(_)
            | WireFailure::CallReplies { .. }
            | WireFailure::Elicitations { want: 1, .. },
        ) => true,
        Failure::Hostile(finding) => matches!(
            finding.verdict,
            Primary::Hung | Primary::Crashed | Primary::IgnoredStdinClose
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
