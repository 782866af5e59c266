//! All integration tests in one binary (one link step).

mod broken_cores;
mod cli;
mod contract;
mod mutant_killers;
mod near_misses;
mod properties_core;
mod properties_stdio;
mod raw_answers;
mod run_verdicts;
mod session;
mod snapshots;
mod util;
mod wire_mutants;
