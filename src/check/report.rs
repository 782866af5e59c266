//! The outputs of `elicit-check check`: a human table, one JSON document
//! (`--json`), JUnit XML with one testcase per property (`--junit`), each
//! showing what a baseline (`--baseline`) made of the check when one is given.

use std::fmt::Write as _;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::check::baseline::Applied;
use crate::check::eras::ErasReport;
use crate::check::outcome::{CheckReport, PropertyFailure, PropertyVerdict};
use crate::format::counted;
use crate::transcript;

/// The human report: a header (the cases run, what the coverage phase built
/// on each field, the consent fields), one line per property (number,
/// statement, cases, verdict), under a failed one its findings (each answer
/// class acted on, how often, its smallest answer), the failure's reason,
/// minimal answer, shrink note, reproduction command, the tool's reply and
/// stderr (property 3) and wire frames; warnings; and a last line.
pub fn table(report: &CheckReport) -> String {
    table_under(report, None)
}

/// [`table`], each property's verdict read through `baseline` when one is
/// given ([`Applied::verdict`]: a known failure, a stale entry).
fn table_under(report: &CheckReport, baseline: Option<&Applied>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "elicit-check check: tool {:?} ({}), protocol {}, {} + {} (seed {}), {}{}",
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
        for finding in &property.findings {
            let _ = writeln!(
                out,
                "     acted on {}: {} of {}, e.g. {}",
                finding.answer_class, finding.acted, finding.of, finding.smallest
            );
        }
        if let Some(failure) = &property.failure {
            write_failure(&mut out, failure);
            if property.property == 3 {
                let _ = writeln!(out, "     the tool answered: {}", failure.reply);
                if !failure.stderr.trim().is_empty() {
                    let _ = writeln!(out, "     its stderr (last lines):");
                    for line in failure.stderr.lines() {
                        let _ = writeln!(out, "       {line}");
                    }
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
    let _ = match (failed.is_empty(), known.is_empty()) {
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

/// A failure's lines under its property.
fn write_failure(out: &mut String, failure: &PropertyFailure) {
    let _ = writeln!(out, "     reason: {}", failure.reason);
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
        "     minimal answer: {}{shrink}",
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
            let _ = writeln!(out, "       {line}");
        }
    }
}

/// The report as one JSON document (the [`CheckReport`] fields, wire frames as
/// `{"seq","from","message"}`).
///
/// # Errors
/// serde_json's error (not expected: every field is plain data).
pub fn json(report: &CheckReport) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(report)
}

/// The human report over eras: per era tried, a line saying whether it was
/// checked and why, then (checked) its [`table`]; a last line over all eras.
/// With a baseline, the rows it names read [`Applied::verdict`], then come
/// its lines ([`Applied::lines`]) and the verdict with it: `passes with the
/// baseline FILE` or `FAILED with the baseline FILE`.
pub fn eras_table(report: &ErasReport, baseline: Option<&Applied>) -> String {
    let mut out = String::new();
    for era in &report.eras {
        match &era.report {
            Some(checked) => {
                let _ = writeln!(out, "== protocol {} ({})", era.protocol, era.why);
                out.push_str(&table_under(checked, baseline));
            }
            None => {
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
        .collect();
    let checked: Vec<&str> = report
        .eras
        .iter()
        .filter(|era| era.checked)
        .map(|era| era.protocol)
        .collect();
    if failed.is_empty() {
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
pub fn eras_suites(report: &ErasReport, baseline: Option<&Applied>, label: &str) -> Vec<TestSuite> {
    report
        .eras
        .iter()
        .filter_map(|era| {
            let checked = era.report.as_ref()?;
            Some(suite(
                checked,
                &format!("{label} (protocol {})", era.protocol),
                baseline,
            ))
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
                write_failure(&mut text, failure);
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
                write_failure(&mut text, failure);
                status.set_description(text);
                status
            }
            (None, PropertyVerdict::Untested, _, None) => {
                let mut status = TestCaseStatus::skipped();
                status.set_message("no case applied to this property");
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
    suite
}
