//! proptest strategies that build cases with the reason they were built.
//!
//! This is the "by construction" oracle. A strategy first picks a [`Reason`]: which
//! capabilities the client declares, which policy the tool runs under and what the
//! client deliberately answers (a valid form, a form with a near-miss extra key, a
//! float where an integer belongs, a malformed result, ...). The [`Case`] is then
//! built from the reason ([`Reason::case`]) and the expected outcome is derived from
//! the reason alone ([`Reason::expected`]), never by reading the built JSON back and
//! never through `crate::oracle::model`: the two oracles share nothing but
//! `serde_json`, so a test that compares them checks one against the other.
//!
//! Strategies are written so that shrinking ends on small, readable answers: the
//! simplest alternative of every `prop_oneof!` comes first, numbers shrink towards
//! the schema's boundaries, key lists towards empty and names towards one letter.
//! The composite strategies are boxed: unboxed, their value trees are deep enough
//! to overflow a test thread's stack in debug builds.

mod expected;
pub mod form;
pub mod policy;
pub mod reason;
pub mod reply;
#[cfg(test)]
mod tests;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

pub use form::*;
pub use policy::*;
pub use reason::*;
pub use reply::*;

use crate::case::Case;

/// A generated case with the reason it was built and the outcome that reason implies.
///
/// `case.name` is `"generated"` (the caller renames it); `expected` is an outcome
/// object of the contract table, derived from `reason` alone.
#[derive(Debug, Clone)]
pub struct GeneratedCase {
    /// The input sent to the server, built by [`Reason::case`].
    pub case: Case,
    /// Why the case was built.
    pub reason: Reason,
    /// The outcome the reason implies, built by [`Reason::expected`].
    pub expected: Value,
}

impl GeneratedCase {
    /// Builds the case and its expected outcome from `reason`.
    pub fn from_reason(reason: Reason) -> Self {
        Self {
            case: reason.case(),
            expected: reason.expected(),
            reason,
        }
    }
}
/// The full weighted mix of generated cases.
pub fn generated_case() -> impl Strategy<Value = GeneratedCase> {
    reason().prop_map(GeneratedCase::from_reason)
}

/// The runner `elicit-check run --seed SEED` draws its generated cases from:
/// ChaCha seeded with `seed`'s 8 little-endian bytes followed by 24 zero bytes,
/// proptest's default configuration. The same seed gives the same cases while
/// the strategies stay unchanged (`tests/properties/planted_faults.rs` tests every
/// planted fault against the cases of 20 seeds drawn this way).
pub fn seeded_runner(seed: u64) -> TestRunner {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    )
}

/// A seed from the clock's nanoseconds: the seed of a run or a check given no
/// `--seed` (printed, so the run can be repeated).
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64)
}
