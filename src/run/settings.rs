//! How a run judges its cases ([`Settings`]): the time bounds of each session,
//! the protocol eras, exact or by-meaning judging, when a stuck server stops the
//! run, and which processes the cases run in ([`Schedule`]: a fresh process per
//! case or sessions, `-j N` at once; [`super::schedule`] carries it out).

use std::fmt;

use crate::harness::era::Protocol;
use crate::harness::{Limits, Transport};
use crate::oracle::contract::Judging;
use crate::report::{Replay, ReplayKind};

/// How a run judges its cases: the time bounds of each session, the protocol
/// eras each case runs in, how the 2025-11-25 contract is compared (exactly,
/// for the built-in reference server, or by meaning), and which
/// processes the cases run in (fresh or in sessions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Bounds of every session.
    pub limits: Limits,
    /// The eras each case runs in, in order (one verdict per case and era).
    pub protocols: Vec<Protocol>,
    /// Exact messages or judged by meaning.
    pub judging: Judging,
    /// Run every case even after [`MAX_CONSECUTIVE_HUNG`] consecutive `hung`
    /// verdicts, or [`MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE`] consecutive
    /// `ignored_stdin_close` ones (`--keep-going`); otherwise the run stops with
    /// [`crate::error::Error::Hung`] or [`crate::error::Error::IgnoredStdinClose`].
    pub keep_going: bool,
    /// Fresh process per case or sessions, and how many at once (`schedule`).
    pub schedule: Schedule,
    /// How the cases reach the server: stdio, or Streamable HTTP (`--url`).
    pub transport: Transport,
}

/// Consecutive `hung` cases after which a run stops: a server that never answers
/// `tools/call` must not cost one call bound per case.
pub const MAX_CONSECUTIVE_HUNG: usize = 2;

/// Consecutive `ignored_stdin_close` cases after which a run stops: a server
/// that never exits when its stdin closes costs the shutdown grace and a kill
/// on every case, and says nothing new after the second.
pub const MAX_CONSECUTIVE_IGNORED_STDIN_CLOSE: usize = 2;

impl Settings {
    /// What a failed case's reproduction repeats of a run with these settings:
    /// `--exact-messages` as judged, `--session` (by name, [`ReplayKind::Case`]).
    pub fn replay(&self) -> Replay {
        Replay {
            kind: ReplayKind::Case,
            exact_messages: Some(self.judging.exact_messages),
            session: self.schedule.mode == Mode::Session,
        }
    }

    /// 2025-11-25 only, with `limits` and `judging`.
    pub fn legacy(limits: Limits, judging: Judging) -> Settings {
        Settings {
            limits,
            protocols: vec![Protocol::V2025_11_25],
            judging,
            keep_going: false,
            schedule: Schedule::SERIAL,
            transport: Transport::Stdio,
        }
    }
}

/// Most cases one group of sessions runs before its sessions are ended (their
/// verdicts wait until then, since a session that ends badly sends its cases to
/// fresh processes). A case's evidence is a few KiB, so a batch holds a few MiB;
/// each batch costs one server start per capability set, so a bigger batch means
/// fewer starts (a Python server takes 0.5–1 s to start).
pub const SESSION_BATCH: usize = 1024;

/// Cases per parallel job in one fresh-process window: verdicts stream out as
/// they come (in case order), and the first failure of a window is shrunk when
/// the window is done, so a window only sets how often the jobs wait for each
/// other and how late that shrinking starts.
const FRESH_AHEAD: usize = 32;

/// Which processes the cases run in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One fresh server process per case (the default).
    FreshProcess,
    /// Many cases per server process, one per capability set (`run --session`).
    Session,
}

impl fmt::Display for Mode {
    /// `fresh-process` or `session`, as `run.json`'s `mode` and the summary line say.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Mode::FreshProcess => "fresh-process",
            Mode::Session => "session",
        })
    }
}

/// The mode and the number of cases (fresh-process mode) or groups of cases
/// (session mode) run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// Fresh process per case, or sessions.
    pub mode: Mode,
    /// How many at once (at least 1; 0 is read as 1).
    pub jobs: usize,
}

impl Schedule {
    /// One case at a time, each in a fresh process: the library's default.
    pub const SERIAL: Schedule = Schedule {
        mode: Mode::FreshProcess,
        jobs: 1,
    };

    /// The number of cores (`std::thread::available_parallelism`), the CLI's
    /// default for `-j`; 1 when it cannot be read.
    pub fn cores() -> usize {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    }

    /// The schedule that applies to a run in `protocols`: session mode only when
    /// 2025-11-25 is among them (2026-07-28 cases run fresh in both modes), so a
    /// run in 2026-07-28 alone says `fresh-process`.
    pub fn for_protocols(self, protocols: &[Protocol]) -> Schedule {
        if protocols.contains(&Protocol::V2025_11_25) {
            self
        } else {
            Schedule {
                mode: Mode::FreshProcess,
                ..self
            }
        }
    }

    /// How many cases are handed to [`super::schedule::judge_stream`] at once: one when serial
    /// in fresh-process mode (a failure is shrunk before the next case runs),
    /// `FRESH_AHEAD` per job with `-j` 2 or more, [`SESSION_BATCH`] per job in
    /// session mode.
    pub fn window(&self) -> usize {
        let jobs = self.jobs.max(1);
        match self.mode {
            Mode::FreshProcess if jobs == 1 => 1,
            Mode::FreshProcess => jobs * FRESH_AHEAD,
            Mode::Session => jobs * SESSION_BATCH,
        }
    }
}

impl Default for Schedule {
    /// [`Schedule::SERIAL`].
    fn default() -> Self {
        Schedule::SERIAL
    }
}
