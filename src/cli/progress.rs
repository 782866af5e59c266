//! `check`'s progress on stderr: on a terminal, one line redrawn in place
//! (indicatif) once the check has run for [`QUIET_START`]: the era, the
//! phase, the call in flight, the calls done and the cases planned; on a
//! pipe, with `--progress`, a plain line when the phase changes and at most
//! every [`PIPE_EVERY`] otherwise; nothing on a pipe without it.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::check::progress::{Phase, Progress, ProgressSink};

/// How long a check runs before its progress line shows on a terminal: a
/// check done sooner leaves no trace of it.
pub const QUIET_START: Duration = Duration::from_secs(2);

/// At most how often a plain progress line is written to a pipe, the phase
/// changing aside.
pub const PIPE_EVERY: Duration = Duration::from_secs(10);

/// What a progress line says of one step: `2025-11-25 coverage: coverage 12
/// (40 calls done, 124 cases planned)`.
pub fn describe(progress: &Progress<'_>) -> String {
    let planned = match progress.planned {
        0 => String::new(),
        planned => format!(", {} planned", crate::format::counted(planned, "case")),
    };
    format!(
        "{} {}: {} ({} done{planned})",
        progress.protocol,
        progress.phase.word(),
        progress.label,
        crate::format::counted(progress.done, "call"),
    )
}

/// The progress display of one command: where it draws, and the bar to
/// clear at the end.
pub struct Display {
    bar: Option<ProgressBar>,
}

impl Display {
    /// A display on stderr: redrawn in place on a terminal, plain lines on a
    /// pipe when `forced` (`--progress`), nothing otherwise (`sink` none).
    pub fn on_stderr(forced: bool) -> (Display, Option<ProgressSink>) {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template("elicit-check: {elapsed} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            let started = Instant::now();
            let shown = bar.clone();
            let sink = ProgressSink::new(move |progress| {
                if shown.is_hidden() && started.elapsed() >= QUIET_START {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    shown.enable_steady_tick(Duration::from_millis(500));
                }
                shown.set_message(describe(progress));
            });
            (Display { bar: Some(bar) }, Some(sink))
        } else if forced {
            let last: Mutex<Option<(Phase, Instant)>> = Mutex::new(None);
            let sink = ProgressSink::new(move |progress| {
                let mut last = last.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let due = last.is_none_or(|(phase, at)| {
                    phase != progress.phase || at.elapsed() >= PIPE_EVERY
                });
                if due {
                    eprintln!("elicit-check: progress: {}", describe(progress));
                    *last = Some((progress.phase, Instant::now()));
                }
            });
            (Display { bar: None }, Some(sink))
        } else {
            (Display { bar: None }, None)
        }
    }

    /// Clears the line drawn in place, before the report is written.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progress_line_names_the_era_the_phase_the_call_and_the_counts() {
        let progress = Progress {
            protocol: "2025-11-25",
            phase: Phase::Coverage,
            label: "coverage 12",
            done: 40,
            planned: 124,
        };
        assert_eq!(
            describe(&progress),
            "2025-11-25 coverage: coverage 12 (40 calls done, 124 cases planned)"
        );
        let probing = Progress {
            phase: Phase::Probe,
            label: "probe: a decline",
            done: 1,
            planned: 0,
            ..progress
        };
        assert_eq!(
            describe(&probing),
            "2025-11-25 probe: probe: a decline (1 call done)"
        );
    }
}
