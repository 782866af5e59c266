//! Wire mutants: typed corruptions of the server's frames, to prove that the
//! contract oracle rejects a wrong result even when the server never produced it.
//!
//! Each [`WireMutation`] becomes a [`ServerTap`] for one session (docs/src/wire.md,
//! "Wire mutants"). The tap rewrites server→client frames before the client and the
//! recording see them, and raises an [`Applied`] flag only when it actually
//! changed something, so a run where the mutation has nothing to corrupt (no
//! `value` to drift, no `elicitation/create` to move) counts as skipped, not as
//! rejected.
//!
//! Outcome rewrites change `structuredContent` and the JSON text of
//! `content[0]` together, so only the type-aware outcome check can catch them;
//! [`WireMutation::TextOnlyDrift`] is the one that changes the text alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::Limits;
use super::proxy::{Recording, ServerTap, Side, TapLine};
use crate::case::{Answer, Case};

/// Offset added to a server request id to make a fresh one (no session comes near it).
const FRESH_ID_OFFSET: i64 = 1000;

/// The line [`WireMutation::NonJsonLine`] writes to the server's stdout.
pub const NON_JSON_LINE: &str = "wire mutant: this line is not JSON";

/// The line [`WireMutation::JsonLogLine`] writes to the server's stdout: JSON, but
/// not a JSON-RPC message (a structured log line sent to the wrong stream).
pub const JSON_LOG_LINE: &str = r#"{"level":"info","message":"wire mutant"}"#;

/// What [`WireMutation::ErrorMessageChanged`] appends to an outcome's `error`.
pub const ERROR_SUFFIX: &str = " (wire mutant)";

/// The protocol version [`WireMutation::InitializeProtocolDrift`] answers with.
pub const DRIFTED_PROTOCOL: &str = "2025-06-18";

/// The key and value [`WireMutation::KeyAdded`] adds to an outcome.
pub const EXTRA_KEY: (&str, &str) = ("note", "wire mutant");

/// What kind of lie a mutation tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// A boolean or integer turned into a number of another JSON kind (`true` → `1`, `21` → `21.0`).
    BoolIntDrift,
    /// The outcome claims the other branch (computed when it must not, or the reverse).
    BranchFlip,
    /// A value, a key or an error path that differs from the contract's.
    ValueDrift,
    /// Frames out of order, duplicated, misaddressed or not JSON at all.
    ProtocolDrift,
}

/// One corruption of the server's side of the wire. Applied one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireMutation {
    /// `computed: true` becomes `1` in the completion.
    ComputedTrueAsOne,
    /// `computed: false` becomes `0` in the completion.
    ComputedFalseAsZero,
    /// An integer `value` becomes a float of the same magnitude (`21` → `21.0`).
    ValueAsFloat,
    /// `requested: false` becomes `0`.
    RequestedFalseAsZero,
    /// `computed` is negated (the status is left alone).
    ComputedNegated,
    /// A `declined`, `cancelled` or `invalid_*` outcome becomes
    /// `{"status":"calculated","computed":true,"value":N}`, N the product of the
    /// case's content read loosely (`"3"`, `3.0`, `true` as numbers), else 21.
    RefusalToCalculated,
    /// A `calculated` outcome becomes `{"status":"declined","computed":false}`.
    CalculatedToDeclined,
    /// An integer `value` grows by one.
    ValuePlusOne,
    /// An integer `value` shrinks by one.
    ValueMinusOne,
    /// The outcome's last key is removed.
    KeyRemoved,
    /// A key the contract does not name ([`EXTRA_KEY`]) is added to the outcome.
    KeyAdded,
    /// The first error path names another field (`units` ↔ `unit_value`, anything
    /// else → `units`; the root path `[]` → `["units"]`).
    ErrorPathChanged,
    /// A non-empty `errors` list becomes `[]`.
    ErrorsEmptied,
    /// Only the text of `content[0]` drifts (`computed` as `0`/`1`); `structuredContent` stays right.
    TextOnlyDrift,
    /// The completion of `tools/call` (carrying the expected outcome) is sent before
    /// the `elicitation/create`; the real completion is dropped.
    CompletionBeforeAnswer,
    /// A copy of the `elicitation/create` with a fresh id follows the real one.
    SecondElicitation,
    /// The `elicitation/create` id changes, so the server never receives its answer.
    ElicitationIdChanged,
    /// A line that is not JSON is written to stdout before the completion.
    NonJsonLine,
    /// The completion of `tools/call` says `isError: true` (its outcome unchanged).
    IsErrorSet,
    /// A JSON line that is not a JSON-RPC message ([`JSON_LOG_LINE`]) is written to
    /// stdout before the completion.
    JsonLogLine,
    /// The `content` a `raw_response` echoes drifts: its first integer member grows
    /// by one, else [`EXTRA_KEY`] is added (an object) or it is wrapped in an array.
    ContentEchoDrift,
    /// A `protocol_error` `code` shrinks by one (`-32602` → `-32603`).
    ErrorCodeChanged,
    /// The `error` of a `protocol_error` or `invalid_response` gets [`ERROR_SUFFIX`].
    ErrorMessageChanged,
    /// The `requestedSchema` of the `elicitation/create` drifts: `units` `maximum`
    /// 10 → 11.
    RequestedSchemaDrift,
    /// The `mode` of the `elicitation/create` becomes `"url"`.
    ModeChanged,
    /// The `initialize` result's `protocolVersion` becomes [`DRIFTED_PROTOCOL`].
    InitializeProtocolDrift,
}

/// Whether a tap actually rewrote something in its session. Shared with the tap.
#[derive(Debug, Clone, Default)]
pub struct Applied(Arc<AtomicBool>);

impl Applied {
    /// True once the tap has changed, added or dropped a frame.
    pub fn get(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl WireMutation {
    /// Every mutation, in declaration order.
    pub const ALL: [WireMutation; 26] = [
        WireMutation::ComputedTrueAsOne,
        WireMutation::ComputedFalseAsZero,
        WireMutation::ValueAsFloat,
        WireMutation::RequestedFalseAsZero,
        WireMutation::ComputedNegated,
        WireMutation::RefusalToCalculated,
        WireMutation::CalculatedToDeclined,
        WireMutation::ValuePlusOne,
        WireMutation::ValueMinusOne,
        WireMutation::KeyRemoved,
        WireMutation::KeyAdded,
        WireMutation::ErrorPathChanged,
        WireMutation::ErrorsEmptied,
        WireMutation::TextOnlyDrift,
        WireMutation::CompletionBeforeAnswer,
        WireMutation::SecondElicitation,
        WireMutation::ElicitationIdChanged,
        WireMutation::NonJsonLine,
        WireMutation::IsErrorSet,
        WireMutation::JsonLogLine,
        WireMutation::ContentEchoDrift,
        WireMutation::ErrorCodeChanged,
        WireMutation::ErrorMessageChanged,
        WireMutation::RequestedSchemaDrift,
        WireMutation::ModeChanged,
        WireMutation::InitializeProtocolDrift,
    ];

    /// A stable snake_case name, for reports and test output.
    pub fn name(self) -> &'static str {
        match self {
            WireMutation::ComputedTrueAsOne => "computed_true_as_one",
            WireMutation::ComputedFalseAsZero => "computed_false_as_zero",
            WireMutation::ValueAsFloat => "value_as_float",
            WireMutation::RequestedFalseAsZero => "requested_false_as_zero",
            WireMutation::ComputedNegated => "computed_negated",
            WireMutation::RefusalToCalculated => "refusal_to_calculated",
            WireMutation::CalculatedToDeclined => "calculated_to_declined",
            WireMutation::ValuePlusOne => "value_plus_one",
            WireMutation::ValueMinusOne => "value_minus_one",
            WireMutation::KeyRemoved => "key_removed",
            WireMutation::KeyAdded => "key_added",
            WireMutation::ErrorPathChanged => "error_path_changed",
            WireMutation::ErrorsEmptied => "errors_emptied",
            WireMutation::TextOnlyDrift => "text_only_drift",
            WireMutation::CompletionBeforeAnswer => "completion_before_answer",
            WireMutation::SecondElicitation => "second_elicitation",
            WireMutation::ElicitationIdChanged => "elicitation_id_changed",
            WireMutation::NonJsonLine => "non_json_line",
            WireMutation::IsErrorSet => "is_error_set",
            WireMutation::JsonLogLine => "json_log_line",
            WireMutation::ContentEchoDrift => "content_echo_drift",
            WireMutation::ErrorCodeChanged => "error_code_changed",
            WireMutation::ErrorMessageChanged => "error_message_changed",
            WireMutation::RequestedSchemaDrift => "requested_schema_drift",
            WireMutation::ModeChanged => "mode_changed",
            WireMutation::InitializeProtocolDrift => "initialize_protocol_drift",
        }
    }

    /// The kind of lie this mutation tells.
    pub fn family(self) -> Family {
        match self {
            WireMutation::ComputedTrueAsOne
            | WireMutation::ComputedFalseAsZero
            | WireMutation::ValueAsFloat
            | WireMutation::RequestedFalseAsZero => Family::BoolIntDrift,
            WireMutation::ComputedNegated
            | WireMutation::RefusalToCalculated
            | WireMutation::CalculatedToDeclined => Family::BranchFlip,
            WireMutation::ValuePlusOne
            | WireMutation::ValueMinusOne
            | WireMutation::KeyRemoved
            | WireMutation::KeyAdded
            | WireMutation::ErrorPathChanged
            | WireMutation::ErrorsEmptied
            | WireMutation::TextOnlyDrift
            | WireMutation::ContentEchoDrift
            | WireMutation::ErrorCodeChanged
            | WireMutation::ErrorMessageChanged => Family::ValueDrift,
            WireMutation::CompletionBeforeAnswer
            | WireMutation::SecondElicitation
            | WireMutation::ElicitationIdChanged
            | WireMutation::NonJsonLine
            | WireMutation::IsErrorSet
            | WireMutation::JsonLogLine
            | WireMutation::RequestedSchemaDrift
            | WireMutation::ModeChanged
            | WireMutation::InitializeProtocolDrift => Family::ProtocolDrift,
        }
    }

    /// The session bounds to run this mutation with. A misaddressed elicitation
    /// leaves the server waiting for an answer that never comes: the call times
    /// out (2 s here), and after stdin closes an rmcp server still waits up to
    /// 5 s for the stuck handler, so the grace is short (1 s) and the server is
    /// killed. Every other mutation keeps the defaults.
    pub fn limits(self) -> Limits {
        match self {
            WireMutation::ElicitationIdChanged => Limits {
                call: Duration::from_secs(2),
                shutdown: Duration::from_secs(1),
                ..Limits::default()
            },
            _ => Limits::default(),
        }
    }

    /// A tap applying this mutation to a session of `case`, whose contract
    /// outcome is `expected`, and the flag it raises when it applies.
    pub fn tap(self, case: &Case, expected: &Value) -> (ServerTap, Applied) {
        let applied = Applied::default();
        let flag = applied.clone();
        let product = loose_product(case);
        let expected = expected.clone();
        // The id of the real completion to drop (CompletionBeforeAnswer only).
        let mut dropped_completion: Option<Value> = None;
        let tap: ServerTap = Box::new(move |message: Value, recording: &Recording| {
            let call_id = pending_call_id(recording);
            let is_completion = message.get("method").is_none()
                && call_id.is_some()
                && message.get("id") == call_id.as_ref();
            let is_elicitation = message.get("method").and_then(Value::as_str)
                == Some("elicitation/create")
                && message.get("id").is_some();
            match self {
                WireMutation::CompletionBeforeAnswer => {
                    if is_completion && dropped_completion.as_ref() == message.get("id") {
                        return Vec::new();
                    }
                    match (is_elicitation, dropped_completion.is_none(), call_id) {
                        (true, true, Some(id)) => {
                            flag.set();
                            let early = completion(&id, &expected);
                            dropped_completion = Some(id);
                            vec![TapLine::Frame(early), TapLine::Frame(message)]
                        }
                        _ => vec![TapLine::Frame(message)],
                    }
                }
                WireMutation::SecondElicitation if is_elicitation => {
                    let mut copy = message.clone();
                    match fresh_id(&message["id"]) {
                        Some(id) => {
                            copy["id"] = id;
                            flag.set();
                            vec![TapLine::Frame(message), TapLine::Frame(copy)]
                        }
                        None => vec![TapLine::Frame(message)],
                    }
                }
                WireMutation::ElicitationIdChanged if is_elicitation => {
                    let mut message = message;
                    if let Some(id) = fresh_id(&message["id"]) {
                        message["id"] = id;
                        flag.set();
                    }
                    vec![TapLine::Frame(message)]
                }
                WireMutation::NonJsonLine if is_completion => {
                    flag.set();
                    vec![
                        TapLine::Raw(NON_JSON_LINE.to_owned()),
                        TapLine::Frame(message),
                    ]
                }
                WireMutation::JsonLogLine if is_completion => {
                    flag.set();
                    vec![
                        TapLine::Raw(JSON_LOG_LINE.to_owned()),
                        TapLine::Frame(message),
                    ]
                }
                WireMutation::IsErrorSet if is_completion => {
                    let mut message = message;
                    if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
                        result.insert("isError".into(), Value::Bool(true));
                        flag.set();
                    }
                    vec![TapLine::Frame(message)]
                }
                WireMutation::RequestedSchemaDrift if is_elicitation => {
                    let mut message = message;
                    let maximum =
                        message.pointer_mut("/params/requestedSchema/properties/units/maximum");
                    if let Some(maximum) = maximum.filter(|maximum| maximum.is_i64()) {
                        *maximum = json!(maximum.as_i64().unwrap_or_default() + 1);
                        flag.set();
                    }
                    vec![TapLine::Frame(message)]
                }
                WireMutation::ModeChanged if is_elicitation => {
                    let mut message = message;
                    if let Some(params) = message.get_mut("params").and_then(Value::as_object_mut) {
                        params.insert("mode".into(), json!("url"));
                        flag.set();
                    }
                    vec![TapLine::Frame(message)]
                }
                WireMutation::InitializeProtocolDrift => {
                    let mut message = message;
                    let version = message.pointer_mut("/result/protocolVersion");
                    if let Some(version) = version.filter(|version| version.is_string()) {
                        *version = json!(DRIFTED_PROTOCOL);
                        flag.set();
                    }
                    vec![TapLine::Frame(message)]
                }
                WireMutation::TextOnlyDrift if is_completion => {
                    let mut message = message;
                    if drift_text_only(&mut message) {
                        flag.set();
                    }
                    vec![TapLine::Frame(message)]
                }
                _ if is_completion => {
                    let mut message = message;
                    if self.rewrite_completion(&mut message, product) {
                        flag.set();
                    }
                    vec![TapLine::Frame(message)]
                }
                _ => vec![TapLine::Frame(message)],
            }
        });
        (tap, applied)
    }

    /// Rewrites the outcome of a completion frame in both `structuredContent` and
    /// `content[0].text`; false when the mutation does not apply to it.
    fn rewrite_completion(self, message: &mut Value, product: i64) -> bool {
        let Some(Value::Object(outcome)) = message.pointer("/result/structuredContent") else {
            return false;
        };
        let mut outcome = outcome.clone();
        if !self.rewrite_outcome(&mut outcome, product) {
            return false;
        }
        let outcome = Value::Object(outcome);
        let text = outcome.to_string();
        message["result"]["structuredContent"] = outcome;
        if let Some(Value::Object(block)) = message.pointer_mut("/result/content/0") {
            block.insert("text".into(), Value::String(text));
        }
        true
    }

    /// Applies an outcome-level mutation; false when it has nothing to change.
    fn rewrite_outcome(self, outcome: &mut Map<String, Value>, product: i64) -> bool {
        let status = outcome
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let status = status.as_str();
        match self {
            WireMutation::ComputedTrueAsOne => {
                replace_if(outcome, "computed", &json!(true), json!(1))
            }
            WireMutation::ComputedFalseAsZero => {
                replace_if(outcome, "computed", &json!(false), json!(0))
            }
            WireMutation::RequestedFalseAsZero => {
                replace_if(outcome, "requested", &json!(false), json!(0))
            }
            WireMutation::ValueAsFloat => match integer(outcome, "value") {
                // `as f64` is exact for every value this contract produces (≤ 1000).
                Some(value) => set(outcome, "value", json!(value as f64)),
                None => false,
            },
            WireMutation::ComputedNegated => match outcome.get("computed").and_then(Value::as_bool)
            {
                Some(computed) => set(outcome, "computed", json!(!computed)),
                None => false,
            },
            WireMutation::RefusalToCalculated => {
                let refused =
                    matches!(status, "declined" | "cancelled") || status.starts_with("invalid_");
                if refused {
                    *outcome =
                        object(json!({"status": "calculated", "computed": true, "value": product}));
                }
                refused
            }
            WireMutation::CalculatedToDeclined => {
                let calculated = status == "calculated";
                if calculated {
                    *outcome = object(json!({"status": "declined", "computed": false}));
                }
                calculated
            }
            WireMutation::ValuePlusOne => match integer(outcome, "value") {
                Some(value) => set(outcome, "value", json!(value.wrapping_add(1))),
                None => false,
            },
            WireMutation::ValueMinusOne => match integer(outcome, "value") {
                Some(value) => set(outcome, "value", json!(value.wrapping_sub(1))),
                None => false,
            },
            WireMutation::KeyRemoved => match outcome.keys().next_back().cloned() {
                Some(last) => {
                    outcome.retain(|key, _| *key != last);
                    true
                }
                None => false,
            },
            WireMutation::KeyAdded => {
                let (key, value) = EXTRA_KEY;
                !outcome.contains_key(key) && set(outcome, key, json!(value))
            }
            WireMutation::ErrorPathChanged => {
                let first = outcome
                    .get_mut("errors")
                    .and_then(|errors| errors.pointer_mut("/0"));
                let Some(Value::Array(path)) = first else {
                    return false;
                };
                match path.first_mut() {
                    Some(Value::String(field)) => {
                        *field = match field.as_str() {
                            "units" => "unit_value",
                            _ => "units",
                        }
                        .to_owned();
                    }
                    // The root path `[]` (content not an object) becomes `["units"]`.
                    None => path.push(json!("units")),
                    Some(_) => return false,
                }
                true
            }
            WireMutation::ErrorsEmptied => match outcome.get_mut("errors") {
                Some(Value::Array(errors)) if !errors.is_empty() => {
                    errors.clear();
                    true
                }
                _ => false,
            },
            WireMutation::ContentEchoDrift => match outcome.get_mut("content") {
                Some(content) if status == "raw_response" => {
                    drift_content(content);
                    true
                }
                _ => false,
            },
            WireMutation::ErrorCodeChanged => match integer(outcome, "code") {
                Some(code) if status == "protocol_error" => {
                    set(outcome, "code", json!(code.wrapping_sub(1)))
                }
                _ => false,
            },
            WireMutation::ErrorMessageChanged => match outcome.get_mut("error") {
                Some(Value::String(error)) => {
                    error.push_str(ERROR_SUFFIX);
                    true
                }
                _ => false,
            },
            WireMutation::TextOnlyDrift
            | WireMutation::CompletionBeforeAnswer
            | WireMutation::SecondElicitation
            | WireMutation::ElicitationIdChanged
            | WireMutation::NonJsonLine
            | WireMutation::IsErrorSet
            | WireMutation::JsonLogLine
            | WireMutation::RequestedSchemaDrift
            | WireMutation::ModeChanged
            | WireMutation::InitializeProtocolDrift => false,
        }
    }
}

/// The id of the `tools/call` the client sent last, if any.
fn pending_call_id(recording: &Recording) -> Option<Value> {
    recording
        .wire
        .iter()
        .rev()
        .find(|frame| {
            frame.from == Side::Client
                && frame.message.get("method").and_then(Value::as_str) == Some("tools/call")
        })
        .and_then(|frame| frame.message.get("id").cloned())
}

/// A completion of `tools/call` `id` carrying `outcome`, shaped like the reference
/// server's (structured and text agree).
fn completion(id: &Value, outcome: &Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {
            "content": [{"type": "text", "text": outcome.to_string()}],
            "structuredContent": outcome,
            "isError": false
        }
    })
}

/// An id the server has not used: an integer id plus [`FRESH_ID_OFFSET`], a string
/// id with a suffix.
fn fresh_id(id: &Value) -> Option<Value> {
    match id {
        Value::Number(number) => number
            .as_i64()
            .and_then(|n| n.checked_add(FRESH_ID_OFFSET))
            .map(Value::from),
        Value::String(text) => Some(Value::String(format!("{text}-wire-mutant"))),
        _ => None,
    }
}

/// Makes the text of `content[0]` say `computed` as a number; `structuredContent`
/// is left as it was.
fn drift_text_only(message: &mut Value) -> bool {
    let Some(Value::String(text)) = message.pointer_mut("/result/content/0/text") else {
        return false;
    };
    let Ok(Value::Object(mut outcome)) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let Some(computed) = outcome.get("computed").and_then(Value::as_bool) else {
        return false;
    };
    outcome.insert("computed".into(), json!(u8::from(computed)));
    *text = Value::Object(outcome).to_string();
    true
}

/// Changes echoed content: the first integer member of an object grows by one,
/// else [`EXTRA_KEY`] is added; anything that is not an object is wrapped in an array.
fn drift_content(content: &mut Value) {
    match content {
        Value::Object(members) => {
            let first_integer = members.values_mut().find(|value| value.is_i64());
            match first_integer {
                Some(value) => *value = json!(value.as_i64().unwrap_or_default().wrapping_add(1)),
                None => {
                    let (key, value) = EXTRA_KEY;
                    members.insert(key.to_owned(), json!(value));
                }
            }
        }
        other => *other = Value::Array(vec![other.take()]),
    }
}

/// units × unit_value of the case's accept content read the way a lax server
/// would (`"3"`, `3.0` and `true` as numbers); 21 when there is no such pair.
fn loose_product(case: &Case) -> i64 {
    let content = match &case.answer {
        Some(Answer::Result(result)) => result.get("content"),
        _ => None,
    };
    let factor = |key: &str| {
        content
            .and_then(|content| content.get(key))
            .and_then(loose_number)
    };
    match (factor("units"), factor("unit_value")) {
        (Some(units), Some(unit_value)) => {
            let product = units * unit_value;
            // Saturating float → int cast: exact for the small products of the contract.
            if product.fract() == 0.0 {
                product as i64
            } else {
                21
            }
        }
        _ => 21,
    }
}

/// A JSON value as a lax language reads a number.
fn loose_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) => number.as_f64(),
        Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn integer(outcome: &Map<String, Value>, key: &str) -> Option<i64> {
    outcome
        .get(key)
        .filter(|v| v.is_i64())
        .and_then(Value::as_i64)
}

fn set(outcome: &mut Map<String, Value>, key: &str, value: Value) -> bool {
    outcome.insert(key.to_owned(), value);
    true
}

fn replace_if(outcome: &mut Map<String, Value>, key: &str, from: &Value, to: Value) -> bool {
    if outcome.get(key) == Some(from) {
        set(outcome, key, to)
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_snake_case() {
        let mut names: Vec<&str> = WireMutation::ALL.iter().map(|m| m.name()).collect();
        assert!(
            names
                .iter()
                .all(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), WireMutation::ALL.len());
    }

    #[test]
    fn outcome_rewrites_keep_text_and_structured_content_in_step() {
        let mut message = completion(
            &json!(2),
            &json!({"status": "calculated", "computed": true, "value": 21}),
        );
        assert!(WireMutation::ValueAsFloat.rewrite_completion(&mut message, 21));
        assert_eq!(
            message["result"]["structuredContent"],
            json!({"status": "calculated", "computed": true, "value": 21.0})
        );
        assert_eq!(
            message["result"]["content"][0]["text"],
            json!(r#"{"status":"calculated","computed":true,"value":21.0}"#)
        );
    }

    #[test]
    fn a_mutation_with_nothing_to_change_does_not_apply() {
        let mut message = completion(&json!(2), &json!({"status": "declined", "computed": false}));
        let before = message.clone();
        for mutation in [
            WireMutation::ComputedTrueAsOne,
            WireMutation::ValueAsFloat,
            WireMutation::CalculatedToDeclined,
            WireMutation::ErrorsEmptied,
        ] {
            assert!(
                !mutation.rewrite_completion(&mut message, 21),
                "{}",
                mutation.name()
            );
        }
        assert_eq!(message, before);
    }

    #[test]
    fn loose_product_reads_content_like_a_lax_server() {
        let case = |content: Value| Case {
            name: "c".into(),
            policy: "validated".into(),
            capabilities: json!({}),
            answer: Some(Answer::Result(
                json!({"action": "accept", "content": content}),
            )),
            answer_text: None,
        };
        assert_eq!(
            loose_product(&case(json!({"units": "3", "unit_value": 7}))),
            21
        );
        assert_eq!(
            loose_product(&case(json!({"units": 11, "unit_value": 7}))),
            77
        );
        assert_eq!(
            loose_product(&case(json!({"units": true, "unit_value": 7}))),
            7
        );
        assert_eq!(loose_product(&case(json!({"units": 3}))), 21);
    }
}
