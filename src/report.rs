//! The report: one verdict per case, a table for people, `results.json` for tools.
//!
//! One concept per file, each re-exported here (every item is used as
//! `crate::report::NAME`):
//! - `case_verdict.rs`: the [`Verdict`] of one case and its copy-paste
//!   [`reproduction`] command;
//! - `replay.rs`: what that command repeats of its run ([`Replay`],
//!   [`ReplayKind`]);
//! - `case_names.rs`: the names of the cases a run makes up itself
//!   ([`GENERATED_PREFIX`], [`MINIMAL_CASE`], [`ANSWER_CASE`]);
//! - `table.rs`: the table for people ([`write_header`], [`write_row`],
//!   [`write_failed_generated`], [`summary`]);
//! - `tally.rs`: what a run keeps of each finished case ([`CaseTally`]) and its
//!   counts;
//! - `run_document.rs`: the documents for tools ([`CaseLine`], [`RunEnd`],
//!   [`run_document`]);
//! - `evidence_log.rs`: the evidence folder of one run ([`EvidenceLog`],
//!   [`RunWarning`]);
//! - `explain.rs`: a generated case's failure in its minimal form
//!   ([`explain()`]).
//!
//! The files import each other (leaves first: names, replay, tally, run
//! document; then the verdict, the table and the log), never this root.
//!
//! The `check` job's outputs (its table, JSON, JUnit, SARIF, Markdown, the
//! baseline, a config's targets and their merge) are under [`check`], used as
//! `crate::report::check::…`.

mod case_names;
mod case_verdict;
pub mod check;
mod evidence_log;
mod explain;
mod replay;
mod run_document;
mod table;
mod tally;

pub use case_names::{ANSWER_CASE, GENERATED_PREFIX, MINIMAL_CASE};
pub use case_verdict::{GROUP_LEFT_RUNNING, Verdict, reproduction};
pub use evidence_log::{CHECKPOINT_COST_FACTOR, CHECKPOINT_INTERVAL, EvidenceLog, RunWarning};
pub use explain::explain;
pub use replay::{Replay, ReplayKind};
pub use run_document::{CaseLine, RunEnd, run_document};
pub use table::{
    MAX_FAILED_GENERATED_SHOWN, MAX_FAILURE_CHARS, STDERR_LINES, last_lines, summary,
    write_failed_generated, write_header, write_row,
};
pub use tally::{CaseTally, tally_summary, verdict_counts};

/// Fixtures shared by the report's tests and the run's.
#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use crate::case::Case;
    use crate::harness::Evidence;

    /// The evidence of a case named `name` of `command` that ran and passed.
    pub(crate) fn evidence(name: &str, command: &[&str]) -> Evidence {
        Evidence {
            case: name.to_owned(),
            input: Case {
                name: name.to_owned(),
                policy: "validated".to_owned(),
                capabilities: json!({"elicitation": {"form": {}}}),
                answer: None,
                answer_text: None,
            },
            elicit_check_version: env!("CARGO_PKG_VERSION"),
            rmcp_version: crate::harness::evidence::RMCP_VERSION,
            server_command: command.iter().map(|word| (*word).to_owned()).collect(),
            pid: Some(7),
            protocol_version: Some("2025-11-25".to_owned()),
            wire: Vec::new(),
            timeline: Vec::new(),
            callbacks: 1,
            stray_stdout: Vec::new(),
            stray_stdout_not_kept: 0,
            stderr: String::new(),
            exit_code: Some(0),
            exit_signal: None,
            forced_kill: false,
            shutdown_grace_secs: 5.0,
            group_left_running: false,
            outcome: Some(json!({"status": "declined", "computed": false})),
            text_outcome: None,
            error: None,
            started: true,
            rpc_error: None,
            url: None,
            http: Vec::new(),
            stopped_by_harness: false,
        }
    }
}
