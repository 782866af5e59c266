//! The reference server: a strict `calculate` tool over rmcp, and the pure core
//! that decides it.
//!
//! The core is pure and small; the handler is the only part with I/O:
//!
//! ```text
//! handler (rmcp ServerHandler, stdio)
//!   -> reply    the client's answer as the server sees it (result, malformed, JSON-RPC error)
//!   -> decision capabilities + policy + answer -> outcome
//!        -> form     the strict form rules: fields, bounds, integer rule, error paths
//!   -> outcome  the outcome statuses and their exact JSON shape
//! ```
//!
//! Nothing under [`crate::oracle`] or [`crate::strategy`] reads this module: the
//! oracles restate the contract by hand.

pub mod decision;
pub mod form;
pub mod handler;
pub mod http;
pub mod lines;
pub mod outcome;
pub mod reply;
pub mod request_state;

pub use handler::{
    ELICITATION_MESSAGE, MRTR_PROTOCOL_VERSION, PROTOCOL_VERSION, ReferenceServer, TOOL_NAME,
    requested_schema, required_capabilities, serve_stdio, serve_stdio_with, serve_stdio_with_ttl,
};
