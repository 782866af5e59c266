//! Protocol 2026-07-28 (docs/src/eras.md), multi round-trip requests: a call
//! answered with `input_required` and retried with the answer and the echoed
//! `requestState`. The reference server in process, the contract over stdio,
//! the property of both eras, the wire-log snapshots, `run --protocol` end
//! to end, and both eras over Streamable HTTP.

mod cli;
mod contract;
mod http;
mod properties;
mod server;
mod snapshots;
