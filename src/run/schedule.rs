//! How a run's cases meet server processes: a fresh process per case
//! (the default) or sessions of many cases, and how many at once (`-j N`).
//!
//! - **Fresh-process mode**: each case spawns its own server, so no case can see
//!   another's state. With `-j N`, N cases run at once, each in its own process.
//! - **Session mode** (`run --session`): the cases run one `tools/call` after
//!   another in one server process per capability set (a case's capabilities are
//!   declared at `initialize`, so the capability-guard cases get sessions of
//!   their own). A case that fails in a session is re-run in a fresh process and
//!   that fresh verdict is the one reported, so a failure is always reproduced in
//!   isolation; the session is ended there and the next case with those
//!   capabilities starts a new one. A session whose server does not end cleanly
//!   (exit code 0 after stdin closes, nothing left running, no stray stdout line
//!   at shutdown) has every case it passed re-run in fresh processes too, since
//!   each of them would have seen that ending. In session mode a case's evidence
//!   shows the session's handshake and its own call; the session's stderr is on
//!   the last case the session ran. With `-j N`, N groups of cases each run their
//!   own sessions at once. A group starts the sessions of all its capability
//!   sets at once, before its first case, so their start-up times overlap. A
//!   group stops after [`MAX_CONSECUTIVE_HUNG`] consecutive `hung` cases
//!   (unless `--keep-going`, or with 2026-07-28 too), as the run does there.
//!   Protocol 2026-07-28 cases run in a fresh process each in both modes (its session has no `initialize` to share; not done yet).
//!
//! The contract run's first case runs alone before the others (in session
//! mode, in a session of its own): a server that does not start ends the run there.
//!
//! Either way, verdicts come back in case order, and a case's verdict does not
//! depend on `-j`: each case runs alone in its process or session.

use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use serde_json::Value;

use super::judge;
use super::settings::{MAX_CONSECUTIVE_HUNG, Mode, Settings};
use crate::case::Case;
use crate::error::Error;
use crate::harness::era::Protocol;
use crate::harness::{self, Evidence, Session};
use crate::oracle::contract;
use crate::report::{EvidenceLog, Verdict};
use crate::verdict::{self, Primary};

/// Where a case's verdicts wait in the evidence log between being judged and
/// being logged ([`EvidenceLog::stash`]): the run's phase (0: contract cases,
/// 1: generated cases) and the case's number in it.
pub type StashKey = (usize, usize);

/// What the run does to a case's verdicts once they are judged, before they are
/// stashed and yielded (the generated-case checks, `run.rs`): called with the
/// case's index in the `cases` given to [`judge_stream`].
pub type Finish<'a> = &'a (dyn Fn(usize, &mut Vec<Verdict>) + Sync);

/// Judges `cases` (each with its expected 2025-11-25 outcome, `None` when there
/// is none) under `settings.schedule`; yields each case's verdicts (one per era)
/// in case order, as soon as the case and every case before it are judged: in
/// fresh-process mode with `-j N` cases in flight, in session mode a group of
/// sessions at a time. Each case's verdicts, once judged (and `finish`ed), are
/// also stashed in `log` under their [`StashKey`] (`first` + the case's index),
/// yielded with them, until the caller logs them and [`EvidenceLog::unstash`]es
/// that key, so a run stopped by a signal still logs every case that finished
/// ([`EvidenceLog::push_stopped`]). Dropping the stream ends the cases in flight
/// (their servers are killed). In session mode with 2025-11-25 alone, a group
/// runs no case after [`MAX_CONSECUTIVE_HUNG`] consecutive `hung` cases
/// (unless `settings.keep_going`): the run stops at the second one's verdict
/// (`super::stop_if_stuck`), before any later case is logged, so a server that
/// hangs on every call costs two cases' bounds, not a batch's.
///
/// # Errors
/// [`Error::Spawn`] when a server cannot start (the stream's last item).
pub fn judge_stream<'a>(
    command: &'a [String],
    cases: &'a [(Case, Option<Value>)],
    settings: &'a Settings,
    log: &'a EvidenceLog,
    first: StashKey,
    finish: Finish<'a>,
) -> BoxStream<'a, Result<(StashKey, Vec<Verdict>), Error>> {
    let schedule = settings.schedule.for_protocols(&settings.protocols);
    let jobs = schedule.jobs.max(1);
    let key = move |index: usize| (first.0, first.1 + index);
    if schedule.mode != Mode::Session {
        return futures::stream::iter(cases.iter().enumerate())
            .map(move |(index, (case, expected))| async move {
                log.stash_started(key(index), &case.name);
                let mut verdicts =
                    judge::judge_in(command, case, expected.clone(), settings, None).await?;
                finish(index, &mut verdicts);
                log.stash(key(index), verdicts.clone());
                Ok((key(index), verdicts))
            })
            .buffered(jobs)
            .boxed();
    }
    let group = cases.len().div_ceil(jobs).max(1);
    let groups = cases.chunks(group).enumerate().map(move |(number, chunk)| {
        // The index in `cases` of the group's case `index`.
        let at = move |index: usize| number * group + index;
        async move {
            // The 2025-11-25 verdict of each case as its session leaves it, kept
            // until the group's verdicts are final (a stop keeps it).
            let ran = |index: usize, evidence: &Evidence| {
                let (case, expected) = &chunk[index];
                let mut verdicts = vec![judge::verdict_from(
                    case,
                    expected.clone(),
                    settings,
                    Protocol::V2025_11_25,
                    evidence.clone(),
                )];
                finish(at(index), &mut verdicts);
                log.stash(key(at(index)), verdicts);
            };
            for (index, (case, _)) in chunk.iter().enumerate() {
                log.stash_started(key(at(index)), &case.name);
            }
            // The first group follows the cases logged before it: their hung
            // cases in a row count towards its stop, as the run counts them.
            let hung_before = if number == 0 {
                log.trailing(Primary::Hung)
            } else {
                0
            };
            let evidence = session_evidence(command, chunk, settings, hung_before, &ran).await?;
            let mut verdicts = Vec::with_capacity(chunk.len());
            for (index, ((case, expected), evidence)) in chunk.iter().zip(evidence).enumerate() {
                let mut judged =
                    judge::judge_in(command, case, expected.clone(), settings, Some(evidence))
                        .await?;
                finish(at(index), &mut judged);
                log.stash(key(at(index)), judged.clone());
                verdicts.push((key(at(index)), judged));
            }
            Ok::<_, Error>(verdicts)
        }
    });
    futures::stream::once(async move {
        let judged = futures::future::try_join_all(groups).await?;
        // A group that stopped at its hung cases (session_evidence) yields the
        // cases it ran; the run stops at the last of them (`super::stop_if_stuck`).
        let verdicts = judged.into_iter().flatten().map(Ok);
        Ok::<_, Error>(futures::stream::iter(verdicts))
    })
    .try_flatten()
    .boxed()
}

/// A running session and the cases it passed so far (indexes into the group).
struct Open {
    capabilities: String,
    session: Session,
    passed: Vec<usize>,
}

/// The 2025-11-25 evidence of each case of `cases`, in order, in session mode
/// (see the module docs): a case that fails in its session is re-run fresh, and
/// so is every case of a session that does not end cleanly. `hung_before` is
/// the number of `hung` cases in a row just before the group (the run stops at
/// [`MAX_CONSECUTIVE_HUNG`]).
async fn session_evidence(
    command: &[String],
    cases: &[(Case, Option<Value>)],
    settings: &Settings,
    hung_before: usize,
    on_ran: &(dyn Fn(usize, &Evidence) + Sync),
) -> Result<Vec<Evidence>, Error> {
    let limits = settings.limits;
    let mut evidence: Vec<Option<Evidence>> = vec![None; cases.len()];
    let mut open = start_sessions(command, cases, &settings.transport, limits).await?;
    let mut hung = hung_before;
    // The run counts hung verdicts in a row: with 2026-07-28 too, each case's
    // 2026-07-28 verdict (run fresh, after this group) can break the row, so the
    // group runs every case (judge_stream).
    let stops_at_hung = !settings.keep_going && settings.protocols == [Protocol::V2025_11_25];
    for (index, (case, expected)) in cases.iter().enumerate() {
        if hung >= MAX_CONSECUTIVE_HUNG && stops_at_hung {
            // The run stops at this many hung cases in a row (`super::stop_if_stuck`):
            // the rest of the group would cost a call bound each for nothing.
            evidence.truncate(index);
            break;
        }
        let capabilities = capability_key(&case.capabilities);
        let position = match open
            .iter()
            .position(|open| open.capabilities == capabilities)
        {
            Some(position) => position,
            None => {
                let session = Session::start_over(
                    command,
                    &settings.transport,
                    &case.capabilities,
                    limits,
                    None,
                )
                .await?;
                open.push(Open {
                    capabilities,
                    session,
                    passed: Vec::new(),
                });
                open.len() - 1
            }
        };
        let ran = open[position]
            .session
            .run_case_in_session(command, case)
            .await;
        let passed = expected.as_ref().is_some_and(|expected| {
            contract::judge(case, expected, &ran, settings.judging)
                .failures
                .is_empty()
        });
        if passed {
            open[position].passed.push(index);
            on_ran(index, &ran);
            evidence[index] = Some(ran);
        } else {
            close(
                command,
                cases,
                open.swap_remove(position),
                settings,
                &mut evidence,
                on_ran,
            )
            .await?;
            let fresh =
                harness::run_case_over(command, &settings.transport, case, limits, None).await?;
            hung = if is_hung(case, expected.as_ref(), &fresh, settings) {
                hung + 1
            } else {
                0
            };
            on_ran(index, &fresh);
            evidence[index] = Some(fresh);
            continue;
        }
        hung = 0;
    }
    for session in open {
        close(command, cases, session, settings, &mut evidence, on_ran).await?;
    }
    Ok(evidence
        .into_iter()
        .map(|evidence| evidence.expect("every case of the group ran"))
        .collect())
}

/// The key a session is shared under: the capabilities as sent at `initialize`.
fn capability_key(capabilities: &Value) -> String {
    serde_json::to_string(capabilities).unwrap_or_default()
}

/// One session per capability set of `cases` (in order of first appearance),
/// started at once, so each server's start overlaps the others' instead of
/// waiting for the cases before it (most of a Python server's session
/// run was its starts, one after another).
///
/// # Errors
/// [`Error::Spawn`] when a server cannot start.
async fn start_sessions(
    command: &[String],
    cases: &[(Case, Option<Value>)],
    transport: &harness::Transport,
    limits: harness::Limits,
) -> Result<Vec<Open>, Error> {
    let mut sets: Vec<(String, &Value)> = Vec::new();
    for (case, _) in cases {
        let key = capability_key(&case.capabilities);
        if !sets.iter().any(|(seen, _)| *seen == key) {
            sets.push((key, &case.capabilities));
        }
    }
    futures::future::try_join_all(sets.into_iter().map(|(key, capabilities)| async move {
        Ok::<_, Error>(Open {
            capabilities: key,
            session: Session::start_over(command, transport, capabilities, limits, None).await?,
            passed: Vec::new(),
        })
    }))
    .await
}

/// Whether `evidence`, a case's fresh run, is judged `hung` (no reply to its
/// `tools/call` within the bound), as the run's verdict will say.
fn is_hung(
    case: &Case,
    expected: Option<&Value>,
    evidence: &Evidence,
    settings: &Settings,
) -> bool {
    let expected = expected.cloned().unwrap_or(Value::Null);
    let failures = contract::judge(case, &expected, evidence, settings.judging).failures;
    verdict::classify(evidence, &expected, &failures).verdict == Primary::Hung
}

/// Ends `open`'s session. When it ended cleanly, its last case gets the
/// session's stderr; otherwise every case it passed is re-run in a fresh process.
async fn close(
    command: &[String],
    cases: &[(Case, Option<Value>)],
    open: Open,
    settings: &Settings,
    evidence: &mut [Option<Evidence>],
    on_ran: &(dyn Fn(usize, &Evidence) + Sync),
) -> Result<(), Error> {
    let seen = open.session.stray_line_count();
    let finished = open.session.finish().await;
    if finished.ended_cleanly(seen) {
        if let Some(last) = open
            .passed
            .last()
            .and_then(|&index| evidence[index].as_mut())
        {
            last.stderr = finished.exit.stderr;
        }
        return Ok(());
    }
    for index in open.passed {
        let case = &cases[index].0;
        let fresh =
            harness::run_case_over(command, &settings.transport, case, settings.limits, None)
                .await?;
        on_ran(index, &fresh);
        evidence[index] = Some(fresh);
    }
    Ok(())
}
