//! Shrinking a property's failure: proptest's shrinking loop over stdio, one
//! fresh server process per candidate, at most
//! [`Target::max_shrink_runs`](crate::targets::target::Target::max_shrink_runs) runs,
//! keeping the smallest case that still breaks the property, as a
//! [`PropertyFailure`] ([`failure_of`]).

use std::sync::Arc;

use proptest::strategy::ValueTree;

use super::case_run::{CaseRun, Step, form_capabilities, record, run_case};
use super::error::CheckError;
use super::plan::focus;
use super::progress::Phase;
use super::runner::Runner;
use crate::oracle::property::Property;
use crate::schema::answer::GeneratedAnswer;
use crate::verdict::check::case_record::CaseRecord;
use crate::verdict::check::failure::failure_of;
use crate::verdict::check::outcome::PropertyFailure;

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
