//! Each planted fault of `fixtures/servers/calculator.py` is found by the default
//! 256 generated cases of `elicit-check run`, whatever the seed (docs/src/generated.md,
//! "Near misses in every seed's cases").
//!
//! A fault is restated in-process as the reference core reading the answer the
//! way the faulty peer does (`lenient-action` lower-cases and trims `action`
//! before matching it, ...), so 20 seeds × 256 cases cost no process. The first
//! finding of each fault is then sent over stdio to the Python peer with that
//! `--bug`, which must fail on it: the restatement is checked against the real
//! fault, and the conformant peer passes the same case.
//!
//! Not restated: `stdout-noise` and `hang-on-call` break every call whatever the
//! answer, so the first generated case of any seed finds them (see
//! `run::cli::a_line_of_noise_on_stdout_is_caught_although_rmcp_would_skip_it`
//! and the `hang-on-call` tests of `run::cli` and `check::cli`).

use elicit_check::case::{Answer, Case};
use elicit_check::compare;
use elicit_check::harness::client::reply_for;
use elicit_check::harness::{self, Limits};
use elicit_check::oracle::contract;
use elicit_check::server::decision::{self, Policy};
use elicit_check::server::reply::Reply;
use elicit_check::strategy::{GeneratedCase, generated_case, seeded_runner};
use proptest::strategy::{Strategy, ValueTree};
use rmcp::model::ClientCapabilities;
use serde_json::{Map, Value, json};

use crate::support::{calculator, runtime};

/// The default number of generated cases of `elicit-check run`.
const DEFAULT_CASES: usize = 256;
/// Seeds tried: 0 to 19.
const SEEDS: u64 = 20;

/// The core's outcome when the server reads the answer it received through `misread`.
fn misread_outcome(case: &Case, misread: &dyn Fn(&mut Map<String, Value>)) -> Value {
    let capabilities: ClientCapabilities =
        serde_json::from_value(case.capabilities.clone()).expect("valid capabilities");
    let policy: Policy = case.policy.parse().expect("known policy");
    decision::decide(capabilities.elicitation.as_ref(), policy, || {
        let mut answer = reply_for(case);
        if let Answer::Result(Value::Object(result)) = &mut answer {
            misread(result);
        }
        Reply::from_answer(&answer)
    })
    .to_json()
}

/// The core's outcome, read as sent.
fn correct(case: &Case) -> Value {
    misread_outcome(case, &|_| {})
}

/// The outcome when `validated` reads `units` and `unit_value` through `read`
/// (the other policies report the content as received, unread).
fn read_fields(case: &Case, read: fn(&Value) -> Option<i64>) -> Value {
    if case.policy != "validated" {
        return correct(case);
    }
    misread_outcome(case, &|result| {
        if let Some(Value::Object(content)) = result.get_mut("content") {
            for name in ["units", "unit_value"] {
                if let Some(value) = content.get_mut(name)
                    && let Some(integer) = read(value)
                {
                    *value = Value::from(integer);
                }
            }
        }
    })
}

/// `lenient-action`: the action lower-cased and trimmed before it is matched.
fn lenient_action(case: &Case) -> Value {
    misread_outcome(case, &|result| {
        if let Some(Value::String(action)) = result.get_mut("action") {
            *action = action.trim().to_lowercase();
        }
    })
}

/// `float-as-integer`: `3.0` (and `3e0`) read as the integer 3.
fn float_as_integer(case: &Case) -> Value {
    read_fields(case, |value| {
        let number = value.as_f64().filter(|_| value.is_f64())?;
        (number.fract() == 0.0 && number.abs() < 1e15).then_some(number as i64)
    })
}

/// `string-as-integer`: the digit string `"3"` read as the integer 3.
fn string_as_integer(case: &Case) -> Value {
    read_fields(case, |value| {
        let digits = value.as_str()?;
        let all_digits = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        all_digits.then(|| digits.parse().ok()).flatten()
    })
}

/// `bool-as-integer`: `true` and `false` read as 1 and 0.
fn bool_as_integer(case: &Case) -> Value {
    read_fields(case, |value| value.as_bool().map(i64::from))
}

/// `bounds-off-by-one`: each bound checked one off, so a JSON integer one past
/// a bound (`units` 0 or 11, `unit_value` 0 or 101) is taken as valid. Restated
/// as the core reading that integer as the bound it passes: the outcome's
/// status and `errors` are the faulty server's, its `value` may not be (11 × 7
/// read as 10 × 7), which changes nothing here: a case finds the fault when its
/// status or errors differ from the contract's.
fn bounds_off_by_one(case: &Case) -> Value {
    if case.policy != "validated" {
        return correct(case);
    }
    misread_outcome(case, &|result| {
        if let Some(Value::Object(content)) = result.get_mut("content") {
            for (name, min, max) in [("units", 1, 10), ("unit_value", 1, 100)] {
                if let Some(value) = content.get_mut(name) {
                    match value.as_i64() {
                        Some(integer) if integer == min - 1 => *value = Value::from(min),
                        Some(integer) if integer == max + 1 => *value = Value::from(max),
                        _ => {}
                    }
                }
            }
        }
    })
}

/// `null-content-as-empty`: `"content": null` read as `{}`.
fn null_content_as_empty(case: &Case) -> Value {
    misread_outcome(case, &|result| {
        if result.get("content") == Some(&Value::Null) {
            result.insert("content".to_owned(), json!({}));
        }
    })
}

/// `empty-content-as-missing`: `"content": {}` read as no content.
fn empty_content_as_missing(case: &Case) -> Value {
    misread_outcome(case, &|result| {
        if result.get("content") == Some(&json!({})) {
            result.remove("content");
        }
    })
}

/// `non-object-content-as-missing`: content that is not an object read as none.
fn non_object_content_as_missing(case: &Case) -> Value {
    misread_outcome(case, &|result| {
        if result
            .get("content")
            .is_some_and(|content| !content.is_object())
        {
            result.remove("content");
        }
    })
}

/// `extra-members-malformed`: a result with members beyond `action` and
/// `content` rejected as malformed.
fn extra_members_malformed(case: &Case) -> Value {
    misread_outcome(case, &|result| {
        if result.keys().any(|key| key != "action" && key != "content") {
            result.insert("action".to_owned(), Value::Null);
        }
    })
}

/// `computes-on-decline`: under `validated`, a decline or cancel whose content is
/// a valid form is computed.
fn computes_on_decline(case: &Case) -> Value {
    let outcome = correct(case);
    if outcome["status"] != "declined" && outcome["status"] != "cancelled" {
        return outcome;
    }
    let accepted = misread_outcome(case, &|result| {
        result.insert("action".to_owned(), json!("accept"));
    });
    if accepted["status"] == "calculated" {
        accepted
    } else {
        outcome
    }
}

/// `computed-as-int`: `"computed": 1` / `0` instead of `true` / `false`.
fn computed_as_int(case: &Case) -> Value {
    let mut outcome = correct(case);
    let computed = outcome["computed"].as_bool().map(i64::from);
    if let Some(computed) = computed {
        outcome["computed"] = json!(computed);
    }
    outcome
}

/// A faulty server's outcome for a case, in-process.
type Faulty = fn(&Case) -> Value;

/// The planted faults restated in-process: `--bug` name and the faulty reading.
const FAULTS: &[(&str, Faulty)] = &[
    ("lenient-action", lenient_action),
    ("float-as-integer", float_as_integer),
    ("string-as-integer", string_as_integer),
    ("bool-as-integer", bool_as_integer),
    ("bounds-off-by-one", bounds_off_by_one),
    ("null-content-as-empty", null_content_as_empty),
    ("empty-content-as-missing", empty_content_as_missing),
    (
        "non-object-content-as-missing",
        non_object_content_as_missing,
    ),
    ("extra-members-malformed", extra_members_malformed),
    ("computes-on-decline", computes_on_decline),
    ("computed-as-int", computed_as_int),
];

/// The `DEFAULT_CASES` generated cases `elicit-check run --seed SEED` sends.
fn cases_of(seed: u64) -> Vec<GeneratedCase> {
    let mut runner = seeded_runner(seed);
    let strategy = generated_case();
    (0..DEFAULT_CASES)
        .map(|_| strategy.new_tree(&mut runner).expect("a tree").current())
        .collect()
}

/// Whether `fault` reads `generated` differently from the contract.
fn finds(fault: Faulty, generated: &GeneratedCase) -> bool {
    !compare::compare(&generated.expected, &fault(&generated.case)).is_empty()
}

#[test]
fn the_correct_reading_finds_nothing() {
    for generated in cases_of(0) {
        let mismatches = compare::compare(&generated.expected, &correct(&generated.case));
        assert!(
            mismatches.is_empty(),
            "{}: {mismatches:?}",
            generated.reason
        );
    }
}

#[test]
fn every_planted_fault_is_found_by_256_generated_cases_with_each_of_20_seeds() {
    let seeds: Vec<Vec<GeneratedCase>> = (0..SEEDS).map(cases_of).collect();
    let mut missed = Vec::new();
    let mut fewest = Vec::new();
    for (bug, fault) in FAULTS {
        let found: Vec<usize> = seeds
            .iter()
            .map(|cases| cases.iter().filter(|case| finds(*fault, case)).count())
            .collect();
        for (seed, count) in found.iter().enumerate() {
            if *count == 0 {
                missed.push(format!("{bug} with seed {seed}"));
            }
        }
        let least = found.iter().min().copied().unwrap_or(0);
        let total: usize = found.iter().sum();
        fewest.push(format!(
            "{bug}: at least {least}, on average {:.1} of {DEFAULT_CASES} cases",
            total as f64 / SEEDS as f64
        ));
    }
    eprintln!("{}", fewest.join("\n"));
    assert!(missed.is_empty(), "not found: {missed:#?}\n{fewest:#?}");
}

/// The in-process restatement matches the real fault: the first case of seed 0
/// that finds each fault fails over stdio on the Python peer with that `--bug`
/// with a failure the conformant peer does not have (the conformant peer is not
/// exact everywhere: Python reads `-0` as the integer 0 and echoes it so).
#[test]
fn the_first_finding_of_each_fault_fails_the_python_peer_with_that_bug() {
    let cases = cases_of(0);
    let runtime = runtime();
    for (bug, fault) in FAULTS {
        let generated = cases
            .iter()
            .find(|case| finds(*fault, case))
            .unwrap_or_else(|| panic!("{bug}: not found with seed 0"));
        let (conformant_server, faulty_server) = (calculator(None), calculator(Some(bug)));
        let (conformant, faulty) = runtime.block_on(async {
            tokio::join!(
                harness::run_case(&conformant_server, &generated.case, Limits::default(), None),
                harness::run_case(&faulty_server, &generated.case, Limits::default(), None),
            )
        });
        let failures = |evidence: Result<harness::Evidence, _>| {
            let evidence = evidence.expect("the Python peer starts");
            contract::check(&generated.case, &generated.expected, &evidence)
        };
        let (conformant, faulty) = (failures(conformant), failures(faulty));
        assert!(
            faulty.iter().any(|failure| !conformant.contains(failure)),
            "{bug}: {}\nwith the bug: {faulty:#?}\nconformant: {conformant:#?}",
            generated.reason
        );
    }
}
