//! The contract on protocol 2026-07-28: the expected result of a case in that
//! era and the era's own checks of the evidence.
//!
//! Written from MCP 2026-07-28 (multi round-trip requests) and the 2026-07-28 table
//! (docs/src/eras.md), sharing no code with the server core
//! nor with `super::contract` (which judges the 2025-11-25 wire):
//!
//! | case | 2025-11-25 | 2026-07-28 |
//! |---|---|---|
//! | no form capability (any policy) | `unsupported`, or `protocol_error` -32602 for `diagnostic_unchecked` | JSON-RPC error -32021, `data.requiredCapabilities` names `elicitation`, no `inputRequests` |
//! | a JSON-RPC error answer (generated cases) | `protocol_error` with its code | no error channel in `inputResponses`: the error object is the response, which is no `ElicitResult` → `invalid_response` "malformed elicitation result" |
//! | every other case | the contract table | the identical outcome JSON |
//!
//! An expected result is either an outcome object (`{"status": ...}`) or
//! `{"jsonrpc_error": {"code": -32021}}` (optionally with the exact `message`).

use serde_json::{Value, json};

use crate::case::{Answer, Case};
use crate::compare;
use crate::evidence::Evidence;
use crate::evidence::wire::{Frame, Side};
use crate::oracle::failure::{
    Failure, OutcomeFailure, ProcessFailure, RefusalFailure, RoundFailure, WireFailure,
};

/// The protocol version of this era.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// JSON-RPC error code "missing required client capability" (MCP 2026-07-28).
pub const MISSING_CAPABILITY: i64 = -32021;

/// The key under which an expected result names a JSON-RPC error.
pub const JSONRPC_ERROR: &str = "jsonrpc_error";

/// The outcome of an answer that is not an `ElicitResult` (contract table, `invalid_response`).
fn malformed() -> Value {
    json!({"status": "invalid_response", "computed": false, "error": "malformed elicitation result"})
}

/// Whether raw `capabilities` declare form elicitation (MCP: `elicitation` with
/// `form`, or with neither `form` nor `url`), restated here by hand.
fn form_declared(capabilities: &Value) -> bool {
    match capabilities.get("elicitation") {
        Some(Value::Object(modes)) => modes.contains_key("form") || !modes.contains_key("url"),
        _ => false,
    }
}

/// The expected 2026-07-28 result of `case` from its 2025-11-25 expected
/// outcome `legacy`, by the 2026-07-28 table (see the module docs).
pub fn expected(case: &Case, legacy: &Value) -> Value {
    if !form_declared(&case.capabilities) {
        return json!({JSONRPC_ERROR: {"code": MISSING_CAPABILITY}});
    }
    match case.answer {
        Some(Answer::Error(_)) => malformed(),
        _ => legacy.clone(),
    }
}

/// The raw value a spec client (with the proxy's injection) puts under every
/// key of `inputResponses`: the case's answer as it is, or `{"action":"cancel"}`.
pub fn expected_input_response(case: &Case) -> Value {
    match &case.answer {
        None => json!({"action": "cancel"}),
        Some(Answer::Result(value) | Answer::Error(value)) => value.clone(),
    }
}

/// The `requestedSchema` the contract fixes, written by hand (docs/src/contract.md).
fn contract_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "units": {"type": "integer", "minimum": 1, "maximum": 10},
            "unit_value": {"type": "integer", "minimum": 1, "maximum": 100}
        },
        "required": ["units", "unit_value"]
    })
}

/// Checks the 2026-07-28 evidence of `case` against `expected` (an outcome or
/// a `jsonrpc_error`). `spec_client` is true when the harness behaved as a spec
/// client (echoed state, answered every request): only then is the wire held
/// to call → `input_required` → retry → result. Empty means pass.
pub fn check(
    case: &Case,
    expected: &Value,
    evidence: &Evidence,
    spec_client: bool,
) -> Vec<Failure> {
    let mut failures = Vec::new();
    match expected.get(JSONRPC_ERROR) {
        Some(error) => check_refusal(error, evidence, &mut failures),
        None => check_outcome(expected, evidence, &mut failures),
    }
    check_process(evidence, &mut failures);
    failures.extend(
        super::http::check(&evidence.http)
            .into_iter()
            .map(Failure::Http),
    );
    check_wire(case, expected, &evidence.wire, spec_client, &mut failures);
    failures
}

fn check_refusal(expected: &Value, evidence: &Evidence, failures: &mut Vec<Failure>) {
    if let Some(outcome) = &evidence.outcome {
        failures.push(
            RefusalFailure::GotResult {
                code: expected["code"].clone(),
                outcome: outcome.clone(),
            }
            .into(),
        );
    }
    let Some(error) = &evidence.rpc_error else {
        failures.push(
            RefusalFailure::Missing {
                code: expected["code"].clone(),
                error: evidence.error.clone(),
            }
            .into(),
        );
        return;
    };
    if error.get("code") != expected.get("code") {
        failures.push(
            RefusalFailure::Code {
                got: error["code"].clone(),
                want: expected["code"].clone(),
            }
            .into(),
        );
    }
    if let Some(message) = expected.get("message")
        && error.get("message") != Some(message)
    {
        failures.push(
            RefusalFailure::Message {
                got: error["message"].clone(),
                want: message.clone(),
            }
            .into(),
        );
    }
    if expected.get("code") == Some(&json!(MISSING_CAPABILITY))
        && error
            .pointer("/data/requiredCapabilities/elicitation")
            .is_none()
    {
        failures.push(
            RefusalFailure::UnnamedCapability {
                data: error.get("data").cloned().unwrap_or(Value::Null),
            }
            .into(),
        );
    }
}

fn check_outcome(expected: &Value, evidence: &Evidence, failures: &mut Vec<Failure>) {
    if let Some(error) = &evidence.error {
        failures.push(Failure::Harness(error.clone()));
    }
    match &evidence.outcome {
        None => failures.push(OutcomeFailure::NoStructuredContent.into()),
        Some(outcome) => {
            for mismatch in compare::compare(expected, outcome) {
                failures.push(OutcomeFailure::Mismatch(mismatch).into());
            }
        }
    }
    match (&evidence.outcome, &evidence.text_outcome) {
        (Some(structured), Some(text)) => {
            for mismatch in compare::compare(structured, text) {
                failures.push(OutcomeFailure::TextDisagrees(mismatch).into());
            }
        }
        (Some(_), None) => failures.push(OutcomeFailure::NotJsonText.into()),
        _ => {}
    }
}

fn check_process(evidence: &Evidence, failures: &mut Vec<Failure>) {
    if evidence.protocol_version.as_deref() != Some(PROTOCOL_VERSION) {
        failures.push(
            ProcessFailure::Version {
                negotiated: evidence.protocol_version.clone(),
                expected: PROTOCOL_VERSION,
            }
            .into(),
        );
    }
    // Streamable HTTP: the harness stopped the server after the session; its
    // exit says nothing about the case.
    let exit_judged = !evidence.stopped_by_harness;
    if exit_judged && evidence.exit_code != Some(0) {
        failures.push(
            evidence
                .exit_code
                .map_or(ProcessFailure::Signalled, ProcessFailure::ExitCode)
                .into(),
        );
    }
    if exit_judged && evidence.forced_kill {
        failures.push(ProcessFailure::NotExited.into());
    }
    super::contract::stray_line_failures(evidence, failures);
}

fn method(frame: &Frame) -> Option<&str> {
    frame.message.get("method").and_then(Value::as_str)
}

fn check_wire(
    case: &Case,
    expected: &Value,
    wire: &[Frame],
    spec_client: bool,
    failures: &mut Vec<Failure>,
) {
    for frame in wire.iter().filter(|frame| frame.from == Side::Server) {
        if let (Some(method), Some(id)) = (method(frame), frame.message.get("id")) {
            failures.push(
                RoundFailure::ServerRequest {
                    method: method.to_owned(),
                    id: id.clone(),
                    seq: frame.seq,
                }
                .into(),
            );
        }
    }
    for frame in wire.iter().filter(|frame| frame.from == Side::Client) {
        let declared = frame
            .message
            .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities");
        if declared != Some(&case.capabilities) {
            failures.push(
                RoundFailure::Capabilities {
                    method: method(frame).map(str::to_owned),
                    seq: frame.seq,
                    declared: declared.cloned().unwrap_or(Value::Null),
                    expected: case.capabilities.clone(),
                }
                .into(),
            );
        }
    }
    let calls: Vec<&Frame> = wire
        .iter()
        .filter(|frame| frame.from == Side::Client && method(frame) == Some("tools/call"))
        .collect();
    let mut responses = Vec::new();
    for call in &calls {
        let id = &call.message["id"];
        let answers: Vec<&Frame> = wire
            .iter()
            .filter(|frame| {
                frame.from == Side::Server
                    && method(frame).is_none()
                    && frame.message.get("id") == Some(id)
            })
            .collect();
        match answers.as_slice() {
            [answer] if answer.seq > call.seq => responses.push(*answer),
            [answer] => failures.push(
                RoundFailure::AnsweredBeforeSent {
                    id: id.clone(),
                    answered: answer.seq,
                    sent: call.seq,
                }
                .into(),
            ),
            _ => failures.push(
                WireFailure::CallReplies {
                    id: id.clone(),
                    count: answers.len(),
                }
                .into(),
            ),
        }
    }
    for response in &responses {
        if let Some(requests) = response.message.pointer("/result/inputRequests")
            && !form_declared(&case.capabilities)
        {
            failures.push(
                RoundFailure::Undeclared {
                    seq: response.seq,
                    requests: requests.clone(),
                }
                .into(),
            );
        }
    }
    if !spec_client || responses.len() != calls.len() {
        return;
    }
    let refused = expected.get(JSONRPC_ERROR).is_some();
    let want = if refused { 1 } else { 2 };
    if calls.len() != want {
        failures.push(
            RoundFailure::Calls {
                count: calls.len(),
                refused,
            }
            .into(),
        );
        return;
    }
    if let [call, retry] = calls.as_slice() {
        check_round(case, call, responses[0], retry, failures);
    }
}

/// The first round: `call` got `input_required` in `response`, and `retry`
/// came back under a new id with the state echoed and the answer in place.
fn check_round(
    case: &Case,
    call: &Frame,
    response: &Frame,
    retry: &Frame,
    failures: &mut Vec<Failure>,
) {
    let result = &response.message["result"];
    if result.get("resultType") != Some(&json!("input_required")) {
        failures.push(
            RoundFailure::ResultType {
                id: call.message["id"].clone(),
                got: result.get("resultType").cloned().unwrap_or(Value::Null),
            }
            .into(),
        );
        return;
    }
    for key in ["inputResponses", "requestState"] {
        if call.message["params"].get(key).is_some() {
            failures.push(RoundFailure::FirstCarries(key).into());
        }
    }
    let requests = result
        .get("inputRequests")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if requests.len() != 1 {
        failures.push(RoundFailure::InputRequests(requests.len()).into());
    }
    for (key, request) in &requests {
        if request.get("method") != Some(&json!("elicitation/create")) {
            failures.push(
                RoundFailure::RequestMethod {
                    key: key.clone(),
                    method: request.get("method").cloned().unwrap_or(Value::Null),
                }
                .into(),
            );
        }
        if request.pointer("/params/mode") != Some(&json!("form")) {
            failures.push(RoundFailure::RequestMode { key: key.clone() }.into());
        }
        let schema = request
            .pointer("/params/requestedSchema")
            .map(strip_annotations)
            .unwrap_or(Value::Null);
        for mismatch in compare::compare(&contract_schema(), &schema) {
            failures.push(
                RoundFailure::RequestSchema {
                    key: key.clone(),
                    mismatch,
                }
                .into(),
            );
        }
        let sent = retry.message.pointer(&format!(
            "/params/inputResponses/{}",
            key.replace('~', "~0").replace('/', "~1")
        ));
        match sent {
            None => failures.push(RoundFailure::NoResponse { key: key.clone() }.into()),
            Some(sent) => {
                for mismatch in compare::compare(&expected_input_response(case), sent) {
                    failures.push(
                        RoundFailure::Response {
                            key: key.clone(),
                            mismatch,
                        }
                        .into(),
                    );
                }
            }
        }
    }
    match result.get("requestState") {
        Some(Value::String(state)) => {
            if retry.message.pointer("/params/requestState") != Some(&json!(state)) {
                failures.push(RoundFailure::StateNotEchoed.into());
            }
        }
        other => failures
            .push(RoundFailure::StateNotString(other.cloned().unwrap_or(Value::Null)).into()),
    }
    if retry.message["id"] == call.message["id"] {
        failures.push(RoundFailure::ReusedId(call.message["id"].clone()).into());
    }
    if retry.message.pointer("/params/arguments") != call.message.pointer("/params/arguments") {
        failures.push(RoundFailure::ArgumentsChanged.into());
    }
}

/// The schema with `title`/`description` removed from the root and each property.
fn strip_annotations(schema: &Value) -> Value {
    let mut schema = schema.clone();
    let strip = |object: &mut serde_json::Map<String, Value>| {
        object.remove("title");
        object.remove("description");
    };
    if let Some(root) = schema.as_object_mut() {
        strip(root);
        if let Some(Value::Object(properties)) = root.get_mut("properties") {
            for property in properties.values_mut().filter_map(Value::as_object_mut) {
                strip(property);
            }
        }
    }
    schema
}

/// The result of a case's evidence as one JSON value: the outcome, or
/// `{"jsonrpc_error": {...}}` when the call was refused, or `null`.
pub fn result_of(evidence: &Evidence) -> Value {
    match (&evidence.outcome, &evidence.rpc_error) {
        (Some(outcome), _) => outcome.clone(),
        (None, Some(error)) => json!({JSONRPC_ERROR: error}),
        (None, None) => Value::Null,
    }
}

/// Compares one case's results in both eras by the 2026-07-28 table: the
/// 2026-07-28 result must be what the table makes of the 2025-11-25 outcome
/// (`-32021` for a client without form, the identical outcome JSON otherwise).
/// `None` when they agree; otherwise [`Failure::ErasDiffer`] with both results
/// (a reproduction of such a verdict needs both eras).
pub fn eras_differ(case: &Case, legacy: &Evidence, modern: &Evidence) -> Option<Failure> {
    let legacy_outcome = legacy.outcome.clone().unwrap_or(Value::Null);
    let want = expected(case, &legacy_outcome);
    let got = result_of(modern);
    let agree = match want.get(JSONRPC_ERROR) {
        Some(error) => got.pointer("/jsonrpc_error/code") == error.get("code"),
        None => compare::compare(&want, &got).is_empty(),
    };
    (!agree).then(|| Failure::ErasDiffer {
        legacy: legacy_outcome,
        modern: got,
    })
}
