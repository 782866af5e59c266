//! elicit-check: property-based and mutation testing for MCP form elicitation.
//!
//! The data flow, one answer from generation to verdict:
//!
//! ```text
//! case / strategy  ->  harness (rmcp client + recording proxy)  <->  server (child process)
//!                  ->  outcome  ->  oracle (model, contract checks, compare)  ->  report
//! ```
//!
//! - [`case`], [`strategy`]: what to send (fixed contract cases, generated cases with a reason).
//! - [`harness`]: runs any stdio MCP server, records every frame, injects raw answers.
//! - [`evidence`]: what a case leaves behind (frames, stray lines, how the process
//!   ended): written by the harness, read by oracles, verdicts and reports.
//! - [`mod@format`]: how messages write counts and durations (the bottom of the tree).
//! - [`mod@lock`]: a mutex lock that keeps its data after a panic elsewhere (the bottom too).
//! - [`server`]: the reference server, an rmcp handler over the pure core
//!   ([`server::form`], [`server::reply`], [`server::decision`], [`server::outcome`]).
//! - [`oracle`], [`compare`]: judgements that share no code with the core.
//! - [`run`], [`report`], [`verdict`]: the `elicit-check run` job, its table,
//!   `results.json`, and the one primary verdict of each failed case.
//!   [`run::schedule`]: fresh process per case or sessions, `-j` cases at once.
//! - [`targets`], [`mod@check`], [`schema`], [`oracle::property`], [`report::check`]:
//!   `elicit-check check`, anyone's tool judged from the `requestedSchema` it sends
//!   (docs/src/check.md): what to check (a config file, a CI matrix's shard, a
//!   registry's servers), the job, and its outputs.
//! - [`fix`]: what a failed property says about the server's code (its flaw),
//!   which SDK the wire shows, and the fix in that SDK's own API.
//! - [`cli`]: the command line's jobs and options (`src/main.rs` only parses and
//!   dispatches). From a downstream crate's own test:
//!
//! ```no_run
//! use elicit_check::{Target, check};
//!
//! let report = check(
//!     Target::stdio(["python3", "server.py"])
//!         .tool("book")
//!         .acted_pointer("/booked")
//!         .cases(50),
//! )
//! .expect("the server starts and offers `book`");
//! assert!(report.passed, "{}", elicit_check::report::check::table(&report));
//! ```
//!
//! Statuses (see [`server::outcome::Outcome`]): `calculated` (the only one with
//! `computed: true`), `invalid_content`, `invalid_response`, `declined`, `cancelled`,
//! `unsupported`, `protocol_error`, `raw_response`.
#![warn(missing_docs)]

pub mod case;
pub mod check;
pub mod cli;
pub mod compare;
pub mod error;
pub mod evidence;
pub mod fix;
pub mod format;
pub mod harness;
pub mod lock;
pub mod oracle;
pub mod peers;
pub mod report;
pub mod run;
pub mod schema;
pub mod server;
pub mod strategy;
pub mod targets;
pub mod transcript;
pub mod unique_names;
pub mod verdict;

pub use check::{CheckReport, Target, check};
