//! The outputs of `elicit-check check`. In: the job's report
//! ([`CheckReport`], [`ErasReport`], from [`mod@crate::check`]) and what the
//! command line read beside it (a baseline, a config's path, the reports of a
//! CI matrix's shards). Out: text, JSON, XML and Markdown; nothing here runs a
//! server.
//!
//! Check's report sits beside the `run` job's (the root of [`crate::report`]),
//! so the tree reads in the order of the data: a case or a drawn answer, the
//! harness and the server, the oracle, the verdict, then the report, whichever
//! job ran. It depends on [`mod@crate::check`]'s report types; the job never
//! depends on it.
//!
//! This file: the human table, one JSON document (`--json`), JUnit XML with
//! one testcase per property (`--junit`), each showing what a baseline
//! (`--baseline`) made of the check when one is given. One concept per file
//! under it:
//! - `baseline`: `--baseline FILE`, the known failures of a target;
//! - `sarif`: `--sarif`, SARIF 2.1.0 for code scanning;
//! - `summary`: `--summary`, Markdown for a CI job's summary page;
//! - `targets`: `check --config` over several targets, their overview;
//! - `merge`: `elicit-check merge`, a CI matrix's shards joined (one target's
//!   case slices: `case_slices`).

pub mod baseline;
pub mod case_slices;
pub mod merge;
pub mod sarif;
pub mod summary;
pub mod targets;

use std::fmt::Write as _;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::check::eras::{EraStatus, ErasReport, Outcome};
use crate::check::{CheckReport, PropertyFailure, PropertyVerdict};
use crate::format::counted;
use crate::transcript;
use crate::verdict::check::health::Health;
use baseline::Applied;

/// The human report: a header (the cases run, what the coverage phase built
/// on each field, the consent fields), one line per property (number,
/// statement, cases, verdict), under a failed one its findings (each answer
/// class acted on, how often, its smallest answer), the failure's reason,
/// minimal answer, shrink note, reproduction command, the tool's reply and
/// stderr (property 3) and wire frames; warnings; and a last line.
pub fn table(report: &CheckReport) -> String {
    table_under(report, None, false)
}

/// Most characters of one wire line shown in a table (unless `--verbose`).
pub const MAX_WIRE_LINE_CHARS: usize = 400;

/// [`table`], each property's verdict read through `baseline` when one is
/// given ([`Applied::verdict`]: a known failure, a stale entry), every wire
/// frame whole when `verbose`.
fn table_under(report: &CheckReport, baseline: Option<&Applied>, verbose: bool) -> String {
    let mut out = String::new();
    let ran = if report.health.ran < report.health.planned {
        format!(
            ", {} of {} planned cases ran",
            report.health.ran, report.health.planned
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "elicit-check check: tool {:?} ({}), protocol {}, {} + {}{ran} (seed {}), {}{}",
        report.tool,
        report.acted,
        report.protocol,
        counted(report.coverage_cases, "coverage case"),
        counted(report.cases, "random case"),
        report.seed,
        report.mode,
        if report.strict { ", strict" } else { "" }
    );
    if !report.coverage_fields.is_empty() {
        let _ = writeln!(
            out,
            "coverage answers per field: {}",
            report.coverage_fields.join(", ")
        );
    }
    for consent in &report.consent_fields {
        let _ = writeln!(out, "{consent}");
    }
    for warning in &report.schema_warnings {
        let _ = writeln!(out, "warning: {warning}");
    }
    write_health(&mut out, &report.health);
    let _ = writeln!(out, "{:<3}{:<84}{:>6}  verdict", "#", "property", "cases");
    for property in &report.properties {
        let _ = writeln!(
            out,
            "{:<3}{:<84}{:>6}  {}",
            property.property,
            property.statement,
            property.cases,
            baseline
                .and_then(|applied| applied.verdict(property.property, report.protocol))
                .unwrap_or(property.verdict.word())
        );
        if let Some(planned) = property.planned
            && planned.judged < planned.cases
        {
            let _ = writeln!(
                out,
                "     judged on {} of {} planned calls: {} tested nothing",
                planned.judged,
                planned.cases,
                planned.cases - planned.judged
            );
        }
        for finding in &property.findings {
            let _ = writeln!(
                out,
                "     acted on {}: {} of {}, e.g. {}",
                finding.answer_class, finding.acted, finding.of, finding.smallest
            );
        }
        if let Some(failure) = &property.failure {
            write_failure(&mut out, failure, verbose);
            if property.property == 3 {
                let _ = writeln!(out, "     the tool answered: {}", failure.reply);
            }
            // Property 3 (why the tool refused), and 5 (a server that
            // crashed in the call says why on stderr).
            if matches!(property.property, 3 | 5) && !failure.stderr.trim().is_empty() {
                let _ = writeln!(out, "     its stderr (last lines):");
                for line in failure.stderr.lines() {
                    let _ = writeln!(out, "       {line}");
                }
            }
        }
        for warning in &property.warnings {
            let _ = writeln!(out, "     warning: {warning}");
        }
    }
    // A failure the baseline lists is known, not a failure of this check.
    let (known, failed): (Vec<String>, Vec<String>) = report
        .properties
        .iter()
        .filter(|p| p.verdict == PropertyVerdict::Fails)
        .map(|p| {
            let known = baseline
                .is_some_and(|applied| applied.known(p.property, report.protocol).is_some());
            (known, p.property.to_string())
        })
        .fold(
            (Vec::new(), Vec::new()),
            |(mut known, mut failed), (is_known, property)| {
                if is_known {
                    known.push(property);
                } else {
                    failed.push(property);
                }
                (known, failed)
            },
        );
    let inconclusive = report.health.inconclusive.is_some();
    let _ = match (failed.is_empty(), known.is_empty()) {
        (true, _) if inconclusive => writeln!(
            out,
            "INCONCLUSIVE: too few planned cases tested what they were planned to test to say any property holds"
        ),
        (false, _) if inconclusive => writeln!(
            out,
            "FAILED: property {}; the rest is inconclusive",
            failed.join(", ")
        ),
        (true, true) => writeln!(out, "every property holds"),
        (true, false) => writeln!(
            out,
            "every failure is a known one (baseline): property {}",
            known.join(", ")
        ),
        (false, true) => writeln!(out, "FAILED: property {}", failed.join(", ")),
        (false, false) => writeln!(
            out,
            "FAILED: property {} (known: property {})",
            failed.join(", "),
            known.join(", ")
        ),
    };
    out
}

/// The era's health, when it has something to say: why it is
/// inconclusive, the calls that never reached the tool (the first three),
/// the notes.
fn write_health(out: &mut String, health: &Health) {
    if let Some(line) = &health.inconclusive {
        let _ = writeln!(out, "INCONCLUSIVE: {line}");
    }
    if !health.never_reached_tool.is_empty() {
        let _ = writeln!(
            out,
            "{} never reached the tool (they count for no property):",
            counted(health.never_reached_tool.len(), "call")
        );
        for call in health.never_reached_tool.iter().take(3) {
            let _ = writeln!(out, "  {call}");
        }
        if health.never_reached_tool.len() > 3 {
            let _ = writeln!(out, "  and {} more", health.never_reached_tool.len() - 3);
        }
    }
    if !health.acted_before_call.is_empty() {
        let _ = writeln!(
            out,
            "{} counted for no property: --acted-cmd already said the tool had acted before them ({}{})",
            counted(health.acted_before_call.len(), "call"),
            health
                .acted_before_call
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if health.acted_before_call.len() > 3 {
                ", ..."
            } else {
                ""
            }
        );
    }
    for note in &health.notes {
        let _ = writeln!(out, "note: {note}");
    }
}

/// A failure's lines under its property; each wire line cut at
/// [`MAX_WIRE_LINE_CHARS`] unless `verbose` (the transcript already names a
/// `tools/list` result's tools only).
fn write_failure(out: &mut String, failure: &PropertyFailure, verbose: bool) {
    let _ = writeln!(out, "     reason: {}", failure.reason);
    if !failure.fix.is_empty() {
        let _ = writeln!(out, "     fix: {}", failure.fix);
        let _ = writeln!(out, "     how, per SDK: {}", failure.fix_url);
    }
    let answers: Vec<String> = failure.answers.iter().map(ToString::to_string).collect();
    let runs = match failure.shrink_runs {
        1 => "1 run".to_owned(),
        runs => format!("{runs} runs"),
    };
    // Stopped at the budget, so not called minimal: said first, with the runs.
    let shrink = if failure.shrink_stopped_early {
        format!(" (shrinking stopped at its budget after {runs}: it may not be minimal)")
    } else if failure.shrink_runs == 0 {
        String::new()
    } else {
        format!(" (shrunk in {runs})")
    };
    let _ = writeln!(
        out,
        "     {}: {}{shrink}",
        failure.answers_title(),
        if answers.is_empty() {
            "none sent".to_owned()
        } else {
            answers.join(" then ")
        }
    );
    let _ = writeln!(out, "     reproduce: {}", failure.reproduce);
    if let Some(again) = &failure.reproduce_seed {
        let _ = writeln!(out, "     or: {again}");
    }
    if !failure.wire.is_empty() {
        let _ = writeln!(out, "     wire:");
        for line in transcript::render_with_stray(&failure.wire, &failure.stray_stdout).lines() {
            if verbose {
                let _ = writeln!(out, "       {line}");
            } else {
                let _ = writeln!(out, "       {}", cut_line(line));
            }
        }
    }
}

/// `line` cut at [`MAX_WIRE_LINE_CHARS`] characters, saying how long it was:
/// `… (57,141 bytes; --verbose or --json shows it whole)`.
pub fn cut_line(line: &str) -> String {
    if line.chars().count() <= MAX_WIRE_LINE_CHARS {
        return line.to_owned();
    }
    let shown: String = line.chars().take(MAX_WIRE_LINE_CHARS).collect();
    format!(
        "{shown}… ({} bytes; --verbose or --json shows it whole)",
        thousands(line.len())
    )
}

/// `57141` as `57,141`.
fn thousands(count: usize) -> String {
    let digits = count.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The report as one JSON document (the [`CheckReport`] fields, wire frames as
/// `{"seq","from","message"}`).
///
/// # Errors
/// serde_json's error (not expected: every field is plain data).
pub fn json(report: &CheckReport) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(report)
}

/// The human report over eras: the server's SDK as the wire told it (when an
/// era was checked), then per era tried, a line saying whether it was
/// checked and why, then (checked) its [`table`], each failure with its
/// `fix:` line and guide page; a last line over all eras.
/// With a baseline, the rows it names read [`Applied::verdict`], then come
/// its lines ([`Applied::lines`]) and the verdict with it: `passes with the
/// baseline FILE` or `FAILED with the baseline FILE`.
pub fn eras_table(report: &ErasReport, baseline: Option<&Applied>, verbose: bool) -> String {
    let mut out = String::new();
    if report.eras.iter().any(|era| era.report.is_some()) {
        let _ = writeln!(out, "server SDK: {}", report.sdk.line());
    }
    for era in &report.eras {
        match (&era.report, era.status) {
            (Some(checked), _) => {
                let _ = writeln!(out, "== protocol {} ({})", era.protocol, era.why);
                out.push_str(&table_under(checked, baseline, verbose));
            }
            (None, EraStatus::CannotConfirm) => {
                let _ = writeln!(
                    out,
                    "== protocol {}: {}: {}",
                    era.protocol,
                    if era.fails { "FAILS" } else { "warning" },
                    era.why
                );
            }
            (None, EraStatus::Incomplete) => {
                let _ = writeln!(
                    out,
                    "== protocol {}: NOT COMPLETED: {}",
                    era.protocol, era.why
                );
            }
            (None, _) => {
                let _ = writeln!(
                    out,
                    "== protocol {}: not checked: {}",
                    era.protocol, era.why
                );
            }
        }
    }
    // With a baseline, an era fails on a failure it does not list or a stale entry.
    let failed: Vec<String> = report
        .eras
        .iter()
        .filter_map(|era| era.report.as_ref())
        .filter(|checked| match baseline {
            None => !checked.passed,
            Some(applied) => applied
                .new_failures
                .iter()
                .chain(&applied.stale)
                .any(|listed| listed.protocol == checked.protocol),
        })
        .map(|checked| checked.protocol.to_owned())
        .chain(
            report
                .eras
                .iter()
                .filter(|era| era.fails)
                .map(|era| era.protocol.to_owned()),
        )
        .collect();
    let checked: Vec<&str> = report
        .eras
        .iter()
        .filter(|era| era.checked)
        .map(|era| era.protocol)
        .collect();
    let incomplete: Vec<&str> = report
        .eras
        .iter()
        .filter(|era| era.status == EraStatus::Incomplete)
        .map(|era| era.protocol)
        .collect();
    let inconclusive: Vec<&str> = report
        .eras
        .iter()
        .filter(|era| {
            era.report
                .as_ref()
                .is_some_and(|checked| checked.health.inconclusive.is_some())
        })
        .map(|era| era.protocol)
        .collect();
    if report.outcome == Outcome::Incomplete {
        let _ = writeln!(
            out,
            "NOT COMPLETED in protocol {} (the verdicts of the other eras stand)",
            incomplete.join(" and ")
        );
    } else if report.outcome == Outcome::Inconclusive {
        let _ = writeln!(
            out,
            "INCONCLUSIVE in protocol {}",
            inconclusive.join(" and ")
        );
    } else if failed.is_empty() {
        let holds = if baseline.is_some_and(|applied| !applied.known.is_empty()) {
            "no failure beyond the baseline's"
        } else {
            "every property holds"
        };
        let _ = writeln!(out, "{holds} in protocol {}", checked.join(" and "));
    } else {
        let _ = writeln!(out, "FAILED in protocol {}", failed.join(" and "));
    }
    if let Some(applied) = baseline {
        for line in applied.lines() {
            let _ = writeln!(out, "{line}");
        }
        let verdict = if applied.passed {
            "passes with the baseline"
        } else {
            "FAILED with the baseline"
        };
        let _ = writeln!(out, "{verdict} {}", applied.file);
    }
    out
}

/// The report over eras as one JSON document ([`ErasReport`]: `eras`, each
/// with its [`CheckReport`] under `report`).
///
/// # Errors
/// serde_json's error (not expected: every field is plain data).
pub fn eras_json(report: &ErasReport) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(report)
}

/// JUnit XML over eras: one `<testsuite name="elicit-check check TOOL
/// (protocol ERA)">` per era checked, as [`junit`] builds it.
///
/// With a baseline, a known failure is `<skipped>` (its message
/// `known failure (baseline FILE): REASON`, its text the failure's), so the
/// report agrees with the exit code; a stale entry turns its property's
/// passed testcase into a `<failure>` saying to remove it.
///
/// # Errors
/// quick-junit's serialization error.
pub fn eras_junit(
    report: &ErasReport,
    baseline: Option<&Applied>,
) -> Result<String, quick_junit::SerializeError> {
    let mut junit = Report::new("elicit-check");
    junit.add_test_suites(eras_suites(report, baseline, &report.tool));
    junit.to_string()
}

/// The `<testsuite>`s of [`eras_junit`], named `elicit-check check LABEL
/// (protocol ERA)`: `label` is the tool, or the target's name when the check
/// ran a config's targets.
///
/// An era the tool cannot be confirmed in is a suite of one testcase, `the
/// tool can be confirmed`, failed (or skipped, when that is a warning); an
/// era whose check could not be completed is one testcase, `check`, in error.
pub fn eras_suites(report: &ErasReport, baseline: Option<&Applied>, label: &str) -> Vec<TestSuite> {
    report
        .eras
        .iter()
        .filter_map(|era| {
            let name = format!("{label} (protocol {})", era.protocol);
            if let Some(checked) = &era.report {
                return Some(suite(checked, &name, baseline));
            }
            let (testcase, mut status) = match era.status {
                EraStatus::CannotConfirm if era.fails => (
                    "the tool can be confirmed",
                    TestCaseStatus::non_success(NonSuccessKind::Failure),
                ),
                EraStatus::CannotConfirm => {
                    ("the tool can be confirmed", TestCaseStatus::skipped())
                }
                EraStatus::Incomplete => {
                    ("check", TestCaseStatus::non_success(NonSuccessKind::Error))
                }
                EraStatus::Checked | EraStatus::NotChecked => return None,
            };
            status.set_message(era.why.lines().next().unwrap_or_default());
            status.set_description(era.why.clone());
            let mut suite = TestSuite::new(format!("elicit-check check {name}"));
            let mut case = TestCase::new(testcase, status);
            case.set_classname(format!("elicit-check.{label}"));
            suite.add_test_case(case);
            Some(suite)
        })
        .collect()
}

/// The `<testsuite name="elicit-check check NAME">` of a target that could
/// not be checked: one testcase, `check`, in error (`<error>`) with `error`
/// as its message, so a CI system counts it as broken rather than passed.
pub fn not_checked_suite(name: &str, error: &str) -> TestSuite {
    let mut suite = TestSuite::new(format!("elicit-check check {name}"));
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
    status.set_message(error.lines().next().unwrap_or_default());
    status.set_description(error);
    let mut case = TestCase::new("check", status);
    case.set_classname(format!("elicit-check.{name}"));
    suite.add_test_case(case);
    suite
}

/// The report as JUnit XML: one `<testsuite name="elicit-check check TOOL">` with
/// one `<testcase name="property N: STATEMENT">` per property; a failing property
/// has a `<failure>` whose message is the reason and whose text is the minimal
/// answer, the reproduction command and the wire; an untested one is `<skipped>`.
/// The health's notes are the suite's `<system-out>`, one `note: ` line each.
///
/// # Errors
/// quick-junit's serialization error.
pub fn junit(report: &CheckReport) -> Result<String, quick_junit::SerializeError> {
    let mut junit = Report::new("elicit-check");
    junit.add_test_suite(suite(report, &report.tool, None));
    junit.to_string()
}

/// One report's `<testsuite name="elicit-check check NAME">`, read through
/// `baseline` as [`eras_junit`] says.
fn suite(report: &CheckReport, name: &str, baseline: Option<&Applied>) -> TestSuite {
    let mut suite = TestSuite::new(format!("elicit-check check {name}"));
    for property in &report.properties {
        let known = baseline.and_then(|applied| {
            applied
                .known(property.property, report.protocol)
                .map(|listed| applied.known_line(listed))
        });
        let stale = baseline.and_then(|applied| {
            applied
                .stale_entry(property.property, report.protocol)
                .map(|listed| applied.stale_line(listed))
        });
        let status = match (&property.failure, property.verdict, known, stale) {
            (Some(failure), _, Some(known), _) => {
                let mut status = TestCaseStatus::skipped();
                status.set_message(known);
                let mut text = String::new();
                write_failure(&mut text, failure, true);
                status.set_description(text);
                status
            }
            (None, _, _, Some(stale)) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(stale);
                status
            }
            (Some(failure), _, None, _) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(failure.reason.clone());
                let mut text = String::new();
                write_failure(&mut text, failure, true);
                status.set_description(text);
                status
            }
            (None, PropertyVerdict::Untested, _, None) => {
                let mut status = TestCaseStatus::skipped();
                status.set_message("no case applied to this property");
                status
            }
            (None, PropertyVerdict::Inconclusive, _, None) => {
                // Not a pass: a CI system counts an error as broken.
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
                status.set_message(format!(
                    "inconclusive: {}",
                    report.health.inconclusive.as_deref().unwrap_or_default()
                ));
                status
            }
            (None, _, _, None) => TestCaseStatus::success(),
        };
        let mut case = TestCase::new(
            format!("property {}: {}", property.property, property.statement),
            status,
        );
        case.set_classname(format!("elicit-check.{}", report.tool));
        if !property.warnings.is_empty() {
            case.set_system_out(property.warnings.join("\n"));
        }
        suite.add_test_case(case);
    }
    if !report.health.notes.is_empty() {
        let notes: Vec<String> = report
            .health
            .notes
            .iter()
            .map(|note| format!("note: {note}"))
            .collect();
        suite.set_system_out(notes.join("\n"));
    }
    suite
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wire_line_past_its_bound_is_cut_saying_its_size() {
        let short = "x".repeat(MAX_WIRE_LINE_CHARS);
        assert_eq!(cut_line(&short), short);
        let long = "é".repeat(57_141);
        let cut = cut_line(&long);
        assert_eq!(
            cut,
            format!(
                "{}… (114,282 bytes; --verbose or --json shows it whole)",
                "é".repeat(MAX_WIRE_LINE_CHARS)
            )
        );
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
