//! A run: every case through the harness, each judged by the contract oracle.
//!
//! The fixed contract cases first ([`run_contract`]), then, on request,
//! generated cases ([`run_generated`]) whose first failure is shrunk over stdio
//! to a minimal answer, as proptest would.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

use crate::case::{self, Case};
use crate::compare;
use crate::error::Error;
use crate::harness::{self, Limits};
use crate::oracle::contract::{self, Judging};
use crate::oracle::model;
use crate::report::{EvidenceLog, Verdict};
use crate::strategy::{GeneratedCase, generated_case};

/// Most stdio runs spent shrinking one failure.
pub const MAX_SHRINK_RUNS: usize = 256;

/// Runs `cases` against `command`, one fresh server process per case, judging
/// each against `expected[case.name]` under `judging`; each verdict goes to `log` and then to
/// `on_verdict` (the CLI prints its table row there).
///
/// # Errors
/// [`Error::Spawn`] when the server cannot start; [`Error::ServerDidNotStart`]
/// when it starts but the first case's handshake fails (its evidence is logged
/// first; no later case could be judged either); [`Error::Io`] when the evidence
/// cannot be written. A case whose expected outcome is missing fails with that
/// reason.
pub async fn run_cases(
    command: &[String],
    cases: &[Case],
    expected: &serde_json::Map<String, Value>,
    limits: Limits,
    judging: Judging,
    log: &EvidenceLog,
    on_verdict: &mut dyn FnMut(&Verdict),
) -> Result<(), Error> {
    for (index, case) in cases.iter().enumerate() {
        let expected = expected.get(&case.name).cloned();
        let verdict = judge(command, case, expected, limits, judging).await?;
        let did_not_start =
            (index == 0 && !verdict.evidence.started).then(|| Error::ServerDidNotStart {
                error: verdict.evidence.error.clone().unwrap_or_default(),
                stderr: last_lines(&verdict.evidence.stderr, 20),
            });
        on_verdict(&verdict);
        log.push(verdict)?;
        if let Some(error) = did_not_start {
            return Err(error);
        }
    }
    Ok(())
}

/// The last `count` lines of `text`.
fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

/// Runs one case and judges it; a missing expected outcome is a failure.
async fn judge(
    command: &[String],
    case: &Case,
    expected: Option<Value>,
    limits: Limits,
    judging: Judging,
) -> Result<Verdict, Error> {
    let evidence = harness::run_case(command, case, limits, None).await?;
    Ok(match expected {
        Some(expected) => {
            let judgement = contract::judge(case, &expected, &evidence, judging);
            let mut verdict = Verdict::new(expected, judgement.failures, evidence);
            verdict.warnings = judgement.warnings;
            verdict
        }
        None => Verdict::new(
            Value::Null,
            vec![format!("no expected outcome for case {:?}", case.name)],
            evidence,
        ),
    })
}

/// The contract run: the cases of `fixtures/cases.json` named in `only` (all 17
/// when `only` is empty) judged against `expected/results.json`.
///
/// # Errors
/// [`Error::UnknownCase`] when `only` names a case that does not exist (before
/// anything runs); otherwise as [`run_cases`].
pub async fn run_contract(
    command: &[String],
    only: &[String],
    limits: Limits,
    judging: Judging,
    log: &EvidenceLog,
    on_verdict: &mut dyn FnMut(&Verdict),
) -> Result<(), Error> {
    let mut cases = case::contract_cases();
    if let Some(unknown) = only
        .iter()
        .find(|name| !cases.iter().any(|case| &case.name == *name))
    {
        return Err(Error::UnknownCase {
            name: unknown.clone(),
            known: cases.into_iter().map(|case| case.name).collect(),
        });
    }
    if !only.is_empty() {
        cases.retain(|case| only.contains(&case.name));
    }
    let expected = case::contract_expected();
    run_cases(command, &cases, &expected, limits, judging, log, on_verdict).await
}

/// A generated failure shrunk to its minimal form.
#[derive(Debug, Clone)]
pub struct MinimalFailure {
    /// The minimal case, with its reason and expected outcome.
    pub generated: GeneratedCase,
    /// The server's outcome for it (`null` when there was none).
    pub outcome: Value,
    /// The checks that failed on it.
    pub failures: Vec<String>,
    /// Stdio runs spent shrinking.
    pub shrink_runs: usize,
}

/// Runs `count` generated cases (seeded by `seed`) against `command`, logs a
/// verdict per case (named `generated_0001`, ...) with its reason, and shrinks
/// the first failure over stdio. `progress` is called after each case with the
/// number done.
///
/// # Errors
/// As [`run_cases`].
pub async fn run_generated(
    command: &[String],
    count: usize,
    seed: u64,
    limits: Limits,
    judging: Judging,
    log: &EvidenceLog,
    progress: &mut dyn FnMut(usize),
) -> Result<Option<MinimalFailure>, Error> {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let strategy = generated_case();
    let mut minimal = None;
    for index in 1..=count {
        let mut tree = strategy
            .new_tree(&mut runner)
            .expect("the generated-case strategy never rejects");
        let mut generated = tree.current();
        generated.case.name = format!("generated_{index:04}");
        let mut verdict = judge_generated(command, &generated, limits, judging).await?;
        verdict.reason = Some(generated.reason.to_string());
        let failed = !verdict.passed;
        log.push(verdict)?;
        if failed && minimal.is_none() {
            minimal = Some(shrink(command, &mut tree, limits, judging).await?);
        }
        progress(index);
    }
    Ok(minimal)
}

/// Judges one generated case: the two oracles must agree, then the contract checks.
async fn judge_generated(
    command: &[String],
    generated: &GeneratedCase,
    limits: Limits,
    judging: Judging,
) -> Result<Verdict, Error> {
    let mut verdict = judge(
        command,
        &generated.case,
        Some(generated.expected.clone()),
        limits,
        judging,
    )
    .await?;
    let model = model::expected_outcome(&generated.case);
    for mismatch in compare::compare(&generated.expected, &model) {
        verdict.failures.push(format!(
            "the oracles disagree (model vs reason): {mismatch}"
        ));
        verdict.passed = false;
    }
    if !verdict.passed {
        verdict
            .failures
            .push(format!("reason: {}", generated.reason));
    }
    Ok(verdict)
}

/// proptest's shrinking loop, over stdio: simplify while the case still fails,
/// complicate when a simplification passes, at most [`MAX_SHRINK_RUNS`] runs.
async fn shrink(
    command: &[String],
    tree: &mut impl ValueTree<Value = GeneratedCase>,
    limits: Limits,
    judging: Judging,
) -> Result<MinimalFailure, Error> {
    let mut generated = tree.current();
    generated.case.name = "minimal".into();
    let mut verdict = judge_generated(command, &generated, limits, judging).await?;
    let mut best = (generated, verdict.clone());
    let mut runs = 0;
    let mut step = tree.simplify();
    while step && runs < MAX_SHRINK_RUNS {
        runs += 1;
        let mut candidate = tree.current();
        candidate.case.name = "minimal".into();
        verdict = judge_generated(command, &candidate, limits, judging).await?;
        step = if verdict.passed {
            tree.complicate()
        } else {
            best = (candidate, verdict.clone());
            tree.simplify()
        };
    }
    let (generated, verdict) = best;
    Ok(MinimalFailure {
        outcome: verdict.evidence.outcome.clone().unwrap_or(Value::Null),
        failures: verdict.failures,
        generated,
        shrink_runs: runs,
    })
}
