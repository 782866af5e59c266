//! What a run keeps in memory of each finished case ([`CaseTally`]), and the
//! counts made of it: the closing `N passed, N failed` line and `run.json`'s
//! failed cases per primary verdict.

use serde::Serialize;
use serde_json::Value;

use crate::verdict::Primary;

/// What a run keeps in memory of one finished case: enough for the summary
/// line and `run.json` (the evidence itself is on disk only, so a run's
/// memory stays flat whatever `--cases` is).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseTally {
    /// The case's name.
    pub case: String,
    /// Whether it passed.
    pub passed: bool,
    /// Its primary verdict.
    pub verdict: Primary,
    /// Whether it is a generated case (it has a reason).
    pub generated: bool,
}

/// `N passed, N failed` of `tallies` (the plain closing line CI reads).
pub fn tally_summary(tallies: &[CaseTally]) -> String {
    let passed = tallies.iter().filter(|tally| tally.passed).count();
    format!("{passed} passed, {} failed", tallies.len() - passed)
}

/// The number of failed cases per primary verdict, in [`Primary::ALL`] order
/// (`{"crashed": 3, "hung": 2}`), for `run.json`.
pub fn verdict_counts(tallies: &[CaseTally]) -> Value {
    let mut counts = serde_json::Map::new();
    for verdict in Primary::ALL {
        let count = tallies
            .iter()
            .filter(|tally| !tally.passed && tally.verdict == verdict)
            .count();
        if count > 0 {
            counts.insert(verdict.name().to_owned(), count.into());
        }
    }
    Value::Object(counts)
}
