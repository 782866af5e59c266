//! `elicit-check merge`: the reports of a CI matrix's shards (`check --config
//! FILE --shard K/N --json`, one per job) joined into the report of the whole
//! config, as if one `check` had run every target.
//!
//! A merge is refused rather than guessed when the shards do not make one
//! whole: a report that is not a shard's, shards of different counts or
//! configs, a shard given twice or missing, or targets that do not add up to
//! those the config selected.

use super::shard::Shard;
use super::targets::TargetsReport;

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
    let mut targets = Vec::new();
    for (file, report) in shards {
        let shard = shard_of(file, report)?;
        if shard.count != count {
            return Err(format!(
                "{file} is shard {shard} but {first_file} is shard {}: every shard must slice the targets the same way",
                shard_of(first_file, first)?
            ));
        }
        if report.config != first.config || report.selected != first.selected {
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

/// `1 target`, `3 targets`.
fn counted_targets(count: usize) -> String {
    crate::format::counted(count, "target")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::targets::{TargetEntry, TargetOutcome};

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
}
