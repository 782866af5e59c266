//! Tests of the strategies: the two oracles agree, coverage of every kind, readable reasons and shrinking.

use std::collections::BTreeMap;

use proptest::strategy::ValueTree;
use proptest::test_runner::{FileFailurePersistence, TestError, TestRng, TestRunner};
use serde_json::json;

use super::*;
use crate::oracle::model::expected_outcome;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2_000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/proptest-regressions/strategy.txt"
        )))),
        ..ProptestConfig::default()
    })]

    /// The two oracles agree on every generated case (compared as JSON text,
    /// so `1` and `1.0` differ).
    #[test]
    fn construction_oracle_agrees_with_reference_model(generated in generated_case()) {
        let model = expected_outcome(&generated.case);
        prop_assert_eq!(
            generated.expected.to_string(),
            model.to_string(),
            "\nreason: {}\ncase: {}",
            generated.reason,
            serde_json::to_string(&generated.case).unwrap()
        );
    }
}

/// Samples `count` values of `generated_case()` with a fixed seed.
fn sample_cases(count: usize) -> Vec<GeneratedCase> {
    let mut runner = TestRunner::deterministic();
    let strategy = generated_case();
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).expect("tree").current())
        .collect()
}

#[test]
fn generator_covers_every_capability_shape_and_policy() {
    let mut capabilities: BTreeMap<String, usize> = BTreeMap::new();
    let mut policies: BTreeMap<String, usize> = BTreeMap::new();
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    for generated in sample_cases(2_000) {
        *capabilities
            .entry(generated.case.capabilities.to_string())
            .or_default() += 1;
        *policies.entry(generated.case.policy.clone()).or_default() += 1;
        let status = generated.expected["status"]
            .as_str()
            .expect("status")
            .to_owned();
        *statuses.entry(status).or_default() += 1;
    }
    for shape in [
        r#"{}"#,
        r#"{"elicitation":{}}"#,
        r#"{"elicitation":{"form":{}}}"#,
        r#"{"elicitation":{"url":{}}}"#,
        r#"{"elicitation":{"form":{},"url":{}}}"#,
    ] {
        assert!(
            capabilities.get(shape).copied().unwrap_or(0) > 0,
            "no {shape}: {capabilities:?}"
        );
    }
    assert_eq!(capabilities.len(), 5, "{capabilities:?}");
    for name in ["validated", "raw", "diagnostic_unchecked"] {
        assert!(
            policies.get(name).copied().unwrap_or(0) > 0,
            "no {name}: {policies:?}"
        );
    }
    assert_eq!(policies.len(), 3, "{policies:?}");
    assert!(policies["validated"] > policies["raw"], "{policies:?}");
    assert!(
        policies["validated"] > policies["diagnostic_unchecked"],
        "{policies:?}"
    );
    for status in [
        "unsupported",
        "protocol_error",
        "invalid_response",
        "raw_response",
        "declined",
        "cancelled",
        "invalid_content",
        "calculated",
    ] {
        assert!(
            statuses.get(status).copied().unwrap_or(0) > 0,
            "no {status}: {statuses:?}"
        );
    }
}

#[test]
fn generator_covers_answer_kinds() {
    let reasons: Vec<String> = sample_cases(2_000)
        .iter()
        .map(|generated| generated.reason.to_string())
        .collect();
    for needle in [
        "accept of a valid form",
        "accept without content",
        "accept with content null",
        "non-object content",
        "an empty object",
        "(out of range)",
        "(u64 above i64::MAX)",
        "(digit string)",
        "(float without fraction)",
        "(exponent, an f64)",
        "(negative zero, an f64)",
        "(fraction)",
        "(boolean)",
        "(beyond u64, an f64)",
        "extra key",
        "unknown action",
        "non-string action",
        "a result that is not an object",
        "malformed result: an empty object {}",
        "no answer (the client replies cancel)",
        "JSON-RPC error",
        "decline with attached",
        "cancel with attached",
        "with extra result members \"_meta\"",
        "with extra result members \"roots\"",
        // Near misses.
        "units=0 (out of range)",
        "units=11 (out of range)",
        "unit_value=101 (out of range)",
        "=-1 (out of range)",
        "=true (boolean)",
        "unknown action \"ACCEPT\" with content a valid form",
        "unknown action \"Accept\" with content a valid form",
        "unknown action \" accept\" with content a valid form",
        "accept of an empty object",
        "accept of non-object content []",
        "accept of non-object content \"{\\\"units\\\":",
        "decline with attached a valid form",
        "cancel with attached a valid form",
    ] {
        assert!(
            reasons.iter().any(|reason| reason.contains(needle)),
            "no reason contains {needle:?}"
        );
    }
}

#[test]
fn extra_key_reason_explains_its_expectation() {
    let reason = Reason::Declared {
        capabilities: FormCaps::Form,
        policy: Policy::Validated,
        reply: Reply::Accept(Content::Form(Form {
            units: Field::Valid(3),
            unit_value: Field::Valid(7),
            extras: vec![("Units".to_owned(), json!(1))],
            extras_first: false,
        })),
    };
    assert_eq!(
        reason.to_string(),
        r#"policy validated, capabilities {"elicitation":{"form":{}}}: accept of a valid form (units=3, unit_value=7) with extra key "Units""#
    );
    let generated = GeneratedCase::from_reason(reason);
    assert_eq!(
        generated.expected,
        json!({"status": "invalid_content", "computed": false, "errors": [["Units"]]})
    );
    assert_eq!(
        serde_json::to_string(&generated.case).unwrap(),
        r#"{"name":"generated","policy":"validated","capabilities":{"elicitation":{"form":{}}},"answer":{"result":{"action":"accept","content":{"units":3,"unit_value":7,"Units":1}}}}"#
    );
}

#[test]
fn extras_are_expected_sorted_whatever_their_order() {
    let form = Form {
        units: Field::Mistyped(Mistyped::NegativeZero),
        unit_value: Field::BeyondI64(u64::MAX),
        extras: vec![
            ("zeta".to_owned(), json!(1)),
            ("ünits".to_owned(), json!(2)),
            ("Units".to_owned(), json!(3)),
            (String::new(), json!(4)),
        ],
        extras_first: true,
    };
    assert_eq!(
        form.to_json().to_string(),
        r#"{"zeta":1,"ünits":2,"Units":3,"":4,"units":-0.0,"unit_value":18446744073709551615}"#
    );
    assert_eq!(
        form.validated(),
        json!({"status": "invalid_content", "computed": false,
               "errors": [["units"], ["unit_value"], [""], ["Units"], ["zeta"], ["ünits"]]})
    );
}

#[test]
fn mistyped_values_are_not_i64_integers() {
    for mistyped in [
        Mistyped::DigitString(3),
        Mistyped::WholeFloat(3),
        Mistyped::Exponent(3),
        Mistyped::NegativeZero,
        Mistyped::Fraction(2.5),
        Mistyped::Bool(true),
        Mistyped::Null,
        Mistyped::Array(vec![3]),
        Mistyped::Object(3),
        Mistyped::BeyondU64("18446744073709551616".to_owned()),
    ] {
        let value = mistyped.to_json();
        assert!(value.as_i64().is_none(), "{mistyped} is an i64: {value}");
    }
    assert!(Mistyped::NegativeZero.to_json().is_f64());
    assert!(Mistyped::Exponent(3).to_json().is_f64());
}

#[test]
fn not_declared_reasons_ignore_the_answer() {
    let reply = Reply::Accept(Content::Form(Form {
        units: Field::Valid(3),
        unit_value: Field::Valid(7),
        extras: Vec::new(),
        extras_first: false,
    }));
    let guarded = GeneratedCase::from_reason(Reason::NotDeclaredGuarded {
        capabilities: NoFormCaps::UrlOnly,
        policy: GuardedPolicy::Raw,
        ignored: reply.clone(),
    });
    assert_eq!(
        guarded.case.capabilities,
        json!({"elicitation": {"url": {}}})
    );
    assert_eq!(guarded.case.policy, "raw");
    assert_eq!(
        guarded.expected,
        json!({"status": "unsupported", "computed": false, "requested": false})
    );
    let unchecked = GeneratedCase::from_reason(Reason::NotDeclaredUnchecked {
        capabilities: NoFormCaps::Nothing,
        ignored: reply,
    });
    assert_eq!(unchecked.case.capabilities, json!({}));
    assert_eq!(unchecked.case.policy, "diagnostic_unchecked");
    assert_eq!(
        unchecked.expected,
        json!({"status": "protocol_error", "computed": false, "code": -32602,
               "error": "elicitation mode not declared: form"})
    );
}

/// Shrinking a deliberately failing property ends on a small, readable case.
#[test]
fn shrinking_ends_on_small_answers() {
    let config = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(&generated_case(), |generated| {
        prop_assert_ne!(
            generated.expected["status"].as_str(),
            Some("invalid_content")
        );
        Ok(())
    });
    let Err(TestError::Fail(_, minimal)) = result else {
        panic!("the property should fail: {result:?}");
    };
    let answer = serde_json::to_string(&minimal.case.answer).unwrap();
    println!("minimal: {}\n{answer}", minimal.reason);
    assert!(answer.len() <= 80, "not small: {answer}");
}

#[test]
fn extra_result_members_follow_the_result_and_leave_the_outcome_alone() {
    let reply = Reply::WithExtraMembers(
        Box::new(Reply::Accept(Content::Form(Form {
            units: Field::Mistyped(Mistyped::NegativeZero),
            unit_value: Field::Valid(7),
            extras: Vec::new(),
            extras_first: false,
        }))),
        vec![
            ("roots".to_owned(), json!([])),
            ("_meta".to_owned(), json!({"k": 1})),
        ],
    );
    assert_eq!(
        reply.text().as_deref(),
        Some(
            r#"{"action":"accept","content":{"units":-0,"unit_value":7},"roots":[],"_meta":{"k":1}}"#
        )
    );
    assert_eq!(
        reply.to_string(),
        r#"accept of a form with units=-0 (negative zero, an f64), unit_value=7 with extra result members "roots", "_meta""#
    );
    assert_eq!(
        reply.expected(Policy::Validated),
        json!({"status": "invalid_content", "computed": false, "errors": [["units"]]})
    );
    let declined = Reply::WithExtraMembers(
        Box::new(Reply::Decline(Attached::Absent)),
        vec![("x".to_owned(), json!(null))],
    );
    assert_eq!(
        declined.text().as_deref(),
        Some(r#"{"action":"decline","x":null}"#)
    );
    assert_eq!(
        declined.expected(Policy::Raw),
        json!({"status": "raw_response", "computed": false, "action": "decline"})
    );
}

/// The near misses leave valid accepts their share: at
/// least one generated case in twelve is a valid accept under `validated` (one
/// in eleven before they were added), enough for the properties on computed
/// values.
#[test]
fn near_misses_leave_valid_accepts_their_share() {
    let cases = sample_cases(2_000);
    let calculated = cases
        .iter()
        .filter(|generated| generated.expected["status"] == "calculated")
        .count();
    assert!(
        calculated * 12 >= cases.len(),
        "{calculated} valid accepts in {}",
        cases.len()
    );
}

/// A near-miss form breaks one field or both with a near-miss value and has no
/// extra key, so its errors name exactly the broken fields.
#[test]
fn a_near_miss_form_has_one_or_two_near_miss_fields_and_no_extra_key() {
    let mut runner = TestRunner::deterministic();
    let strategy = near_miss_form();
    for _ in 0..500 {
        let form = strategy.new_tree(&mut runner).expect("tree").current();
        assert!(form.extras.is_empty(), "{form}");
        let broken = [&form.units, &form.unit_value]
            .into_iter()
            .filter(|field| field.valid().is_none())
            .count();
        assert!((1..=2).contains(&broken), "{form}");
        assert_eq!(form.validated()["status"], "invalid_content", "{form}");
    }
}

/// A 300-character key shrinks to a short one in a few steps (the
/// shrinker must not stop on a 300-character key and call it minimal).
#[test]
fn a_long_extra_key_shrinks_to_a_short_one_in_few_steps() {
    let mut runner = TestRunner::deterministic();
    let strategy = extra_key();
    let mut tree = loop {
        let tree = strategy.new_tree(&mut runner).expect("tree");
        if tree.current().len() == 300 {
            break tree;
        }
    };
    let mut steps = 0;
    while tree.simplify() {
        steps += 1;
        assert!(steps <= 40, "still {:?} after 40 steps", tree.current());
    }
    assert!(tree.current().len() <= 8, "{:?}", tree.current());
}
