//! The harness's MCP client: declares a case's capabilities and answers like a
//! spec-conformant client.
//!
//! The client decides *whether* it may answer; the recording proxy then writes
//! the case's raw answer into the reply frame (see `super::proxy`). The mode
//! check is written here from the spec, independently of the server core.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};
use serde_json::{Value, json};

use crate::case::{Answer, Case};

/// The JSON-RPC error message of a client that did not declare form elicitation.
pub const FORM_NOT_DECLARED: &str = "elicitation mode not declared: form";
/// The JSON-RPC error message of a client that did not declare URL elicitation.
pub const URL_NOT_DECLARED: &str = "elicitation mode not declared: url";

/// The JSON-RPC error message for an elicitation mode rmcp knows and this client does not.
pub const UNKNOWN_MODE: &str = "elicitation mode not declared: unknown";

/// Whether raw declared `capabilities` include form elicitation, read straight
/// from MCP 2025-11-25 (Elicitation, "Capabilities"): `elicitation` is an object
/// with `form`, or with neither `form` nor `url` (legacy `{}`).
pub fn declares_form(capabilities: &Value) -> bool {
    match capabilities.get("elicitation") {
        Some(Value::Object(modes)) => modes.contains_key("form") || !modes.contains_key("url"),
        _ => false,
    }
}

/// Whether raw declared `capabilities` include URL elicitation.
pub fn declares_url(capabilities: &Value) -> bool {
    matches!(capabilities.get("elicitation"), Some(Value::Object(modes)) if modes.contains_key("url"))
}

/// What this client's reply to a form `elicitation/create` amounts to for `case`,
/// after the proxy has written the answer in: `-32602` when form is not declared,
/// the case's answer otherwise, `{"action":"cancel"}` when it has none. Pure; used
/// to run the server core without a process.
pub fn reply_for(case: &Case) -> Answer {
    if !declares_form(&case.capabilities) {
        return Answer::Error(json!({"code": -32602, "message": FORM_NOT_DECLARED}));
    }
    case.answer
        .clone()
        .unwrap_or_else(|| Answer::Result(json!({"action": "cancel"})))
}

/// An rmcp client handler for one session.
#[derive(Debug, Clone)]
pub struct CaseClient {
    /// The capabilities object exactly as the case declares it.
    capabilities: Value,
    /// How many times rmcp called `create_elicitation` (the callback count).
    callbacks: Arc<AtomicUsize>,
}

impl CaseClient {
    /// A client declaring `capabilities` (raw JSON, as in `Case::capabilities`).
    pub fn new(capabilities: Value) -> Self {
        CaseClient {
            capabilities,
            callbacks: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// A shared counter of `create_elicitation` callbacks.
    pub fn callbacks(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.callbacks)
    }
}

impl ClientHandler for CaseClient {
    fn get_info(&self) -> ClientConfig {
        // The proxy rewrites `params.capabilities` of `initialize` to the exact raw
        // object; this parse only keeps rmcp's own view consistent with it.
        let capabilities: ClientCapabilities =
            serde_json::from_value(self.capabilities.clone()).unwrap_or_default();
        ClientConfig::new(
            capabilities,
            Implementation::new("elicit-check", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.callbacks.fetch_add(1, Ordering::SeqCst);
        let declared = match request {
            ElicitRequestParams::FormElicitationParams { .. } => declares_form(&self.capabilities)
                .then_some(())
                .ok_or(FORM_NOT_DECLARED),
            ElicitRequestParams::UrlElicitationParams { .. } => declares_url(&self.capabilities)
                .then_some(())
                .ok_or(URL_NOT_DECLARED),
            _ => Err(UNKNOWN_MODE),
        };
        match declared {
            // Placeholder: the proxy replaces it with the case's answer when it has one;
            // without one, the client cancels.
            Ok(()) => Ok(ElicitResult::new(ElicitationAction::Cancel)),
            Err(message) => Err(ErrorData::invalid_params(message, None)),
        }
    }
}
