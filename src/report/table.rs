//! The table for people: a header, one row per case as it finishes (with a
//! failed case's primary verdict, secondary failures, last stderr lines and
//! reproduction command under it), the failed generated cases, and the plain
//! closing line CI reads.

use std::io::Write;

use serde_json::Value;

use super::case_verdict::{Verdict, reproduction};
use super::run_document::CaseLine;
use super::tally::CaseTally;
use crate::verdict;

/// Most stderr lines printed under a failed case.
pub const STDERR_LINES: usize = 5;

/// The last `count` non-empty lines of `text`.
pub fn last_lines(text: &str, count: usize) -> Vec<&str> {
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(count)..].to_vec()
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

/// Width of the case column: the longest contract case name.
const CASE_WIDTH: usize = 32;

/// Writes the table's header line (case, status, computed, value, verdict).
///
/// # Errors
/// The writer's I/O error.
pub fn write_header(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<CASE_WIDTH$}  {:<16}  {:<8}  {:<6}  verdict",
        "case", "status", "computed", "value"
    )
}

/// Writes one table row; for a failed case, under it: the primary verdict and
/// its evidence first (`    case: crashed: exit code 3 ...`), then the failures
/// that add information beyond it ([`verdict::secondary`]), the last
/// [`STDERR_LINES`] lines of the server's stderr when there are any, and the
/// reproduction command. Long lines are cut at [`MAX_FAILURE_CHARS`];
/// `results.json` keeps them whole. A case's warnings are not shown here but
/// once per run ([`RunWarning`](super::RunWarning)).
///
/// # Errors
/// The writer's I/O error.
pub fn write_row(out: &mut impl Write, verdict: &Verdict) -> std::io::Result<()> {
    // A server may answer in JSON text content only (judging by meaning).
    let outcome = verdict.evidence.outcome.as_ref().or(verdict
        .evidence
        .text_outcome
        .as_ref()
        .filter(|text| text.is_object()));
    writeln!(
        out,
        "{:<CASE_WIDTH$}  {:<16}  {:<8}  {:<6}  {}",
        verdict.case,
        match (outcome, &verdict.evidence.rpc_error) {
            // 2026-07-28: a refused call has no outcome, only its JSON-RPC error code.
            (None, Some(error)) => format!("jsonrpc {}", error["code"]),
            _ => cell(outcome, "status"),
        },
        cell(outcome, "computed"),
        cell(outcome, "value"),
        if verdict.passed { "pass" } else { "FAIL" }
    )?;
    let case = &verdict.case;
    if !verdict.passed {
        write_primary(out, case, verdict.verdict.name(), &verdict.primary)?;
        let finding = verdict::Finding {
            verdict: verdict.verdict,
            evidence: verdict.primary.clone(),
        };
        for failure in verdict::secondary(&finding, &verdict.evidence, &verdict.failures) {
            writeln!(out, "    {case}: {}", shorten(&failure.to_string()))?;
        }
    }
    if !verdict.passed {
        let stderr = last_lines(&verdict.evidence.stderr, STDERR_LINES);
        if !stderr.is_empty() {
            writeln!(out, "    {case}: server stderr (last lines):")?;
            for line in stderr {
                writeln!(out, "    {case}:   | {}", shorten(line))?;
            }
        }
        let reproduce = verdict
            .reproduce
            .clone()
            .unwrap_or_else(|| reproduction(verdict));
        write_reproduce(out, case, &reproduce)?;
    }
    Ok(())
}

/// The first line under a failed case's row: `    CASE: VERDICT: EVIDENCE`.
fn write_primary(
    out: &mut impl Write,
    case: &str,
    verdict: &str,
    primary: &str,
) -> std::io::Result<()> {
    writeln!(out, "    {case}: {verdict}: {}", shorten(primary))
}

/// The last line under a failed case's row: `    CASE: reproduce: COMMAND`.
fn write_reproduce(out: &mut impl Write, case: &str, reproduce: &str) -> std::io::Result<()> {
    writeln!(out, "    {case}: reproduce: {reproduce}")
}

/// Most failed generated cases [`write_failed_generated`] prints; the others
/// are in `results.json`.
pub const MAX_FAILED_GENERATED_SHOWN: usize = 10;

/// Writes the failed generated cases, which have no table row (the table lists
/// the contract cases as they finish, the generated ones run under a progress
/// bar): for each of the first [`MAX_FAILED_GENERATED_SHOWN`], the lines a row
/// has first and last, its primary verdict with its evidence and its
/// reproduction command; then `... and N more failed generated cases: see
/// results.json`. `tallies` and `cases` are the run's cases in order (a
/// [`CaseTally`] says which are generated).
///
/// # Errors
/// The writer's I/O error.
pub fn write_failed_generated(
    out: &mut impl Write,
    tallies: &[CaseTally],
    cases: &[CaseLine],
) -> std::io::Result<()> {
    let failed: Vec<&CaseLine> = tallies
        .iter()
        .zip(cases)
        .filter(|(tally, _)| tally.generated && !tally.passed)
        .map(|(_, case)| case)
        .collect();
    for case in failed.iter().take(MAX_FAILED_GENERATED_SHOWN) {
        write_primary(out, &case.case, &case.verdict, &case.primary)?;
        if let Some(reproduce) = &case.reproduce {
            write_reproduce(out, &case.case, reproduce)?;
        }
    }
    if failed.len() > MAX_FAILED_GENERATED_SHOWN {
        writeln!(
            out,
            "... and {}: see results.json",
            crate::format::counted(
                failed.len() - MAX_FAILED_GENERATED_SHOWN,
                "more failed generated case"
            )
        )?;
    }
    Ok(())
}

/// Most characters of one failure printed in the table.
pub const MAX_FAILURE_CHARS: usize = 300;

/// `text` cut at [`MAX_FAILURE_CHARS`] characters, with the length it had.
fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_FAILURE_CHARS) {
        None => text.into(),
        Some((end, _)) => format!("{}… ({} bytes in all)", &text[..end], text.len()).into(),
    }
}

/// `N passed, N failed` (the plain closing line CI reads).
pub fn summary(verdicts: &[Verdict]) -> String {
    let passed = verdicts.iter().filter(|v| v.passed).count();
    format!("{passed} passed, {} failed", verdicts.len() - passed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Primary;

    #[test]
    fn failed_generated_cases_are_shown_as_under_a_row_at_most_ten() {
        let tally = |case: &str, passed: bool, generated: bool| CaseTally {
            case: case.to_owned(),
            passed,
            verdict: if passed {
                Primary::Passed
            } else {
                Primary::Hung
            },
            generated,
        };
        let line = |case: &str, passed: bool| CaseLine {
            case: case.to_owned(),
            passed,
            verdict: if passed { "passed" } else { "hung" }.to_owned(),
            primary: if passed {
                "every check held"
            } else {
                "no reply to tools/call within 1 s"
            }
            .to_owned(),
            reproduce: (!passed).then(|| format!("elicit-check run --case {case} --seed 3")),
        };
        // A failed contract case (it has its row) and a passed generated case
        // are not shown; the failed generated ones are.
        let mut tallies = vec![
            tally("decline", false, false),
            tally("generated_0001", true, true),
        ];
        let mut lines = vec![line("decline", false), line("generated_0001", true)];
        for index in 2..=12 {
            let name = format!("generated_{index:04}");
            tallies.push(tally(&name, false, true));
            lines.push(line(&name, false));
        }
        let shown = |tallies: &[CaseTally], lines: &[CaseLine]| {
            let mut out = Vec::new();
            write_failed_generated(&mut out, tallies, lines).expect("written");
            String::from_utf8(out).expect("UTF-8")
        };
        let text = shown(&tallies[..3], &lines[..3]);
        assert_eq!(
            text,
            "    generated_0002: hung: no reply to tools/call within 1 s\n    \
             generated_0002: reproduce: elicit-check run --case generated_0002 --seed 3\n"
        );
        // Eleven failed: ten shown, then one more (in the singular).
        let text = shown(&tallies, &lines);
        let all: Vec<&str> = text.lines().collect();
        assert_eq!(all.len(), 21, "{text}");
        assert_eq!(
            all[0],
            "    generated_0002: hung: no reply to tools/call within 1 s"
        );
        assert_eq!(
            all[19],
            "    generated_0011: reproduce: elicit-check run --case generated_0011 --seed 3"
        );
        assert_eq!(
            all[20],
            "... and 1 more failed generated case: see results.json"
        );
        // Exactly ten: no "more" line.
        assert_eq!(shown(&tallies[..12], &lines[..12]).lines().count(), 20);
        assert_eq!(shown(&tallies[..2], &lines[..2]), "");
    }
}
