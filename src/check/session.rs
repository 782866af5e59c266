//! Session mode (the default; `--fresh` turns it off): the coverage and
//! random cases run one `tools/call` after another in one server process, and
//! what a session cannot vouch for (a call without reply, a property no fresh
//! run has shown broken yet, a session that does not end cleanly) is re-run
//! in a fresh process, at most [`Target::jobs`] at once.

use std::sync::Arc;

use super::case_run::{
    CaseRun, Step, acted_after, call_tool, form_capabilities, lock, open, reply_of, responder,
    run_case, run_setup,
};
use super::error::CheckError;
use super::target::Target;
use crate::evidence::wire::{Mark, Recording, Side};
use crate::harness::Session;
use crate::oracle::property::{self, Property};
use crate::schema::answer::GeneratedAnswer;

/// A server process running cases one after another (session mode).
struct OpenSession {
    session: Session,
    /// What its handshake recorded: shown in each of its cases' wire.
    handshake: Recording,
    /// Indexes (into the plans) of the cases whose session run is kept: re-run
    /// fresh when the session does not end cleanly.
    kept: Vec<usize>,
    /// Whether a case saw a frame the server sent before that case's
    /// `tools/call` (a late frame of an earlier case): its cases are re-run.
    late_frame: bool,
}

/// The runs of `plans`, in order, in session mode (as `run --session`): the
/// cases run one `tools/call` after another in one server process declaring
/// form elicitation (`--setup` before each call, `--acted-cmd` after it).
///
/// A case that gets no reply, or breaks a property not in `confirmed` (the
/// properties a fresh run has already shown broken), is re-run in a fresh
/// process and that run is kept, and the fresh run's broken properties join
/// `confirmed`; after a call without reply (or a server frame ahead of a
/// call) the session ends and the next case starts a new one, otherwise the
/// session goes on. A case that breaks only confirmed properties keeps its
/// session run: a server that fails on every invalid answer costs a fresh
/// process per broken property, not per case. When a session ends, the cases
/// it kept are re-run in fresh processes too unless it ended cleanly: exit
/// code 0 after its stdin closed, not killed, no stray stdout line and no
/// server frame after its last case, and no server frame ahead of any case's
/// `tools/call`. A case run in a session shows the session's handshake and
/// its own call; its exit reads as clean, and the session's stderr is on its
/// last case.
///
/// # Errors
/// [`CheckError::Spawn`] when a server process cannot start;
/// [`CheckError::Hook`] when `--setup` or `--acted-cmd` fails.
pub(super) async fn session_runs(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    plans: &[Vec<GeneratedAnswer>],
    confirmed: &mut Vec<Property>,
) -> Result<Vec<CaseRun>, CheckError> {
    let capabilities = form_capabilities();
    let mut runs: Vec<Option<CaseRun>> = vec![None; plans.len()];
    let mut open: Option<OpenSession> = None;
    for (index, plan) in plans.iter().enumerate() {
        if open.is_none() {
            let session = self::open(target, &capabilities, false).await?;
            if session.startup_error().is_some() {
                session.finish().await;
                runs[index] = Some(run_case(target, steps, plan, &capabilities).await?);
                continue;
            }
            let handshake = session.recording_since(Mark::default());
            open = Some(OpenSession {
                session,
                handshake,
                kept: Vec::new(),
                late_frame: false,
            });
        }
        let Some(current) = open.as_mut() else {
            continue;
        };
        let (run, late) = call_in_session(target, current, steps, plan).await?;
        current.late_frame |= late;
        let news = run
            .violations(target)
            .into_iter()
            .any(|(property, _)| !confirmed.contains(&property));
        if !late && run.call_failure.is_none() && !news {
            current.kept.push(index);
            runs[index] = Some(run);
        } else {
            // A call without reply or a late frame may have left the server
            // broken: the session ends. A call that only broke a property
            // leaves it as able as before: the session goes on.
            if (late || run.call_failure.is_some())
                && let Some(ended) = open.take()
            {
                close(target, steps, plans, ended, &mut runs).await?;
            }
            let fresh = run_case(target, steps, plan, &capabilities).await?;
            for (property, _) in fresh.violations(target) {
                if !confirmed.contains(&property) {
                    confirmed.push(property);
                }
            }
            runs[index] = Some(fresh);
        }
    }
    if let Some(ended) = open.take() {
        close(target, steps, plans, ended, &mut runs).await?;
    }
    Ok(runs.into_iter().flatten().collect())
}

/// One case as the next `tools/call` of `open`'s session, and whether the
/// server sent a frame before this case's `tools/call` request.
///
/// # Errors
/// [`CheckError::Hook`] when `--setup` or `--acted-cmd` fails.
async fn call_in_session(
    target: &Target,
    open: &mut OpenSession,
    steps: &Arc<Vec<Step>>,
    plan: &[GeneratedAnswer],
) -> Result<(CaseRun, bool), CheckError> {
    run_setup(target).await?;
    let capabilities = form_capabilities();
    let before = open.session.mark();
    let (responder, (sent, _)) = responder(&capabilities, Some(Arc::clone(steps)), plan);
    let call = call_tool(target, &mut open.session, responder).await;
    let during = open.session.recording_since(before);
    let late = during
        .wire
        .first()
        .is_some_and(|frame| frame.from == Side::Server);
    let mut wire = open.handshake.wire.clone();
    wire.extend(during.wire);
    let mut stray = open.handshake.stray_stdout.clone();
    stray.extend(during.stray_stdout);
    let mut http = open.handshake.http.clone();
    http.extend(during.http);
    let reading = property::read_acted(&target.acted, call.result.as_ref(), call.error.as_ref());
    let reading = acted_after(target, reading).await?;
    let sent = lock(&sent).clone();
    let run = CaseRun {
        sent,
        reading,
        reply: reply_of(&call),
        wire,
        http,
        stray,
        forced_kill: false,
        call_failure: call.failure,
        capabilities,
        stderr: String::new(),
    };
    Ok((run, late))
}

/// Ends `open`'s session: when it ended cleanly its last case gets the
/// session's stderr, otherwise every case it kept is re-run in a fresh process.
async fn close(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    plans: &[Vec<GeneratedAnswer>],
    open: OpenSession,
    runs: &mut [Option<CaseRun>],
) -> Result<(), CheckError> {
    let seen = open.session.mark();
    let finished = open.session.finish().await;
    let frame_after_last_case = finished
        .recording
        .wire
        .iter()
        .skip(seen.wire)
        .any(|frame| frame.from == Side::Server);
    if finished.ended_cleanly(seen.stray_stdout) && !frame_after_last_case && !open.late_frame {
        if let Some(last) = open.kept.last().and_then(|&index| runs[index].as_mut()) {
            last.stderr = finished.exit.stderr;
        }
        return Ok(());
    }
    let again = fresh_runs(
        target,
        steps,
        open.kept.iter().map(|&index| plans[index].as_slice()),
    )
    .await?;
    for (index, run) in open.kept.into_iter().zip(again) {
        runs[index] = Some(run);
    }
    Ok(())
}

/// Runs each plan in a fresh process declaring form elicitation, at most
/// [`Target::jobs`] at once; the runs come back in the plans' order.
///
/// # Errors
/// The first [`CheckError`] of a run.
pub(super) async fn fresh_runs<'a>(
    target: &Target,
    steps: &Arc<Vec<Step>>,
    plans: impl Iterator<Item = &'a [GeneratedAnswer]>,
) -> Result<Vec<CaseRun>, CheckError> {
    use futures::{StreamExt, TryStreamExt};
    let capabilities = form_capabilities();
    futures::stream::iter(plans)
        .map(|plan| run_case(target, steps, plan, &capabilities))
        .buffered(target.jobs.max(1))
        .try_collect()
        .await
}
