//! Oracles: judgements that share no code with the server core.
//!
//! - [`model`]: the reference model, the contract as a table of rules over raw JSON.
//! - [`contract`]: the checks of one case's evidence (outcome, wire, ids, schema).
//! - [`meaning`]: the rules of judging another SDK's outcome by meaning.
//! - [`era`]: the same contract on protocol 2026-07-28 (the 2026-07-28 table, the MRTR wire).
//! - [`http`]: the Streamable HTTP transport's own rules, on a session's HTTP steps.
//! - [`failure`]: what each of these finds wrong, typed by rule family.
//! - [`hostile`]: what a server must do with hostile client frames.
//! - [`no_reply`]: a `tools/call` without reply, said as what happened to it.
//! - [`property`]: the eight properties of `elicit-check check` on anyone's tool.
//! - [`consent`]: which field of a form the tool acts on at one value only (property 3).
//! - [`format_shape`]: a valid accept refused for the shape of its `date-time` alone (property 3).
//!
//! The third oracle, "by construction", lives with the strategies
//! (`crate::strategy::Reason::expected`): each generated case knows why it must
//! or must not compute.

pub mod consent;
pub mod contract;
pub mod era;
pub mod failure;
pub mod format_shape;
pub mod hostile;
pub mod http;
pub mod meaning;
pub mod model;
pub mod no_reply;
pub mod property;
