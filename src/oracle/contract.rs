//! The contract checks of one case's evidence: outcome, wire order, ids, answer, schema.
//!
//! Source: issue 2, section 5. Written from the contract, sharing no code with
//! the server core: the requested schema and the client's expected reply are
//! spelled out here by hand.

use serde_json::{Value, json};

use crate::case::{Answer, Case};
use crate::compare;
use crate::harness::Evidence;
use crate::harness::proxy::{Frame, Side};

/// The protocol version every session must negotiate.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The `requestedSchema` the contract fixes (issue 2, section 2), written by hand.
pub fn contract_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "units": {"type": "integer", "minimum": 1, "maximum": 10},
            "unit_value": {"type": "integer", "minimum": 1, "maximum": 100}
        },
        "required": ["units", "unit_value"]
    })
}

/// Keys of a property schema that the contract allows beside the fixed ones.
const ANNOTATION_KEYS: [&str; 2] = ["title", "description"];

/// The reply a spec-conformant client sends to a form `elicitation/create` for
/// this case: `-32602` when form is not declared, the case's answer otherwise,
/// `{"action":"cancel"}` when the case has none. Returns `(member, value)` with
/// member `"result"` or `"error"`.
pub fn expected_reply(case: &Case) -> (&'static str, Value) {
    let elicitation = case.capabilities.get("elicitation");
    let form_declared = match elicitation {
        Some(Value::Object(modes)) => modes.get("form").is_some() || modes.get("url").is_none(),
        _ => false,
    };
    if !form_declared {
        return (
            "error",
            json!({"code": -32602, "message": "elicitation mode not declared: form"}),
        );
    }
    match &case.answer {
        None => ("result", json!({"action": "cancel"})),
        Some(Answer::Result(result)) => ("result", result.clone()),
        Some(Answer::Error(error)) => ("error", error.clone()),
    }
}

/// Checks the evidence of `case` against its `expected` outcome; returns every
/// failure as a sentence naming the JSON path or the frame. Empty means pass.
pub fn check(case: &Case, expected: &Value, evidence: &Evidence) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(error) = &evidence.error {
        failures.push(format!("harness: {error}"));
    }
    match &evidence.outcome {
        None => failures.push("no structuredContent in the calculate result".into()),
        Some(outcome) => {
            for mismatch in compare::compare(expected, outcome) {
                failures.push(format!("outcome {mismatch}"));
            }
        }
    }
    match (&evidence.outcome, &evidence.text_outcome) {
        (Some(structured), Some(text)) => {
            for mismatch in compare::compare(structured, text) {
                failures.push(format!(
                    "content[0].text disagrees with structuredContent: {mismatch}"
                ));
            }
        }
        (Some(_), None) => failures.push("content[0] is not JSON text".into()),
        _ => {}
    }
    check_process(evidence, &mut failures);
    check_wire(case, expected, &evidence.wire, &mut failures);
    failures
}

fn check_process(evidence: &Evidence, failures: &mut Vec<String>) {
    if evidence.protocol_version.as_deref() != Some(PROTOCOL_VERSION) {
        failures.push(format!(
            "negotiated protocol {:?}, expected {PROTOCOL_VERSION:?}",
            evidence.protocol_version
        ));
    }
    if evidence.exit_code != Some(0) {
        failures.push(format!(
            "exit code {:?}, expected Some(0)",
            evidence.exit_code
        ));
    }
    if evidence.forced_kill {
        failures.push("the server did not exit after stdin closed and was killed".into());
    }
    for stray in &evidence.stray_stdout {
        failures.push(format!(
            "non-JSON-RPC line on stdout (#{}): {:?}",
            stray.seq, stray.line
        ));
    }
}

fn is_request(frame: &Frame, from: Side, method: &str) -> bool {
    frame.from == from && frame.message.get("method").and_then(Value::as_str) == Some(method)
}

fn is_response_to(frame: &Frame, from: Side, id: &Value) -> bool {
    frame.from == from
        && frame.message.get("method").is_none()
        && frame.message.get("id") == Some(id)
}

fn check_wire(case: &Case, expected: &Value, wire: &[Frame], failures: &mut Vec<String>) {
    if let Some(init) = wire
        .iter()
        .find(|frame| is_request(frame, Side::Client, "initialize"))
    {
        let declared = &init.message["params"]["capabilities"];
        for mismatch in compare::compare(&case.capabilities, declared) {
            failures.push(format!(
                "initialize declared other capabilities: {mismatch}"
            ));
        }
    }
    let calls: Vec<&Frame> = wire
        .iter()
        .filter(|f| is_request(f, Side::Client, "tools/call"))
        .collect();
    let [call] = calls.as_slice() else {
        failures.push(format!(
            "{} tools/call requests, expected exactly 1",
            calls.len()
        ));
        return;
    };
    let call_id = &call.message["id"];
    let completions: Vec<&Frame> = wire
        .iter()
        .filter(|f| is_response_to(f, Side::Server, call_id))
        .collect();
    let [completion] = completions.as_slice() else {
        failures.push(format!(
            "{} responses to tools/call id {call_id}, expected exactly 1",
            completions.len()
        ));
        return;
    };
    if completion.seq < call.seq {
        failures.push(format!(
            "tools/call id {call_id} completed (#{}) before it was sent (#{})",
            completion.seq, call.seq
        ));
    }
    let elicitations: Vec<&Frame> = wire
        .iter()
        .filter(|f| is_request(f, Side::Server, "elicitation/create"))
        .collect();
    let requested = expected.get("requested") != Some(&Value::Bool(false));
    let want = usize::from(requested);
    if elicitations.len() != want {
        failures.push(format!(
            "{} elicitation/create requests, expected {want}",
            elicitations.len()
        ));
    }
    for elicitation in elicitations {
        check_elicitation(case, elicitation, call.seq, completion.seq, wire, failures);
    }
}

fn check_elicitation(
    case: &Case,
    request: &Frame,
    call_seq: u64,
    completion_seq: u64,
    wire: &[Frame],
    failures: &mut Vec<String>,
) {
    let id = &request.message["id"];
    if !(call_seq < request.seq && request.seq < completion_seq) {
        failures.push(format!(
            "elicitation/create id {id} (#{}) is not between tools/call (#{call_seq}) and its completion (#{completion_seq})",
            request.seq
        ));
    }
    let params = &request.message["params"];
    if params.get("mode").and_then(Value::as_str) != Some("form") {
        failures.push(format!(
            "elicitation/create id {id}: mode {}, expected \"form\"",
            params["mode"]
        ));
    }
    let schema = strip_annotations(&params["requestedSchema"]);
    for mismatch in compare::compare(&contract_schema(), &schema) {
        failures.push(format!("requestedSchema {mismatch}"));
    }
    let replies: Vec<&Frame> = wire
        .iter()
        .filter(|f| is_response_to(f, Side::Client, id))
        .collect();
    let [reply] = replies.as_slice() else {
        failures.push(format!(
            "{} replies to elicitation/create id {id}, expected 1",
            replies.len()
        ));
        return;
    };
    if reply.seq < request.seq || reply.seq > completion_seq {
        failures.push(format!(
            "reply to elicitation/create id {id} (#{}) is out of order",
            reply.seq
        ));
    }
    let (member, value) = expected_reply(case);
    match reply.message.get(member) {
        None => failures.push(format!(
            "reply to elicitation/create id {id} has no {member:?}"
        )),
        Some(sent) => {
            for mismatch in compare::compare(&value, sent) {
                failures.push(format!(
                    "reply to elicitation/create id {id}: {member} {mismatch}"
                ));
            }
        }
    }
}

/// The schema with `title`/`description` removed from the root and each property,
/// which the contract allows.
fn strip_annotations(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(root) = schema.as_object_mut() {
        for key in ANNOTATION_KEYS {
            root.remove(key);
        }
        if let Some(Value::Object(properties)) = root.get_mut("properties") {
            for property in properties.values_mut() {
                if let Some(property) = property.as_object_mut() {
                    for key in ANNOTATION_KEYS {
                        property.remove(key);
                    }
                }
            }
        }
    }
    schema
}
