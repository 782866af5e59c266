//! The rules of judging a server's outcome by meaning (docs/src/contract.md, "Judging by meaning").
//!
//! A server written with another SDK computes the same things as the reference
//! server and refuses the same answers, but says so in its SDK's words. These
//! rules decide when a difference is one of detail; any other difference is a
//! failure. The reference server is never judged by them (`--exact-messages`).
//!
//! 1. **Free text is not judged**: the `error` message of `invalid_response`
//!    and `protocol_error` is the server's own sentence.
//! 2. **An answer that is no `ElicitResult` is refused, however it is named**:
//!    when the client's result is not an `ElicitResult` of MCP 2025-11-25
//!    ([`is_elicit_result`]), an SDK may reject it while parsing, before the
//!    tool sees it, and report that as `invalid_content`, naming the first part
//!    it could not parse; `invalid_content` and `invalid_response` are then one
//!    class (nothing computed, the refusal named, whatever it names), and stand
//!    for the `raw_response` echo too, which a server can only give for an
//!    answer its SDK parsed. Only `computed` is judged.
//! 3. **`errors` names every wrong field**: each location the contract names
//!    is equal to, or a prefix of, some reported location (pydantic names
//!    `["units"]` for the root of a non-object content `[]`, and one entry per
//!    union branch), and a location may be given relative to the `ElicitResult`
//!    (`["content", "units"]`) rather than to its content. Reported locations
//!    under no expected one are tolerated, and listed as a note.
//! 4. **`content: null` is no content** in a `raw_response` echo, as in the
//!    answer itself (the contract's model reads `content: null` as absent).

use serde_json::{Value, json};

use crate::case::{Answer, Case};
use crate::compare::{self, Mismatch};
use crate::oracle::failure::{Failure, OutcomeFailure};

/// What judging one outcome by meaning found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meaning {
    /// Every difference of meaning, its message naming the JSON path
    /// (`outcome $.status: "calculated" != "declined"`). Empty means the outcome
    /// holds.
    pub failures: Vec<Failure>,
    /// Differences of detail the rules tolerated, worth a reader's eye but not a
    /// failure (rule 3's extra locations; rule 2's other status).
    pub notes: Vec<String>,
}

/// Judges the server's `outcome` for `case` against the `expected` outcome by
/// the rules of this module. Both are `calculate` outcome objects (`status`,
/// `computed`, and the members of that status; the contract's model documents
/// them in `oracle::model::expected_outcome`).
pub fn judge(case: &Case, expected: &Value, outcome: &Value) -> Meaning {
    let (expected, outcome) = (without_free_text(expected), without_free_text(outcome));
    let (expected, outcome) = (
        without_null_content(&expected),
        without_null_content(&outcome),
    );
    let mut meaning = Meaning::default();
    let statuses = (status(&expected), status(&outcome));
    if let (Some(want), Some(got)) = statuses
        && refused_unparsed(case, want, got)
    {
        let (want_computed, got_computed) = (
            expected.get("computed").unwrap_or(&Value::Null),
            outcome.get("computed").unwrap_or(&Value::Null),
        );
        meaning.failures = outcome_mismatches(
            &json!({"computed": want_computed}),
            &json!({"computed": got_computed}),
        );
        if let Some(detail) = differs_in_detail(&expected, &outcome) {
            meaning.notes.push(format!(
                "the answer is no ElicitResult: the refusal {got:?} stands for {want:?} \
                 whatever it names ({detail}; an SDK may refuse it while parsing)"
            ));
        }
        return meaning;
    }
    if statuses == (Some("invalid_content"), Some("invalid_content")) {
        let (mut expected, mut outcome) = (expected, outcome);
        let want = expected.as_object_mut().and_then(|o| o.remove("errors"));
        let got = outcome.as_object_mut().and_then(|o| o.remove("errors"));
        meaning
            .failures
            .extend(outcome_mismatches(&expected, &outcome));
        match (want, got) {
            (Some(Value::Array(want)), Some(Value::Array(got))) => {
                errors_name_every_field(&want, &got, &mut meaning);
            }
            (want, got) => meaning.failures.extend(outcome_mismatches(
                &json!({"errors": want}),
                &json!({"errors": got}),
            )),
        }
        return meaning;
    }
    meaning.failures = outcome_mismatches(&expected, &outcome);
    meaning
}

/// The first difference between two outcomes beyond `computed`, as
/// `outcome $.path: detail`; `None` when they agree.
fn differs_in_detail(expected: &Value, outcome: &Value) -> Option<Failure> {
    compare::compare(expected, outcome)
        .into_iter()
        .find(|mismatch| mismatch.path != "$.computed")
        .map(outcome_mismatch)
}

/// `compare` of two outcomes, each mismatch as `outcome $.path: detail`.
fn outcome_mismatches(expected: &Value, outcome: &Value) -> Vec<Failure> {
    compare::compare(expected, outcome)
        .into_iter()
        .map(outcome_mismatch)
        .collect()
}

/// A difference of outcomes as a failure.
fn outcome_mismatch(mismatch: Mismatch) -> Failure {
    OutcomeFailure::Mismatch(mismatch).into()
}

/// The `status` member, when it is a string.
fn status(outcome: &Value) -> Option<&str> {
    outcome.get("status").and_then(Value::as_str)
}

/// Statuses whose `error` member is free text (rule 1).
const FREE_TEXT_STATUSES: [&str; 2] = ["invalid_response", "protocol_error"];

/// Rule 1: the outcome without the `error` member of a free-text status.
fn without_free_text(outcome: &Value) -> Value {
    let mut outcome = outcome.clone();
    if status(&outcome).is_some_and(|status| FREE_TEXT_STATUSES.contains(&status))
        && let Some(members) = outcome.as_object_mut()
    {
        members.remove("error");
    }
    outcome
}

/// Rule 4: a `raw_response` without a `content: null` member.
fn without_null_content(outcome: &Value) -> Value {
    let mut outcome = outcome.clone();
    if status(&outcome) == Some("raw_response")
        && let Some(members) = outcome.as_object_mut()
        && members.get("content") == Some(&Value::Null)
    {
        members.remove("content");
    }
    outcome
}

/// Rule 2: the case's answer is a result that is no `ElicitResult`, the
/// contract expects a refusal or an echo of it (`invalid_response`,
/// `invalid_content` or `raw_response`), and the server refused it
/// (`invalid_response` or `invalid_content`).
fn refused_unparsed(case: &Case, want: &str, got: &str) -> bool {
    let unparsed =
        matches!(&case.answer, Some(Answer::Result(result)) if !is_elicit_result(result));
    unparsed
        && matches!(
            want,
            "invalid_response" | "invalid_content" | "raw_response"
        )
        && matches!(got, "invalid_response" | "invalid_content")
}

/// Whether `result` is an `ElicitResult` of MCP 2025-11-25 (schema.ts,
/// `ElicitResult`): an object whose `action` is `"accept"`, `"decline"` or
/// `"cancel"`, whose `_meta`, when present, is an object, and whose `content`,
/// when present, is an object of strings, numbers, booleans and arrays of
/// strings. `null` stands for absent, as SDKs read it.
pub fn is_elicit_result(result: &Value) -> bool {
    let Some(result) = result.as_object() else {
        return false;
    };
    let action = result.get("action").and_then(Value::as_str);
    let meta = result.get("_meta").unwrap_or(&Value::Null);
    let content = result.get("content").unwrap_or(&Value::Null);
    let primitive = |value: &Value| match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        _ => false,
    };
    matches!(action, Some("accept" | "decline" | "cancel"))
        && (meta.is_null() || meta.is_object())
        && match content {
            Value::Null => true,
            Value::Object(fields) => fields.values().all(primitive),
            _ => false,
        }
}

/// Rule 3: every expected location of `want` is at or above some location of
/// `got`; a failure for each that is not, a note listing the reported
/// locations under none of them.
fn errors_name_every_field(want: &[Value], got: &[Value], meaning: &mut Meaning) {
    let mut covered = vec![false; got.len()];
    for location in want {
        let Some(location) = location.as_array() else {
            continue;
        };
        let mut named = false;
        for (index, reported) in got.iter().enumerate() {
            if reported
                .as_array()
                .is_some_and(|reported| names(location, reported))
            {
                covered[index] = true;
                named = true;
            }
        }
        if !named {
            meaning.failures.push(
                OutcomeFailure::Unnamed {
                    location: Value::Array(location.clone()),
                    reported: Value::Array(got.to_vec()),
                }
                .into(),
            );
        }
    }
    let extra: Vec<Value> = got
        .iter()
        .zip(covered)
        .filter(|(_, covered)| !covered)
        .map(|(reported, _)| reported.clone())
        .collect();
    if !extra.is_empty() {
        meaning.notes.push(format!(
            "errors also names {} (tolerated: the contract names {})",
            Value::Array(extra),
            Value::Array(want.to_vec())
        ));
    }
}

/// Whether the reported location is at or under the expected one, read from the
/// content (`["units", "int"]` under `["units"]`) or from the `ElicitResult`
/// (`["content", "units"]`).
fn names(expected: &[Value], reported: &[Value]) -> bool {
    let from_result = match reported.first() {
        Some(Value::String(first)) if first == "content" => Some(&reported[1..]),
        _ => None,
    };
    reported.starts_with(expected) || from_result.is_some_and(|rest| rest.starts_with(expected))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::oracle::model::expected_outcome;
    use crate::strategy::generated_case;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

        /// The rules agree with the contract's model: the model's outcome holds
        /// against itself with no note, and rule 2 (only `computed` judged) is
        /// safe, because the model computes nothing on an answer that is no
        /// `ElicitResult`.
        #[test]
        fn the_rules_agree_with_the_model(generated in generated_case()) {
            let model = expected_outcome(&generated.case);
            prop_assert_eq!(judge(&generated.case, &model, &model), Meaning::default());
            if let Some(Answer::Result(result)) = &generated.case.answer
                && !is_elicit_result(result)
            {
                prop_assert_eq!(&model["computed"], &Value::Bool(false), "{}", generated.reason);
            }
        }
    }

    fn case(policy: &str, result: Value) -> Case {
        Case {
            name: "hand".to_owned(),
            policy: policy.to_owned(),
            capabilities: json!({"elicitation": {"form": {}}}),
            answer: Some(Answer::Result(result)),
            answer_text: None,
        }
    }

    const MALFORMED: &str = "malformed elicitation result";

    #[test]
    fn an_elicit_result_is_what_mcp_2025_11_25_says() {
        for result in [
            json!({"action": "accept", "content": {"a": "x", "b": 1, "c": 2.5, "d": true, "e": ["x"]}}),
            json!({"action": "decline"}),
            json!({"action": "cancel", "content": null, "_meta": {"k": 1}}),
            json!({"action": "accept", "content": {}, "_meta": null, "extra": [1]}),
        ] {
            assert!(is_elicit_result(&result), "{result}");
        }
        for result in [
            json!(173),
            json!("accept"),
            json!({}),
            json!({"action": "reject"}),
            json!({"action": " accept"}),
            json!({"action": null}),
            json!({"action": "accept", "content": true}),
            json!({"action": "accept", "content": "u"}),
            json!({"action": "accept", "content": {"units": {"value": 3}}}),
            json!({"action": "accept", "content": {"units": null}}),
            json!({"action": "accept", "content": {"units": [1]}}),
            json!({"action": "accept", "content": {}, "_meta": 5}),
        ] {
            assert!(!is_elicit_result(&result), "{result}");
        }
    }

    #[test]
    fn a_refused_answer_that_is_no_elicit_result_holds_under_either_refusal() {
        let expected = json!({"status": "invalid_response", "computed": false, "error": MALFORMED});
        let refused =
            json!({"status": "invalid_content", "computed": false, "errors": [["action"]]});
        let meaning = judge(
            &case("validated", json!({"action": "reject"})),
            &expected,
            &refused,
        );
        assert_eq!(meaning.failures, Vec::<String>::new());
        assert_eq!(meaning.notes.len(), 1, "{:?}", meaning.notes);
        // The raw echo of an accept whose content is no object: the SDK refused it.
        let echo = json!({"status": "raw_response", "computed": false, "action": "accept", "content": "u"});
        let raw = case("raw", json!({"action": "accept", "content": "u"}));
        assert!(judge(&raw, &echo, &refused).failures.is_empty());
        let named = json!({"status": "invalid_response", "computed": false, "error": "bad"});
        assert!(judge(&raw, &echo, &named).failures.is_empty());
        // Refused for another field than the contract names: the SDK stopped at
        // the part of the result it could not parse.
        let nested = case(
            "validated",
            json!({"action": "accept", "content": {"units": 99, "unit_value": 3, "note": {"a": 1}}}),
        );
        let expected = json!({"status": "invalid_content", "computed": false, "errors": [["units"], ["note"]]});
        let parsed_first = json!({"status": "invalid_content", "computed": false, "errors": [["content", "note", "str"]]});
        let meaning = judge(&nested, &expected, &parsed_first);
        assert_eq!(meaning.failures, Vec::<String>::new());
        assert_eq!(
            meaning.notes,
            vec![
                "the answer is no ElicitResult: the refusal \"invalid_content\" stands for \
                 \"invalid_content\" whatever it names (outcome $.errors: length 1 != 2; an SDK \
                 may refuse it while parsing)"
            ]
        );
        // The same locations for a valid ElicitResult: `units` is not named.
        let flat = case(
            "validated",
            json!({"action": "accept", "content": {"units": 99, "unit_value": 3, "note": "a"}}),
        );
        assert_eq!(
            judge(&flat, &expected, &parsed_first).failures,
            vec![
                r#"outcome $.errors: no location at or under ["units"] (reported [["content","note","str"]])"#
            ]
        );
        // The same refusal in the same words is no note.
        assert!(judge(&nested, &expected, &expected).notes.is_empty());
    }

    #[test]
    fn the_refusal_rule_holds_only_for_answers_that_are_no_elicit_result() {
        let expected = json!({"status": "declined", "computed": false});
        let refused =
            json!({"status": "invalid_content", "computed": false, "errors": [["action"]]});
        // A valid decline is no malformed answer: invalid_content is wrong.
        let meaning = judge(
            &case("validated", json!({"action": "decline"})),
            &expected,
            &refused,
        );
        assert_eq!(
            meaning.failures.first().map(ToString::to_string).as_deref(),
            Some(r#"outcome $.status: "invalid_content" != "declined""#)
        );
        // The raw echo of a valid answer must stay an echo.
        let echo = json!({"status": "raw_response", "computed": false, "action": "decline"});
        let meaning = judge(&case("raw", json!({"action": "decline"})), &echo, &refused);
        assert!(!meaning.failures.is_empty());
        // Under the rule, the server must still refuse: computing fails.
        let expected = json!({"status": "invalid_response", "computed": false, "error": MALFORMED});
        let computed = json!({"status": "invalid_content", "computed": true, "errors": []});
        let meaning = judge(
            &case("validated", json!({"action": "reject"})),
            &expected,
            &computed,
        );
        assert_eq!(meaning.failures, vec!["outcome $.computed: true != false"]);
        // And a refusal is a refusal: an echo of the malformed answer is no refusal.
        let echoed = json!({"status": "raw_response", "computed": false, "action": "reject"});
        let meaning = judge(
            &case("raw", json!({"action": "reject"})),
            &expected,
            &echoed,
        );
        assert!(!meaning.failures.is_empty());
        // An error reply is no result: the rule does not apply.
        let error_case = Case {
            answer: Some(Answer::Error(json!({"code": "x"}))),
            ..case("validated", json!(null))
        };
        assert!(!judge(&error_case, &expected, &refused).failures.is_empty());
    }

    #[test]
    fn errors_hold_when_they_name_every_wrong_field_at_or_under_its_location() {
        let expected = json!({"status": "invalid_content", "computed": false, "errors": [["units"], ["unit_value"]]});
        let accept = case(
            "validated",
            json!({"action": "accept", "content": {"units": "3", "unit_value": 0}}),
        );
        let pydantic = json!({"status": "invalid_content", "computed": false,
            "errors": [["units", "int"], ["content", "unit_value"], ["units", "str"]]});
        let meaning = judge(&accept, &expected, &pydantic);
        assert_eq!(meaning.failures, Vec::<String>::new());
        assert!(meaning.notes.is_empty(), "{:?}", meaning.notes);
        // A field not named fails, naming it.
        let one = json!({"status": "invalid_content", "computed": false, "errors": [["units"], ["note"]]});
        let meaning = judge(&accept, &expected, &one);
        assert_eq!(
            meaning.failures,
            vec![
                r#"outcome $.errors: no location at or under ["unit_value"] (reported [["units"],["note"]])"#
            ]
        );
        assert_eq!(
            meaning.notes,
            vec![
                r#"errors also names [["note"]] (tolerated: the contract names [["units"],["unit_value"]])"#
            ]
        );
        // A location above the field is not the field; nor is one elsewhere that
        // merely ends with its name.
        let above = json!({"status": "invalid_content", "computed": false,
            "errors": [[], ["other", "units"], ["unit_value"]]});
        assert_eq!(judge(&accept, &expected, &above).failures.len(), 1);
        // The root location `[]` is above every location.
        let root = json!({"status": "invalid_content", "computed": false, "errors": [[]]});
        let pydantic_root =
            json!({"status": "invalid_content", "computed": false, "errors": [["content"]]});
        assert!(judge(&accept, &root, &pydantic_root).failures.is_empty());
        // No location at all names nothing.
        let none = json!({"status": "invalid_content", "computed": false, "errors": []});
        assert_eq!(
            judge(&accept, &root, &none).failures,
            vec!["outcome $.errors: no location at or under [] (reported [])"]
        );
        // `errors` that is not an array is compared as is.
        let text = json!({"status": "invalid_content", "computed": false, "errors": "units"});
        assert_eq!(
            judge(&accept, &expected, &text).failures,
            vec![r#"outcome $.errors: string != array"#]
        );
        // The other members are still judged.
        let computed = json!({"status": "invalid_content", "computed": true, "errors": [["units"], ["unit_value"]]});
        assert_eq!(
            judge(&accept, &expected, &computed).failures,
            vec!["outcome $.computed: true != false"]
        );
    }

    #[test]
    fn a_null_content_in_a_raw_echo_is_no_content_and_free_text_is_not_judged() {
        let expected = json!({"status": "raw_response", "computed": false, "action": "decline"});
        let decline = case("raw", json!({"action": "decline"}));
        let null = json!({"status": "raw_response", "computed": false, "action": "decline", "content": null});
        assert!(judge(&decline, &expected, &null).failures.is_empty());
        let empty = json!({"status": "raw_response", "computed": false, "action": "decline", "content": {}});
        assert_eq!(
            judge(&decline, &expected, &empty).failures,
            vec!["outcome $.content: unexpected key (actual {})"]
        );
        // Only in a raw echo.
        let declined = json!({"status": "declined", "computed": false});
        let with_null = json!({"status": "declined", "computed": false, "content": null});
        let validated = case("validated", json!({"action": "decline"}));
        assert_eq!(judge(&validated, &declined, &with_null).failures.len(), 1);
        let expected =
            json!({"status": "protocol_error", "computed": false, "code": -1, "error": "a"});
        let other =
            json!({"status": "protocol_error", "computed": false, "code": -1, "error": "b"});
        assert!(judge(&validated, &expected, &other).failures.is_empty());
        let code = json!({"status": "protocol_error", "computed": false, "code": -2, "error": "a"});
        assert_eq!(judge(&validated, &expected, &code).failures.len(), 1);
    }
}
