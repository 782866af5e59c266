//! One era's check while it runs its calls: the target; the number of each
//! server process it starts (a session, from 1); what each server and hook
//! is told of the call it serves (`ELICIT_CHECK_ERA`, `ELICIT_CHECK_SESSION`,
//! and for hooks `ELICIT_CHECK_CASE`); how many cases may overlap; whether
//! the server has already shown that it ignores stdin close (then `check`
//! stops each later session itself); and the era's progress.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::progress::{Phase, Progress};
use crate::harness::child::Environment;
use crate::harness::{Finished, Session};
use crate::lock::lock;
use crate::targets::target::Target;

/// The variable naming the era a server or hook runs in: `2025-11-25` or
/// `2026-07-28`.
pub const ERA_VAR: &str = "ELICIT_CHECK_ERA";

/// The variable numbering the server process (session) a server or hook
/// runs for, from 1 in each era: the cases of one session share its number.
pub const SESSION_VAR: &str = "ELICIT_CHECK_SESSION";

/// The variable naming the call a hook runs around, as the evidence
/// (`cases.jsonl`) names it: `probe: a decline`, `coverage 12`, `case 3`,
/// `capabilities {}`, `retry: ...`, `minimal case of property 2`.
pub const CASE_VAR: &str = "ELICIT_CHECK_CASE";

/// How often a server must be seen not exiting after its stdin closed (and
/// killed after the grace), once at least in a call's own process, before
/// `check` stops its later sessions itself: the fault is then shown
/// (property 5 fails on that call) and not paid for again.
pub(super) const IGNORED_CLOSES_SHOWN: usize = 2;

/// How an era's server processes ended, as far as the check paid for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Endings {
    /// Sessions whose server did not exit after its stdin closed (killed
    /// after the grace).
    pub(crate) ignored_stdin_close: usize,
    /// Later sessions `check` stopped itself, once that was shown.
    pub(crate) stopped_by_check: usize,
}

/// Which call a hook runs around: its label and its session's number.
#[derive(Debug, Clone, Copy)]
pub(super) struct CaseId<'a> {
    /// The call's label (`coverage 12`).
    pub(super) label: &'a str,
    /// Its server process's number.
    pub(super) session: u64,
}

/// One era's check while it runs (see the module docs).
pub(crate) struct Runner<'t> {
    /// What is checked, in this era.
    pub(super) target: &'t Target,
    /// The number of the last session started.
    sessions: AtomicU64,
    /// Sessions seen not exiting after their stdin closed.
    ignored_closes: AtomicUsize,
    /// Whether one of them was a call's own process (its run then fails
    /// property 5).
    ignored_close_shown: AtomicBool,
    /// Whether an era checked before this one showed it.
    shown_before: bool,
    /// Sessions stopped by `check` because the ignored close was shown.
    stopped: AtomicUsize,
    /// What the era's runs showed about the check itself, for the report's
    /// health (`the tool asked for a form only in a fresh process ...`).
    notes: Mutex<Vec<String>>,
    /// Calls finished.
    done: AtomicUsize,
    /// Coverage and random cases planned.
    planned: AtomicUsize,
}

impl<'t> Runner<'t> {
    /// Nothing run yet of `target`'s check in its era; `shown_before`:
    /// whether an era checked before showed that the server ignores stdin
    /// close.
    pub(crate) fn new(target: &'t Target, shown_before: bool) -> Runner<'t> {
        Runner {
            target,
            shown_before,
            stopped: AtomicUsize::new(0),
            sessions: AtomicU64::new(0),
            ignored_closes: AtomicUsize::new(0),
            ignored_close_shown: AtomicBool::new(false),
            notes: Mutex::new(Vec::new()),
            done: AtomicUsize::new(0),
            planned: AtomicUsize::new(0),
        }
    }

    /// How many cases may run at once ([`Target::parallel_cases`]).
    pub(super) fn parallel(&self) -> usize {
        self.target.parallel_cases()
    }

    /// The number of a new session (from 1).
    pub(super) fn next_session(&self) -> u64 {
        self.sessions.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The server's environment in session `session`: the target's, then
    /// [`ERA_VAR`] and [`SESSION_VAR`].
    pub(super) fn server_environment(&self, session: u64) -> Environment {
        let mut environment = self.target.environment.clone();
        environment
            .vars
            .push((ERA_VAR.to_owned(), self.target.protocol.as_str().to_owned()));
        environment
            .vars
            .push((SESSION_VAR.to_owned(), session.to_string()));
        environment
    }

    /// A hook's environment around call `id`: the server's, then [`CASE_VAR`].
    pub(super) fn hook_environment(&self, id: CaseId<'_>) -> Environment {
        let mut environment = self.server_environment(id.session);
        environment
            .vars
            .push((CASE_VAR.to_owned(), id.label.to_owned()));
        environment
    }

    /// Whether the server has shown that it ignores stdin close
    /// ([`IGNORED_CLOSES_SHOWN`] times, once in a call's own process; in an
    /// era after one that showed it, once in a call's own process is
    /// enough): later sessions are stopped by `check` ([`Session::stop`]).
    pub(super) fn stops_sessions(&self) -> bool {
        let needed = if self.shown_before {
            1
        } else {
            IGNORED_CLOSES_SHOWN
        };
        self.ignored_close_shown() && self.ignored_closes.load(Ordering::SeqCst) >= needed
    }

    /// Whether a call's own process has shown that the server ignores stdin
    /// close (that call's run fails property 5).
    pub(super) fn ignored_close_shown(&self) -> bool {
        self.ignored_close_shown.load(Ordering::SeqCst)
    }

    /// Ends the process of one call: as [`Runner::finish_session`], and a
    /// server killed after the grace is shown on that call.
    pub(super) async fn finish_case(&self, session: Session) -> Finished {
        let finished = self.finish_session(session).await;
        self.case_ended(&finished);
        finished
    }

    /// Counts how one call's own process ended (after [`Runner::session_ended`]).
    fn case_ended(&self, finished: &Finished) {
        if ignored_close(finished) {
            self.ignored_close_shown.store(true, Ordering::SeqCst);
        }
    }

    /// Counts how a session ended that `check` waited for.
    fn session_ended(&self, finished: &Finished) {
        if ignored_close(finished) {
            self.ignored_closes.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Ends `session`: waits for the server to exit on its stdin's close,
    /// counting a server killed after the grace, or, once
    /// [`Runner::stops_sessions`], stops it at once.
    pub(super) async fn finish_session(&self, session: Session) -> Finished {
        if self.stops_sessions() {
            self.stopped.fetch_add(1, Ordering::SeqCst);
            return session.stop().await;
        }
        let finished = session.finish().await;
        self.session_ended(&finished);
        finished
    }

    /// Ends a session whose exit is not judged (its server never reached
    /// the tool, or its call is not judged): [`Session::stop`], without
    /// waiting out the grace.
    pub(super) async fn stop_session(&self, session: Session) -> Finished {
        session.stop().await
    }

    /// How the era's sessions ended, for the report's health.
    pub(super) fn endings(&self) -> Endings {
        Endings {
            ignored_stdin_close: self.ignored_closes.load(Ordering::SeqCst),
            stopped_by_check: self.stopped.load(Ordering::SeqCst),
        }
    }

    /// Keeps a note for the report's health.
    pub(super) fn note(&self, note: String) {
        let mut notes = lock(&self.notes);
        if !notes.contains(&note) {
            notes.push(note);
        }
    }

    /// The notes kept so far.
    pub(super) fn notes(&self) -> Vec<String> {
        lock(&self.notes).clone()
    }

    /// The coverage and random cases planned, once the probe has read the form.
    pub(super) fn plan(&self, cases: usize) {
        self.planned.store(cases, Ordering::SeqCst);
    }

    /// Says that call `label` of `phase` starts.
    pub(super) fn started(&self, phase: Phase, label: &str) {
        if let Some(sink) = &self.target.progress {
            sink.send(&Progress {
                protocol: self.target.protocol.as_str(),
                phase,
                label,
                done: self.done.load(Ordering::SeqCst),
                planned: self.planned.load(Ordering::SeqCst),
            });
        }
    }

    /// Counts one call finished.
    pub(super) fn finished_one(&self) {
        self.done.fetch_add(1, Ordering::SeqCst);
    }
}

/// Whether a session's server ignored its stdin's close: it did not exit
/// within the grace and was killed (the harness did not stop it itself).
pub(super) fn ignored_close(finished: &Finished) -> bool {
    finished.exit.forced_kill && !finished.stopped_by_harness
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::check::progress::ProgressSink as ProgressSinkFor;
    use crate::evidence::exit::Exit;
    use crate::harness::era::Protocol;
    use crate::oracle::property::ActedRule;

    /// A session's end: killed after the grace or not, stopped by the harness or not.
    fn ended(forced_kill: bool, stopped_by_harness: bool) -> Finished {
        Finished {
            recording: Default::default(),
            exit: Exit {
                code: (!forced_kill).then_some(0),
                forced_kill,
                stderr: String::new(),
                group_left_running: false,
            },
            callbacks: 0,
            protocol_version: None,
            pid: None,
            startup_error: None,
            shutdown_grace: Duration::from_secs(5),
            stopped_by_harness,
            url: None,
        }
    }

    /// How a call's own process ended, as [`Runner::finish_case`] counts it.
    fn case(runner: &Runner<'_>, finished: &Finished) {
        runner.session_ended(finished);
        runner.case_ended(finished);
    }

    #[test]
    fn an_ignored_stdin_close_seen_twice_once_in_a_calls_own_process_stops_later_sessions() {
        let target = Target::stdio(["server"]);
        let killed = ended(true, false);
        // Two calls' own processes.
        let runner = Runner::new(&target, false);
        case(&runner, &killed);
        assert!(!runner.stops_sessions());
        case(&runner, &killed);
        assert!(runner.stops_sessions());
        assert_eq!(runner.endings().ignored_stdin_close, 2);
        // A session, then a call's own process.
        let runner = Runner::new(&target, false);
        runner.session_ended(&killed);
        assert!(!runner.stops_sessions());
        case(&runner, &killed);
        assert!(runner.stops_sessions());
        // Two sessions and no call's own process: never shown on a call.
        let runner = Runner::new(&target, false);
        runner.session_ended(&killed);
        runner.session_ended(&killed);
        assert!(!runner.ignored_close_shown());
        assert!(!runner.stops_sessions());
        // Clean ends and the harness's own stops count for nothing.
        let runner = Runner::new(&target, false);
        case(&runner, &ended(false, false));
        case(&runner, &ended(true, true));
        case(&runner, &ended(false, false));
        assert!(!runner.ignored_close_shown());
        assert_eq!(runner.endings().ignored_stdin_close, 0);
        // After an era that showed it, once on a call is enough.
        let runner = Runner::new(&target, true);
        assert!(!runner.stops_sessions());
        case(&runner, &killed);
        assert!(runner.stops_sessions());
    }

    #[test]
    fn servers_and_hooks_are_told_the_era_and_the_session_and_hooks_the_call() {
        let target = Target::stdio(["server"])
            .protocol(Protocol::V2026_07_28)
            .env("KEEP", "1");
        let runner = Runner::new(&target, false);
        assert_eq!(runner.next_session(), 1);
        assert_eq!(runner.next_session(), 2);
        assert_eq!(
            runner.server_environment(2).vars,
            vec![
                ("KEEP".to_owned(), "1".to_owned()),
                (ERA_VAR.to_owned(), "2026-07-28".to_owned()),
                (SESSION_VAR.to_owned(), "2".to_owned()),
            ]
        );
        let hook = runner.hook_environment(CaseId {
            label: "coverage 3",
            session: 7,
        });
        assert_eq!(
            hook.vars[1..],
            [
                (ERA_VAR.to_owned(), "2026-07-28".to_owned()),
                (SESSION_VAR.to_owned(), "7".to_owned()),
                (CASE_VAR.to_owned(), "coverage 3".to_owned()),
            ]
        );
        assert_eq!(
            [ERA_VAR, SESSION_VAR, CASE_VAR],
            [
                "ELICIT_CHECK_ERA",
                "ELICIT_CHECK_SESSION",
                "ELICIT_CHECK_CASE"
            ]
        );
    }

    #[test]
    fn cases_overlap_only_with_jobs_and_no_hook_that_may_share_state() {
        let plain = Target::stdio(["server"]).jobs(4);
        assert_eq!(plain.parallel_cases(), 4);
        assert_eq!(Runner::new(&plain, false).parallel(), 4);
        let setup = plain.clone().setup("reset");
        assert_eq!(setup.parallel_cases(), 1);
        let acted = plain.clone().acted_command("test -e x");
        assert_eq!(acted.parallel_cases(), 1);
        let mut independent = setup.clone();
        independent.independent_cases = true;
        assert_eq!(independent.parallel_cases(), 4);
        let mut one = plain.clone();
        one.acted = ActedRule::NotError;
        assert_eq!(one.jobs(1).parallel_cases(), 1);
    }

    #[test]
    fn each_call_starting_is_told_to_the_progress_sink_with_the_counts_so_far() {
        use std::sync::{Arc, Mutex};
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let mut target = Target::stdio(["server"]);
        let into = Arc::clone(&seen);
        target.progress = Some(ProgressSinkFor::new(move |progress| {
            into.lock().expect("not poisoned").push(format!(
                "{} {} {} {}/{}",
                progress.protocol,
                progress.phase.word(),
                progress.label,
                progress.done,
                progress.planned
            ));
        }));
        let runner = Runner::new(&target, false);
        runner.started(Phase::Probe, "probe: a decline");
        runner.finished_one();
        runner.plan(40);
        runner.started(Phase::Coverage, "coverage 0");
        runner.finished_one();
        runner.started(Phase::Random, "case 0");
        assert_eq!(
            *seen.lock().expect("not poisoned"),
            vec![
                "2025-11-25 probe probe: a decline 0/0",
                "2025-11-25 coverage coverage 0 1/40",
                "2025-11-25 random case 0 2/40",
            ]
        );
        // No sink: nothing to tell, nothing fails.
        Runner::new(&Target::stdio(["server"]), false).started(Phase::Probe, "probe");
    }

    #[test]
    fn notes_are_kept_once_each_in_order() {
        let target = Target::stdio(["server"]);
        let runner = Runner::new(&target, false);
        runner.note("a".to_owned());
        runner.note("b".to_owned());
        runner.note("a".to_owned());
        assert_eq!(runner.notes(), vec!["a".to_owned(), "b".to_owned()]);
    }
}
