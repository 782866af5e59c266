//! `elicit-check check`: anyone's stdio MCP server, judged from the
//! `requestedSchema` it sends (docs/src/check.md).
//!
//! The job, along the data flow:
//!
//! 1. **probe**: start the server declaring form elicitation, check the tool is
//!    listed, call it answering every `elicitation/create` with a consenting
//!    valid accept ([`crate::schema::coverage::base_candidates`], the next
//!    candidate until the tool acts), keep each request's `requestedSchema`
//!    (one per step of a multi-step form), and check that the acted rule can be
//!    read from its result and from a decline's (else exit 2: a configuration
//!    error, not a server bug);
//! 2. **coverage**: the answers [`crate::schema::coverage`] enumerates from
//!    each schema, the same for every seed, each already minimal;
//! 3. **random**: `--cases` answers proptest draws from each schema
//!    ([`crate::schema::answer`]); the recording proxy's responder sends
//!    every answer, judged by `jsonschema` ([`crate::oracle::property::classify`]).
//!    Coverage and random cases run in one server process after another
//!    (session mode, the default) or a fresh process each; a case that breaks
//!    a property not yet shown by a fresh run is re-run fresh and that run is
//!    judged;
//! 4. **properties**: each call is judged ([`crate::oracle::property::violations`]);
//!    the first failure of each property in a random case is shrunk over stdio,
//!    as proptest would (a coverage failure is minimal already);
//! 5. **capabilities**: two more sessions declaring no elicitation and URL only
//!    (property 4);
//! 6. **retries** (2026-07-28): the retry forms of properties 7 and 8;
//!    over Streamable HTTP (2025-11-25), a valid accept planted in another
//!    session before the call's own decline (property 7, `cross_session`).
//!
//! With a shard ([`Target::shard`]), phases 2 and 3 run their slice of the
//! planned cases, and phases 5 and 6 run in slice 1 only.
//!
//! Each phase runs its calls, then hands them, in order, to the judge
//! (`judge`: violations, tally, the failure of each property, what to shrink);
//! only session mode asks the judge which properties are already shown.
//!
//! One concept per file: [`Target`] (`target`), [`CheckError`] (`error`), the
//! report's types (`outcome`), running one case (`case_run`), the probe
//! (`probe`), planning the cases (`plan`), session mode (`session`), judging
//! the calls (`judge`), shrinking (`shrink`), reproduction lines
//! (`reproduction`) and assembling the report (`assemble`); this file is the
//! job that runs them in order. A config's targets are checked one after
//! another: their report (`targets`), the slices of a CI matrix (`shard`)
//! and the join of the slices' reports (`merge`; one target's case slices:
//! `case_slices`). A registry's servers become targets (`registry`): each
//! started from its `server.json` (`server_json`), each tool that elicits
//! found by calling it once (`eliciting_tools`).

mod assemble;
pub mod baseline;
mod case_run;
pub mod case_slices;
pub mod config;
mod cross_session;
pub mod eliciting_tools;
pub mod eras;
mod error;
pub mod hooks;
mod judge;
pub mod merge;
mod outcome;
mod plan;
mod probe;
pub mod registry;
pub mod report;
mod reproduction;
mod retry;
pub mod sarif;
pub mod server_json;
mod session;
pub mod shard;
mod shrink;
pub mod summary;
pub mod tally;
mod target;
pub mod targets;

use std::sync::Arc;

use proptest::strategy::BoxedStrategy;
use serde_json::json;

use crate::harness::era::Protocol;
use crate::schema::answer::{GeneratedAnswer, answer_strategy};
use crate::strategy::clock_seed;
use assemble::{Assembly, assemble};
use case_run::{form_capabilities, run_case};
use judge::Judge;
use plan::new_tree;
use probe::probe;
use session::{fresh_runs, session_runs};
use shrink::shrink;

pub use assemble::MAX_REFUSED_LISTED;
pub use case_run::{CaseRecord, CaseRun};
pub use error::CheckError;
pub use outcome::{CheckReport, PropertyFailure, PropertyReport, PropertyVerdict};
pub use target::{DEFAULT_CASES, MAX_SHRINK_RUNS, Target};

/// Runs the check, blocking on a runtime of its own (for a downstream `#[test]`).
///
/// # Errors
/// [`CheckError`] when the check cannot be done. Failed properties are in the report.
///
/// # Panics
/// When called from inside a tokio runtime; use [`check_async`] there.
pub fn check(target: Target) -> Result<CheckReport, CheckError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| CheckError::Spawn {
            command: target.command.clone(),
            source,
        })?;
    runtime.block_on(check_async(&target))
}

/// Runs the check (see the module docs).
///
/// # Errors
/// As [`check`].
pub async fn check_async(target: &Target) -> Result<CheckReport, CheckError> {
    check_with_log(target, &mut |_| {}).await
}

/// As [`check_async`], handing every session's record to `log`.
///
/// # Errors
/// As [`check`].
pub async fn check_with_log(
    target: &Target,
    log: &mut dyn FnMut(CaseRecord),
) -> Result<CheckReport, CheckError> {
    if target.tool.is_empty() {
        return Err(CheckError::Usage("no tool to call (--tool NAME)".into()));
    }
    let seed = target.seed.unwrap_or_else(clock_seed);
    let probed = probe(target, log).await?;
    let steps = Arc::clone(&probed.steps);
    let mut judge = Judge::new(target, seed);
    // The probe's calls (valid accepts, a decline) count like any case.
    for run in &probed.runs {
        judge.probe_call(run);
    }

    let replaying = !target.replay.is_empty() || target.case_index.is_some();
    let mut coverage_cases = 0;
    if steps.is_empty() {
        // The probe's call acted without asking: no schema to answer from.
    } else if target.replay.is_empty() {
        let strategy: Vec<BoxedStrategy<GeneratedAnswer>> = steps
            .iter()
            .map(|step| answer_strategy(&step.form))
            .collect();
        let planned: Vec<plan::Planned> =
            plan::cases(target, &steps, &probed.bases, &strategy, seed)
                .into_iter()
                .enumerate()
                .filter(|(position, _)| target.shard.is_none_or(|shard| shard.takes(*position)))
                .map(|(_, planned)| planned)
                .collect();
        coverage_cases = planned.iter().filter(|case| case.random.is_none()).count();
        let plans: Vec<Vec<GeneratedAnswer>> =
            planned.iter().map(|planned| planned.plan.clone()).collect();
        let runs = if target.session {
            session_runs(target, &steps, &plans, &mut judge.confirmed()).await?
        } else {
            fresh_runs(target, &steps, plans.iter().map(Vec::as_slice)).await?
        };
        for (planned, run) in planned.iter().zip(runs) {
            judge.case(planned, &run, log);
        }
        for smallest in judge.take_to_shrink() {
            let mut tree = new_tree(&strategy, seed, smallest.index);
            let failure = shrink(
                target,
                &steps,
                &mut tree,
                smallest.property,
                seed,
                smallest.index,
                log,
            )
            .await?;
            judge.shrunk(smallest.property, failure);
        }
    } else {
        let plan = plan::replay(target);
        let run = run_case(target, &steps, &plan, &form_capabilities()).await?;
        judge.replay(&plan, &run, log);
    }

    // The phases that are not slices of the planned cases run in slice 1.
    let first_slice = target.shard.is_none_or(|shard| shard.index == 1);

    // Property 4: sessions declaring no elicitation, and URL only, at once.
    if first_slice {
        let declared = [json!({}), json!({"elicitation": {"url": {}}})];
        let (none, url) = futures::join!(
            run_case(target, &steps, &[], &declared[0]),
            run_case(target, &steps, &[], &declared[1])
        );
        for (capabilities, run) in declared.iter().zip([none?, url?]) {
            judge.capability_session(capabilities, &run, log);
        }
    }

    // Property 7 over Streamable HTTP: a valid accept from another session.
    let over_http = target.transport.url().is_some();
    if first_slice
        && over_http
        && target.protocol == Protocol::V2025_11_25
        && !steps.is_empty()
        && !replaying
    {
        for session in cross_session::PLANTED {
            let outcome = cross_session::run(target, &steps, &probed.bases, session).await?;
            judge.cross_session(session, outcome, log);
        }
    }

    // Properties 8 and 7 on 2026-07-28: the retries a client can get wrong.
    if first_slice && target.protocol == Protocol::V2026_07_28 && !steps.is_empty() && !replaying {
        use futures::{StreamExt, TryStreamExt};
        let forms = retry::forms();
        let outcomes: Vec<retry::Outcome> = futures::stream::iter(&forms)
            .map(|form| retry::run_form(target, &steps, &probed.bases, form))
            .buffered(target.jobs.max(1))
            .try_collect()
            .await?;
        for (form, outcome) in forms.into_iter().zip(outcomes) {
            judge.retry(form, outcome, log);
        }
    }

    Ok(assemble(
        target,
        Assembly {
            seed,
            steps: &steps,
            bases: &probed.bases,
            coverage_cases,
            probe_calls: probed.runs.len(),
            retry_calls: judge.retry_calls,
            replaying,
        },
        judge.tally,
        judge.failures,
    ))
}
