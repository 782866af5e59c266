//! Near misses, one plain test per class, independent of the generator's weights
//! (docs/src/generated.md, "One test per near-miss class"): each answer is sent over stdio as written, the
//! reference server and the conformant Python peer pass it, and a Python peer
//! with the matching fault planted (`fixtures/servers/calculator.py --bug`)
//! fails on it, with the outcome path that shows the fault.
//!
//! Expected outcomes are written by hand from the contract table (docs/src/contract.md).

use elicit_check::case::{Case, WireAnswer};
use elicit_check::harness::{self, Limits};
use elicit_check::oracle::contract;
use serde_json::{Value, json};

use crate::support::{calculator, reference_server, runtime};

/// A `validated` case declaring form whose answer's `result` is `text`, sent as written.
fn case(name: &str, text: &str) -> Case {
    let mut case = Case {
        name: name.to_owned(),
        policy: "validated".to_owned(),
        capabilities: json!({"elicitation": {"form": {}}}),
        answer: None,
        answer_text: None,
    };
    case.set_wire_answer(WireAnswer::result_text(text).expect("test JSON"));
    case
}

/// The contract checks' failures for `case` run once against `server`.
fn failures(server: &[String], case: &Case, expected: &Value) -> Vec<String> {
    let evidence = runtime()
        .block_on(harness::run_case(server, case, Limits::default(), None))
        .expect("the server starts");
    contract::check(case, expected, &evidence)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// `text` passes on the reference server and on the conformant Python peer, and
/// fails on the peer with `bug`, with `caught` among the failures.
fn assert_near_miss(text: &str, expected: Value, bug: &str, caught: &str) {
    let case = case("near_miss", text);
    for server in [reference_server(), calculator(None)] {
        let failures = failures(&server, &case, &expected);
        assert!(failures.is_empty(), "{text} on {server:?}: {failures:#?}");
    }
    let failures = failures(&calculator(Some(bug)), &case, &expected);
    assert!(
        failures.iter().any(|failure| failure == caught),
        "{text} with --bug {bug}: no failure {caught:?} in {failures:#?}"
    );
}

fn invalid_content(errors: Value) -> Value {
    json!({"status": "invalid_content", "computed": false, "errors": errors})
}

const MALFORMED: &str = "malformed elicitation result";

#[test]
fn an_action_spelled_in_other_case_or_with_spaces_is_a_malformed_result() {
    for action in ["ACCEPT", "Accept", " accept", "accept "] {
        let text = format!(r#"{{"action":"{action}","content":{{"units":3,"unit_value":7}}}}"#);
        assert_near_miss(
            &text,
            json!({"status": "invalid_response", "computed": false, "error": MALFORMED}),
            "lenient-action",
            r#"outcome $.status: "calculated" != "invalid_response""#,
        );
    }
}

#[test]
fn a_whole_float_is_not_an_integer() {
    assert_near_miss(
        r#"{"action":"accept","content":{"units":3.0,"unit_value":7}}"#,
        invalid_content(json!([["units"]])),
        "float-as-integer",
        r#"outcome $.status: "calculated" != "invalid_content""#,
    );
}

#[test]
fn an_exponent_is_not_an_integer() {
    assert_near_miss(
        r#"{"action":"accept","content":{"units":3,"unit_value":7e0}}"#,
        invalid_content(json!([["unit_value"]])),
        "float-as-integer",
        r#"outcome $.status: "calculated" != "invalid_content""#,
    );
}

/// `-0` is a type error; a server reading it as the integer 0 still rejects it
/// (0 is out of range for both fields), so no planted fault tells the two
/// apart here: the test shows the rule holds over stdio, and
/// `run::raw_answers::answers_reach_the_server_exactly_as_generated` shows `-0`
/// arrives as written.
#[test]
fn negative_zero_is_not_an_integer() {
    let expected = invalid_content(json!([["units"]]));
    let case = case(
        "negative_zero",
        r#"{"action":"accept","content":{"units":-0,"unit_value":7}}"#,
    );
    for server in [
        reference_server(),
        calculator(None),
        calculator(Some("float-as-integer")),
    ] {
        let failures = failures(&server, &case, &expected);
        assert!(failures.is_empty(), "{server:?}: {failures:#?}");
    }
}

#[test]
fn a_digit_string_is_not_an_integer() {
    assert_near_miss(
        r#"{"action":"accept","content":{"units":"3","unit_value":7}}"#,
        invalid_content(json!([["units"]])),
        "string-as-integer",
        r#"outcome $.status: "calculated" != "invalid_content""#,
    );
}

#[test]
fn a_boolean_is_not_an_integer() {
    assert_near_miss(
        r#"{"action":"accept","content":{"units":3,"unit_value":true}}"#,
        invalid_content(json!([["unit_value"]])),
        "bool-as-integer",
        r#"outcome $.status: "calculated" != "invalid_content""#,
    );
}

#[test]
fn content_null_is_an_accept_without_content() {
    assert_near_miss(
        r#"{"action":"accept","content":null}"#,
        json!({"status": "invalid_response", "computed": false,
               "error": "accept response has no content"}),
        "null-content-as-empty",
        r#"outcome $.status: "invalid_content" != "invalid_response""#,
    );
}

#[test]
fn an_empty_object_misses_both_fields() {
    assert_near_miss(
        r#"{"action":"accept","content":{}}"#,
        invalid_content(json!([["units"], ["unit_value"]])),
        "empty-content-as-missing",
        r#"outcome $.status: "invalid_response" != "invalid_content""#,
    );
}

#[test]
fn content_that_is_not_an_object_fails_at_the_root_path() {
    assert_near_miss(
        r#"{"action":"accept","content":[3,7]}"#,
        invalid_content(json!([[]])),
        "non-object-content-as-missing",
        r#"outcome $.status: "invalid_response" != "invalid_content""#,
    );
}

/// MCP 2025-11-25: results may carry `_meta` and members the schema
/// does not name; an accept carrying them is still an accept.
#[test]
fn extra_result_members_are_ignored() {
    for text in [
        r#"{"action":"accept","content":{"units":3,"unit_value":7},"roots":[]}"#,
        r#"{"_meta":{"trace":"x"},"action":"accept","content":{"units":3,"unit_value":7}}"#,
        r#"{"action":"accept","note":[1],"content":{"units":3,"unit_value":7}}"#,
    ] {
        assert_near_miss(
            text,
            json!({"status": "calculated", "computed": true, "value": 21}),
            "extra-members-malformed",
            r#"outcome $.status: "invalid_response" != "calculated""#,
        );
    }
}
