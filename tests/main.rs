//! All integration tests in one binary (one link step).

mod broken_cores;
mod cli;
mod contract;
mod contract_checks;
mod mutant_killers;
mod peers;
mod properties_core;
mod properties_stdio;
mod snapshots;
mod util;
mod wire_mutants;
