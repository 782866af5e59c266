//! The `merge` job: the shards' reports read, joined
//! ([`crate::report::check::merge::merge`]), printed as the overview table or JSON,
//! the overview appended to `--summary`; the exit code as `check --config`'s.

use std::io::Write;

use anyhow::Context;

use super::args::MergeArgs;
use crate::report::check::targets::{TargetOutcome, TargetsReport};

/// `elicit-check merge`: `Ok(true)` when every target passed, `Ok(false)`
/// when one failed.
///
/// # Errors
/// A report cannot be read or is not a shard's report, the shards do not make
/// one whole, the output cannot be written, or a target could not be checked
/// (the merged report is printed first).
pub fn merge(args: &MergeArgs) -> anyhow::Result<bool> {
    let mut shards = Vec::new();
    for path in &args.reports {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {file}"))?;
        let report: TargetsReport = serde_json::from_str(&text).with_context(|| {
            format!("{file} is not the JSON of `check --config FILE --shard K/N --json`")
        })?;
        shards.push((file, report));
    }
    let merged = crate::report::check::merge::merge(&shards).map_err(anyhow::Error::msg)?;
    print(&merged, args.json)?;
    if let Some(path) = &args.summary {
        super::check_job::append_summary(path, &merged.markdown())?;
    }
    verdict(&merged)
}

/// Prints `report`: JSON when `json`, else the overview table.
///
/// # Errors
/// stdout cannot be written.
pub(super) fn print(report: &TargetsReport, json: bool) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    if json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(report)?)?;
    } else {
        write!(stdout, "{}", report.table())?;
    }
    Ok(())
}

/// The exit's verdict of `report`: `Ok(passed)`, or an error naming the
/// targets that could not be checked.
///
/// # Errors
/// A target could not be checked.
pub(super) fn verdict(report: &TargetsReport) -> anyhow::Result<bool> {
    let errors = report.named(TargetOutcome::Error);
    if !errors.is_empty() {
        anyhow::bail!(
            "{} of {} could not be checked: {} (the report says why)",
            errors.len(),
            crate::format::counted(report.targets.len(), "target"),
            errors.join(", ")
        );
    }
    Ok(report.passed)
}
