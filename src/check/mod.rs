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
//!    (properties 4 and 7), run even when the probe's form-capable client was
//!    asked for nothing (a tool may act without asking a client that cannot
//!    answer; only then is "nothing to check" an error);
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
//! Before the report, the era's health ([`crate::verdict::check::health`])
//! says what its calls could learn: an era whose planned cases mostly tested
//! nothing is inconclusive.
//! Every call of the era goes through its `runner` (`runner`): the session
//! numbers and variables servers and hooks see, how many cases may overlap,
//! the ignored stdin close counted until shown, the era's progress
//! (`progress`).
//!
//! One concept per file: [`CheckError`] (`error`), the
//! era's runner (`runner`), running one case (`case_run`) and its hooks
//! (`--setup`, `--acted-cmd`: the commands in [`crate::harness::hooks`]; the
//! calls not logged yet kept in [`crate::verdict::check::journal`]), the probe (`probe`), planning the cases
//! (`plan`), session mode (`session`), judging the calls (`judge`), shrinking
//! (`shrink`); the eras one check runs in (`eras`); this file is the job that
//! runs them in order. The era's report is made in [`crate::verdict::check`]
//! (the tally, the health, each property's verdict, the reproduction lines,
//! each judged call's record), and a failure's
//! fix in the server's SDK in [`crate::fix`].
//! The job's input is one [`Target`] ([`crate::targets::target`]); a
//! config's targets, the slices of a CI matrix and a registry's servers
//! become targets in [`crate::targets`] too (each
//! tool of a registry's server that elicits is found there, by calling it once
//! with this job's case runner).
//!
//! What the job hands back ([`CheckReport`], [`eras::ErasReport`]) is written
//! out by [`crate::report::check`]: the table, JSON, JUnit, SARIF and Markdown,
//! a baseline's known failures, a config's targets and the merge of a CI
//! matrix's reports. Nothing here imports it: the command line
//! ([`crate::cli`]) runs the job, then writes its report.

pub(crate) mod case_run;
mod cross_session;
pub mod eras;
pub(crate) mod error;
mod judge;
mod plan;
mod probe;
pub mod progress;
mod retry;
pub mod runner;
mod session;
mod shrink;

use std::sync::Arc;

use proptest::strategy::BoxedStrategy;
use serde_json::json;

use crate::harness::era::Protocol;
use crate::oracle::property::Property;
use crate::schema::answer::{GeneratedAnswer, answer_strategy};
use crate::strategy::clock_seed;
use crate::verdict::check::assemble::{Assembly, assemble};
use crate::verdict::check::health::{Health, Observed};
use case_run::{form_capabilities, run_case};
use judge::Judge;
use plan::new_tree;
use probe::probe;
use progress::Phase;
use runner::Runner;
use session::{fresh_runs, session_runs};
use shrink::shrink;

pub use crate::targets::target::{DEFAULT_CASES, MAX_SHRINK_RUNS, Target};
pub use crate::verdict::check::assemble::MAX_REFUSED_LISTED;
pub use crate::verdict::check::case_record::CaseRecord;
pub use crate::verdict::check::outcome::{
    CheckReport, PropertyFailure, PropertyReport, PropertyVerdict,
};
pub use case_run::CaseRun;
pub use error::CheckError;

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
    check_era(target, log, false).await.0
}

/// [`check_with_log`] in `target`'s era, after eras that showed
/// (`shown_before`) or not that the server ignores stdin close; also
/// whether this era or one before showed it.
pub(crate) async fn check_era(
    target: &Target,
    log: &mut dyn FnMut(CaseRecord),
    shown_before: bool,
) -> (Result<CheckReport, CheckError>, bool) {
    let runner = Runner::new(target, shown_before);
    let checked = check_in(&runner, log).await;
    (checked, shown_before || runner.ignored_close_shown())
}

/// The job in one era, run by `runner` (see the module docs).
async fn check_in(
    runner: &Runner<'_>,
    log: &mut dyn FnMut(CaseRecord),
) -> Result<CheckReport, CheckError> {
    use futures::{StreamExt, TryStreamExt};
    let target = runner.target;
    if target.tool.is_empty() {
        return Err(CheckError::Usage("no tool to call (--tool NAME)".into()));
    }
    let seed = target.seed.unwrap_or_else(clock_seed);
    let probed = probe(runner, log).await?;
    let steps = Arc::clone(&probed.steps);
    let mut judge = Judge::new(target, seed);
    // The probe's calls (valid accepts, a decline) count like any case.
    for (label, run) in &probed.runs {
        judge.probe_call(label, run);
    }

    let replaying = !target.replay.is_empty() || target.case_index.is_some();
    let mut coverage_cases = 0;
    let mut planned_cases = 0;
    if steps.is_empty() {
        // The probe's call acted without asking, or asked for nothing: no
        // schema to answer from.
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
                .map(|(_, mut planned)| {
                    // The base shows a changed state only if the probe acted on it.
                    planned.base &= probed.acted;
                    planned
                })
                .collect();
        planned_cases = planned.len();
        runner.plan(planned_cases);
        let aims: Vec<Option<Property>> = planned.iter().map(|case| case.aims_at(&steps)).collect();
        let runs = if target.session {
            session_runs(runner, &steps, &planned, &mut judge.confirmed()).await?
        } else {
            fresh_runs(runner, &steps, &planned).await?
        };
        let ran = runs.len();
        coverage_cases = planned[..ran]
            .iter()
            .filter(|case| case.random.is_none())
            .count();
        for ((planned, aims), run) in planned.iter().zip(&aims).zip(runs) {
            judge.case(planned, *aims, &run, log);
        }
        for aims in &aims[ran..] {
            judge.not_run(*aims);
        }
        for smallest in judge.take_to_shrink() {
            let mut tree = new_tree(&strategy, seed, smallest.index);
            let failure = shrink(
                runner,
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
        let run = run_case(
            runner,
            &steps,
            &plan,
            &form_capabilities(),
            (Phase::Replay, "replay"),
        )
        .await?;
        judge.replay(&plan, &run, log);
    }

    // The phases that are not slices of the planned cases run in slice 1.
    let first_slice = target.shard.is_none_or(|shard| shard.index == 1);

    // Properties 4 and 7: sessions declaring no elicitation, and URL only,
    // one after another unless cases may overlap. They run even when the
    // tool asked a form-capable client for nothing: it may act without
    // asking a client that cannot answer. Each is planned for both
    // properties, so one that never reached the tool shows in their lines.
    if first_slice {
        let declared = [json!({}), json!({"elicitation": {"url": {}}})];
        let labels: Vec<String> = declared
            .iter()
            .map(|capabilities| format!("capabilities {capabilities}"))
            .collect();
        let runs: Vec<CaseRun> = futures::stream::iter(declared.iter().zip(&labels))
            .map(|(capabilities, label)| {
                run_case(
                    runner,
                    &steps,
                    &[],
                    capabilities,
                    (Phase::Capabilities, label),
                )
            })
            .buffered(runner.parallel())
            .try_collect()
            .await?;
        for ((capabilities, label), mut run) in declared.iter().zip(&labels).zip(runs) {
            // A server that did not start once gets a second start: a
            // capability session is the one place its unasked actions show.
            if !run.reached_tool() {
                run = run_case(
                    runner,
                    &steps,
                    &[],
                    capabilities,
                    (Phase::Capabilities, label),
                )
                .await?;
            }
            let judged = run.reached_tool() && !run.acted_before;
            judge.aimed.add(Some(Property::CapabilityRespected), judged);
            judge.aimed.add(Some(Property::NoActWithoutAnswer), judged);
            judge.capability_session(capabilities, &run, log);
        }
    }
    if let Some(no_form) = probed.no_form
        && judge.failures.is_empty()
    {
        // Nothing asked, nothing acted on, in any session: nothing to judge.
        return Err(no_form);
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
            let outcome = cross_session::run(runner, &steps, &probed.bases, session).await?;
            judge.cross_session(session, outcome, log);
        }
    }

    // Properties 8 and 7 on 2026-07-28: the retries a client can get wrong.
    if first_slice && target.protocol == Protocol::V2026_07_28 && !steps.is_empty() && !replaying {
        let forms = retry::forms();
        let outcomes: Vec<retry::Outcome> = futures::stream::iter(&forms)
            .map(|form| retry::run_form(runner, &steps, &probed.bases, form))
            .buffered(runner.parallel())
            .try_collect()
            .await?;
        for (form, outcome) in forms.into_iter().zip(outcomes) {
            judge.retry(form, outcome, log);
        }
    }

    if judge.tally.reasked > 0 {
        runner.note(format!(
            "the tool asked a form again after an answer in {}: each call is judged on the last answer to each form",
            crate::format::counted(judge.tally.reasked, "call")
        ));
    }
    let health = Health::assess(Observed {
        seen: &judge.seen,
        planned: planned_cases,
        never_reached_tool: std::mem::take(&mut judge.never_reached_tool),
        acted_before_call: std::mem::take(&mut judge.acted_before_call),
        endings: (runner.endings(), runner.notes()),
        setup: target.setup.is_some(),
    });
    let mut report = assemble(
        target,
        Assembly {
            seed,
            steps: &steps,
            bases: &probed.bases,
            coverage_cases,
            random_cases: judge.random_cases,
            replaying,
            health,
            aimed: judge.aimed,
        },
        judge.tally,
        judge.failures,
    );
    // The probe's first session carries the handshake and tools/list.
    if let Some((_, first)) = probed.runs.first() {
        report.sdk = crate::fix::sdk::identify(&first.wire);
    }
    Ok(report)
}
