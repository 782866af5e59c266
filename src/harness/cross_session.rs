//! An answer planted in another Streamable HTTP session (MCP 2025-11-25,
//! basic/transports, "Session Management"): before the client's own reply to
//! an `elicitation/create` goes out, the bridge POSTs a reply under the same
//! JSON-RPC id carrying another result, under a second session's
//! `Mcp-Session-Id` or under none. A server that keeps its sessions apart
//! never lets it reach the call; one that matches replies by id alone acts on
//! it. What the call then did is the verdict (`check`'s property 7).

use serde_json::Value;

/// Which `Mcp-Session-Id` the planted reply carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlantedSession {
    /// The id of a second session the bridge opens for it (`initialize` and
    /// `notifications/initialized` with the same body as the first session's,
    /// ended with DELETE after the reply).
    Another,
    /// No `Mcp-Session-Id` header at all.
    Missing,
}

impl PlantedSession {
    /// `another session's Mcp-Session-Id`, `no Mcp-Session-Id`.
    pub fn describe(self) -> &'static str {
        match self {
            PlantedSession::Another => "another session's Mcp-Session-Id",
            PlantedSession::Missing => "no Mcp-Session-Id",
        }
    }
}

/// The reply to plant, once, before the client's first reply to an
/// `elicitation/create`.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossSessionAnswer {
    /// Under which session id.
    pub session: PlantedSession,
    /// The `result` it carries (e.g. a valid accept).
    pub result: Value,
}
