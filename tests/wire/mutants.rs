//! Wire mutants: every corruption of the server's frames
//! that applies to a contract case is rejected by the contract oracle.
//!
//! Each mutation runs against each of the 19 contract cases in a fresh server
//! process, behind a tap that rewrites the server's frames. A run where the
//! mutation had nothing to corrupt is skipped, and must then pass untouched.
//! The runs are shared by the tests below and made once, concurrently, in two
//! phases so the kill assertion does not depend on machine load: first every run
//! whose server can exit by itself (with a generous shutdown grace, so a starved
//! but correct server is never killed), then the misaddressed-elicitation runs,
//! whose server cannot exit within its short grace (it waits 5 s for its stuck
//! handler), alone.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use elicit_check::case::{self, Case};
use elicit_check::compare;
use elicit_check::evidence::HarnessFailure;
use elicit_check::harness::mutation::{Family, WireMutation};
use elicit_check::harness::{self, Evidence, Limits};
use elicit_check::oracle::contract;
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::support;

/// Most server processes alive at once.
const CONCURRENT_RUNS: usize = 16;

/// Shutdown grace of every run but the stuck ones: a server that exits by itself
/// gets this long, so only a server that cannot exit is ever killed, whatever
/// the load on the machine.
const GENEROUS_GRACE: Duration = Duration::from_secs(30);

/// The mutation that leaves the call waiting on an answer that never comes (no reply).
const STUCK: WireMutation = WireMutation::ElicitationIdChanged;

/// One mutation against one case.
struct Run {
    case: String,
    mutation: WireMutation,
    expected: Value,
    applied: bool,
    failures: Vec<String>,
    evidence: Evidence,
}

/// Every mutation against every contract case, run once per test binary.
fn runs() -> &'static [Run] {
    static RUNS: OnceLock<Vec<Run>> = OnceLock::new();
    RUNS.get_or_init(run_all)
}

fn run_all() -> Vec<Run> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let others: Vec<WireMutation> = WireMutation::ALL
            .into_iter()
            .filter(|mutation| *mutation != STUCK)
            .collect();
        let mut runs = run_phase(&others).await;
        runs.extend(run_phase(&[STUCK]).await);
        // Table order: case by case, mutations in declaration order.
        let cases: Vec<String> = case::contract_cases().into_iter().map(|c| c.name).collect();
        let position = |m: WireMutation| WireMutation::ALL.iter().position(|x| *x == m);
        runs.sort_by_key(|run| {
            (
                cases.iter().position(|c| *c == run.case),
                position(run.mutation),
            )
        });
        runs
    })
}

/// Runs `mutations` against every contract case, [`CONCURRENT_RUNS`] at a time.
async fn run_phase(mutations: &[WireMutation]) -> Vec<Run> {
    let command = Arc::new(support::reference_server());
    let permits = Arc::new(Semaphore::new(CONCURRENT_RUNS));
    let expected_outcomes = case::contract_expected();
    let mut tasks = JoinSet::new();
    for case in case::contract_cases() {
        let expected = expected_outcomes[&case.name].clone();
        for &mutation in mutations {
            let (command, permits) = (Arc::clone(&command), Arc::clone(&permits));
            let (case, expected) = (case.clone(), expected.clone());
            tasks.spawn(async move {
                let _permit = permits.acquire_owned().await.expect("semaphore open");
                run_one(&command, case, expected, mutation).await
            });
        }
    }
    tasks.join_all().await
}

async fn run_one(command: &[String], case: Case, expected: Value, mutation: WireMutation) -> Run {
    let (tap, applied) = mutation.tap(&case, &expected);
    let limits = match mutation {
        STUCK => mutation.limits(),
        _ => Limits {
            shutdown: GENEROUS_GRACE,
            ..mutation.limits()
        },
    };
    let evidence = harness::run_case(command, &case, limits, Some(tap))
        .await
        .expect("the reference server starts");
    let failures = contract::check(&case, &expected, &evidence)
        .iter()
        .map(ToString::to_string)
        .collect();
    Run {
        case: case.name,
        mutation,
        expected,
        applied: applied.get(),
        failures,
        evidence,
    }
}

#[test]
fn every_applied_wire_mutation_is_rejected_by_the_contract_oracle() {
    let runs = runs();
    let mut per_mutation: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut accepted = Vec::new();
    let mut broken_skips = Vec::new();
    for run in runs {
        let counts = per_mutation.entry(run.mutation.name()).or_default();
        if run.applied {
            counts.0 += 1;
            if run.failures.is_empty() {
                accepted.push(format!("{} on {}", run.mutation.name(), run.case));
            } else {
                counts.2 += 1;
            }
        } else {
            counts.1 += 1;
            // A mutation that did not apply left the session alone: it must pass.
            if !run.failures.is_empty() {
                broken_skips.push(format!(
                    "{} on {}: {:?}",
                    run.mutation.name(),
                    run.case,
                    run.failures
                ));
            }
        }
    }
    let applied: usize = per_mutation.values().map(|c| c.0).sum();
    let skipped: usize = per_mutation.values().map(|c| c.1).sum();
    let rejected: usize = per_mutation.values().map(|c| c.2).sum();
    // One print, so parallel tests cannot split the table.
    let mut table = format!(
        "{:<26} {:>7} {:>7} {:>8}\n",
        "mutation", "applied", "skipped", "rejected"
    );
    for mutation in WireMutation::ALL {
        let (a, s, r) = per_mutation[mutation.name()];
        table.push_str(&format!("{:<26} {a:>7} {s:>7} {r:>8}\n", mutation.name()));
    }
    table.push_str(&format!(
        "rejected {rejected} of {applied} applied wire mutations ({skipped} skipped)"
    ));
    println!("{table}");

    assert_eq!(
        runs.len(),
        case::contract_cases().len() * WireMutation::ALL.len()
    );
    assert!(accepted.is_empty(), "the oracle accepted: {accepted:#?}");
    assert!(
        broken_skips.is_empty(),
        "skipped mutations still failed: {broken_skips:#?}"
    );
    assert!(applied > 0);
    assert_eq!(rejected, applied);
    for mutation in WireMutation::ALL {
        assert!(
            per_mutation[mutation.name()].0 >= 1,
            "{} applied to no contract case",
            mutation.name()
        );
    }
}

/// The failure a mutation must cause: the check that enforces the rule it breaks.
fn stated_reason(mutation: WireMutation) -> &'static str {
    match mutation {
        WireMutation::CompletionBeforeAnswer => "is not between tools/call",
        WireMutation::SecondElicitation => "2 elicitation/create requests, expected 1",
        WireMutation::ElicitationIdChanged => "tools/call did not finish within",
        WireMutation::NonJsonLine => "non-JSON-RPC line on stdout",
        WireMutation::TextOnlyDrift => "content[0].text disagrees with structuredContent",
        WireMutation::IsErrorSet => "the tool result has isError: true",
        WireMutation::JsonLogLine => "non-JSON-RPC line on stdout",
        WireMutation::RequestedSchemaDrift => "requestedSchema $.properties.units.maximum",
        WireMutation::ModeChanged => "mode \"url\"",
        WireMutation::InitializeProtocolDrift => "negotiated protocol",
        // Every other mutation rewrites the outcome itself.
        _ => "outcome $",
    }
}

#[test]
fn each_wire_mutation_is_rejected_by_the_check_for_the_rule_it_breaks() {
    for run in runs().iter().filter(|run| run.applied) {
        let reason = stated_reason(run.mutation);
        assert!(
            run.failures.iter().any(|failure| failure.contains(reason)),
            "{} on {}: no failure says {reason:?}: {:?}",
            run.mutation.name(),
            run.case,
            run.failures
        );
        // Outcome rewrites keep the text in step, so the cheap "text agrees" check
        // cannot be what caught them.
        if reason == "outcome $" {
            assert!(
                !run.failures.iter().any(|f| f.contains("content[0].text")),
                "{} on {}: text out of step: {:?}",
                run.mutation.name(),
                run.case,
                run.failures
            );
        }
    }
    // Every session ends within its bounds, none by a kill: even with a
    // misaddressed elicitation still waiting for its answer, the reference server
    // exits when its stdin closes (its line filter stops it
    // once every request left waits on the client).
    for run in runs() {
        let stuck = run.applied && run.mutation == STUCK;
        assert!(
            !run.evidence.forced_kill,
            "{} on {}: killed after the shutdown grace",
            run.mutation.name(),
            run.case,
        );
        // A completion marked `isError: true` is the call's error; every other
        // call that was not stuck finished without one.
        let is_error = run.applied && run.mutation == WireMutation::IsErrorSet;
        if !stuck {
            assert_eq!(
                run.evidence.error.as_ref(),
                is_error.then_some(&HarnessFailure::ToolError),
                "{} on {}: the call did not finish",
                run.mutation.name(),
                run.case
            );
        }
    }
}

/// The equality of lax languages (`true == 1`, `21 == 21.0`): numbers and
/// booleans compare as `f64`, booleans as 0/1. Objects need the same keys.
fn naive_loose_eq(a: &Value, b: &Value) -> bool {
    fn as_number(value: &Value) -> Option<f64> {
        match value {
            Value::Bool(flag) => Some(if *flag { 1.0 } else { 0.0 }),
            Value::Number(number) => number.as_f64(),
            _ => None,
        }
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| naive_loose_eq(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, x)| y.get(key).is_some_and(|y| naive_loose_eq(x, y)))
        }
        _ => matches!((as_number(a), as_number(b)), (Some(x), Some(y)) if x == y),
    }
}

#[test]
fn naive_loose_equality_is_what_lax_languages_use() {
    use serde_json::json;
    assert!(naive_loose_eq(&json!(true), &json!(1)));
    assert!(naive_loose_eq(&json!(false), &json!(0)));
    assert!(naive_loose_eq(&json!(21), &json!(21.0)));
    assert!(!naive_loose_eq(&json!(21), &json!(22)));
    assert!(!naive_loose_eq(&json!("21"), &json!(21)));
    assert!(!naive_loose_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
}

/// The bool/int drift outcomes are the lies a lax comparator cannot see: it
/// accepts every one of them, while `compare::compare` names the path and the
/// kinds. serde_json's own `Value ==` also rejects them (its `Number` keeps the
/// integer/float representation, and `Bool` never equals `Number`), so the
/// type-aware comparator's gain over `==` is the reason it gives, not the verdict.
#[test]
fn loose_equality_accepts_bool_int_drift_that_type_aware_compare_and_serde_json_eq_reject() {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for run in runs()
        .iter()
        .filter(|run| run.applied && run.mutation.family() == Family::BoolIntDrift)
    {
        let name = run.mutation.name();
        let outcome = run
            .evidence
            .outcome
            .as_ref()
            .unwrap_or_else(|| panic!("{name} on {}: no outcome", run.case));
        assert!(
            naive_loose_eq(&run.expected, outcome),
            "{name} on {}: loose equality should accept {outcome} for {}",
            run.case,
            run.expected
        );
        let mismatches = compare::compare(&run.expected, outcome);
        assert!(
            !mismatches.is_empty(),
            "{name} on {}: compare accepted {outcome}",
            run.case
        );
        assert!(
            mismatches.iter().all(|m| m.detail.contains(" != ")),
            "{mismatches:?}"
        );
        assert_ne!(
            &run.expected, outcome,
            "{name} on {}: serde_json == accepted",
            run.case
        );
        // The text agrees with structuredContent, so only the outcome check can catch it.
        assert_eq!(run.evidence.text_outcome.as_ref(), Some(outcome));
        *seen.entry(name).or_default() += 1;
    }
    println!("bool/int drift outcomes accepted by loose equality: {seen:?}");
    for mutation in WireMutation::ALL
        .into_iter()
        .filter(|m| m.family() == Family::BoolIntDrift)
    {
        assert!(
            seen.get(mutation.name()).copied().unwrap_or(0) > 0,
            "{}",
            mutation.name()
        );
    }
}
