//! Where a running check says how far it is: each call as it starts, with
//! its era, its phase and its label, and how many calls of the era are done
//! and planned. The command line turns it into a progress line on a terminal
//! (`--progress` on a pipe); a library user may pass any sink.

use std::fmt;
use std::sync::Arc;

/// The phase a call belongs to, in the order a check runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The probe's calls: consenting valid accepts, then a decline.
    Probe,
    /// The coverage phase (the same answers for every seed).
    Coverage,
    /// The random phase (`--cases`).
    Random,
    /// The one case of `--answer` or `--case-index`.
    Replay,
    /// A failure re-run in a fresh process, or shrunk.
    Confirming,
    /// The sessions declaring no form elicitation (P4, P7).
    Capabilities,
    /// The 2026-07-28 retries and, over Streamable HTTP, the planted replies.
    Retries,
}

impl Phase {
    /// The phase in a progress line: `probe`, `coverage`, `random`,
    /// `replay`, `confirming`, `capabilities`, `retries`.
    pub fn word(self) -> &'static str {
        match self {
            Phase::Probe => "probe",
            Phase::Coverage => "coverage",
            Phase::Random => "random",
            Phase::Replay => "replay",
            Phase::Confirming => "confirming",
            Phase::Capabilities => "capabilities",
            Phase::Retries => "retries",
        }
    }
}

/// One step of a check's progress: a call starting.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// The era: `2025-11-25` or `2026-07-28`.
    pub protocol: &'static str,
    /// The call's phase.
    pub phase: Phase,
    /// The call's label, as the evidence names it (`coverage 12`, `case 3`).
    pub label: &'a str,
    /// Calls of this era finished so far.
    pub done: usize,
    /// The coverage and random cases planned in this era (0 until the probe
    /// has read the form).
    pub planned: usize,
}

/// A shared callback taking each [`Progress`] step; cloned into each era.
#[derive(Clone)]
pub struct ProgressSink(Arc<dyn Fn(&Progress<'_>) + Send + Sync>);

impl ProgressSink {
    /// A sink calling `sink` with each step.
    pub fn new(sink: impl Fn(&Progress<'_>) + Send + Sync + 'static) -> ProgressSink {
        ProgressSink(Arc::new(sink))
    }

    /// Hands `progress` to the sink.
    pub fn send(&self, progress: &Progress<'_>) {
        (self.0)(progress);
    }
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("ProgressSink")
    }
}
