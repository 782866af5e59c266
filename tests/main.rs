//! All integration tests in one binary (one link step), a folder per subject
//! (`check`, `run`, `protocol_2026`, `hostile`, `properties`, `wire`), the
//! SDK peers, the `--help` snapshots and the module layout; `support` holds the
//! helpers they share.

mod action;
mod check;
mod fixes;
mod from_tests;
mod help;
mod hostile;
mod layout;
mod mutants_workflow;
mod npm_package;
mod peers;
mod properties;
mod protocol_2026;
mod python_package;
mod release_workflow;
mod run;
mod support;
mod wire;
