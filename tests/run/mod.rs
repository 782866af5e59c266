//! `elicit-check run` (docs/src/run.md): the command line end to end (table,
//! summary, exit code, evidence files), the contract cases and the contract
//! checks that judge them, the verdict of a generated case and its shrinking,
//! the primary verdict of each failure shown against misbehaving servers
//! (docs/src/verdicts.md) and those of the Streamable HTTP transport, session mode and `-j` (docs/src/sessions.md), a
//! session whose server never completes `initialize`, answers sent byte for
//! byte, and the server's process group killed when a case ends.

mod cli;
mod contract;
mod fault_verdicts;
mod http;
mod http_faults;
mod process_group;
mod raw_answers;
mod schedule;
mod session;
mod verdicts;
