//! The verdict of a generated case (`src/run.rs`): a disagreement between the two
//! oracles fails it, and the first failure is shrunk to a strictly smaller case.

use elicit_check::harness::Limits;
use elicit_check::oracle::contract::Judging;
use elicit_check::report::EvidenceLog;
use elicit_check::run::{self, MinimalFailure, Settings, judge_generated};
use elicit_check::strategy::{
    Attached, Content, Field, Form, FormCaps, GeneratedCase, Policy, Reason, Reply,
};
use serde_json::{Value, json};

use crate::support::{calculator, runtime};

/// A form with both fields valid and no extra key.
fn valid_form(units: i64, unit_value: i64) -> Form {
    Form {
        units: Field::Valid(units),
        unit_value: Field::Valid(unit_value),
        extras: Vec::new(),
        extras_first: false,
    }
}

/// A case whose reason was tampered with: a decline carrying a valid form, whose
/// expectation says `calculated` as the buggy server does. The contract checks
/// pass (the server matches the tampered expectation); only the reference model
/// disagrees, and that alone must fail the verdict.
#[test]
fn a_tampered_expectation_fails_the_verdict_through_the_model() {
    let mut generated = GeneratedCase::from_reason(Reason::Declared {
        capabilities: FormCaps::Form,
        policy: Policy::Validated,
        reply: Reply::Decline(Attached::Content(Content::Form(valid_form(3, 7)))),
    });
    generated.case.name = "tampered".into();
    generated.expected = json!({"status": "calculated", "computed": true, "value": 21});
    let server = calculator(Some("computes-on-decline"));
    let verdict = runtime()
        .block_on(judge_generated(
            &server,
            &generated,
            &Settings::legacy(Limits::default(), Judging::EXACT),
        ))
        .expect("the Python peer starts")
        .remove(0);
    assert!(!verdict.passed, "{:?}", verdict.failures);
    assert_eq!(
        verdict.failures,
        vec![
            "the oracles disagree (model vs reason): $.status: \"declined\" != \"calculated\""
                .to_owned(),
            "the oracles disagree (model vs reason): $.computed: false != true".to_owned(),
            "the oracles disagree (model vs reason): $.value: missing (expected 21)".to_owned(),
            format!("reason: {}", generated.reason),
        ]
    );
}

/// The untampered case passes on a conformant server: the verdict above failed
/// because of the disagreement, not because of the server.
#[test]
fn the_same_case_untampered_passes_on_a_conformant_server() {
    let mut generated = GeneratedCase::from_reason(Reason::Declared {
        capabilities: FormCaps::Form,
        policy: Policy::Validated,
        reply: Reply::Decline(Attached::Content(Content::Form(valid_form(3, 7)))),
    });
    generated.case.name = "untampered".into();
    let verdict = runtime()
        .block_on(judge_generated(
            &calculator(None),
            &generated,
            &Settings::legacy(Limits::default(), Judging::EXACT),
        ))
        .expect("the Python peer starts")
        .remove(0);
    assert!(verdict.passed, "{:?}", verdict.failures);
    assert_eq!(verdict.failures, Vec::<String>::new());
}

/// Shrinking over stdio ends on a case strictly smaller (as JSON text: policy,
/// capabilities and answer) than the first failing one. The server fails every
/// case (`computed` as an integer), so the first generated case fails whatever
/// it is; seed 13 makes it an accept of units 7, unit_value 77 (the minimal one has 1 and 1).
#[test]
fn the_minimal_failure_is_strictly_smaller_than_the_first_failing_case() {
    let dir = std::env::temp_dir().join(format!("elicit-check-{}-shrink", std::process::id()));
    let log = EvidenceLog::create(&dir).expect("evidence folder");
    let server = calculator(Some("computed-as-int"));
    let minimal = runtime()
        .block_on(run::run_generated_in(
            &server,
            1,
            13,
            &Settings::legacy(Limits::default(), Judging::EXACT),
            &log,
            &mut |_| {},
        ))
        .expect("the Python peer starts")
        .expect("every case fails on this server");
    let verdicts = log.read_verdicts().expect("results.jsonl reads back");
    let _ = std::fs::remove_dir_all(&dir);
    let first = &verdicts[0];
    assert_eq!(first["passed"], false);
    let size = |case: serde_json::Value| {
        let mut case = case;
        case["name"] = "".into();
        serde_json::to_string(&case)
            .expect("a case serializes")
            .len()
    };
    let minimal_case = serde_json::to_value(&minimal.generated.case).expect("a case serializes");
    let (first_size, minimal_size) = (
        size(first["evidence"]["input"].clone()),
        size(minimal_case.clone()),
    );
    assert!(
        minimal_size < first_size,
        "minimal ({minimal_size} bytes) {minimal_case}\nfirst failing ({first_size} bytes) {}",
        first["evidence"]["input"]
    );
    assert!(minimal.shrink_runs > 0);
    // Every case fails on this server: shrinking runs to the simplest case,
    // well within its budget, and the heading says it finished.
    assert!(!minimal.shrink_stopped_early);
    assert_eq!(
        minimal.heading(),
        format!(
            "minimal failing generated case (shrunk in {} runs)",
            minimal.shrink_runs
        )
    );
    assert!(
        minimal
            .failures
            .iter()
            .any(|failure| failure == "outcome $.computed: integer != boolean"),
        "{:?}",
        minimal.failures
    );
}

/// Shrinking stops after exactly `max_runs` stdio runs while simplifications
/// still fail (every case fails on this server), keeping the last failure.
#[test]
fn shrinking_stops_at_its_bound_of_stdio_runs() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;

    let mut runner = TestRunner::deterministic();
    let mut tree = elicit_check::strategy::generated_case()
        .new_tree(&mut runner)
        .expect("a tree");
    let first = tree.current();
    let server = calculator(Some("computed-as-int"));
    let minimal = runtime()
        .block_on(run::shrink(
            &server,
            &mut tree,
            &Settings::legacy(Limits::default(), Judging::EXACT),
            3,
        ))
        .expect("the Python peer starts");
    assert_eq!(minimal.shrink_runs, 3);
    // Simplifications were left untried: the report says shrinking stopped
    // early, with its runs, and does not call the case minimal.
    assert!(minimal.shrink_stopped_early);
    assert_eq!(
        minimal.heading(),
        "failing generated case, not fully shrunk (shrinking stopped at its budget after \
         3 runs: it may not be minimal)"
    );
    assert_eq!(minimal.generated.case.name, "minimal");
    assert!(
        minimal
            .failures
            .iter()
            .any(|failure| failure == "outcome $.computed: integer != boolean"),
        "{:?}",
        minimal.failures
    );
    // Three simplifications, each failing: the minimal case is not the first.
    let mut first = first.case;
    first.name = "minimal".into();
    assert_ne!(minimal.generated.case, first);
}

/// Against a conformant server nothing fails, so nothing is shrunk.
#[test]
fn a_run_without_failures_has_no_minimal_failure() {
    let dir = std::env::temp_dir().join(format!("elicit-check-{}-clean", std::process::id()));
    let log = EvidenceLog::create(&dir).expect("evidence folder");
    let minimal = runtime()
        .block_on(run::run_generated_in(
            &crate::support::reference_server(),
            3,
            1,
            &Settings::legacy(Limits::default(), Judging::EXACT),
            &log,
            &mut |_| {},
        ))
        .expect("the reference server starts");
    let verdicts = log.read_verdicts().expect("results.jsonl reads back");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        minimal.is_none(),
        "{:?}",
        minimal.map(|m| m.generated.reason.to_string())
    );
    assert_eq!(verdicts.len(), 3);
    assert!(verdicts.iter().all(|verdict| verdict["passed"] == true
        && verdict["failures"] == serde_json::json!([])
        && verdict["verdict"] == "passed"));
}

/// The heading of a generated failure counts one run in the singular and says
/// whether shrinking finished.
#[test]
fn the_minimal_failure_heading_says_how_shrinking_ended() {
    let generated = GeneratedCase::from_reason(Reason::Declared {
        capabilities: FormCaps::Form,
        policy: Policy::Validated,
        reply: Reply::Decline(Attached::Content(Content::Form(valid_form(3, 7)))),
    });
    let failure = |shrink_runs, shrink_stopped_early| MinimalFailure {
        generated: generated.clone(),
        outcome: Value::Null,
        failures: Vec::new(),
        shrink_runs,
        shrink_stopped_early,
        reproduce: String::new(),
    };
    assert_eq!(
        failure(1, false).heading(),
        "minimal failing generated case (shrunk in 1 run)"
    );
    assert_eq!(
        failure(0, false).heading(),
        "minimal failing generated case (shrunk in 0 runs)"
    );
    assert_eq!(
        failure(1, true).heading(),
        "failing generated case, not fully shrunk (shrinking stopped at its budget after \
         1 run: it may not be minimal)"
    );
    assert_eq!(
        failure(256, true).heading(),
        "failing generated case, not fully shrunk (shrinking stopped at its budget after \
         256 runs: it may not be minimal)"
    );
}
