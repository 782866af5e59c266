//! Shrinking a property's failure: proptest's shrinking loop over stdio, one
//! fresh server process per candidate, at most [`Target::max_shrink_runs`]
//! runs, keeping the smallest case that still breaks the property; and the
//! [`PropertyFailure`] a run gives, with its reproduction lines.

use std::sync::Arc;

use proptest::strategy::ValueTree;
use serde_json::Value;

use super::case_run::{CaseRun, Step, form_capabilities, record, run_case};
use super::error::CheckError;
use super::plan::focus;
use super::progress::Phase;
use super::runner::Runner;
use super::target::Target;
use crate::fix::flaw::Flaw;
use crate::format::last_lines;
use crate::oracle::property::{Class, Property};
use crate::schema::answer::GeneratedAnswer;
use crate::verdict::check::case_record::CaseRecord;
use crate::verdict::check::outcome::PropertyFailure;
use crate::verdict::check::reproduction::{base_command, join_command};

/// proptest's shrinking loop over stdio, keeping the case failing `property`.
pub(super) async fn shrink(
    runner: &Runner<'_>,
    steps: &Arc<Vec<Step>>,
    tree: &mut Box<dyn ValueTree<Value = Vec<GeneratedAnswer>>>,
    property: Property,
    seed: u64,
    index: usize,
    log: &mut dyn FnMut(CaseRecord),
) -> Result<PropertyFailure, CheckError> {
    let target = runner.target;
    let label = format!("minimal case of {property}");
    let id = (Phase::Confirming, label.as_str());
    let failing = |run: &CaseRun| {
        run.violations(target)
            .into_iter()
            .find(|(broken, _)| *broken == property)
            .map(|(_, reason)| reason)
    };
    let plan = focus(tree.current(), index, steps);
    let mut best_run = run_case(runner, steps, &plan, &form_capabilities(), id).await?;
    let mut best_reason = failing(&best_run);
    let mut runs = 0;
    let mut step = tree.simplify();
    while step && runs < target.max_shrink_runs {
        runs += 1;
        let candidate = focus(tree.current(), index, steps);
        let run = run_case(runner, steps, &candidate, &form_capabilities(), id).await?;
        step = match failing(&run) {
            Some(reason) => {
                best_reason = Some(reason);
                best_run = run;
                tree.simplify()
            }
            None => tree.complicate(),
        };
    }
    let stopped_early = step && runs >= target.max_shrink_runs;
    let violations = best_run.violations(target);
    log(record(label.clone(), &best_run, &violations));
    // A flaky server, or cases that share state, may pass the re-run of the
    // original case: nothing was shrunk, and the reason says so.
    let (reason, runs, stopped_early) = match best_reason {
        Some(reason) => (reason, runs, stopped_early),
        None => (
            format!(
                "{property} failed on case {index}, but not when the case was run again (a flaky server, or cases that share state: see --setup and --independent-cases)"
            ),
            0,
            false,
        ),
    };
    Ok(failure_of(
        target,
        (property, reason),
        &best_run,
        Some(index),
        runs,
        stopped_early,
        seed,
    ))
}

/// A failure of `property` for `reason` from a run, with the flaw it shows
/// (its fix is given once the check's SDK is known: `super::eras`, with `crate::fix::remedy::fix`).
pub(super) fn failure_of(
    target: &Target,
    (property, reason): (Property, String),
    run: &CaseRun,
    case_index: Option<usize>,
    shrink_runs: usize,
    shrink_stopped_early: bool,
    seed: u64,
) -> PropertyFailure {
    let answers: Vec<Value> = run
        .sent
        .iter()
        .filter(|sent| sent.class != Class::Error)
        .map(|sent| sent.answer.clone())
        .collect();
    let mut replay = base_command(target);
    for answer in &answers {
        replay.push("--answer".to_owned());
        replay.push(answer.to_string());
    }
    PropertyFailure {
        reason,
        flaw: Flaw::of(property, &run.sent, &run.capabilities),
        fix: String::new(),
        fix_url: String::new(),
        case_index,
        built_as: run.sent.iter().map(|sent| sent.built_as.clone()).collect(),
        answers,
        shrink_runs,
        shrink_stopped_early,
        wire: run.wire.clone(),
        stray_stdout: run.stray.clone(),
        reproduce: join_command(&replay, &target.command),
        reply: run.reply.clone(),
        stderr: last_lines(&run.stderr, 10),
        reproduce_seed: case_index.map(|index| {
            let mut again = base_command(target);
            again.extend([
                "--seed".to_owned(),
                seed.to_string(),
                "--case-index".to_owned(),
                index.to_string(),
            ]);
            join_command(&again, &target.command)
        }),
    }
}
