//! All integration tests in one binary (one link step).

mod contract;
mod snapshots;
mod util;
mod wire_mutants;
