//! A case: the declared client capabilities, the tool's policy and the raw answer to send.
//!
//! Cases hold inputs only. The expected outcomes of the contract cases live in
//! `expected/results.json`, written by hand (issue 2, section 4).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One input to the server: what the client declares and what it answers.
///
/// JSON shape (`fixtures/cases.json` holds an array of these):
/// `{"name": "...", "policy": "validated", "capabilities": {"elicitation": {"form": {}}},
///   "answer": {"result": {"action": "accept", "content": {...}}}}`.
/// `answer` is absent when the case expects no `elicitation/create` or lets the
/// client's own reply stand (see [`Answer`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Stable, unique name; it names the evidence and the snapshot.
    pub name: String,
    /// The `policy` argument of the `calculate` tool: `validated`, `raw` or
    /// `diagnostic_unchecked` (see `crate::server::decision::Policy`).
    pub policy: String,
    /// The `capabilities` object the client declares at `initialize`, exactly as
    /// sent (`{}` declares nothing; `{"elicitation": {}}` is the legacy form-only object).
    pub capabilities: Value,
    /// The answer to `elicitation/create`, as raw JSON written into the reply frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

/// The client's reply to `elicitation/create`, written verbatim into the JSON-RPC
/// response frame by the recording proxy, so malformed answers can be sent too.
///
/// When the case declared no form support, the client answers JSON-RPC error
/// `-32602` whatever the answer says, as a spec-conformant client must
/// (MCP 2025-11-25, Elicitation, "Capabilities"). When the case has no answer and
/// form is declared, the client answers `{"action":"cancel"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    /// The `result` member of the response: normally an `ElicitResult`
    /// (`{"action": ..., "content"?: ...}`), but any JSON is allowed.
    Result(Value),
    /// The `error` member of the response: a JSON-RPC error object
    /// (`{"code": -32603, "message": "..."}`), sent instead of a result.
    Error(Value),
}

/// The contract cases shipped with the crate (`fixtures/cases.json`), compiled in
/// so the binary works from any directory.
pub fn contract_cases() -> Vec<Case> {
    serde_json::from_str(include_str!("../fixtures/cases.json"))
        .expect("fixtures/cases.json is valid (checked by tests)")
}

/// The hand-written expected outcomes (`expected/results.json`): an object from
/// case name to the exact outcome object.
pub fn contract_expected() -> serde_json::Map<String, Value> {
    serde_json::from_str(include_str!("../expected/results.json"))
        .expect("expected/results.json is valid (checked by tests)")
}
