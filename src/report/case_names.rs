//! The names of the cases a run makes up itself: generated cases, the case a
//! shrinking run judges, and the one case of `run --answer` (docs/src/verdicts.md,
//! "Reproduction lines": each is replayed by its name or its inputs).

/// The name of a generated case is this prefix and its number (`generated_0042`).
pub const GENERATED_PREFIX: &str = "generated_";

/// The name of the case a shrinking run judges.
pub const MINIMAL_CASE: &str = "minimal";

/// The name of the one case of `run --answer JSON`.
pub const ANSWER_CASE: &str = "answer";
