//! A run: every case through the harness, each judged by the contract oracle.

use std::path::Path;

use serde_json::Value;

use crate::case::{self, Case};
use crate::error::Error;
use crate::harness::{self, Limits};
use crate::oracle::contract;
use crate::report::{self, Verdict};

/// Runs `cases` against `command`, one fresh server process per case, judging
/// each against `expected[case.name]`, and writes `results.json` into `output`
/// after every case, so a crash or an interrupt loses nothing already run.
///
/// # Errors
/// [`Error::Spawn`] when the server cannot start; [`Error::Io`] when the
/// evidence cannot be written. A case whose expected outcome is missing fails
/// with that reason.
pub async fn run_cases(
    command: &[String],
    cases: &[Case],
    expected: &serde_json::Map<String, Value>,
    output: &Path,
    limits: Limits,
) -> Result<Vec<Verdict>, Error> {
    let mut verdicts = Vec::with_capacity(cases.len());
    for case in cases {
        let evidence = harness::run_case(command, case, limits, None).await?;
        let (expected, failures) = match expected.get(&case.name) {
            Some(expected) => (expected.clone(), contract::check(case, expected, &evidence)),
            None => (
                Value::Null,
                vec![format!("no expected outcome for case {:?}", case.name)],
            ),
        };
        verdicts.push(Verdict::new(expected, failures, evidence));
        report::write_results(output, &verdicts)?;
    }
    Ok(verdicts)
}

/// The contract run: the 17 cases of `fixtures/cases.json` with `expected/results.json`.
///
/// # Errors
/// As [`run_cases`].
pub async fn run_contract(
    command: &[String],
    output: &Path,
    limits: Limits,
) -> Result<Vec<Verdict>, Error> {
    run_cases(
        command,
        &case::contract_cases(),
        &case::contract_expected(),
        output,
        limits,
    )
    .await
}
