//! `check --config` over the config's targets: one entry per target checked
//! (its name, tool, outcome, a one-line verdict, and its own report as
//! `check --json` prints it for that target alone, or why it could not be
//! checked), the overview table across targets, and its Markdown.
//!
//! This is the document `check --json` prints when it runs the targets of a
//! config (`schemas/check-targets.schema.json`), a shard (`--shard K/N`)
//! writes, and `elicit-check merge` reads and writes.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::baseline::Applied;
use super::summary::cell;
use crate::check::PropertyVerdict;
use crate::check::eras::{EraStatus, Outcome};
use crate::targets::shard::Shard;

/// How one target ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetOutcome {
    /// Every property holds (or, with a baseline, every failure is known and
    /// no entry is stale).
    Passed,
    /// A property fails.
    Failed,
    /// The check could not be done (the server did not start, the tool is
    /// not listed, the acted rule cannot be read, ...).
    Error,
}

/// One target's entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetEntry {
    /// Its position among the targets selected (the file's order after
    /// `--target`, from 0), which fixes its shard.
    pub position: usize,
    /// Its name (the `[[target]]`'s `name`, else its tool).
    pub name: String,
    /// The tool called.
    pub tool: String,
    /// How it ended.
    pub outcome: TargetOutcome,
    /// One line: `every property holds in protocol 2025-11-25`, `FAILED: P1
    /// in 2025-11-25`, or `not checked: REASON`.
    pub verdict: String,
    /// Its report as `check --json` prints it for this target alone (with
    /// `baseline` when one is given); absent when it could not be checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<Value>,
    /// Why it could not be checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl TargetEntry {
    /// The entry of a target that was checked: `document` its report as
    /// `check --json` prints it, read through `baseline` when given.
    pub fn checked(
        position: usize,
        name: &str,
        tool: &str,
        document: Value,
        baseline: Option<&Applied>,
    ) -> TargetEntry {
        match ReportView::read(&document) {
            Ok(view) => {
                let (outcome, verdict) = verdict(&view, baseline);
                TargetEntry {
                    position,
                    name: name.to_owned(),
                    tool: tool.to_owned(),
                    outcome,
                    verdict,
                    report: Some(document),
                    error: None,
                }
            }
            Err(error) => TargetEntry::not_checked(
                position,
                name,
                tool,
                &format!("its report cannot be read: {error}"),
            ),
        }
    }

    /// The entry of a target that could not be checked, and why (`error`, as
    /// `check` prints it).
    pub fn not_checked(position: usize, name: &str, tool: &str, error: &str) -> TargetEntry {
        let first = error.lines().next().unwrap_or_default();
        TargetEntry {
            position,
            name: name.to_owned(),
            tool: tool.to_owned(),
            outcome: TargetOutcome::Error,
            verdict: format!("not checked: {first}"),
            report: None,
            error: Some(error.to_owned()),
        }
    }
}

/// What a verdict line reads of a target's report: the JSON of `check
/// --json` (schemas/check-report.schema.json), its other fields left out.
#[derive(Debug, Deserialize)]
pub(super) struct ReportView {
    /// Whether every property holds in every era checked.
    passed: bool,
    /// `passed`, `failed`, `inconclusive` or `incomplete`.
    outcome: Outcome,
    /// Each era tried.
    eras: Vec<EraView>,
}

/// One era of a [`ReportView`].
#[derive(Debug, Deserialize)]
struct EraView {
    /// `2025-11-25` or `2026-07-28`.
    protocol: String,
    /// Whether its properties were judged.
    checked: bool,
    /// What became of it.
    status: EraStatus,
    /// Why it ran, was not checked, cannot be confirmed or is incomplete.
    why: String,
    /// Whether it fails apart from its properties.
    fails: bool,
    /// Its properties, when checked.
    #[serde(default)]
    report: Option<EraPropertiesView>,
}

/// The properties of a checked era.
#[derive(Debug, Deserialize)]
struct EraPropertiesView {
    /// P1 to P8.
    properties: Vec<PropertyView>,
    /// Its health: why it is inconclusive, when it is.
    health: HealthView,
}

/// What the verdict line reads of an era's health.
#[derive(Debug, Deserialize)]
struct HealthView {
    /// Why the era is inconclusive.
    #[serde(default)]
    inconclusive: Option<String>,
}

/// One property's verdict and warnings.
#[derive(Debug, Deserialize)]
struct PropertyView {
    /// 1 to 8.
    property: u8,
    /// Holds, fails or untested.
    verdict: PropertyVerdict,
    /// Its warnings.
    #[serde(default)]
    warnings: Vec<String>,
}

impl ReportView {
    /// Reads `report` (a target's `check --json` document).
    ///
    /// # Errors
    /// It is not that document (serde's message).
    pub(super) fn read(report: &Value) -> Result<ReportView, String> {
        ReportView::deserialize(report).map_err(|error| error.to_string())
    }
}

/// The outcome and one-line verdict of `report`, read through `baseline`:
/// a report that could not be completed, or is inconclusive, is the
/// target's error whatever the baseline says.
fn verdict(report: &ReportView, baseline: Option<&Applied>) -> (TargetOutcome, String) {
    for era in &report.eras {
        if report.outcome == Outcome::Incomplete && era.status == EraStatus::Incomplete {
            return (
                TargetOutcome::Error,
                format!(
                    "not completed in protocol {}: {}",
                    era.protocol,
                    era.why.lines().next().unwrap_or_default()
                ),
            );
        }
    }
    for era in &report.eras {
        let inconclusive = era
            .report
            .as_ref()
            .and_then(|checked| checked.health.inconclusive.as_deref());
        if let Some(line) = inconclusive {
            return (
                TargetOutcome::Error,
                format!("inconclusive in protocol {}: {line}", era.protocol),
            );
        }
    }
    let era_failures: Vec<String> = report
        .eras
        .iter()
        .filter(|era| era.fails)
        .map(|era| format!("cannot be confirmed in {}", era.protocol))
        .collect();
    let eras_checked: Vec<&str> = report
        .eras
        .iter()
        .filter(|era| era.checked)
        .map(|era| era.protocol.as_str())
        .collect();
    let warnings: usize = report
        .eras
        .iter()
        .filter_map(|era| era.report.as_ref())
        .flat_map(|checked| &checked.properties)
        .map(|property| property.warnings.len())
        .sum();
    let holds = format!(
        "every property holds in protocol {}{}",
        eras_checked.join(" and "),
        match warnings {
            0 => String::new(),
            count => format!(" ({})", crate::format::counted(count, "warning")),
        }
    );
    // `P1, P2 in 2025-11-25; P4 in 2026-07-28` of (property, era) pairs.
    let listed = |pairs: Vec<(u8, &str)>| {
        let mut by_era: Vec<(&str, Vec<String>)> = Vec::new();
        for (property, protocol) in pairs {
            match by_era.iter_mut().find(|(era, _)| *era == protocol) {
                Some((_, properties)) => properties.push(format!("P{property}")),
                None => by_era.push((protocol, vec![format!("P{property}")])),
            }
        }
        let parts: Vec<String> = by_era
            .into_iter()
            .map(|(era, properties)| format!("{} in {era}", properties.join(", ")))
            .collect();
        parts.join("; ")
    };
    match baseline {
        None if report.passed => (TargetOutcome::Passed, holds),
        None => {
            let failed: Vec<(u8, &str)> = report
                .eras
                .iter()
                .filter_map(|era| Some((era.protocol.as_str(), era.report.as_ref()?)))
                .flat_map(|(protocol, checked)| {
                    checked
                        .properties
                        .iter()
                        .filter(|property| property.verdict == PropertyVerdict::Fails)
                        .map(move |property| (property.property, protocol))
                })
                .collect();
            let mut parts = Vec::new();
            if !failed.is_empty() {
                parts.push(listed(failed));
            }
            parts.extend(era_failures);
            (
                TargetOutcome::Failed,
                format!("FAILED: {}", parts.join("; ")),
            )
        }
        // No baseline lists an era the tool cannot be confirmed in.
        Some(applied) if applied.passed && !era_failures.is_empty() => (
            TargetOutcome::Failed,
            format!("FAILED: {}", era_failures.join("; ")),
        ),
        Some(applied) if applied.passed && applied.known.is_empty() => {
            (TargetOutcome::Passed, holds)
        }
        Some(applied) if applied.passed => {
            let known = applied
                .known
                .iter()
                .map(|listed| (listed.property, listed.protocol))
                .collect();
            (
                TargetOutcome::Passed,
                format!("passes with the baseline (known: {})", listed(known)),
            )
        }
        Some(applied) => {
            let mut parts = Vec::new();
            let new: Vec<(u8, &str)> = applied
                .new_failures
                .iter()
                .map(|listed| (listed.property, listed.protocol))
                .collect();
            if !new.is_empty() {
                parts.push(listed(new));
            }
            let stale: Vec<(u8, &str)> = applied
                .stale
                .iter()
                .map(|listed| (listed.property, listed.protocol))
                .collect();
            if !stale.is_empty() {
                parts.push(format!("stale baseline entry: {}", listed(stale)));
            }
            parts.extend(era_failures);
            (
                TargetOutcome::Failed,
                format!("FAILED with the baseline: {}", parts.join("; ")),
            )
        }
    }
}

/// The report over the targets of one config (or one shard of them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetsReport {
    /// The version of elicit-check that checked them.
    pub elicit_check_version: String,
    /// The config file, as given (`--config`).
    pub config: String,
    /// The slice checked (`--shard K/N`); absent for all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// How many targets were selected before slicing (the config's, or those
    /// `--target` names).
    pub selected: usize,
    /// Whether the shard is a slice of the one target's planned cases (a
    /// config with one target sharded) rather than of the targets.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cases_sliced: bool,
    /// Whether every target checked passed.
    pub passed: bool,
    /// The targets checked, in the order of their position.
    pub targets: Vec<TargetEntry>,
}

impl TargetsReport {
    /// The report of `targets` (sorted by position), `passed` from their
    /// outcomes.
    pub fn new(
        config: &str,
        shard: Option<Shard>,
        selected: usize,
        mut targets: Vec<TargetEntry>,
    ) -> TargetsReport {
        targets.sort_by_key(|entry| entry.position);
        TargetsReport {
            elicit_check_version: env!("CARGO_PKG_VERSION").to_owned(),
            config: config.to_owned(),
            shard,
            selected,
            cases_sliced: false,
            passed: targets
                .iter()
                .all(|entry| entry.outcome == TargetOutcome::Passed),
            targets,
        }
    }

    /// The names of the targets with `outcome`.
    pub fn named(&self, outcome: TargetOutcome) -> Vec<&str> {
        self.targets
            .iter()
            .filter(|entry| entry.outcome == outcome)
            .map(|entry| entry.name.as_str())
            .collect()
    }

    /// What was checked: `the 3 targets of FILE`, `shard 1/2 of the 3
    /// targets of FILE (2 of them)`.
    fn scope(&self) -> String {
        let all = match self.selected {
            1 => format!("the 1 target of {}", self.config),
            selected => format!("the {selected} targets of {}", self.config),
        };
        match self.shard {
            None => all,
            Some(shard) if self.cases_sliced => {
                format!("shard {shard} of the planned cases of {all}")
            }
            Some(shard) => format!("shard {shard} of {all} ({} of them)", self.targets.len()),
        }
    }

    /// The last line: `every target passes (3 of 3)`, or what failed and
    /// what could not be checked.
    fn last_line(&self) -> String {
        let failed = self.named(TargetOutcome::Failed);
        let errors = self.named(TargetOutcome::Error);
        let total = self.targets.len();
        let mut parts = Vec::new();
        if !failed.is_empty() {
            parts.push(format!(
                "FAILED: {} ({} of {total})",
                failed.join(", "),
                failed.len()
            ));
        }
        if !errors.is_empty() {
            parts.push(format!(
                "NOT CHECKED: {} ({} of {total})",
                errors.join(", "),
                errors.len()
            ));
        }
        if parts.is_empty() {
            format!("every target passes ({total} of {total})")
        } else {
            parts.join("; ")
        }
    }

    /// The overview table: a heading saying what was checked, one row per
    /// target (name, tool, verdict), and a last line.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "== {}", self.scope());
        let width = |column: fn(&TargetEntry) -> &str, title: &str| {
            self.targets
                .iter()
                .map(|entry| column(entry).chars().count())
                .chain([title.len()])
                .max()
                .unwrap_or_default()
                + 2
        };
        let name_width = width(|entry| &entry.name, "target");
        let tool_width = width(|entry| &entry.tool, "tool");
        let _ = writeln!(
            out,
            "{:<name_width$}{:<tool_width$}verdict",
            "target", "tool"
        );
        for entry in &self.targets {
            let _ = writeln!(
                out,
                "{:<name_width$}{:<tool_width$}{}",
                entry.name, entry.tool, entry.verdict
            );
        }
        let _ = writeln!(out, "{}", self.last_line());
        out
    }

    /// The overview as Markdown for a CI job's summary: a heading with the
    /// verdict, what was checked, one table row per target.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let verdict = if self.passed { "PASSED" } else { "FAILED" };
        let _ = writeln!(out, "## elicit-check check: {verdict}\n");
        let _ = writeln!(out, "{}\n", cell(&self.scope()));
        let _ = writeln!(out, "| target | tool | verdict |");
        let _ = writeln!(out, "|---|---|---|");
        for entry in &self.targets {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                cell(&entry.name),
                cell(&entry.tool),
                cell(&entry.verdict)
            );
        }
        let _ = writeln!(out, "\n{}\n", cell(&self.last_line()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::eras::ErasReport;

    fn entry(position: usize, name: &str, outcome: TargetOutcome, verdict: &str) -> TargetEntry {
        TargetEntry {
            position,
            name: name.to_owned(),
            tool: "calculate".to_owned(),
            outcome,
            verdict: verdict.to_owned(),
            report: None,
            error: None,
        }
    }

    #[test]
    fn the_table_has_a_row_per_target_in_position_order_and_a_verdict_line() {
        let report = TargetsReport::new(
            "ci.toml",
            None,
            3,
            vec![
                entry(
                    2,
                    "broken",
                    TargetOutcome::Error,
                    "not checked: no such tool",
                ),
                entry(
                    0,
                    "ok",
                    TargetOutcome::Passed,
                    "every property holds in protocol 2025-11-25",
                ),
                entry(
                    1,
                    "on-decline",
                    TargetOutcome::Failed,
                    "FAILED: P1 in 2025-11-25",
                ),
            ],
        );
        assert!(!report.passed);
        assert_eq!(
            report.table(),
            "== the 3 targets of ci.toml\n\
             target      tool       verdict\n\
             ok          calculate  every property holds in protocol 2025-11-25\n\
             on-decline  calculate  FAILED: P1 in 2025-11-25\n\
             broken      calculate  not checked: no such tool\n\
             FAILED: on-decline (1 of 3); NOT CHECKED: broken (1 of 3)\n"
        );
    }

    #[test]
    fn a_shard_says_which_slice_and_an_all_passing_one_says_so() {
        let report = TargetsReport::new(
            "ci.toml",
            Some(Shard { index: 2, count: 2 }),
            3,
            vec![entry(
                1,
                "a",
                TargetOutcome::Passed,
                "every property holds in protocol 2026-07-28",
            )],
        );
        assert!(report.passed);
        let table = report.table();
        assert!(
            table.starts_with("== shard 2/2 of the 3 targets of ci.toml (1 of them)\n"),
            "{table}"
        );
        assert!(table.ends_with("every target passes (1 of 1)\n"), "{table}");
        let markdown = report.markdown();
        assert!(
            markdown.starts_with("## elicit-check check: PASSED\n"),
            "{markdown}"
        );
        assert!(
            markdown.contains("| a | calculate | every property holds in protocol 2026-07-28 |"),
            "{markdown}"
        );
    }

    #[test]
    fn a_checked_target_reads_its_failures_per_era_and_through_the_baseline() {
        use crate::report::check::baseline::Baseline;
        use crate::report::check::baseline::tests::{ALL_HOLD, P2_FAILS, report};
        let mut holds = report(&[("2025-11-25", ALL_HOLD), ("2026-07-28", ALL_HOLD)]);
        holds.passed = true;
        assert_eq!(
            verdict(&view(&holds), None),
            (
                TargetOutcome::Passed,
                "every property holds in protocol 2025-11-25 and 2026-07-28".to_owned()
            )
        );
        let mut warned = holds.clone();
        if let Some(checked) = warned.eras[1].report.as_mut() {
            checked.properties[1]
                .warnings
                .push("acted on 1.0".to_owned());
            checked.properties[2]
                .warnings
                .push("refused a valid accept".to_owned());
        }
        assert_eq!(
            verdict(&view(&warned), None).1,
            "every property holds in protocol 2025-11-25 and 2026-07-28 (2 warnings)"
        );
        let fails = report(&[("2025-11-25", P2_FAILS), ("2026-07-28", P2_FAILS)]);
        assert_eq!(
            verdict(&view(&fails), None),
            (
                TargetOutcome::Failed,
                "FAILED: P2 in 2025-11-25; P2 in 2026-07-28".to_owned()
            )
        );
        let mut several = P2_FAILS;
        several[0] = PropertyVerdict::Fails;
        let fails = report(&[("2025-11-25", several)]);
        assert_eq!(
            verdict(&view(&fails), None).1,
            "FAILED: P1, P2 in 2025-11-25"
        );

        let known = Baseline::parse(
            "[[known]]\ntool = \"book\"\nproperty = \"P2\"\nera = \"2025-11-25\"\nreason = \"upstream\"\n",
            "b.toml",
        )
        .expect("valid");
        let one_era = report(&[("2025-11-25", P2_FAILS)]);
        let applied = known.apply(&one_era, "b.toml");
        assert_eq!(
            verdict(&view(&one_era), Some(&applied)),
            (
                TargetOutcome::Passed,
                "passes with the baseline (known: P2 in 2025-11-25)".to_owned()
            )
        );
        // The entry names 2025-11-25 only: 2026-07-28's P2 is new.
        let applied = known.apply(&fails_both(), "b.toml");
        assert_eq!(
            verdict(&view(&fails_both()), Some(&applied)),
            (
                TargetOutcome::Failed,
                "FAILED with the baseline: P2 in 2026-07-28".to_owned()
            )
        );
        let mut fixed = report(&[("2025-11-25", ALL_HOLD)]);
        fixed.passed = true;
        let applied = known.apply(&fixed, "b.toml");
        assert_eq!(
            verdict(&view(&fixed), Some(&applied)),
            (
                TargetOutcome::Failed,
                "FAILED with the baseline: stale baseline entry: P2 in 2025-11-25".to_owned()
            )
        );
        // A baseline with nothing to say of this target: as without one.
        let applied = Baseline::default().apply(&fixed, "b.toml");
        assert_eq!(
            verdict(&view(&fixed), Some(&applied)),
            (
                TargetOutcome::Passed,
                "every property holds in protocol 2025-11-25".to_owned()
            )
        );
    }

    #[test]
    fn a_target_not_completed_in_an_era_is_an_error_naming_that_era() {
        use crate::check::eras::{EraStatus, Outcome};
        use crate::report::check::baseline::tests::{ALL_HOLD, P2_FAILS, report};
        let mut incomplete = report(&[("2025-11-25", P2_FAILS), ("2026-07-28", ALL_HOLD)]);
        incomplete.outcome = Outcome::Incomplete;
        incomplete.eras[0].why = "the server answers in this era".to_owned();
        let second = &mut incomplete.eras[1];
        second.status = EraStatus::Incomplete;
        second.checked = false;
        second.report = None;
        second.why = "--setup \"make fixture\" failed (exit 2)\nits stderr: no rule".to_owned();
        assert_eq!(
            verdict(&view(&incomplete), None),
            (
                TargetOutcome::Error,
                "not completed in protocol 2026-07-28: --setup \"make fixture\" failed (exit 2)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn no_baseline_lists_an_era_the_tool_cannot_be_confirmed_in() {
        use crate::check::eras::{EraStatus, Outcome};
        use crate::report::check::baseline::Baseline;
        use crate::report::check::baseline::tests::{ALL_HOLD, report};
        let mut unconfirmed = report(&[("2025-11-25", ALL_HOLD), ("2026-07-28", ALL_HOLD)]);
        unconfirmed.outcome = Outcome::Failed;
        let era = &mut unconfirmed.eras[1];
        era.status = EraStatus::CannotConfirm;
        era.checked = false;
        era.fails = true;
        era.report = None;
        era.why =
            "the tool cannot be confirmed in 2026-07-28: its reply names elicitation".to_owned();
        let applied = Baseline::default().apply(&unconfirmed, "b.toml");
        assert_eq!(
            verdict(&view(&unconfirmed), Some(&applied)),
            (
                TargetOutcome::Failed,
                "FAILED: cannot be confirmed in 2026-07-28".to_owned()
            )
        );
    }

    /// What a verdict reads of `report`, through its JSON as `check --json`
    /// prints it.
    fn view(report: &ErasReport) -> ReportView {
        ReportView::read(&serde_json::to_value(report).expect("JSON")).expect("a report")
    }

    fn fails_both() -> ErasReport {
        use crate::report::check::baseline::tests::{P2_FAILS, report};
        report(&[("2025-11-25", P2_FAILS), ("2026-07-28", P2_FAILS)])
    }

    #[test]
    fn a_slice_of_one_targets_cases_says_so() {
        let mut report = TargetsReport::new(
            "ci.toml",
            Some(Shard { index: 1, count: 2 }),
            1,
            vec![entry(
                0,
                "pay",
                TargetOutcome::Passed,
                "every property holds in protocol 2025-11-25",
            )],
        );
        report.cases_sliced = true;
        assert!(
            report
                .table()
                .starts_with("== shard 1/2 of the planned cases of the 1 target of ci.toml\n"),
            "{}",
            report.table()
        );
    }

    #[test]
    fn a_report_that_cannot_be_read_makes_an_error_entry() {
        let entry =
            TargetEntry::checked(0, "pay", "pay", serde_json::json!({"passed": true}), None);
        assert_eq!(entry.outcome, TargetOutcome::Error);
        assert_eq!(entry.report, None);
        assert_eq!(
            entry.verdict,
            "not checked: its report cannot be read: missing field `outcome`"
        );
    }

    #[test]
    fn an_error_entry_keeps_the_whole_error_and_its_first_line_as_verdict() {
        let entry = TargetEntry::not_checked(
            0,
            "pay",
            "pay",
            "the server did not start\nits stderr: boom",
        );
        assert_eq!(entry.outcome, TargetOutcome::Error);
        assert_eq!(entry.verdict, "not checked: the server did not start");
        assert_eq!(
            entry.error.as_deref(),
            Some("the server did not start\nits stderr: boom")
        );
    }
}
