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

/// The JSON-RPC error this client answers a request of a mode it did not
/// declare with: `{"code": -32602, "message": message}`, `message` being
/// [`FORM_NOT_DECLARED`] or [`URL_NOT_DECLARED`] (MCP 2025-11-25,
/// Elicitation, "Error Handling": invalid params).
pub fn not_declared(message: &str) -> Answer {
    Answer::Error(json!({"code": -32602, "message": message}))
}

/// The JSON-RPC error message for an elicitation mode rmcp knows and this client does not.
pub const UNKNOWN_MODE: &str = "elicitation mode not declared: unknown";

/// `{"elicitation":{"form":{},"url":{}}}`, what `check`'s client declares
/// for its cases: form elicitation, and URL elicitation so that a tool with
/// a URL step (a sign-in, a payment page) before or after its form reaches
/// the form and completes.
pub fn form_capabilities() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}})
}

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

/// Whether an `elicitation/create` request (or a 2026-07-28 input request of
/// that method), `{"method": .., "params": {..}}`, asks for a form: its
/// `params.mode` is `"form"`, absent or null (MCP 2025-11-25, Elicitation:
/// form is the default mode); `"url"` or any other mode is not a form.
pub fn asks_form(request: &Value) -> bool {
    let mode = request.pointer("/params/mode");
    mode.is_none_or(Value::is_null) || mode.and_then(Value::as_str) == Some("form")
}

/// What this client's reply to a form `elicitation/create` amounts to for `case`,
/// after the proxy has written the answer in: `-32602` when form is not declared,
/// the case's answer otherwise, `{"action":"cancel"}` when it has none. Pure; used
/// to run the server core without a process.
pub fn reply_for(case: &Case) -> Answer {
    if !declares_form(&case.capabilities) {
        return not_declared(FORM_NOT_DECLARED);
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

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::ServiceExt;
    use rmcp::model::ErrorCode;
    use rmcp::service::ServiceError;

    #[test]
    fn checks_client_declares_form_and_url_elicitation() {
        assert_eq!(
            form_capabilities(),
            json!({"elicitation": {"form": {}, "url": {}}})
        );
    }

    #[test]
    fn form_is_declared_by_form_or_by_the_legacy_empty_object() {
        assert!(declares_form(&json!({"elicitation": {"form": {}}})));
        assert!(declares_form(
            &json!({"elicitation": {"form": {}, "url": {}}})
        ));
        assert!(declares_form(&json!({"elicitation": {}})));
        assert!(!declares_form(&json!({"elicitation": {"url": {}}})));
        assert!(!declares_form(&json!({})));
        assert!(!declares_form(&json!({"elicitation": true})));
    }

    #[test]
    fn url_is_declared_only_by_a_url_key_in_the_elicitation_object() {
        assert!(declares_url(&json!({"elicitation": {"url": {}}})));
        assert!(declares_url(
            &json!({"elicitation": {"form": {}, "url": {}}})
        ));
        assert!(!declares_url(&json!({"elicitation": {"form": {}}})));
        assert!(!declares_url(&json!({"elicitation": {}})));
        assert!(!declares_url(&json!({"url": {}})));
        let request = |params: Value| json!({"method": "elicitation/create", "params": params});
        assert!(asks_form(&request(
            json!({"message": "m", "requestedSchema": {}})
        )));
        assert!(asks_form(&request(json!({"mode": null}))));
        assert!(asks_form(&request(json!({"mode": "form"}))));
        assert!(!asks_form(&request(
            json!({"mode": "url", "url": "https://x/"})
        )));
        assert!(!asks_form(&request(json!({"mode": "later"}))));
        assert!(!declares_url(&json!({})));
    }

    #[test]
    fn a_client_without_form_replies_invalid_params_whatever_the_case_answers() {
        let case = Case {
            name: "hand".to_owned(),
            policy: "diagnostic_unchecked".to_owned(),
            capabilities: json!({"elicitation": {"url": {}}}),
            answer: Some(Answer::Result(json!({"action": "accept"}))),
            answer_text: None,
        };
        assert_eq!(
            reply_for(&case),
            Answer::Error(
                json!({"code": -32602, "message": "elicitation mode not declared: form"})
            )
        );
    }

    #[test]
    fn a_client_with_form_and_no_answer_cancels() {
        let case = Case {
            name: "hand".to_owned(),
            policy: "validated".to_owned(),
            capabilities: json!({"elicitation": {"form": {}}}),
            answer: None,
            answer_text: None,
        };
        assert_eq!(
            reply_for(&case),
            Answer::Result(json!({"action": "cancel"}))
        );
    }

    #[test]
    fn the_client_asks_for_protocol_2025_11_25_under_its_own_name() {
        let config = CaseClient::new(json!({"elicitation": {"form": {}}})).get_info();
        assert_eq!(config.protocol_version, ProtocolVersion::V_2025_11_25);
        assert_eq!(config.client_info.name, "elicit-check");
        let elicitation = config
            .capabilities
            .elicitation
            .expect("elicitation declared");
        assert!(elicitation.form.is_some());
        assert!(elicitation.url.is_none());
    }

    /// A server with nothing to offer; the test drives its peer by hand.
    #[derive(Debug, Clone, Default)]
    struct Bare;

    impl rmcp::ServerHandler for Bare {}

    /// Sends one URL-mode `elicitation/create` from an in-process server to a
    /// `CaseClient` declaring `capabilities`; returns the server's view of the
    /// reply and the client's callback count.
    async fn url_elicitation(capabilities: Value) -> (Result<ElicitResult, ServiceError>, usize) {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let server = tokio::spawn(async move { Bare.serve(server_io).await });
        let handler = CaseClient::new(capabilities);
        let callbacks = handler.callbacks();
        let client = handler.serve(client_io).await.expect("client starts");
        let server = server.await.expect("server task").expect("server starts");
        let reply = server
            .peer()
            .create_elicitation(ElicitRequestParams::UrlElicitationParams {
                meta: None,
                message: "open the link".to_owned(),
                url: "https://example.com/form".to_owned(),
                elicitation_id: "e1".to_owned(),
            })
            .await;
        let count = callbacks.load(Ordering::SeqCst);
        client.cancel().await.expect("client stops");
        (reply, count)
    }

    #[tokio::test]
    async fn a_url_elicitation_is_refused_unless_url_was_declared() {
        let (reply, callbacks) = url_elicitation(json!({"elicitation": {"form": {}}})).await;
        assert_eq!(callbacks, 1);
        match reply {
            Err(ServiceError::McpError(error)) => {
                assert_eq!(error.code, ErrorCode(-32602));
                assert_eq!(error.message, "elicitation mode not declared: url");
            }
            other => panic!("expected -32602, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_declared_url_elicitation_gets_the_placeholder_cancel() {
        let (reply, callbacks) = url_elicitation(json!({"elicitation": {"url": {}}})).await;
        assert_eq!(callbacks, 1);
        assert_eq!(
            reply.expect("an ElicitResult").action,
            ElicitationAction::Cancel
        );
    }
}
