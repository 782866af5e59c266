//! `check --config` over the config's targets: every `[[target]]`, those
//! `--target` names, or the slice `--shard K/N` takes, checked one after
//! another. A config with one target (or one `--target`) sharded is sliced
//! by its planned cases instead ([`crate::check::Target::shard`]). Each target's table is printed as it ends, then the overview
//! (one row per target); `--json` prints the targets' report
//! ([`TargetsReport`]); `--output DIR` keeps each target's evidence in
//! `DIR/NAME/` and the targets' report in `DIR/check.json`; `--junit`,
//! `--sarif` and `--summary` hold every target.
//!
//! The exit code: 2 when a target could not be checked (the others are still
//! checked and reported), else 1 when one fails, else 0.

use std::io::Write;

use anyhow::Context;

use super::args::CheckArgs;
use super::check_job::{
    Interrupted, append_summary, check_one, check_target, outputs_can_be_written, read_baseline,
    write_check_json,
};
use super::merge_job::{print, verdict};
use super::signals::StopSignals;
use crate::report::check::targets::{TargetEntry, TargetsReport};
use crate::targets::config::{ConfigFile, TargetConfig};

/// The options that describe one target: refused when several run, as each
/// `[[target]]` gives its own.
fn one_target_options(args: &CheckArgs) -> Vec<&'static str> {
    [
        (!args.server.is_empty(), "a server command after `--`"),
        (args.url.is_some(), "--url"),
        (args.arguments.is_some(), "--arguments"),
        (args.acted.is_some(), "--acted"),
        (args.acted_text.is_some(), "--acted-text"),
        (args.acted_not_error, "--acted-not-error"),
        (args.acted_cmd.is_some(), "--acted-cmd"),
        (!args.answer.is_empty(), "--answer"),
        (args.case_index.is_some(), "--case-index"),
        (args.setup.is_some(), "--setup"),
        (args.cwd.is_some(), "--cwd"),
        (!args.consent.is_empty(), "--consent"),
    ]
    .into_iter()
    .filter_map(|(given, option)| given.then_some(option))
    .collect()
}

/// Refuses a slice of one target's cases that could not be merged into the
/// whole: every slice must draw the same cases (a fixed seed), the cases must
/// be planned (not `--answer` or `--case-index`), and a baseline is a whole
/// target's (a property that fails in one slice holds in another).
fn slicing_cases_can_be_done(
    args: &CheckArgs,
    target: &crate::check::Target,
    shard: crate::targets::shard::Shard,
) -> anyhow::Result<()> {
    if target.seed.is_none() {
        anyhow::bail!(
            "--shard {shard} slices the cases of the config's one target: give it a fixed seed (--seed S, or seed = S in its [[target]]) so every shard draws the same cases"
        );
    }
    if !target.replay.is_empty() || target.case_index.is_some() {
        anyhow::bail!(
            "--shard {shard} slices the planned cases: not with --answer or --case-index"
        );
    }
    if args.baseline.is_some() {
        anyhow::bail!(
            "--shard {shard} slices one target's cases, and a baseline speaks of the whole target: check the shards without --baseline (a property may fail in one slice and hold in another)"
        );
    }
    Ok(())
}

/// Checks the config's targets (see the module docs): `Ok(true)` when every
/// target checked passed.
///
/// # Errors
/// A `--target` the config lacks, an option that describes one target while
/// several run, a target whose options are wrong (all refused before any
/// server starts), outputs that cannot be written, a signal, or a target
/// that could not be checked (after the report is written).
pub(super) async fn check_targets(args: &CheckArgs, config: &ConfigFile) -> anyhow::Result<bool> {
    let file = args
        .config
        .as_ref()
        .or(args.server_json.as_ref())
        .map(|path| path.display().to_string())
        .unwrap_or_default();
    let selected = config.named(&args.target).map_err(anyhow::Error::msg)?;
    let per_target = one_target_options(args);
    if selected.len() > 1 && !per_target.is_empty() {
        anyhow::bail!(
            "one target's options ({}) cannot apply to the {} targets of {file}: give them in each [[target]], or choose one with --target NAME",
            per_target.join(", "),
            selected.len()
        );
    }
    outputs_can_be_written(args)?;
    let baseline = read_baseline(args)?;
    if let Some((baseline, baseline_file)) = &baseline {
        for other in &baseline.known {
            if !config.target.iter().any(|target| target.tool == other.tool) {
                eprintln!(
                    "elicit-check: warning: baseline {baseline_file} lists {} of tool {:?}, the tool of no target in {file}: left out",
                    other.property, other.tool
                );
            }
        }
    }
    // One target: a shard is a slice of its planned cases, not of the targets.
    let cases_shard = args.shard.filter(|_| selected.len() == 1);
    let chosen: Vec<(usize, &TargetConfig)> = selected
        .iter()
        .copied()
        .enumerate()
        .filter(|(position, _)| {
            cases_shard.is_some() || args.shard.is_none_or(|shard| shard.takes(*position))
        })
        .collect();
    // Every target's options are read before any server starts.
    for (_, target) in &chosen {
        let (checked, _) = check_target(args, Some(target))
            .with_context(|| format!("target {} of {file}", target.name()))?;
        if let Some(shard) = cases_shard {
            slicing_cases_can_be_done(args, &checked, shard)
                .with_context(|| format!("target {} of {file}", target.name()))?;
        }
    }
    let scope = match (args.shard, cases_shard) {
        (_, Some(shard)) => format!("shard {shard} of the planned cases of the 1 target of {file}"),
        (Some(shard), None) => format!(
            "shard {shard}: {} of the {} targets of {file}",
            chosen.len(),
            selected.len()
        ),
        (None, None) => format!("the {} targets of {file}", selected.len()),
    };
    eprintln!("elicit-check: checking {scope}");

    if let Some(dir) = &args.output {
        // An earlier run's report would outlive a run stopped before its end.
        match std::fs::remove_file(dir.join("check.json")) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                return Err(error).with_context(|| {
                    format!("cannot replace {}", dir.join("check.json").display())
                });
            }
            _ => {}
        }
    }
    let mut signals = StopSignals::listen();
    let mut entries = Vec::new();
    let mut suites = Vec::new();
    let mut runs = Vec::new();
    let mut markdowns = Vec::new();
    for (done, (position, target)) in chosen.iter().enumerate() {
        let name = target.name();
        eprintln!(
            "elicit-check: target {name} ({} of {})",
            done + 1,
            chosen.len()
        );
        let dir = args.output.as_ref().map(|dir| dir.join(name));
        match check_one(
            args,
            Some(target),
            baseline.as_ref(),
            dir.as_deref(),
            &mut signals,
            cases_shard,
        )
        .await
        {
            Ok(checked) => {
                if let Some(dir) = &dir {
                    write_check_json(dir, &checked.json)?;
                }
                let applied = checked.applied.as_ref();
                if !args.json {
                    let mut stdout = std::io::stdout().lock();
                    writeln!(stdout, "=== target {name} (tool {:?})", target.tool)?;
                    write!(
                        stdout,
                        "{}",
                        crate::report::check::eras_table(&checked.report, applied, args.verbose)
                    )?;
                }
                suites.extend(crate::report::check::eras_suites(
                    &checked.report,
                    applied,
                    name,
                ));
                let evidence = dir
                    .as_ref()
                    .map(|dir| dir.join("cases.jsonl").display().to_string());
                runs.extend(crate::report::check::sarif::runs(
                    &checked.report,
                    &crate::report::check::sarif::Context {
                        config: Some(&file),
                        evidence: evidence.as_deref(),
                        baseline: applied,
                        target: Some(name),
                    },
                ));
                markdowns.push(crate::report::check::summary::markdown(
                    &checked.report,
                    applied,
                    name,
                ));
                entries.push(TargetEntry::checked(
                    *position,
                    name,
                    &target.tool,
                    serde_json::from_str(&checked.json)?,
                    applied,
                ));
            }
            Err(error) if error.is::<Interrupted>() => {
                return Err(error.context(format!(
                    "target {name}, after {} of {}",
                    done,
                    crate::format::counted(chosen.len(), "target")
                )));
            }
            Err(error) => {
                let text = format!("{error:#}");
                eprintln!("elicit-check: target {name} could not be checked: {text}");
                if !args.json {
                    writeln!(
                        std::io::stdout().lock(),
                        "=== target {name} (tool {:?}): not checked: {text}",
                        target.tool
                    )?;
                }
                suites.push(crate::report::check::not_checked_suite(name, &text));
                runs.push(crate::report::check::sarif::not_checked_run(
                    name,
                    &target.tool,
                    &text,
                ));
                markdowns.push(format!(
                    "## elicit-check check `{name}`: NOT CHECKED\n\n{}\n\n",
                    text.replace('\n', " ")
                ));
                entries.push(TargetEntry::not_checked(
                    *position,
                    name,
                    &target.tool,
                    &text,
                ));
            }
        }
    }

    let mut report = TargetsReport::new(&file, args.shard, selected.len(), entries);
    report.cases_sliced = cases_shard.is_some();
    // The report first: a file that cannot be written then loses nothing.
    print(&report, args.json)?;
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot write the evidence folder {}", dir.display()))?;
        write_check_json(dir, &serde_json::to_string_pretty(&report)?)?;
    }
    if let Some(path) = &args.junit {
        let mut junit = quick_junit::Report::new("elicit-check");
        junit.add_test_suites(suites);
        std::fs::write(path, junit.to_string()?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.sarif {
        let text = serde_json::to_string_pretty(&crate::report::check::sarif::wrap(runs))?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.summary {
        append_summary(path, &(report.markdown() + &markdowns.concat()))?;
    }
    verdict(&report)
}
