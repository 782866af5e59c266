//! All integration tests in one binary (one link step).

mod broken_cores;
mod check;
mod check_judge;
mod cli;
mod contract;
mod mutant_killers;
mod properties_core;
mod properties_stdio;
mod snapshots;
mod util;
mod wire_mutants;
