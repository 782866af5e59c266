//! What a reproduction command repeats of its run: how it runs the case again
//! ([`ReplayKind`]) and the run's options that change a verdict ([`Replay`]).

/// How a reproduction command runs a case again (docs/src/verdicts.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReplayKind {
    /// By name: a contract case, or a generated one with its seed (`--case NAME`).
    #[default]
    Case,
    /// A hostile-client case (`--hostile --case NAME`).
    Hostile,
    /// By its inputs: capabilities, policy and the raw answer (`--answer JSON`),
    /// for a case that has no name to replay by: a shrunk minimal failure, or a
    /// case of `run --answer`.
    Answer,
}

/// What a failed case's reproduction command repeats of its run: how the case
/// is run again and the run's options that change a verdict (docs/src/verdicts.md,
/// "Reproduction lines": a copy-paste reproduction command).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Replay {
    /// By name, as a hostile case, or by its answer.
    pub kind: ReplayKind,
    /// Whether the run judged free text word for word (`--exact-messages`);
    /// `None`: the default for its server (on for the reference server only).
    pub exact_messages: Option<bool>,
    /// Whether the run used `--session`.
    pub session: bool,
}
