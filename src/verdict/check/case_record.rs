//! One call's record in the evidence folder (`cases.jsonl`): what was
//! sent, what the acted rule read, the reply, the properties it broke, the
//! wire and the server's stderr.

use serde::Serialize;
use serde_json::Value;

use crate::evidence::http::HttpRecord;
use crate::evidence::wire::{Frame, StrayLine};
use crate::oracle::property::{Reading, SentAnswer};

/// One case's record for the evidence folder (`cases.jsonl`).
#[derive(Debug, Clone, Serialize)]
pub struct CaseRecord {
    /// Which case: `probe: ..`, `coverage N`, `case N`, `replay`,
    /// `capabilities {..}`, `retry: ..` or `minimal case of property N`.
    pub case: String,
    /// The answers sent.
    pub sent: Vec<SentAnswer>,
    /// The acted reading.
    pub reading: Reading,
    /// The tool's reply.
    pub reply: Value,
    /// The properties it broke, each `property N: reason`.
    pub violations: Vec<String>,
    /// The whole wire.
    pub wire: Vec<Frame>,
    /// The HTTP steps that carried it, in the wire's order (Streamable HTTP only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub http: Vec<HttpRecord>,
    /// Stray stdout lines.
    pub stray_stdout: Vec<StrayLine>,
    /// The server's stderr.
    pub stderr: String,
    /// Whether the check was stopped (SIGINT, SIGTERM) before the call's
    /// phase was judged ([`super::journal`]): the call ran to its end and
    /// its violations are its own, but in session mode a fresh re-run might
    /// have replaced it. Written only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_judged: bool,
}
