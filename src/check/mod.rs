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
//!    (property 4).
//!
//! One concept per file: [`Target`] (`target`), [`CheckError`] (`error`), the
//! report's types (`outcome`), running one case (`case_run`), the probe
//! (`probe`), planning the cases (`plan`), session mode (`session`),
//! shrinking (`shrink`), reproduction lines (`reproduction`) and assembling
//! the report (`assemble`); this file is the job that runs them in order.

mod assemble;
mod case_run;
pub mod config;
pub mod eras;
mod error;
pub mod hooks;
mod outcome;
mod plan;
mod probe;
pub mod report;
mod reproduction;
mod retry;
mod session;
mod shrink;
pub mod tally;
mod target;

use std::sync::Arc;

use proptest::strategy::{BoxedStrategy, ValueTree};
use serde_json::{Value, json};

use crate::harness::era::Protocol;
use crate::oracle::property::Property;
use crate::schema::answer::{GeneratedAnswer, answer_strategy};
use crate::strategy::clock_seed;
use assemble::{Assembly, assemble};
use case_run::{form_capabilities, record, run_case};
use plan::{Planned, Smallest, coverage_plans, new_tree, note_failures, note_smallest};
use probe::probe;
use reproduction::{base_command, join_command};
use session::{fresh_runs, session_runs};
use shrink::{failure_of, shrink};
use tally::Tally;

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
    let mut tally = Tally::default();
    let mut failures: Vec<(Property, PropertyFailure)> = Vec::new();
    // The probe's calls (valid accepts, a decline) count like any case.
    for run in &probed.runs {
        tally.add(run.summary(), &[]);
        note_failures(target, &mut failures, run, seed);
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
        let mut planned = Vec::new();
        if target.case_index.is_none() {
            planned = coverage_plans(&steps, &probed.bases);
            coverage_cases = planned.len();
        }
        let indices: Vec<usize> = match target.case_index {
            Some(index) => vec![index],
            None => (0..target.cases).collect(),
        };
        planned.extend(indices.into_iter().map(|index| Planned {
            label: format!("case {index}"),
            plan: new_tree(&strategy, seed, index).current(),
            random: Some(index),
        }));
        let plans: Vec<Vec<GeneratedAnswer>> =
            planned.iter().map(|planned| planned.plan.clone()).collect();
        let runs = if target.session {
            let mut confirmed: Vec<Property> = failures.iter().map(|(known, _)| *known).collect();
            session_runs(target, &steps, &plans, &mut confirmed).await?
        } else {
            fresh_runs(target, &steps, plans.iter().map(Vec::as_slice)).await?
        };
        // Per property a random case broke (and no coverage case did): the
        // case with the smallest answers, shrunk after the stream.
        let mut to_shrink: Vec<Smallest> = Vec::new();
        for (planned, run) in planned.iter().zip(runs) {
            let violations = run.violations(target);
            tally.add(run.summary(), &planned.plan);
            log(record(planned.label.clone(), &run, &violations));
            for (property, reason) in violations {
                if failures.iter().any(|(known, _)| *known == property) {
                    continue;
                }
                match planned.random {
                    Some(index) => note_smallest(&mut to_shrink, property, index, &planned.plan),
                    None => failures.push((
                        property,
                        failure_of(target, reason, &run, None, 0, false, seed),
                    )),
                }
            }
        }
        for smallest in to_shrink {
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
            failures.push((smallest.property, failure));
        }
    } else {
        let plan: Vec<GeneratedAnswer> = target
            .replay
            .iter()
            .map(|answer| GeneratedAnswer {
                answer: answer.clone(),
                built_as: "the answer given with --answer".to_owned(),
            })
            .collect();
        let run = run_case(target, &steps, &plan, &form_capabilities()).await?;
        let violations = run.violations(target);
        tally.add(run.summary(), &plan);
        log(record("replay".to_owned(), &run, &violations));
        note_failures(target, &mut failures, &run, seed);
    }

    // Property 4: sessions declaring no elicitation, and URL only, at once.
    let declared = [json!({}), json!({"elicitation": {"url": {}}})];
    let (none, url) = futures::join!(
        run_case(target, &steps, &[], &declared[0]),
        run_case(target, &steps, &[], &declared[1])
    );
    for (capabilities, run) in declared.iter().zip([none?, url?]) {
        let violations = run.violations(target);
        tally.add(run.summary(), &[]);
        tally.capability_sessions += 1;
        log(record(
            format!("capabilities {capabilities}"),
            &run,
            &violations,
        ));
        note_failures(target, &mut failures, &run, seed);
    }

    // Properties 8 and 7 on 2026-07-28: the retries a client can get wrong.
    let mut retry_calls = 0;
    if target.protocol == Protocol::V2026_07_28 && !steps.is_empty() && !replaying {
        use futures::{StreamExt, TryStreamExt};
        let forms = retry::forms();
        let outcomes: Vec<retry::Outcome> = futures::stream::iter(&forms)
            .map(|form| retry::run_form(target, &steps, &probed.bases, form))
            .buffered(target.jobs.max(1))
            .try_collect()
            .await?;
        for (form, outcome) in forms.into_iter().zip(outcomes) {
            let run = match outcome {
                retry::Outcome::Ran(run) => run,
                retry::Outcome::NotExercised(why) => {
                    tally.not_exercised.push((
                        form.property(),
                        format!("{}: not sent ({why})", form.describe()),
                    ));
                    continue;
                }
            };
            let mut violations = run.violations(target);
            if form.property() == Property::StateVerified {
                // Only what the state did is judged here (a decline is in the
                // answers on purpose): the wire, and acting.
                violations.retain(|(property, _)| *property == Property::CleanWire);
                let answer = run
                    .sent
                    .last()
                    .map_or(Value::Null, |sent| sent.answer.clone());
                tally.state_retry(form.describe(), run.reading.acted, answer);
                if run.reading.acted {
                    violations.push((
                        Property::StateVerified,
                        format!("acted on {}", form.describe()),
                    ));
                }
            } else {
                tally.add(run.summary(), &[]);
                retry_calls += 1;
            }
            log(record(
                format!("retry: {}", form.describe()),
                &run,
                &violations,
            ));
            for (property, reason) in violations {
                if !failures.iter().any(|(known, _)| *known == property) {
                    let mut failure = failure_of(target, reason, &run, None, 0, false, seed);
                    // The forms run on every check: the check itself repeats them.
                    failure.reproduce = join_command(&base_command(target), &target.command);
                    failures.push((property, failure));
                }
            }
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
            retry_calls,
            replaying,
        },
        tally,
        failures,
    ))
}
