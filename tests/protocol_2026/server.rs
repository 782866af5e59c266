//! The reference server on protocol 2026-07-28, in process:
//! an rmcp client in the discover lifecycle over `tokio::io::duplex`, rounds
//! driven by hand with `call_tool_once`, so every retry carries exactly what
//! the test puts in it. No child processes.

use std::time::Duration;

use elicit_check::server::ReferenceServer;
use elicit_check::server::request_state::RequestStates;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, Implementation,
    InputRequiredResult, InputResponses, ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::{Map, Value, json};

/// A client that declares `capabilities` and drives rounds only by hand.
#[derive(Debug, Clone)]
struct HandClient {
    capabilities: ClientCapabilities,
    protocol: ProtocolVersion,
}

impl ClientHandler for HandClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            self.capabilities.clone(),
            Implementation::new("mrtr-test", "0"),
        )
        .with_protocol_version(self.protocol.clone())
    }
}

const FORM: &str = r#"{"elicitation":{"form":{}}}"#;

/// A 2026-07-28 client (`server/discover`, inline `_meta`) of `server` declaring `capabilities`.
async fn modern(
    server: ReferenceServer,
    capabilities: &str,
) -> RunningService<RoleClient, HandClient> {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    HandClient {
        capabilities: serde_json::from_str(capabilities).expect("capabilities"),
        protocol: ProtocolVersion::V_2026_07_28,
    }
    .serve_with_lifecycle(
        client_io,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("the discover lifecycle starts")
}

fn arguments(policy: &str) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("policy".into(), json!(policy));
    arguments
}

fn call(policy: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("calculate").with_arguments(arguments(policy))
}

fn retry(policy: &str, state: Option<&str>, responses: Value) -> CallToolRequestParams {
    let mut params = call(policy);
    params.request_state = state.map(str::to_owned);
    params.input_responses = match responses {
        Value::Null => None,
        Value::Object(map) => Some(map.into_iter().collect::<InputResponses>()),
        other => panic!("responses are an object, got {other}"),
    };
    params
}

fn input_required(response: Result<CallToolResponse, ServiceError>) -> InputRequiredResult {
    match response {
        Ok(CallToolResponse::InputRequired(result)) => result,
        other => panic!("expected an InputRequiredResult, got {other:?}"),
    }
}

fn outcome(response: Result<CallToolResponse, ServiceError>) -> Value {
    match response {
        Ok(CallToolResponse::Complete(result)) => {
            let text = result.content[0]
                .as_text()
                .expect("text content")
                .text
                .clone();
            let structured = result.structured_content.expect("structuredContent");
            assert_eq!(
                serde_json::from_str::<Value>(&text).expect("JSON text"),
                structured
            );
            structured
        }
        other => panic!("expected a tool result, got {other:?}"),
    }
}

/// The JSON-RPC error of a refused call: (code, message, data).
fn refused(response: Result<CallToolResponse, ServiceError>) -> (i32, String, Option<Value>) {
    match response {
        Err(ServiceError::McpError(error)) => {
            (error.code.0, error.message.into_owned(), error.data)
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// Runs `policy` with one round: the first call, then the retry answering `answer`.
async fn one_round(policy: &str, answer: Value) -> Value {
    let client = modern(ReferenceServer::default(), FORM).await;
    let first = input_required(client.call_tool_once(call(policy)).await);
    let state = first.request_state.expect("a requestState");
    let result = client
        .call_tool_once(retry(policy, Some(&state), json!({"form": answer})))
        .await;
    client.cancel().await.expect("client stops");
    outcome(result)
}

#[tokio::test]
async fn the_first_call_answers_input_required_with_the_same_form_request_and_a_sealed_state() {
    let client = modern(ReferenceServer::default(), FORM).await;
    let first = input_required(client.call_tool_once(call("validated")).await);
    let wire = serde_json::to_value(&first).expect("serializes");
    assert_eq!(wire["resultType"], json!("input_required"));
    assert_eq!(
        wire["inputRequests"],
        json!({"form": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "How many units, and what is one unit worth?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "units": {"type": "integer", "minimum": 1, "maximum": 10},
                        "unit_value": {"type": "integer", "minimum": 1, "maximum": 100}
                    },
                    "required": ["units", "unit_value"]
                }
            }
        }})
    );
    let state = wire["requestState"]
        .as_str()
        .expect("a string requestState");
    assert!(state.starts_with("rs1."), "sealed by rmcp's codec: {state}");
    client.cancel().await.expect("client stops");
}

#[tokio::test]
async fn the_retry_is_decided_by_the_same_core_as_2025_11_25() {
    assert_eq!(
        one_round(
            "validated",
            json!({"action": "accept", "content": {"units": 3, "unit_value": 7}})
        )
        .await,
        json!({"status": "calculated", "computed": true, "value": 21})
    );
    assert_eq!(
        one_round(
            "validated",
            json!({"action": "decline", "content": {"units": 3, "unit_value": 7}})
        )
        .await,
        json!({"status": "declined", "computed": false})
    );
    assert_eq!(
        one_round("validated", json!({"action": "accept"})).await,
        json!({"status": "invalid_response", "computed": false, "error": "accept response has no content"})
    );
    assert_eq!(
        one_round(
            "validated",
            json!({"action": "accept", "content": {"units": 3.0, "unit_value": 7}})
        )
        .await,
        json!({"status": "invalid_content", "computed": false, "errors": [["units"]]})
    );
    assert_eq!(
        one_round("validated", json!({"action": "reject"})).await,
        json!({"status": "invalid_response", "computed": false, "error": "malformed elicitation result"})
    );
    assert_eq!(
        one_round("raw", json!({"action": "accept", "content": {"units": 3}})).await,
        json!({"status": "raw_response", "computed": false, "action": "accept", "content": {"units": 3}})
    );
}

#[tokio::test]
async fn without_form_support_the_call_fails_with_32021_naming_elicitation() {
    for (capabilities, policy) in [
        ("{}", "validated"),
        (r#"{"elicitation":{"url":{}}}"#, "validated"),
        ("{}", "diagnostic_unchecked"),
        ("{}", "raw"),
    ] {
        let client = modern(ReferenceServer::default(), capabilities).await;
        let (code, message, data) = refused(client.call_tool_once(call(policy)).await);
        assert_eq!(code, -32021, "{capabilities} {policy}");
        assert_eq!(message, "Missing required client capability");
        assert_eq!(
            data,
            Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}}}))
        );
        client.cancel().await.expect("client stops");
    }
}

#[tokio::test]
async fn the_legacy_empty_elicitation_object_counts_as_form_support() {
    let client = modern(ReferenceServer::default(), r#"{"elicitation":{}}"#).await;
    let first = input_required(client.call_tool_once(call("validated")).await);
    assert!(first.input_requests.expect("requests").contains_key("form"));
    client.cancel().await.expect("client stops");
}

const VALID: &str = r#"{"form":{"action":"accept","content":{"units":3,"unit_value":7}}}"#;

fn valid() -> Value {
    serde_json::from_str(VALID).expect("JSON")
}

#[tokio::test]
async fn a_tampered_state_is_refused_with_32602_and_nothing_is_computed() {
    let client = modern(ReferenceServer::default(), FORM).await;
    let state = input_required(client.call_tool_once(call("validated")).await)
        .request_state
        .expect("state");
    let mut bytes = state.into_bytes();
    let last = bytes.len() - 1;
    bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).expect("ASCII");
    let (code, message, _) = refused(
        client
            .call_tool_once(retry("validated", Some(&tampered), valid()))
            .await,
    );
    assert_eq!(
        (code, message.as_str()),
        (-32602, "requestState is invalid or expired")
    );
    client.cancel().await.expect("client stops");
}

#[tokio::test]
async fn a_state_minted_for_other_arguments_or_by_another_server_is_refused() {
    let client = modern(ReferenceServer::default(), FORM).await;
    let raw_state = input_required(client.call_tool_once(call("raw")).await)
        .request_state
        .expect("state");
    let (code, message, _) = refused(
        client
            .call_tool_once(retry("validated", Some(&raw_state), valid()))
            .await,
    );
    assert_eq!(
        (code, message.as_str()),
        (-32602, "requestState is invalid or expired")
    );
    client.cancel().await.expect("client stops");

    let other = modern(ReferenceServer::default(), FORM).await;
    let (code, _, _) = refused(
        other
            .call_tool_once(retry("raw", Some(&raw_state), valid()))
            .await,
    );
    assert_eq!(code, -32602, "another process's key");
    other.cancel().await.expect("client stops");
}

#[tokio::test]
async fn an_expired_state_is_refused() {
    let server = ReferenceServer::with_request_state_ttl(Duration::ZERO);
    let client = modern(server, FORM).await;
    let state = input_required(client.call_tool_once(call("validated")).await)
        .request_state
        .expect("state");
    let (code, message, _) = refused(
        client
            .call_tool_once(retry("validated", Some(&state), valid()))
            .await,
    );
    assert_eq!(
        (code, message.as_str()),
        (-32602, "requestState is invalid or expired")
    );
    client.cancel().await.expect("client stops");
}

#[tokio::test]
async fn input_responses_without_a_state_are_refused() {
    let client = modern(ReferenceServer::default(), FORM).await;
    let (code, message, _) = refused(
        client
            .call_tool_once(retry("validated", None, valid()))
            .await,
    );
    assert_eq!(
        (code, message.as_str()),
        (-32602, "inputResponses without requestState")
    );
    client.cancel().await.expect("client stops");
}

#[tokio::test]
async fn a_retry_lacking_the_answer_is_asked_again_three_rounds_at_most() {
    let states =
        RequestStates::with_key(b"0123456789abcdef0123456789abcdef", Duration::from_secs(60))
            .expect("key");
    let client = modern(ReferenceServer::with_request_states(states), FORM).await;
    let mut state = input_required(client.call_tool_once(call("validated")).await)
        .request_state
        .expect("state");
    for round in 2..=3 {
        let again = input_required(
            client
                .call_tool_once(retry(
                    "validated",
                    Some(&state),
                    json!({"other": {"action": "accept"}}),
                ))
                .await,
        );
        assert!(
            again
                .input_requests
                .expect("asked again")
                .contains_key("form"),
            "round {round}"
        );
        state = again.request_state.expect("state");
    }
    let (code, message, _) = refused(
        client
            .call_tool_once(retry("validated", Some(&state), json!({})))
            .await,
    );
    assert_eq!(
        (code, message.as_str()),
        (
            -32602,
            "inputResponses still lacks \"form\" after 3 rounds; nothing was computed"
        )
    );
    // The state of the last round still decides an answer that finally comes.
    let result = client
        .call_tool_once(retry("validated", Some(&state), valid()))
        .await;
    assert_eq!(
        outcome(result),
        json!({"status": "calculated", "computed": true, "value": 21})
    );
    client.cancel().await.expect("client stops");
}

#[tokio::test]
async fn a_2025_11_25_session_on_the_same_server_still_gets_elicitation_create() {
    #[derive(Debug, Clone)]
    struct Answering;
    impl ClientHandler for Answering {
        fn get_info(&self) -> ClientConfig {
            ClientConfig::new(
                serde_json::from_str(FORM).expect("capabilities"),
                Implementation::new("legacy-test", "0"),
            )
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
        }
        async fn create_elicitation(
            &self,
            _request: rmcp::model::ElicitRequestParams,
            _context: rmcp::service::RequestContext<RoleClient>,
        ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
            Ok(serde_json::from_value(
                json!({"action": "accept", "content": {"units": 3, "unit_value": 7}}),
            )
            .expect("an ElicitResult"))
        }
    }
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = ReferenceServer::default().serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = Answering.serve(client_io).await.expect("initialize");
    assert_eq!(
        client
            .peer()
            .peer_info()
            .expect("server info")
            .protocol_version,
        ProtocolVersion::V_2025_11_25
    );
    let result = client.call_tool_once(call("validated")).await;
    assert_eq!(
        outcome(result),
        json!({"status": "calculated", "computed": true, "value": 21})
    );
    client.cancel().await.expect("client stops");
}
