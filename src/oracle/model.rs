//! The reference model: the contract as a table of rules over raw JSON.
//!
//! This is one of the two oracles. It reads a [`Case`] as plain JSON and walks the
//! `calculate` contract (docs/src/contract.md, its table) rule by rule, top to
//! bottom. It shares no code with the server core nor with the "by construction"
//! oracle in `crate::strategy`; only `serde_json` is common to all three.
//!
//! Each helper below names the contract line it implements:
//! 1. form support from the declared capabilities,
//! 2. what the server receives when it asks,
//! 3. whether the server asks,
//! 4. classification of what came back,
//! 5. validation of accepted content.

use serde_json::{Map, Value, json};

use crate::case::{Answer, Case};

/// The message the harness client sends with `-32602` when form was not declared
/// (contract rule 2).
const NOT_DECLARED_MESSAGE: &str = "elicitation mode not declared: form";

/// The JSON-RPC code for "invalid params" (contract rule 2).
const INVALID_PARAMS: i64 = -32602;

/// The outcome the contract requires for `case`: one JSON object with exactly the
/// keys below, `computed` always a JSON boolean (source: docs/src/contract.md, the
/// table of C1 to C19 and "Statuses").
///
/// | status             | other keys                                   |
/// |--------------------|----------------------------------------------|
/// | `unsupported`      | `"requested": false`                         |
/// | `protocol_error`   | `"code": C, "error": M`                      |
/// | `invalid_response` | `"error": "malformed elicitation result"` or `"accept response has no content"` |
/// | `raw_response`     | `"action": A` and, unless absent or null, `"content": C` |
/// | `declined`         | none                                         |
/// | `cancelled`        | none                                         |
/// | `invalid_content`  | `"errors": [[path], ...]` (`[]` is the root) |
/// | `calculated`       | `"computed": true, "value": units * unit_value` |
///
/// Every outcome also has `"status"` first and `"computed"` second.
///
/// # Panics
/// When `case.policy` is none of `validated`, `raw`, `diagnostic_unchecked`: the
/// contract says nothing about other policies, so the model has no expectation.
pub fn expected_outcome(case: &Case) -> Value {
    let policy = case.policy.as_str();
    assert!(
        matches!(policy, "validated" | "raw" | "diagnostic_unchecked"),
        "policy {policy:?} is outside the contract"
    );

    // Rule 1: does the client declare form elicitation?
    let supported = form_supported(&case.capabilities);

    // Rule 3: `validated` and `raw` ask only when form is supported;
    // `diagnostic_unchecked` always asks.
    if !supported && policy != "diagnostic_unchecked" {
        return json!({"status": "unsupported", "computed": false, "requested": false});
    }

    // Rule 2: what the server receives when it asks.
    match received(case, supported) {
        // Rule 4, error object: protocol_error under any policy.
        Received::Error(error) => protocol_error(&error),
        // Rule 4, result: classify it.
        Received::Result(result) => classify_result(policy, &result),
    }
}

/// What comes back to the server's `elicitation/create` (rule 2).
enum Received {
    /// The `error` member of the response.
    Error(Value),
    /// The `result` member of the response.
    Result(Value),
}

/// Rule 1: `capabilities["elicitation"]` is an object AND (it has `form` OR it has
/// neither `form` nor `url`).
fn form_supported(capabilities: &Value) -> bool {
    let Some(elicitation) = capabilities.get("elicitation").and_then(Value::as_object) else {
        // `{}` (no `elicitation` key), or `elicitation` not an object.
        return false;
    };
    let has_form = elicitation.contains_key("form");
    let has_url = elicitation.contains_key("url");
    // `{"form":{}}` and `{"form":{},"url":{}}` declare form; `{}` is the legacy
    // form-only object; `{"url":{}}` declares url only.
    has_form || !has_url
}

/// Rule 2: if form is not supported the client answers `-32602` whatever the case
/// says; else no answer means `{"action":"cancel"}`; else the answer as is.
fn received(case: &Case, supported: bool) -> Received {
    if !supported {
        return Received::Error(json!({"code": INVALID_PARAMS, "message": NOT_DECLARED_MESSAGE}));
    }
    match &case.answer {
        None => Received::Result(json!({"action": "cancel"})),
        Some(Answer::Result(result)) => Received::Result(result.clone()),
        Some(Answer::Error(error)) => Received::Error(error.clone()),
    }
}

/// Rule 4, validity of an error object (JSON-RPC 2.0, section 5.1): `code` an
/// integer (no fraction, no exponent form that reads as a float) that fits 32
/// bits, as the reference server's SDK reads it, and `message` a string.
fn valid_error_object(error: &Value) -> bool {
    let code = error
        .get("code")
        .and_then(Value::as_i64)
        .is_some_and(|code| i32::try_from(code).is_ok());
    code && error.get("message").is_some_and(Value::is_string)
}

/// Rule 4, error object `{"code": C, "message": M}` →
/// `{"status":"protocol_error","computed":false,"code":C,"error":M}`; an error
/// member that is no JSON-RPC error object ([`valid_error_object`]: `{}`,
/// `null`, `{"code":"x"}`, no `message`) is no answer the server can read:
/// `invalid_response "malformed elicitation result"`, never a wait for an
/// answer that already came.
fn protocol_error(error: &Value) -> Value {
    if !valid_error_object(error) {
        return invalid_response("malformed elicitation result");
    }
    json!({"status": "protocol_error", "computed": false, "code": error["code"], "error": error["message"]})
}

/// Rule 4, result: a valid result is an object whose `action` is exactly
/// `"accept"`, `"decline"` or `"cancel"`; anything else is malformed under any
/// policy. A valid result then goes to the policy's branch.
fn classify_result(policy: &str, result: &Value) -> Value {
    let Some((action, content)) = valid_elicit_result(result) else {
        return invalid_response("malformed elicitation result");
    };
    match policy {
        // Rule 4: `raw` and `diagnostic_unchecked` report what came back, never compute.
        "raw" | "diagnostic_unchecked" => raw_response(action, content),
        // Rule 4: `validated`.
        _ => validated(action, content),
    }
}

/// Rule 4, validity of a result: `Some((action, content))` when `result` is an
/// object whose `action` is one of the three strings (case-sensitive) and whose
/// `_meta`, if present and not `null`, is an object; `content` is `None` when
/// absent or `null`. Every other member is ignored: MCP 2025-11-25 lets a result
/// carry `_meta` (an object) and members its schema does not name (`roots`,
/// unknown keys), so they neither break the result nor change the outcome.
fn valid_elicit_result(result: &Value) -> Option<(&str, Option<&Value>)> {
    let object = result.as_object()?;
    let action = object.get("action")?.as_str()?;
    if !matches!(action, "accept" | "decline" | "cancel") {
        return None;
    }
    if object
        .get("_meta")
        .is_some_and(|meta| !meta.is_null() && !meta.is_object())
    {
        return None;
    }
    // `content: null` counts as absent.
    let content = object.get("content").filter(|content| !content.is_null());
    Some((action, content))
}

/// Rule 4, raw policies: `{"status":"raw_response","computed":false,"action":A,"content":C}`
/// with `content` omitted when absent or null.
fn raw_response(action: &str, content: Option<&Value>) -> Value {
    let mut outcome = json!({"status": "raw_response", "computed": false, "action": action});
    if let Some(content) = content {
        outcome["content"] = content.clone();
    }
    outcome
}

/// Rule 4, policy `validated`: decline and cancel ignore any content; accept needs
/// content, which is then validated (rule 5).
fn validated(action: &str, content: Option<&Value>) -> Value {
    match (action, content) {
        ("decline", _) => json!({"status": "declined", "computed": false}),
        ("cancel", _) => json!({"status": "cancelled", "computed": false}),
        (_, None) => invalid_response("accept response has no content"),
        (_, Some(content)) => validate_content(content),
    }
}

/// `{"status":"invalid_response","computed":false,"error":error}` (rule 4).
fn invalid_response(error: &str) -> Value {
    json!({"status": "invalid_response", "computed": false, "error": error})
}

/// Rule 5: validate accepted content against the form (`units` 1..=10, then
/// `unit_value` 1..=100, then extra keys sorted), and compute when there is no error.
fn validate_content(content: &Value) -> Value {
    // Rule 5: content that is not an object is one error at the root path `[]`.
    let Some(object) = content.as_object() else {
        return invalid_content(vec![json!([])]);
    };

    let mut errors = Vec::new();

    // Rule 5: `units` first, then `unit_value` (schema order).
    let units = required_integer(object, "units", 1, 10);
    if units.is_none() {
        errors.push(json!(["units"]));
    }
    let unit_value = required_integer(object, "unit_value", 1, 100);
    if unit_value.is_none() {
        errors.push(json!(["unit_value"]));
    }

    // Rule 5: then every other key, in Rust `String` order.
    let mut extra_keys: Vec<&String> = object
        .keys()
        .filter(|key| key.as_str() != "units" && key.as_str() != "unit_value")
        .collect();
    extra_keys.sort();
    for key in extra_keys {
        errors.push(json!([key]));
    }

    match (units, unit_value) {
        (Some(units), Some(unit_value)) if errors.is_empty() => {
            json!({"status": "calculated", "computed": true, "value": units * unit_value})
        }
        _ => invalid_content(errors),
    }
}

/// Rule 5, one field: `Some(n)` when `object[name]` is a JSON integer that fits
/// i64 (no fraction, no exponent: `Number::as_i64`) and lies in `min..=max`;
/// `None` when missing, of another type or out of range.
fn required_integer(object: &Map<String, Value>, name: &str, min: i64, max: i64) -> Option<i64> {
    let number = match object.get(name) {
        Some(Value::Number(number)) => number.as_i64()?,
        _ => return None,
    };
    if number < min || number > max {
        return None;
    }
    Some(number)
}

/// `{"status":"invalid_content","computed":false,"errors":errors}` (rule 5).
fn invalid_content(errors: Vec<Value>) -> Value {
    json!({"status": "invalid_content", "computed": false, "errors": errors})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A validated case with form declared and `result` as the answer.
    fn accept_case(policy: &str, result: Value) -> Case {
        Case {
            name: "hand".to_owned(),
            policy: policy.to_owned(),
            capabilities: json!({"elicitation": {"form": {}}}),
            answer: Some(Answer::Result(result)),
            answer_text: None,
        }
    }

    /// Content `text` (parsed, so `-0` and `3.0` stay floats) accepted under `validated`.
    fn accept_text(text: &str) -> Case {
        let content: Value = serde_json::from_str(text).expect("test JSON");
        accept_case("validated", json!({"action": "accept", "content": content}))
    }

    /// Asserts equal values and equal serialized text (so `1` and `1.0` differ).
    fn assert_outcome(case: &Case, expected: &Value) {
        let actual = expected_outcome(case);
        assert_eq!(&actual, expected, "case {}", case.name);
        assert_eq!(
            actual.to_string(),
            expected.to_string(),
            "case {}",
            case.name
        );
    }

    #[test]
    fn extra_result_members_are_ignored_and_meta_must_be_an_object() {
        let content = json!({"units": 3, "unit_value": 7});
        let calculated = json!({"status": "calculated", "computed": true, "value": 21});
        // docs/src/contract.md: this exact answer is `calculated`, 21.
        assert_outcome(
            &accept_case(
                "validated",
                json!({"action": "accept", "content": content, "roots": []}),
            ),
            &calculated,
        );
        assert_outcome(
            &accept_case(
                "validated",
                json!({"_meta": {"k": [1]}, "action": "accept", "note": 1, "content": content}),
            ),
            &calculated,
        );
        assert_outcome(
            &accept_case(
                "validated",
                json!({"action": "accept", "content": content, "_meta": null}),
            ),
            &calculated,
        );
        assert_outcome(
            &accept_case(
                "raw",
                json!({"action": "decline", "roots": [{"uri": "file:///"}]}),
            ),
            &json!({"status": "raw_response", "computed": false, "action": "decline"}),
        );
        for meta in [json!(5), json!("m"), json!([]), json!(true)] {
            assert_outcome(
                &accept_case(
                    "validated",
                    json!({"action": "accept", "content": content, "_meta": meta}),
                ),
                &json!({"status": "invalid_response", "computed": false,
                        "error": "malformed elicitation result"}),
            );
        }
    }

    #[test]
    fn reproduces_every_contract_case() {
        let cases: Vec<Case> =
            serde_json::from_str(include_str!("../../fixtures/cases.json")).expect("cases.json");
        let expected: Map<String, Value> =
            serde_json::from_str(include_str!("../../expected/results.json"))
                .expect("results.json");
        assert_eq!(cases.len(), 19, "the contract has 19 cases");
        assert_eq!(expected.len(), cases.len(), "one expected outcome per case");
        for case in &cases {
            let want = expected
                .get(&case.name)
                .unwrap_or_else(|| panic!("no expected outcome for {}", case.name));
            assert_eq!(&expected_outcome(case), want, "case {}", case.name);
        }
    }

    #[test]
    fn u64_above_i64_max_is_an_error() {
        let case = accept_text(r#"{"units": 18446744073709551615, "unit_value": 7}"#);
        assert_outcome(
            &case,
            &json!({"status": "invalid_content", "computed": false, "errors": [["units"]]}),
        );
        let case = accept_text(r#"{"units": 3, "unit_value": 9223372036854775808}"#);
        assert_outcome(
            &case,
            &json!({"status": "invalid_content", "computed": false, "errors": [["unit_value"]]}),
        );
    }

    #[test]
    fn beyond_u64_is_an_error() {
        let case = accept_text(r#"{"units": 18446744073709551616, "unit_value": 7}"#);
        assert_outcome(
            &case,
            &json!({"status": "invalid_content", "computed": false, "errors": [["units"]]}),
        );
    }

    #[test]
    fn negative_zero_and_exponent_are_not_integers() {
        for units in ["-0", "3e0", "3.0", "2.5"] {
            let case = accept_text(&format!(r#"{{"units": {units}, "unit_value": 7}}"#));
            assert_outcome(
                &case,
                &json!({"status": "invalid_content", "computed": false, "errors": [["units"]]}),
            );
        }
    }

    #[test]
    fn boundaries_compute() {
        let case = accept_text(r#"{"units": 10, "unit_value": 100}"#);
        assert_outcome(
            &case,
            &json!({"status": "calculated", "computed": true, "value": 1000}),
        );
        let case = accept_text(r#"{"units": 1, "unit_value": 1}"#);
        assert_outcome(
            &case,
            &json!({"status": "calculated", "computed": true, "value": 1}),
        );
    }

    #[test]
    fn out_of_range_extremes_are_errors() {
        let case = accept_text(&format!(
            r#"{{"units": {}, "unit_value": {}}}"#,
            i64::MIN,
            i64::MAX
        ));
        assert_outcome(
            &case,
            &json!({"status": "invalid_content", "computed": false,
                    "errors": [["units"], ["unit_value"]]}),
        );
    }

    #[test]
    fn non_object_content_is_a_root_error() {
        for content in ["[]", "[3, 7]", "\"3\"", "21", "true"] {
            let case = accept_text(content);
            assert_outcome(
                &case,
                &json!({"status": "invalid_content", "computed": false, "errors": [[]]}),
            );
        }
    }

    #[test]
    fn null_content_is_absent() {
        let case = accept_case("validated", json!({"action": "accept", "content": null}));
        assert_outcome(
            &case,
            &json!({"status": "invalid_response", "computed": false,
                    "error": "accept response has no content"}),
        );
        let case = accept_case("raw", json!({"action": "accept", "content": null}));
        assert_outcome(
            &case,
            &json!({"status": "raw_response", "computed": false, "action": "accept"}),
        );
    }

    #[test]
    fn extra_keys_come_after_fields_in_sorted_order() {
        let case = accept_text(
            r#"{"zeta": 1, "units": 0, "Units": 2, "ünits": 3, "unit-value": 4, "": 5}"#,
        );
        assert_outcome(
            &case,
            &json!({"status": "invalid_content", "computed": false,
                    "errors": [["units"], ["unit_value"], [""], ["Units"], ["unit-value"],
                               ["zeta"], ["ünits"]]}),
        );
    }

    #[test]
    fn form_and_url_declares_form() {
        let mut case = accept_text(r#"{"units": 3, "unit_value": 7}"#);
        case.capabilities = json!({"elicitation": {"form": {}, "url": {}}});
        assert_outcome(
            &case,
            &json!({"status": "calculated", "computed": true, "value": 21}),
        );
    }

    #[test]
    fn url_only_under_diagnostic_is_refused_by_the_client() {
        let mut case = accept_text(r#"{"units": 3, "unit_value": 7}"#);
        case.policy = "diagnostic_unchecked".to_owned();
        case.capabilities = json!({"elicitation": {"url": {}}});
        assert_outcome(
            &case,
            &json!({"status": "protocol_error", "computed": false, "code": -32602,
                    "error": "elicitation mode not declared: form"}),
        );
    }

    #[test]
    fn no_answer_with_form_is_a_cancel() {
        let mut case = accept_case("validated", json!(null));
        case.answer = None;
        assert_outcome(&case, &json!({"status": "cancelled", "computed": false}));
        case.policy = "raw".to_owned();
        assert_outcome(
            &case,
            &json!({"status": "raw_response", "computed": false, "action": "cancel"}),
        );
    }

    #[test]
    fn malformed_results_under_every_policy() {
        for policy in ["validated", "raw", "diagnostic_unchecked"] {
            for result in [
                json!({}),
                json!({"action": "reject"}),
                json!({"action": "Accept", "content": {"units": 3, "unit_value": 7}}),
                json!({"action": ""}),
                json!({"action": null}),
                json!({"action": 1}),
                json!({"action": ["accept"]}),
                json!({"content": {"units": 3, "unit_value": 7}}),
                json!(["accept"]),
                json!("accept"),
                json!(3),
            ] {
                let case = accept_case(policy, result);
                assert_outcome(
                    &case,
                    &json!({"status": "invalid_response", "computed": false,
                            "error": "malformed elicitation result"}),
                );
            }
        }
    }

    #[test]
    fn error_answer_is_a_protocol_error() {
        let mut case = accept_case("raw", json!(null));
        case.answer = Some(Answer::Error(json!({"code": -32603, "message": "boom"})));
        assert_outcome(
            &case,
            &json!({"status": "protocol_error", "computed": false, "code": -32603,
                    "error": "boom"}),
        );
    }

    /// An error member that is no JSON-RPC error object is no answer: malformed,
    /// under any policy; a 32-bit integer code and a string message are one
    /// (extra members such as `data` are allowed).
    #[test]
    fn an_error_that_is_no_json_rpc_error_object_is_a_malformed_result() {
        for error in [
            json!({}),
            json!(null),
            json!(5),
            json!({"code": -32603}),
            json!({"message": "boom"}),
            json!({"code": "x", "message": 1}),
            json!({"code": -32603, "message": 1}),
            json!({"code": -32603.0, "message": "boom"}),
            json!({"code": 2_147_483_648_i64, "message": "boom"}),
            json!({"code": -2_147_483_649_i64, "message": "boom"}),
        ] {
            for policy in ["validated", "raw"] {
                let mut case = accept_case(policy, json!(null));
                case.answer = Some(Answer::Error(error.clone()));
                assert_outcome(
                    &case,
                    &json!({"status": "invalid_response", "computed": false,
                            "error": "malformed elicitation result"}),
                );
            }
        }
        for code in [2_147_483_647_i64, -2_147_483_648_i64] {
            let mut case = accept_case("validated", json!(null));
            case.answer = Some(Answer::Error(
                json!({"code": code, "message": "m", "data": [1]}),
            ));
            assert_outcome(
                &case,
                &json!({"status": "protocol_error", "computed": false, "code": code, "error": "m"}),
            );
        }
    }

    #[test]
    fn raw_decline_reports_attached_content() {
        let case = accept_case("raw", json!({"action": "decline", "content": [1]}));
        assert_outcome(
            &case,
            &json!({"status": "raw_response", "computed": false, "action": "decline",
                    "content": [1]}),
        );
    }
}
