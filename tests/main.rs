//! All integration tests in one binary (one link step).

mod broken_cores;
mod check;
mod check_judge;
mod cli;
mod contract;
mod contract_checks;
mod mrtr_cli;
mod mrtr_contract;
mod mrtr_properties;
mod mrtr_server;
mod mrtr_snapshots;
mod mutant_killers;
mod near_misses;
mod peers;
mod process_group;
mod properties_core;
mod properties_stdio;
mod raw_answers;
mod run_verdicts;
mod schedule;
mod session;
mod snapshots;
mod util;
mod wire_mutants;
