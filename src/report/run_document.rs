//! The run's documents for tools: one case's line ([`CaseLine`]), the record
//! of how a run that did not finish ended ([`RunEnd`]), the document of
//! `run --json` ([`run_document`]), and a run's members with its `status`
//! first, as `run.json` has them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One case in the document of `run --json` ([`run_document`]): the members of
/// its verdict in `results.json` that a CI system groups and reports by, without
/// the evidence (docs/src/verdicts.md: `run.json` and `--json` carry the verdict
/// name, so CI can group failures).
///
/// JSON shape: `{"case": "accept_valid", "passed": false, "verdict": "crashed",
/// "primary": "exit code 3 before replying to tools/call", "reproduce":
/// "elicit-check run --case accept_valid -- ..."}` (`reproduce` only for a
/// failed case).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseLine {
    /// The case's name.
    pub case: String,
    /// Whether it passed.
    pub passed: bool,
    /// Its primary verdict's name (`passed`, `crashed`, `hung`, ...).
    pub verdict: String,
    /// The evidence line of that verdict.
    pub primary: String,
    /// A failed case's reproduction command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
}

/// The last record of `results.jsonl` (and so the last element of
/// `results.json`) of a run that did not finish: how it ended, in the words of
/// `run.json`'s `status`, `cases` and `stopped_because` (a run that
/// did not finish says so in all three files). A finished run has none.
///
/// JSON shape: `{"run_status": "stopped", "cases": 2, "stopped_because":
/// "stopped after 2 consecutive hung cases ..."}`. It has no `case` member, which
/// is how a reader of verdicts tells it apart (docs/src/verdicts.md, "The evidence folder").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEnd {
    /// `stopped`, `interrupted` or `aborted`.
    pub run_status: String,
    /// The verdicts recorded before it.
    pub cases: usize,
    /// Why the run ended early, as in `run.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_because: Option<String>,
}

/// One line of `results.jsonl`: a case's verdict, or the run's [`RunEnd`].
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Record {
    Case(CaseLine),
    End(#[allow(dead_code)] RunEnd),
}

/// The one JSON document `elicit-check run --json` prints on stdout: the members
/// of `run.json` (`summary` with `"status": status` first) and `results`, one
/// [`CaseLine`] per case in case order. Shape: `schemas/run-report.schema.json`
/// (docs/src/verdicts.md; the conventions of `check --json`: one pretty-printed
/// document, nothing else on stdout).
pub fn run_document(summary: &Value, status: &str, results: Vec<CaseLine>) -> Value {
    let mut document = match with_status(summary, status) {
        Value::Object(members) => members,
        _ => serde_json::Map::new(),
    };
    document.insert(
        "results".to_owned(),
        Value::Array(
            results
                .into_iter()
                .map(|line| serde_json::to_value(line).unwrap_or(Value::Null))
                .collect(),
        ),
    );
    Value::Object(document)
}

/// `run` (an object) with `"status": status` first.
pub(super) fn with_status(run: &Value, status: &str) -> Value {
    let mut members = serde_json::Map::new();
    members.insert("status".to_owned(), status.into());
    if let Some(run) = run.as_object() {
        members.extend(
            run.iter()
                .filter(|(key, _)| *key != "status")
                .map(|(key, value)| (key.clone(), value.clone())),
        );
    }
    Value::Object(members)
}
