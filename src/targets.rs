//! What `elicit-check check` is asked to check, before anything runs. In: the
//! command line's files and options (`--config FILE`, `--target NAME`,
//! `--shard K/N`, `--server-json FILE`). Out: the targets, as a config's
//! [`config::TargetConfig`]s, each of which the command line turns into a
//! [`Target`](target::Target) for the job.
//!
//! One concept per file:
//! - `target`: the job's input, one [`target::Target`]: the server, the tool,
//!   the acted rule and the job's knobs;
//! - `config`: `elicit-check.toml`, one `[[target]]` per tool;
//! - `shard`: `--shard K/N`, the K-th of N slices of a config's targets (and,
//!   with one target, of its planned cases: [`crate::check::Target::shard`]);
//! - `server_json`: the MCP registry's `server.json` read as the command that
//!   starts each server;
//! - `eliciting_tools`: the tools of one server that send a form, each called
//!   once with the job's case runner ([`crate::check::runner`]);
//! - `registry`: a registry's servers as a config's targets, one per tool that
//!   elicits (`eliciting_tools`).

pub mod config;
pub mod eliciting_tools;
pub mod registry;
pub mod server_json;
pub mod shard;
pub mod target;
