//! The contract checks of one case's evidence: outcome, wire order, ids, answer, schema.
//!
//! Source: the `calculate` contract (docs/src/contract.md) and judging by meaning
//! (`super::meaning`).
//! Written from the contract, sharing no code with the server core: the
//! requested schema and the client's expected reply are spelled out here by hand.
//!
//! Two ways to judge ([`Judging`]): the built-in reference server is held to
//! every byte of the contract (error paths in contract order, messages word for
//! word, the exact `requestedSchema`); any other server is judged by meaning
//! (outcome from `structuredContent` or the JSON text content, compared by the
//! rules of [`crate::oracle::meaning`]: free-text messages not judged, `errors`
//! naming every wrong field, either refusal of an answer that is no
//! `ElicitResult`, `content: null` as no content; the `requestedSchema` checked for
//! its properties, types, bounds and `required`, keys outside the MCP restricted
//! subset reported as warnings).

use serde_json::{Value, json};

use crate::case::{Answer, Case};
use crate::compare;
use crate::evidence::Evidence;
use crate::evidence::wire::{Frame, Side};
use crate::oracle::failure::{Failure, OutcomeFailure, ProcessFailure, WireFailure};
use crate::oracle::meaning;

/// The protocol version every session must negotiate.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The `requestedSchema` the contract fixes (docs/src/contract.md), written by hand.
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

/// How a server is judged: exactly, or by meaning (`super::meaning`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judging {
    /// `true` for the built-in reference server (`--exact-messages`): the
    /// `errors` paths in contract order, the `error` messages of
    /// `invalid_response` and `protocol_error` word for word, and the
    /// `requestedSchema` exactly (only `title`/`description` may be added).
    /// `false` for any other server: `errors` compared as a set, messages shown
    /// in the evidence but not judged, the `requestedSchema` judged by meaning.
    pub exact_messages: bool,
}

impl Judging {
    /// The reference server's judging: every byte of the contract.
    pub const EXACT: Judging = Judging {
        exact_messages: true,
    };
    /// A third-party server's judging: by meaning.
    pub const BY_MEANING: Judging = Judging {
        exact_messages: false,
    };
}

/// What the checks of one case found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// Every failed check, its message naming the JSON path or the frame;
    /// the primary reason first. Empty means the case passes.
    pub failures: Vec<Failure>,
    /// Findings that do not fail the case: keys of the `requestedSchema` outside
    /// the MCP restricted subset (e.g. `additionalProperties`), which a client
    /// may ignore.
    pub warnings: Vec<String>,
    /// Differences of detail that judging by meaning tolerated
    /// (`crate::oracle::meaning`): extra `errors` locations, the other refusal
    /// of an answer that is no `ElicitResult`. Never printed under a row; kept
    /// in `results.json`.
    pub notes: Vec<String>,
}

/// Checks the evidence of `case` against its `expected` outcome exactly, as the
/// reference server is judged ([`Judging::EXACT`]); returns every failure, its
/// message naming the JSON path or the frame. Empty means pass.
pub fn check(case: &Case, expected: &Value, evidence: &Evidence) -> Vec<Failure> {
    judge(case, expected, evidence, Judging::EXACT).failures
}

/// Checks the evidence of `case` against its `expected` outcome under `judging`;
/// returns the failures and the warnings.
pub fn judge(case: &Case, expected: &Value, evidence: &Evidence, judging: Judging) -> Judgement {
    let mut judgement = Judgement::default();
    if let Some(error) = &evidence.error {
        judgement.failures.push(Failure::Harness(error.clone()));
    }
    if let Some(outcome) = reported_outcome(evidence, &mut judgement.failures) {
        if judging.exact_messages {
            for mismatch in compare::compare(expected, outcome) {
                judgement
                    .failures
                    .push(OutcomeFailure::Mismatch(mismatch).into());
            }
        } else {
            let meaning = meaning::judge(case, expected, outcome);
            judgement.failures.extend(meaning.failures);
            judgement.notes.extend(meaning.notes);
        }
    }
    check_process(evidence, &mut judgement.failures);
    judgement.failures.extend(
        super::http::check(&evidence.http)
            .into_iter()
            .map(Failure::Http),
    );
    check_wire(case, expected, &evidence.wire, judging, &mut judgement);
    judgement
}

/// The outcome the server reported: `structuredContent` when present (its text
/// content, when JSON, must agree), otherwise the JSON object of `content[0].text`.
/// Pushes a failure and returns `None` when there is neither.
fn reported_outcome<'a>(evidence: &'a Evidence, failures: &mut Vec<Failure>) -> Option<&'a Value> {
    match (&evidence.outcome, &evidence.text_outcome) {
        (Some(structured), Some(text)) => {
            for mismatch in compare::compare(structured, text) {
                failures.push(OutcomeFailure::TextDisagrees(mismatch).into());
            }
            Some(structured)
        }
        (Some(structured), None) => {
            failures.push(OutcomeFailure::NotJsonText.into());
            Some(structured)
        }
        (None, Some(text)) if text.is_object() => Some(text),
        (None, _) => {
            failures.push(OutcomeFailure::NoOutcome.into());
            None
        }
    }
}

fn check_process(evidence: &Evidence, failures: &mut Vec<Failure>) {
    match evidence.protocol_version.as_deref() {
        Some(PROTOCOL_VERSION) => {}
        negotiated => failures.push(
            ProcessFailure::Version {
                negotiated: negotiated.map(str::to_owned),
                expected: PROTOCOL_VERSION,
            }
            .into(),
        ),
    }
    if evidence.stopped_by_harness {
        // Streamable HTTP: the harness stopped the server after the session;
        // its exit says nothing about the case.
    } else if evidence.forced_kill {
        failures.push(ProcessFailure::NotExited.into());
    } else {
        match evidence.exit_code {
            Some(0) => {}
            Some(code) => failures.push(ProcessFailure::ExitCode(code).into()),
            None => failures.push(ProcessFailure::Signalled.into()),
        }
    }
    stray_line_failures(evidence, failures);
}

/// Stray stdout lines named one per failure, at most this many; the rest are counted.
const STRAY_LINES_NAMED: usize = 5;

/// One failure per non-JSON-RPC stdout line, naming its position in the
/// session's line order and its text (`non-JSON-RPC line on stdout (#0):
/// "hello"`), for the first [`STRAY_LINES_NAMED`]; then `and 7 more non-JSON-RPC
/// lines on stdout`, counting the lines kept and those only counted
/// ([`Evidence::stray_stdout_not_kept`]). Shared by both eras' checks.
pub(crate) fn stray_line_failures(evidence: &Evidence, failures: &mut Vec<Failure>) {
    for stray in evidence.stray_stdout.iter().take(STRAY_LINES_NAMED) {
        failures.push(
            ProcessFailure::StrayLine {
                seq: stray.seq,
                line: stray.line.clone(),
            }
            .into(),
        );
    }
    let more = evidence
        .stray_stdout
        .len()
        .saturating_sub(STRAY_LINES_NAMED)
        + evidence.stray_stdout_not_kept;
    if more > 0 {
        failures.push(ProcessFailure::MoreStrayLines(more).into());
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

fn check_wire(
    case: &Case,
    expected: &Value,
    wire: &[Frame],
    judging: Judging,
    judgement: &mut Judgement,
) {
    let failures = &mut judgement.failures;
    if let Some(init) = wire
        .iter()
        .find(|frame| is_request(frame, Side::Client, "initialize"))
    {
        let declared = &init.message["params"]["capabilities"];
        for mismatch in compare::compare(&case.capabilities, declared) {
            failures.push(WireFailure::Capabilities(mismatch).into());
        }
    }
    let calls: Vec<&Frame> = wire
        .iter()
        .filter(|f| is_request(f, Side::Client, "tools/call"))
        .collect();
    let [call] = calls.as_slice() else {
        failures.push(WireFailure::Calls(calls.len()).into());
        return;
    };
    let call_id = &call.message["id"];
    let completions: Vec<&Frame> = wire
        .iter()
        .filter(|f| is_response_to(f, Side::Server, call_id))
        .collect();
    let [completion] = completions.as_slice() else {
        failures.push(
            WireFailure::CallReplies {
                id: call_id.clone(),
                count: completions.len(),
            }
            .into(),
        );
        return;
    };
    if completion.seq < call.seq {
        failures.push(
            WireFailure::CompletedBeforeSent {
                id: call_id.clone(),
                completed: completion.seq,
                sent: call.seq,
            }
            .into(),
        );
    }
    let elicitations: Vec<&Frame> = wire
        .iter()
        .filter(|f| is_request(f, Side::Server, "elicitation/create"))
        .collect();
    let requested = expected.get("requested") != Some(&Value::Bool(false));
    let want = usize::from(requested);
    if elicitations.len() != want {
        failures.push(
            WireFailure::Elicitations {
                count: elicitations.len(),
                want,
            }
            .into(),
        );
    }
    let span = (call.seq, completion.seq);
    for elicitation in elicitations {
        check_elicitation(case, elicitation, span, wire, judging, judgement);
    }
}

fn check_elicitation(
    case: &Case,
    request: &Frame,
    (call_seq, completion_seq): (u64, u64),
    wire: &[Frame],
    judging: Judging,
    judgement: &mut Judgement,
) {
    let failures = &mut judgement.failures;
    let id = &request.message["id"];
    if !(call_seq < request.seq && request.seq < completion_seq) {
        failures.push(
            WireFailure::ElicitationOutsideCall {
                id: id.clone(),
                seq: request.seq,
                call: call_seq,
                completion: completion_seq,
            }
            .into(),
        );
    }
    let params = &request.message["params"];
    // Protocol 2025-11-25: `mode` is optional on a form request; absent means form.
    match params.get("mode") {
        None => {}
        Some(Value::String(mode)) if mode == "form" => {}
        Some(other) => failures.push(
            WireFailure::Mode {
                id: id.clone(),
                mode: other.clone(),
            }
            .into(),
        ),
    }
    let schema = &params["requestedSchema"];
    if judging.exact_messages {
        for mismatch in compare::compare(&contract_schema(), &strip_annotations(schema)) {
            failures.push(WireFailure::Schema(mismatch).into());
        }
    } else {
        let (meaning, outside) = schema_meaning(schema);
        for mismatch in compare::compare(&contract_meaning(), &meaning) {
            failures.push(WireFailure::Schema(mismatch).into());
        }
        judgement.warnings.extend(outside.into_iter().map(|path| {
            format!(
                "requestedSchema {path}: outside the MCP restricted subset of JSON Schema (a client may ignore it)"
            )
        }));
    }
    let failures = &mut judgement.failures;
    let replies: Vec<&Frame> = wire
        .iter()
        .filter(|f| is_response_to(f, Side::Client, id))
        .collect();
    let [reply] = replies.as_slice() else {
        failures.push(
            WireFailure::Answers {
                id: id.clone(),
                count: replies.len(),
            }
            .into(),
        );
        return;
    };
    if reply.seq < request.seq || reply.seq > completion_seq {
        failures.push(
            WireFailure::AnswerOutOfOrder {
                id: id.clone(),
                seq: reply.seq,
            }
            .into(),
        );
    }
    let (member, value) = expected_reply(case);
    match reply.message.get(member) {
        None => failures.push(
            WireFailure::AnswerMissing {
                id: id.clone(),
                member,
            }
            .into(),
        ),
        Some(sent) => {
            for mismatch in compare::compare(&value, sent) {
                failures.push(
                    WireFailure::Answer {
                        id: id.clone(),
                        member,
                        mismatch,
                    }
                    .into(),
                );
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

/// Keys the MCP restricted subset allows at the root of a `requestedSchema`
/// (MCP 2025-11-25, Elicitation, "Requested Schema").
const ROOT_SUBSET_KEYS: [&str; 6] = [
    "type",
    "properties",
    "required",
    "title",
    "description",
    "$schema",
];

/// Keys the MCP restricted subset allows in an integer or number property.
const NUMBER_SUBSET_KEYS: [&str; 6] = [
    "type",
    "title",
    "description",
    "minimum",
    "maximum",
    "default",
];

/// Keys of a property that decide what the form accepts: compared exactly.
const MEANING_KEYS: [&str; 3] = ["type", "minimum", "maximum"];

/// The contract schema as [`schema_meaning`] projects it (`required` sorted).
fn contract_meaning() -> Value {
    schema_meaning(&contract_schema()).0
}

/// What a `requestedSchema` means for the form: the root `type`, each property's
/// `type`, `minimum` and `maximum` (every property kept, so an extra or missing
/// one shows), and `required` sorted (a set). Also returns the JSON path of each
/// key outside the MCP restricted subset, e.g. `$.additionalProperties`.
fn schema_meaning(schema: &Value) -> (Value, Vec<String>) {
    let Some(root) = schema.as_object() else {
        return (schema.clone(), Vec::new());
    };
    let mut outside = Vec::new();
    let mut meaning = serde_json::Map::new();
    for (key, value) in root {
        match key.as_str() {
            "type" => {
                meaning.insert(key.clone(), value.clone());
            }
            "required" => {
                let mut required = value.clone();
                if let Value::Array(names) = &mut required {
                    names.sort_by_key(Value::to_string);
                }
                meaning.insert(key.clone(), required);
            }
            "properties" => {
                meaning.insert(key.clone(), properties_meaning(value, &mut outside));
            }
            key if ROOT_SUBSET_KEYS.contains(&key) => {}
            key => outside.push(schema_path(&[key])),
        }
    }
    (Value::Object(meaning), outside)
}

/// The `properties` object with each property cut to its [`MEANING_KEYS`];
/// keys outside the number subset are added to `outside`.
fn properties_meaning(properties: &Value, outside: &mut Vec<String>) -> Value {
    let Some(properties) = properties.as_object() else {
        return properties.clone();
    };
    let mut meaning = serde_json::Map::new();
    for (name, property) in properties {
        let Some(keys) = property.as_object() else {
            meaning.insert(name.clone(), property.clone());
            continue;
        };
        let mut kept = serde_json::Map::new();
        for (key, value) in keys {
            if MEANING_KEYS.contains(&key.as_str()) {
                kept.insert(key.clone(), value.clone());
            } else if !NUMBER_SUBSET_KEYS.contains(&key.as_str()) {
                outside.push(schema_path(&["properties", name, key]));
            }
        }
        meaning.insert(name.clone(), Value::Object(kept));
    }
    Value::Object(meaning)
}

/// The JSON path of a key in a `requestedSchema`, e.g. `$.properties.units.multipleOf`.
fn schema_path(keys: &[&str]) -> String {
    keys.iter()
        .fold("$".to_owned(), |path, key| compare::member_path(&path, key))
}
