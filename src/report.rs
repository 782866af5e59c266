//! The report: one verdict per case, a table for people, `results.json` for tools.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::harness::Evidence;
use crate::strategy::GeneratedCase;

/// The verdict of one case: its evidence, what was expected, and every failure.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The case's name.
    pub case: String,
    /// `true` when `failures` is empty.
    pub passed: bool,
    /// The expected outcome (hand-written, or from the oracle for generated cases).
    pub expected: Value,
    /// Every failed check, each naming its JSON path or frame.
    pub failures: Vec<String>,
    /// Everything the harness recorded.
    pub evidence: Evidence,
}

impl Verdict {
    /// A verdict from checks already run.
    pub fn new(expected: Value, failures: Vec<String>, evidence: Evidence) -> Self {
        Verdict {
            case: evidence.case.clone(),
            passed: failures.is_empty(),
            expected,
            failures,
            evidence,
        }
    }
}

/// The table cell for a JSON member of the outcome (`-` when absent).
fn cell(outcome: Option<&Value>, key: &str) -> String {
    outcome.and_then(|outcome| outcome.get(key)).map_or_else(
        || "-".to_owned(),
        |value| match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        },
    )
}

/// Writes the table (name, status, computed, value, verdict) with each failure
/// under its row.
///
/// # Errors
/// The writer's I/O error.
pub fn write_table(out: &mut impl Write, verdicts: &[Verdict]) -> std::io::Result<()> {
    let width = verdicts
        .iter()
        .map(|v| v.case.len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "{:<width$}  {:<16}  {:<8}  {:<6}  verdict",
        "case", "status", "computed", "value"
    )?;
    for verdict in verdicts {
        let outcome = verdict.evidence.outcome.as_ref();
        writeln!(
            out,
            "{:<width$}  {:<16}  {:<8}  {:<6}  {}",
            verdict.case,
            cell(outcome, "status"),
            cell(outcome, "computed"),
            cell(outcome, "value"),
            if verdict.passed { "pass" } else { "FAIL" }
        )?;
        for failure in &verdict.failures {
            writeln!(out, "    {}: {failure}", verdict.case)?;
        }
    }
    Ok(())
}

/// `N passed, N failed` (the plain closing line CI reads).
pub fn summary(verdicts: &[Verdict]) -> String {
    let passed = verdicts.iter().filter(|v| v.passed).count();
    format!("{passed} passed, {} failed", verdicts.len() - passed)
}

/// Writes `results.json` (an array of verdicts with their evidence) into `dir`,
/// creating it; returns the file's path.
///
/// # Errors
/// [`Error::Io`] when the folder or file cannot be written.
pub fn write_results(dir: &Path, verdicts: &[Verdict]) -> Result<PathBuf, Error> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join("results.json");
    let text = serde_json::to_string_pretty(verdicts).map_err(|source| Error::Json {
        path: path.clone(),
        source,
    })?;
    std::fs::write(&path, text + "\n").map_err(io(&path))?;
    Ok(path)
}

/// A generated case's failure in its minimal form, one item per line: reason,
/// capabilities, policy, answer, outcome and expected outcome. Used by the
/// properties and by `elicit-check run --cases N` alike.
pub fn explain(generated: &GeneratedCase, outcome: &Value) -> String {
    format!(
        "\n  reason:       {}\n  capabilities: {}\n  policy:       {}\n  answer:       {}\n  outcome:      {}\n  expected:     {}",
        generated.reason,
        generated.case.capabilities,
        generated.case.policy,
        serde_json::to_string(&generated.case.answer).unwrap_or_default(),
        outcome,
        generated.expected
    )
}
