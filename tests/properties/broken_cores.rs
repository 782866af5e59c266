//! Deliberately broken cores are caught by the properties within the default
//! case count, each shrunk to a small answer.
//!
//! Each broken core wraps the real one with one classic server-side bug. The
//! runner is deterministic (fixed seed), so these tests cannot flake.

use elicit_check::case::{Answer, Case};
use elicit_check::compare;
use elicit_check::strategy::{GeneratedCase, generated_case};
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use serde_json::{Map, Value, json};

use crate::support::core_outcome;

/// The accepted content of a case, when it has an object one.
fn accepted_form(case: &Case) -> Option<&Map<String, Value>> {
    match &case.answer {
        Some(Answer::Result(result)) if result["action"] == "accept" => {
            result["content"].as_object()
        }
        _ => None,
    }
}

/// The case with its content replaced.
fn with_content(case: &Case, content: Value) -> Case {
    let mut case = case.clone();
    if let Some(Answer::Result(result)) = &mut case.answer {
        result["content"] = content;
    }
    case
}

/// Bug: `3.0` is taken for the integer `3` (whole floats are truncated first).
fn accepts_whole_floats(case: &Case) -> Value {
    let Some(form) = accepted_form(case) else {
        return core_outcome(case).to_json();
    };
    let truncated: Map<String, Value> = form
        .iter()
        .map(|(key, value)| match value.as_f64() {
            Some(number) if value.is_f64() && number.fract() == 0.0 && number.abs() < 1e15 => {
                (key.clone(), json!(number as i64))
            }
            _ => (key.clone(), value.clone()),
        })
        .collect();
    core_outcome(&with_content(case, Value::Object(truncated))).to_json()
}

/// Bug: keys the schema does not name are ignored instead of rejected.
fn ignores_extra_keys(case: &Case) -> Value {
    let Some(form) = accepted_form(case) else {
        return core_outcome(case).to_json();
    };
    let known: Map<String, Value> = form
        .iter()
        .filter(|(key, _)| *key == "units" || *key == "unit_value")
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    core_outcome(&with_content(case, Value::Object(known))).to_json()
}

/// Bug: a decline that carries a valid form is computed.
fn computes_on_decline(case: &Case) -> Value {
    let outcome = core_outcome(case).to_json();
    let Some(Answer::Result(result)) = &case.answer else {
        return outcome;
    };
    let units = result["content"]["units"].as_i64();
    let unit_value = result["content"]["unit_value"].as_i64();
    match (units, unit_value) {
        (Some(u), Some(v))
            if result["action"] == "decline"
                && outcome["status"] == "declined"
                && (1..=10).contains(&u)
                && (1..=100).contains(&v) =>
        {
            json!({"status": "calculated", "computed": true, "value": u * v})
        }
        _ => outcome,
    }
}

/// Bug: `units` accepted in 0..=10 instead of 1..=10.
fn units_from_zero(case: &Case) -> Value {
    let outcome = core_outcome(case).to_json();
    if let Some(form) = accepted_form(case) {
        let zero_units = form.get("units") == Some(&json!(0));
        let good_value = form
            .get("unit_value")
            .and_then(Value::as_i64)
            .is_some_and(|v| (1..=100).contains(&v));
        if zero_units && good_value && form.len() == 2 && outcome["errors"] == json!([["units"]]) {
            return json!({"status": "calculated", "computed": true, "value": 0});
        }
    }
    outcome
}

/// Runs the agreement property against `core` with the default 10,000 cases and
/// a fixed seed; returns the minimal failing case.
fn minimal_failure(core: fn(&Case) -> Value) -> GeneratedCase {
    let config = Config {
        cases: 10_000,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let result = runner.run(&generated_case(), |generated| {
        let outcome = core(&generated.case);
        proptest::prop_assert!(compare::compare(&generated.expected, &outcome).is_empty());
        Ok(())
    });
    match result {
        Err(TestError::Fail(_, minimal)) => minimal,
        other => panic!("the broken core was not caught: {other:?}"),
    }
}

/// The number of keys in the minimal answer's content (its form).
fn content_keys(case: &Case) -> usize {
    match &case.answer {
        Some(Answer::Result(result)) => result["content"].as_object().map_or(0, Map::len),
        _ => 0,
    }
}

fn assert_caught_small(core: fn(&Case) -> Value, describe: &str) -> GeneratedCase {
    let minimal = minimal_failure(core);
    let keys = content_keys(&minimal.case);
    eprintln!(
        "{describe}: minimal answer {} ({})",
        serde_json::to_string(&minimal.case.answer).unwrap_or_default(),
        minimal.reason
    );
    assert!(
        keys <= 3,
        "{describe}: minimal answer has {keys} keys: {}",
        minimal.reason
    );
    minimal
}

#[test]
fn a_core_that_accepts_whole_floats_is_caught_with_a_small_answer() {
    let minimal = assert_caught_small(accepts_whole_floats, "accepts 3.0");
    let form = accepted_form(&minimal.case).expect("an accept with content");
    assert!(
        form.values().any(Value::is_f64),
        "the minimal answer has a float: {form:?}"
    );
}

#[test]
fn a_core_that_ignores_extra_keys_is_caught_with_a_small_answer() {
    let minimal = assert_caught_small(ignores_extra_keys, "ignores extra keys");
    let form = accepted_form(&minimal.case).expect("an accept with content");
    assert!(
        form.keys().any(|key| key != "units" && key != "unit_value"),
        "{form:?}"
    );
}

#[test]
fn a_core_that_computes_on_decline_is_caught_with_a_small_answer() {
    let minimal = assert_caught_small(computes_on_decline, "computes on decline");
    match &minimal.case.answer {
        Some(Answer::Result(result)) => assert_eq!(result["action"], "decline"),
        other => panic!("expected a decline, got {other:?}"),
    }
}

#[test]
fn a_core_that_accepts_zero_units_is_caught_with_a_small_answer() {
    let minimal = assert_caught_small(units_from_zero, "units 0..=10");
    let form = accepted_form(&minimal.case).expect("an accept with content");
    assert_eq!(form.get("units"), Some(&json!(0)));
}
