//! `elicit-check merge`: the reports of a CI matrix's shards (`check --config
//! FILE --shard K/N --json`, one per job) joined into the report of the whole
//! config, as if one `check` had run every target.
//!
//! The shards of a config with one target are slices of its planned cases:
//! their reports of that target are joined into one
//! ([`super::case_slices`]).
//!
//! A merge is refused rather than guessed when the shards do not make one
//! whole: a report that is not a shard's, shards of different counts or
//! configs, a shard given twice or missing, or targets that do not add up to
//! those the config selected.

use super::targets::{TargetEntry, TargetOutcome, TargetsReport};
use crate::targets::shard::Shard;

/// Joins `shards` (each with the file it was read from, for messages) into
/// one report: no shard, the targets of all in position order, `passed`
/// from them all.
///
/// # Errors
/// No report given; a report without `shard`; reports of different shard
/// counts, configs or selections; a shard given twice or missing; the same
/// target position twice or a target count other than the selection's.
pub fn merge(shards: &[(String, TargetsReport)]) -> Result<TargetsReport, String> {
    let Some((first_file, first)) = shards.first() else {
        return Err("no report to merge: give the JSON of each shard".to_owned());
    };
    let shard_of = |file: &str, report: &TargetsReport| {
        report.shard.ok_or_else(|| {
            format!(
                "{file} is not a shard's report (it has no shard): merge joins the reports of `check --config FILE --shard K/N --json`"
            )
        })
    };
    let count = shard_of(first_file, first)?.count;
    let mut by_index: Vec<Option<&str>> = vec![None; count];
    let mut ordered: Vec<Option<&TargetsReport>> = vec![None; count];
    let mut targets = Vec::new();
    for (file, report) in shards {
        let shard = shard_of(file, report)?;
        if shard.count != count {
            return Err(format!(
                "{file} is shard {shard} but {first_file} is shard {}: every shard must slice the targets the same way",
                shard_of(first_file, first)?
            ));
        }
        if report.config != first.config
            || report.selected != first.selected
            || report.cases_sliced != first.cases_sliced
        {
            return Err(format!(
                "{file} checked {} of {} but {first_file} checked {} of {}: shards of different runs",
                counted_targets(report.selected),
                report.config,
                counted_targets(first.selected),
                first.config
            ));
        }
        if let Some(earlier) = by_index[shard.index - 1] {
            return Err(format!(
                "shard {shard} is given twice: {earlier} and {file}"
            ));
        }
        by_index[shard.index - 1] = Some(file.as_str());
        ordered[shard.index - 1] = Some(report);
        targets.extend(report.targets.iter().cloned());
    }
    let missing: Vec<String> = by_index
        .iter()
        .enumerate()
        .filter(|(_, file)| file.is_none())
        .map(|(index, _)| {
            Shard {
                index: index + 1,
                count,
            }
            .to_string()
        })
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard {} missing: give the report of every shard",
            missing.join(", ")
        ));
    }
    if first.cases_sliced {
        let slices: Vec<&TargetsReport> = ordered.into_iter().flatten().collect();
        let joined = join_case_slices(&slices)?;
        return Ok(TargetsReport::new(
            &first.config,
            None,
            first.selected,
            vec![joined],
        ));
    }
    let mut positions: Vec<usize> = targets.iter().map(|entry| entry.position).collect();
    positions.sort_unstable();
    if let Some(pair) = positions.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(format!(
            "the target at position {} is in two shards' reports: shards of different runs",
            pair[0]
        ));
    }
    if targets.len() != first.selected {
        return Err(format!(
            "the shards hold {} but the config selected {}: a shard's report is incomplete",
            counted_targets(targets.len()),
            counted_targets(first.selected)
        ));
    }
    Ok(TargetsReport::new(
        &first.config,
        None,
        first.selected,
        targets,
    ))
}

/// The one target's entry joined from its case slices (`slices` in shard
/// order): the first slice's error when one could not be checked, else its
/// reports joined ([`super::case_slices::join`]) and read again.
fn join_case_slices(slices: &[&TargetsReport]) -> Result<TargetEntry, String> {
    let mut entries = Vec::new();
    for (index, slice) in slices.iter().enumerate() {
        match slice.targets.as_slice() {
            [entry] => entries.push(entry),
            other => {
                return Err(format!(
                    "shard {} of one target's cases holds {}: shards of different runs",
                    index + 1,
                    counted_targets(other.len())
                ));
            }
        }
    }
    let first = entries[0];
    if let Some(other) = entries.iter().find(|entry| entry.name != first.name) {
        return Err(format!(
            "the case slices are of targets {:?} and {:?}: shards of different runs",
            first.name, other.name
        ));
    }
    if let Some(error) = entries
        .iter()
        .find(|entry| entry.outcome == TargetOutcome::Error)
    {
        return Ok((*error).clone());
    }
    let reports: Vec<&serde_json::Value> = entries
        .iter()
        .filter_map(|entry| entry.report.as_ref())
        .collect();
    let joined = super::case_slices::join(&reports)?;
    Ok(TargetEntry::checked(
        first.position,
        &first.name,
        &first.tool,
        joined,
        None,
    ))
}

/// `1 target`, `3 targets`.
fn counted_targets(count: usize) -> String {
    crate::format::counted(count, "target")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(position: usize, outcome: TargetOutcome) -> TargetEntry {
        TargetEntry {
            position,
            name: format!("t{position}"),
            tool: "calculate".to_owned(),
            outcome,
            verdict: String::new(),
            report: None,
            error: None,
        }
    }

    fn shard(index: usize, count: usize, targets: Vec<TargetEntry>) -> TargetsReport {
        TargetsReport::new("ci.toml", Some(Shard { index, count }), 3, targets)
    }

    fn files(reports: Vec<TargetsReport>) -> Vec<(String, TargetsReport)> {
        reports
            .into_iter()
            .enumerate()
            .map(|(index, report)| (format!("s{}.json", index + 1), report))
            .collect()
    }

    #[test]
    fn two_shards_make_the_whole_config_in_position_order() {
        let merged = merge(&files(vec![
            shard(2, 2, vec![entry(1, TargetOutcome::Failed)]),
            shard(
                1,
                2,
                vec![
                    entry(0, TargetOutcome::Passed),
                    entry(2, TargetOutcome::Passed),
                ],
            ),
        ]))
        .expect("a whole");
        assert_eq!(merged.shard, None);
        assert_eq!(merged.selected, 3);
        assert_eq!(merged.config, "ci.toml");
        let positions: Vec<usize> = merged.targets.iter().map(|entry| entry.position).collect();
        assert_eq!(positions, [0, 1, 2]);
        assert!(!merged.passed);
        let passing = merge(&files(vec![
            shard(
                1,
                2,
                vec![
                    entry(0, TargetOutcome::Passed),
                    entry(2, TargetOutcome::Passed),
                ],
            ),
            shard(2, 2, vec![entry(1, TargetOutcome::Passed)]),
        ]))
        .expect("a whole");
        assert!(passing.passed);
    }

    #[test]
    fn shards_that_do_not_make_one_whole_are_refused() {
        let one = || {
            shard(
                1,
                2,
                vec![
                    entry(0, TargetOutcome::Passed),
                    entry(2, TargetOutcome::Passed),
                ],
            )
        };
        let two = || shard(2, 2, vec![entry(1, TargetOutcome::Passed)]);
        assert_eq!(
            merge(&[]).expect_err("nothing"),
            "no report to merge: give the JSON of each shard"
        );
        assert_eq!(
            merge(&files(vec![one()])).expect_err("missing"),
            "shard 2/2 missing: give the report of every shard"
        );
        assert_eq!(
            merge(&files(vec![one(), one()])).expect_err("twice"),
            "shard 1/2 is given twice: s1.json and s2.json"
        );
        let mut unsharded = two();
        unsharded.shard = None;
        assert!(
            merge(&files(vec![one(), unsharded]))
                .expect_err("not a shard")
                .starts_with("s2.json is not a shard's report (it has no shard)")
        );
        assert_eq!(
            merge(&files(vec![one(), shard(2, 3, vec![])])).expect_err("counts"),
            "s2.json is shard 2/3 but s1.json is shard 1/2: every shard must slice the targets the same way"
        );
        let mut other = two();
        other.config = "other.toml".to_owned();
        assert_eq!(
            merge(&files(vec![one(), other])).expect_err("configs"),
            "s2.json checked 3 targets of other.toml but s1.json checked 3 targets of ci.toml: shards of different runs"
        );
        let mut fewer = two();
        fewer.selected = 2;
        assert!(merge(&files(vec![one(), fewer])).is_err());
        assert_eq!(
            merge(&files(vec![one(), shard(2, 2, vec![])])).expect_err("incomplete"),
            "the shards hold 2 targets but the config selected 3 targets: a shard's report is incomplete"
        );
        assert_eq!(
            merge(&files(vec![
                one(),
                shard(2, 2, vec![entry(2, TargetOutcome::Passed)])
            ]))
            .expect_err("the same position twice"),
            "the target at position 2 is in two shards' reports: shards of different runs"
        );
    }

    /// A slice of one target's cases: shard `index` of 2, its entry's report
    /// with P1 `verdict` (or, with no verdict, an error entry).
    fn slice(index: usize, name: &str, verdict: Option<&str>) -> TargetsReport {
        let entry = match verdict {
            Some(verdict) => TargetEntry::checked(
                0,
                name,
                "calculate",
                serde_json::json!({
                    "passed": verdict != "fails",
                    "outcome": if verdict == "fails" { "failed" } else { "passed" },
                    "eras": [{"protocol": "2025-11-25", "checked": true, "status": "checked",
                              "why": "", "fails": false, "report": {
                        "passed": verdict != "fails", "cases": 1, "coverage_cases": 1, "reclassified": 0,
                        "health": {"planned": 1, "ran": 1, "reached_form": 1,
                                   "never_reached_tool": [], "acted_before_call": [],
                                   "ignored_stdin_close": 0,
                                   "stopped_by_check": 0, "notes": []},
                        "properties": [{"property": 1, "verdict": verdict, "cases": 1,
                                        "warnings": [], "failure": null, "findings": []}],
                    }}],
                }),
                None,
            ),
            None => TargetEntry::not_checked(0, name, "calculate", "the server did not start"),
        };
        let mut report =
            TargetsReport::new("ci.toml", Some(Shard { index, count: 2 }), 1, vec![entry]);
        report.cases_sliced = true;
        report
    }

    #[test]
    fn the_case_slices_of_one_target_join_into_one_entry() {
        let merged = merge(&files(vec![
            slice(1, "pay", Some("holds")),
            slice(2, "pay", Some("fails")),
        ]))
        .expect("joined");
        assert!(!merged.cases_sliced);
        assert_eq!(merged.shard, None);
        assert_eq!(merged.targets.len(), 1);
        assert_eq!(merged.targets[0].outcome, TargetOutcome::Failed);
        assert_eq!(merged.targets[0].verdict, "FAILED: P1 in 2025-11-25");
        assert!(!merged.passed);
        let passing = merge(&files(vec![
            slice(1, "pay", Some("holds")),
            slice(2, "pay", Some("untested")),
        ]))
        .expect("joined");
        assert!(passing.passed);
        assert_eq!(
            passing.targets[0].verdict,
            "every property holds in protocol 2025-11-25"
        );
        let broken = merge(&files(vec![
            slice(1, "pay", Some("holds")),
            slice(2, "pay", None),
        ]))
        .expect("joined");
        assert_eq!(broken.targets[0].outcome, TargetOutcome::Error);
        assert_eq!(
            broken.targets[0].error.as_deref(),
            Some("the server did not start")
        );

        assert_eq!(
            merge(&files(vec![
                slice(1, "pay", Some("holds")),
                slice(2, "book", Some("holds"))
            ]))
            .expect_err("two targets"),
            "the case slices are of targets \"pay\" and \"book\": shards of different runs"
        );
        let mut two = slice(2, "pay", Some("holds"));
        two.targets.push(two.targets[0].clone());
        assert_eq!(
            merge(&files(vec![slice(1, "pay", Some("holds")), two])).expect_err("two entries"),
            "shard 2 of one target's cases holds 2 targets: shards of different runs"
        );
        let mut targets_slice = slice(2, "pay", Some("holds"));
        targets_slice.cases_sliced = false;
        assert!(
            merge(&files(vec![slice(1, "pay", Some("holds")), targets_slice]))
                .expect_err("mixed")
                .ends_with("shards of different runs")
        );
    }
}
