//! Session mode (the default; `--fresh` turns it off): the coverage and
//! random cases run one `tools/call` after another in one server process, and
//! what a session cannot vouch for (a call without reply, a property no fresh
//! run has shown broken yet, a call that never reached the form, a session
//! that does not end cleanly) is re-run in a fresh process. Nothing of one
//! session overlaps another's: a session ends before any fresh run starts.
//! Planned cases stop early when too many in a row never reach the form
//! ([`crate::verdict::check::health::Unreached`]). A session's state must
//! not hide a property either way: a consenting valid accept the tool
//! refuses after it acted earlier in the session is re-run fresh, and when it
//! acts there, the tool's earlier calls changed its answers: every case that
//! ran in a session after an act is re-run fresh, and so is every later case.
//! A break no earlier call can make right (an act read from the call's own
//! reply, a non-boolean acted value, over stdio a wire fault: see
//! [`judged_where_seen`]) is judged on the session run that showed it, even
//! when its fresh run keeps the property: an accept authorizes nothing
//! beyond its own request, and a client that keeps one connection reads
//! every line its server writes.

use std::sync::Arc;

use super::case_run::{
    CaseRun, Step, acted_after, acted_before, call_tool, form_capabilities, journal, open,
    responder, run_case, run_setup,
};
use super::error::CheckError;
use super::plan::Planned;
use super::runner::{CaseId, Runner, ignored_close};
use crate::evidence::HarnessFailure;
use crate::evidence::wire::{self, Frame, Mark, Recording, Side};
use crate::harness::Session;
use crate::lock::lock;
use crate::oracle::property::{self, Class, Property};
use crate::verdict::check::health::Unreached;
use crate::verdict::check::session_notes as notes;

/// A server process running cases one after another (session mode).
struct OpenSession {
    session: Session,
    /// Its number ([`Runner::next_session`]).
    number: u64,
    /// What its handshake recorded: shown in each of its cases' wire.
    handshake: Recording,
    /// Where its previous case's part of the recording ended (the
    /// handshake's end before its first case): the next case's part starts
    /// there, so a frame the server sends between two calls (during
    /// `--acted-cmd` or `--setup`) is in the next case's wire, ahead of its
    /// `tools/call`, and in no gap.
    since: Mark,
    /// Indexes (into the plans) of the cases whose session run is kept: re-run
    /// fresh when the session does not end cleanly.
    kept: Vec<usize>,
    /// Whether a case saw a frame the server sent before that case's
    /// `tools/call` (a late frame of an earlier case): its cases are re-run.
    late_frame: bool,
    /// Whether a call of this session acted: the server's state may have
    /// changed, so a later refusal is not yet evidence.
    acted: bool,
    /// Whether its last call got no reply: its server may have exited in
    /// that call, before its stdin closed.
    unanswered: bool,
}

/// How many consenting valid accepts refused in a session after an act an
/// era re-runs fresh to see whether the session's state changed the tool's
/// answer, when each fresh run refuses too (a tool that refuses them on
/// their own merits): a bound on what a stateless tool costs.
const STATE_RECHECKS: usize = 3;

/// The runs of `planned`, in order, in session mode (as `run --session`):
/// the cases run one `tools/call` after another in one server process
/// declaring form elicitation (`--setup` before each call, `--acted-cmd`
/// after it).
///
/// A case that gets no reply, breaks a property not in `confirmed` (the
/// properties a fresh run has already shown broken), or never reaches the
/// form, ends its session and is re-run in a fresh process; that run is kept,
/// and its broken properties join `confirmed`. The next case starts a new
/// session. A case that breaks only confirmed properties keeps its session
/// run: a server that fails on every invalid answer costs a fresh process
/// per broken property, not per case. When a case the session left short of
/// the form reaches it in a fresh process, the tool asks once per process:
/// the remaining cases run in a fresh process each.
///
/// When a session ends, the cases it kept are re-run in fresh processes too
/// unless it ended cleanly: exit code 0 after its stdin closed, not killed,
/// no stray stdout line and no server frame after its last case, and no
/// server frame ahead of any case's `tools/call` (a note names the exit
/// code when it was the only fault). Over stdio a server notification is
/// neither ([`Frame::is_server_notification`]): it goes to the wire of the
/// call it follows. A session whose only fault
/// is that its server ignored stdin close (killed after the grace) re-runs
/// its last case only, to show the fault once in a fresh process; when that
/// run shows it too, or the fault is already shown, the session's runs stand.
///
/// Earlier calls must not hide a property either: a case that sends only
/// consenting valid accepts, that the tool refused after a call of the same
/// session acted ([`refused_after_act`]), ends its session and is re-run
/// fresh (at most [`STATE_RECHECKS`] times an era while the fresh runs refuse
/// too). When the fresh run acts, the tool's state across calls changed its
/// answers (a slot booked by the session's first call refuses every later
/// booking): every case kept from a session after its first act is re-run
/// fresh, the remaining cases run in a fresh process each, and the health
/// says so in a note. A case whose session run breaks properties its fresh
/// run keeps, each of them, is judged on its session run when each is a
/// break no earlier call can make right ([`judged_where_seen`]: acting on a
/// refusal, on an invalid accept, without a consenting answer, read from a
/// field of the reply; a non-boolean acted value; over stdio a wire fault);
/// its failure counts the calls served before ([`CaseRun::served_before`]).
/// Otherwise it leaves a note: the fresh run is the one judged
/// ([`notes::session_only`]). So does the first case
/// that got no reply in its session (its server exited or hung after the
/// calls it served) and one in a fresh process; when it waited out the
/// call's bound, each later case runs in a fresh process.
///
/// The runs stop early, short of `planned`, when [`Unreached`] says so.
///
/// # Errors
/// [`CheckError::Spawn`] when a server process cannot start;
/// [`CheckError::Hook`] when `--setup` or `--acted-cmd` fails.
pub(super) async fn session_runs(
    runner: &Runner<'_>,
    steps: &Arc<Vec<Step>>,
    planned: &[Planned],
    confirmed: &mut Vec<Property>,
) -> Result<Vec<CaseRun>, CheckError> {
    let target = runner.target;
    let capabilities = form_capabilities();
    let mut runs: Vec<Option<CaseRun>> = vec![None; planned.len()];
    let mut open: Option<OpenSession> = None;
    let mut unreached = Unreached::default();
    let mut fresh_only = false;
    // The cases kept from a session after a call of it acted.
    let mut after_act: Vec<usize> = Vec::new();
    let mut rechecks = 0;
    // The properties a session run broke and its fresh run kept, noted once.
    let mut session_only: Vec<Property> = Vec::new();
    // Whether a session run without reply answered fresh was noted.
    let mut unanswered_noted = false;
    for (index, case) in planned.iter().enumerate() {
        if unreached.stops() {
            if let Some(note) = unreached.note(planned.len() - index) {
                runner.note(note);
            }
            break;
        }
        if fresh_only {
            let fresh = run_case(runner, steps, &case.plan, &capabilities, case.id()).await?;
            confirm(&fresh, runner, confirmed);
            unreached.push(&fresh);
            runs[index] = Some(fresh);
            continue;
        }
        if open.is_none() {
            let (session, number) = self::open(runner, &capabilities, None).await?;
            if session.startup_error().is_some() {
                runner.stop_session(session).await;
                let fresh = run_case(runner, steps, &case.plan, &capabilities, case.id()).await?;
                unreached.push(&fresh);
                runs[index] = Some(fresh);
                continue;
            }
            let mut handshake = session.recording_since(Mark::default());
            // What the server sent after it is the first case's, not every case's.
            handshake
                .wire
                .truncate(wire::handshake_len(&handshake.wire));
            let since = Mark::default().after(&handshake);
            open = Some(OpenSession {
                session,
                number,
                handshake,
                since,
                kept: Vec::new(),
                late_frame: false,
                acted: false,
                unanswered: false,
            });
        }
        let Some(current) = open.as_mut() else {
            continue;
        };
        let (run, late, follows) = call_in_session(runner, current, steps, case).await?;
        if let Some(&previous) = current.kept.last()
            && let Some(earlier) = runs[previous].as_mut().filter(|_| !follows.is_empty())
        {
            earlier.wire.extend(follows);
            journal(runner, &planned[previous].label, earlier);
        }
        current.late_frame |= late;
        let news = run
            .violations(target)
            .into_iter()
            .any(|(property, _)| !confirmed.contains(&property));
        let short_of_form = !tested(case, &run);
        let recheck =
            rechecks < STATE_RECHECKS && current.acted && refused_after_act(&run, &target.consent);
        if !late && run.call_failure.is_none() && !news && !short_of_form && !recheck {
            if current.acted {
                after_act.push(index);
            }
            current.acted |= run.reading.acted;
            current.kept.push(index);
            unreached.push(&run);
            runs[index] = Some(run);
            continue;
        }
        // The calls its server process served before this one.
        let served = current.kept.len();
        current.unanswered = run.call_failure.is_some();
        // The session ends before the fresh run starts: nothing of it overlaps.
        if let Some(ended) = open.take() {
            close(runner, steps, planned, ended, &mut runs, false).await?;
        }
        let fresh = run_case(runner, steps, &case.plan, &capabilities, case.id()).await?;
        if run.reached_tool() && !run.answered() && fresh.answered() && !unanswered_noted {
            unanswered_noted = true;
            // A call that waited out its bound would cost it in every session.
            fresh_only = matches!(run.call_failure, Some(HarnessFailure::CallTimedOut { .. }));
            let why =
                crate::oracle::no_reply::no_reply(run.call_failure.as_ref(), run.http.is_empty());
            runner.note(notes::no_reply_in_session(
                &case.label,
                served,
                &why,
                fresh_only,
            ));
        }
        if recheck && !short_of_form {
            if fresh.reading.acted {
                fresh_only = true;
                runner.note(notes::state_changes_answers(&case.label));
                let again: Vec<Planned> = after_act
                    .iter()
                    .map(|&earlier| planned[earlier].clone())
                    .collect();
                let reruns = self::fresh(runner, steps, &again, false).await?;
                for (&earlier, rerun) in after_act.iter().zip(reruns) {
                    confirm(&rerun, runner, confirmed);
                    runs[earlier] = Some(rerun);
                }
                after_act.clear();
            } else {
                rechecks += 1;
            }
        }
        let broken_in_session: Vec<Property> = run
            .violations(target)
            .into_iter()
            .map(|(property, _)| property)
            .filter(|property| !confirmed.contains(property))
            .collect();
        let kept_by_fresh = fresh.violations(target);
        let only_in_session =
            |property: &Property| !kept_by_fresh.iter().any(|(kept, _)| kept == property);
        // What no earlier call can make right is judged where it was seen,
        // when the fresh run keeps all the session run broke.
        let judged_in_session = run.call_failure.is_none()
            && !late
            && !broken_in_session.is_empty()
            && broken_in_session
                .iter()
                .all(|&property| only_in_session(&property) && judged_where_seen(runner, property));
        if let Some(&property) = broken_in_session
            .iter()
            .find(|property| only_in_session(property) && !session_only.contains(property))
            && run.call_failure.is_none()
            && !late
            && !judged_in_session
        {
            session_only.push(property);
            runner.note(notes::session_only(&case.label, property, &target.acted));
        }
        // A session run without reply is a server that died or hung, not
        // one that asks only once per process.
        if short_of_form && run.answered() && tested(case, &fresh) {
            fresh_only = true;
            let what = if run.reached_form() {
                "acted on the probe's consenting answer"
            } else {
                "asked for a form"
            };
            runner.note(notes::stops_asking(what, served + 1, &case.label));
        }
        let judged = if judged_in_session { run } else { fresh };
        confirm(&judged, runner, confirmed);
        unreached.push(&judged);
        runs[index] = Some(judged);
    }
    if let Some(ended) = open.take() {
        close(runner, steps, planned, ended, &mut runs, true).await?;
    }
    Ok(runs.into_iter().map_while(|run| run).collect())
}

/// Whether `run` tested what `case` planned: it reached the form, and, when
/// the case sends the probe's base, the tool acted on it as in the probe.
fn tested(case: &Planned, run: &CaseRun) -> bool {
    run.reached_form() && (!case.base || run.reading.acted)
}

/// Whether a session run's break of `property` is evidence whatever the
/// calls before it did, so the session run is judged: an act read from a
/// field of the call's own reply (`--acted /pointer`) that breaks property
/// 1, 2, 7 or 8 (no accept authorizes another request's act), an acted value
/// that is not a boolean (property 6, the reply's own shape), or, over stdio,
/// a wire fault of the call's own part (property 5: a stdout line that is not
/// JSON-RPC, an `elicitation/create` outside the call; over Streamable HTTP a
/// server may end a session, MCP 2025-11-25 Transports, "Session Management").
/// A refusal (property 3) may be the earlier calls' doing, and a session
/// declares one capability (property 4).
fn judged_where_seen(runner: &Runner<'_>, property: Property) -> bool {
    let acted = &runner.target.acted;
    match property {
        Property::CleanWire => runner.target.transport.url().is_none(),
        Property::ActedIsBoolean => true,
        property => property.broken_by_an_act() && acted.reads_a_reply_field(),
    }
}

/// Whether `run`, a call of a session in which an earlier call acted, sent
/// only valid accepts that consent (none withholds a field declared with
/// `--consent`), reached the form, and the tool answered without acting: a
/// refusal the session's state may have caused (a call without reply
/// refused nothing).
fn refused_after_act(run: &CaseRun, consent: &[crate::oracle::consent::DeclaredConsent]) -> bool {
    let judged: Vec<&property::SentAnswer> = run.sent.iter().collect();
    run.reached_form()
        && run.answered()
        && !run.reading.acted
        && run.sent.iter().all(|sent| sent.class == Class::ValidAccept)
        && property::withheld_consent(&judged, consent).is_none()
}

/// Whether `frame`, outside any call of a session, ends it: a server frame
/// but a notification over stdio ([`Frame::is_server_notification`]).
fn ends_a_session(runner: &Runner<'_>, frame: &Frame) -> bool {
    let stdio = runner.target.transport.url().is_none();
    frame.from == Side::Server && !(stdio && frame.is_server_notification())
}

/// Adds to `confirmed` each property `fresh` breaks.
fn confirm(fresh: &CaseRun, runner: &Runner<'_>, confirmed: &mut Vec<Property>) {
    for (property, _) in fresh.violations(runner.target) {
        if !confirmed.contains(&property) {
            confirmed.push(property);
        }
    }
}

/// One case as the next `tools/call` of `open`'s session; whether the
/// server sent a frame after the previous case's part ended and before this
/// case's `tools/call` request (a late frame of an earlier call), over stdio
/// a notification excepted; and those notifications, when the session ran
/// a case before, for that case's wire.
///
/// # Errors
/// [`CheckError::Hook`] when `--setup` or `--acted-cmd` fails.
async fn call_in_session(
    runner: &Runner<'_>,
    open: &mut OpenSession,
    steps: &Arc<Vec<Step>>,
    case: &Planned,
) -> Result<(CaseRun, bool, Vec<Frame>), CheckError> {
    let target = runner.target;
    let (phase, label) = case.id();
    runner.started(phase, label);
    let id = CaseId {
        label,
        session: open.number,
    };
    run_setup(runner, id).await?;
    let acted_already = acted_before(runner, id).await?;
    let capabilities = form_capabilities();
    let before = open.since;
    let (responder, (sent, schemas)) = responder(
        &capabilities,
        Some(Arc::clone(steps)),
        &case.plan,
        &target.consent,
    );
    let call = call_tool(target, &mut open.session, responder).await;
    let mut during = open.session.recording_since(before);
    open.since = before.after(&during);
    // Server frames ahead of this case's own: sent after the previous call.
    // Over stdio, notifications alone end nothing and go to that call.
    let ahead = wire::leading_server_frames(&during.wire).len();
    let harmless = !during.wire[..ahead]
        .iter()
        .any(|frame| ends_a_session(runner, frame));
    let follows_previous: Vec<Frame> = if harmless && !open.kept.is_empty() {
        during.wire.drain(..ahead).collect()
    } else {
        Vec::new()
    };
    let late = !harmless;
    let mut wire = open.handshake.wire.clone();
    wire.extend(during.wire);
    let mut stray = open.handshake.stray_stdout.clone();
    stray.extend(during.stray_stdout);
    let mut http = open.handshake.http.clone();
    http.extend(during.http);
    let reading = property::read_acted(&target.acted, call.result.as_ref(), call.error.as_ref());
    let reading = acted_after(runner, id, reading).await?;
    let sent = lock(&sent).clone();
    let forms = lock(&schemas).len();
    let run = CaseRun {
        sent,
        reading,
        reply: call.reply(),
        wire,
        http,
        stray,
        forced_kill: false,
        call_failure: call.failure,
        capabilities,
        stderr: String::new(),
        forms,
        acted_before: acted_already,
        served_before: open.kept.len(),
    };
    journal(runner, case.label.as_str(), &run);
    runner.finished_one();
    Ok((run, late, follows_previous))
}

/// Ends `open`'s session: when it ended cleanly its last case gets the
/// session's stderr and, when that case was its last call (`last_kept`),
/// the frames after its part (over stdio, notifications); when its only fault is an ignored stdin close, its last
/// case is re-run fresh to show it (unless already shown); otherwise every
/// case it kept is re-run in a fresh process.
async fn close(
    runner: &Runner<'_>,
    steps: &Arc<Vec<Step>>,
    planned: &[Planned],
    open: OpenSession,
    runs: &mut [Option<CaseRun>],
    last_kept: bool,
) -> Result<(), CheckError> {
    // Where its last case's part ended: a frame after it (during that case's
    // `--acted-cmd`, or as its stdin closed) came after its last case.
    let seen = open.since;
    // A session check stops itself (the server has shown it ignores stdin
    // close): its exit, whatever it is, is not the server's to judge.
    let stopped_by_check = runner.stops_sessions();
    let finished = runner.finish_session(open.session).await;
    let after: Vec<Frame> = finished
        .recording
        .wire
        .iter()
        .skip(seen.wire)
        .cloned()
        .collect();
    // Over stdio, notifications after the last call's reply are that call's.
    let frame_after_last_case = after.iter().any(|frame| ends_a_session(runner, frame));
    let tidy = !frame_after_last_case
        && !open.late_frame
        && finished.recording.stray_lines_seen() <= seen.stray_stdout;
    if tidy && (stopped_by_check || finished.ended_cleanly(seen.stray_stdout)) {
        if let Some(&index) = open.kept.last()
            && let Some(last) = runs[index].as_mut()
        {
            last.stderr = finished.exit.stderr;
            if last_kept {
                last.wire.extend(after);
                journal(runner, &planned[index].label, last);
            }
        }
        return Ok(());
    }
    if let Some(code) = finished.exit.code.filter(|&code| code != 0)
        && tidy
        && !open.unanswered
        && !finished.exit.forced_kill
        && !finished.exit.group_left_running
    {
        runner.note(notes::exit_status(code));
    }
    let mut again: &[usize] = &open.kept;
    if tidy && ignored_close(&finished) && !finished.exit.group_left_running {
        // Shown already on a call's own process: the session's runs stand.
        if runner.ignored_close_shown() {
            return Ok(());
        }
        let Some((&last, others)) = open.kept.split_last() else {
            return Ok(());
        };
        let fresh = fresh(runner, steps, &planned[last..=last], false).await?;
        if let Some(run) = fresh.into_iter().next() {
            runs[last] = Some(run);
        }
        if runner.ignored_close_shown() {
            return Ok(());
        }
        again = others;
    }
    let cases: Vec<Planned> = again.iter().map(|&index| planned[index].clone()).collect();
    let fresh = fresh(runner, steps, &cases, false).await?;
    for (&index, run) in again.iter().zip(fresh) {
        runs[index] = Some(run);
    }
    Ok(())
}

/// Runs each planned case in a fresh process declaring form elicitation, at
/// most [`Runner::parallel`] at once; the runs come back in the plans' order,
/// stopping early (fewer runs than cases) when [`Unreached`] says so
/// (`--fresh`: the planned cases of an era).
///
/// # Errors
/// The first [`CheckError`] of a run.
pub(super) async fn fresh_runs(
    runner: &Runner<'_>,
    steps: &Arc<Vec<Step>>,
    planned: &[Planned],
) -> Result<Vec<CaseRun>, CheckError> {
    fresh(runner, steps, planned, true).await
}

/// [`fresh_runs`] of every case of `planned`, `stop_early` or not; a
/// session's cases re-run fresh are all re-run.
///
/// # Errors
/// The first [`CheckError`] of a run.
async fn fresh(
    runner: &Runner<'_>,
    steps: &Arc<Vec<Step>>,
    planned: &[Planned],
    stop_early: bool,
) -> Result<Vec<CaseRun>, CheckError> {
    use futures::StreamExt;
    let capabilities = form_capabilities();
    let mut stream = futures::stream::iter(planned)
        .map(|case| run_case(runner, steps, &case.plan, &capabilities, case.id()))
        .buffered(runner.parallel());
    let mut runs = Vec::new();
    let mut unreached = Unreached::default();
    while let Some(run) = stream.next().await {
        let run = run?;
        unreached.push(&run);
        runs.push(run);
        if stop_early && unreached.stops() {
            if let Some(note) = unreached.note(planned.len() - runs.len()) {
                runner.note(note);
            }
            break;
        }
    }
    Ok(runs)
}
