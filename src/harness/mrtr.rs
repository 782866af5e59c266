//! The harness on protocol 2026-07-28: a discover-lifecycle rmcp client that
//! drives the rounds of one `tools/call` itself (docs/src/eras.md).
//!
//! ```text
//! client  server/discover                       (_meta: version, capabilities)
//! client  tools/call id 1 {policy}              -> result {resultType: input_required,
//!                                                  inputRequests: {form: elicitation/create}, requestState}
//! client  tools/call id 2 {policy, inputResponses: {form: <raw answer>}, requestState}
//!                                               -> result (the outcome) or a JSON-RPC error
//! ```
//!
//! The rmcp client only writes a placeholder (`{"action":"cancel"}`) for each
//! input request; the recording proxy's [`ClientHook`] writes the case's raw
//! answer into the retried `tools/call`'s `inputResponses` on the wire, and the
//! case's exact capabilities into every request's `_meta`. A JSON-RPC error
//! answer has no channel in `inputResponses`: its error object is written as the
//! response itself (the server sees something that is not an `ElicitResult`).
//!
//! [`Retry`] makes the client misbehave on purpose for the era-specific cases
//! (tampered, foreign or dropped `requestState`, withheld answers).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitRequestParams, InputRequest,
    InputRequiredResult, InputResponses, ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::Transport;
use super::client::{CaseClient, declares_form, declares_url};
use super::proxy::ClientHook;
use super::{Call, Evidence, Limits, Session, TOOL_NAME, read_result};
use crate::case::{Case, WireAnswer};
use crate::error::Error;
use crate::evidence::HarnessFailure;

/// The `_meta` key of the client capabilities on 2026-07-28 requests.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// Most `tools/call` requests the harness sends for one call. Above the
/// reference server's bound (3 rounds), so a server that re-asks without end
/// is seen doing it: the call then ends with an error naming this bound.
pub const DRIVER_MAX_ROUNDS: usize = 6;

/// How the client treats `requestState` and `inputResponses` on its retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Retry {
    /// A spec client: answer every input request, echo the state byte for byte.
    #[default]
    Echo,
    /// Change one character of the state on the first retry ([`super::tamper::tampered`]).
    TamperState,
    /// Echo a state the server minted for a call with another `policy`.
    ForeignState,
    /// Retry with `inputResponses` but without `requestState`.
    DropState,
    /// First retry carries `inputResponses: {}` (the answer is missing); then answer.
    WithholdOnce,
    /// Every retry carries `inputResponses: {}`.
    WithholdAlways,
}

/// An era-specific case (`fixtures/mrtr_cases.json`): a contract case plus how
/// the client retries and, for the reference server, the `requestState` TTL.
///
/// JSON shape: the fields of [`Case`], plus `"retry": "tamper_state"` and
/// optionally `"request_state_ttl": 0` (seconds; `serve --request-state-ttl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MrtrCase {
    /// The case: name, policy, capabilities, answer.
    #[serde(flatten)]
    pub case: Case,
    /// How the client retries.
    #[serde(default)]
    pub retry: Retry,
    /// `elicit-check serve --request-state-ttl` for this case, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state_ttl: Option<u64>,
}

/// The era-specific cases shipped with the crate (`fixtures/mrtr_cases.json`).
pub fn mrtr_cases() -> Vec<MrtrCase> {
    serde_json::from_str(include_str!("../../fixtures/mrtr_cases.json"))
        .expect("fixtures/mrtr_cases.json is valid (checked by tests)")
}

/// Their hand-written expected results (`expected/mrtr_results.json`): case
/// name to an outcome object or `{"jsonrpc_error": {"code": ..., "message": ...}}`.
pub fn mrtr_expected() -> Map<String, Value> {
    serde_json::from_str(include_str!("../../expected/mrtr_results.json"))
        .expect("expected/mrtr_results.json is valid (checked by tests)")
}

/// The hook that makes the proxy speak for the case on 2026-07-28: the exact
/// `capabilities` in every request's `_meta`, and `answer` (when there is one)
/// as every value of a `tools/call`'s `inputResponses`, its text written exactly
/// as the case has it (`-0`, `3e0` and 20-digit integers stay as written).
pub fn client_hook(capabilities: Value, answer: Option<WireAnswer>) -> ClientHook {
    Box::new(move |mut message: Value| {
        if let Some(meta) = message
            .pointer_mut("/params/_meta")
            .and_then(Value::as_object_mut)
            && meta.contains_key(META_CAPABILITIES)
        {
            meta.insert(META_CAPABILITIES.into(), capabilities.clone());
        }
        let is_call = message.get("method").and_then(Value::as_str) == Some("tools/call");
        let mut spliced = false;
        if let (true, Some(_)) = (is_call, &answer)
            && let Some(responses) = message
                .pointer_mut("/params/inputResponses")
                .and_then(Value::as_object_mut)
        {
            for response in responses.values_mut() {
                *response = Value::from(ANSWER_PLACEHOLDER);
                spliced = true;
            }
        }
        let mut text = message.to_string();
        if let (true, Some(answer)) = (spliced, &answer) {
            text = text.replace(
                &Value::from(ANSWER_PLACEHOLDER).to_string(),
                answer.text.get(),
            );
            message = serde_json::from_str(&text).expect("a spliced answer is valid JSON");
        }
        (message, text)
    })
}

/// Stands in for the raw answer while the retry is serialized; replaced by the
/// answer's exact text. No request the client writes contains it otherwise.
const ANSWER_PLACEHOLDER: &str = "\u{0}elicit-check: input response\u{0}";

/// What one driven call produced: the call, and its JSON-RPC error
/// (`{"code": -32021, "message": "...", "data": {...}}`) when it was refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Driven {
    /// The call (outcome, text outcome, error text, frames).
    pub call: Call,
    /// The refusal's JSON-RPC error object.
    pub rpc_error: Option<Value>,
}

/// Runs one case in a fresh server process on 2026-07-28 and returns its
/// evidence (`protocol_version` "2026-07-28", `rpc_error` when refused).
///
/// # Errors
/// [`Error::Spawn`] only; everything else is recorded in the evidence.
pub async fn run_case(
    command: &[String],
    case: &Case,
    limits: Limits,
    retry: Retry,
) -> Result<Evidence, Error> {
    run_case_over(command, &Transport::Stdio, case, limits, retry).await
}

/// [`run_case`] over `transport` (`run --url`: each round a plain
/// request/response over Streamable HTTP).
///
/// # Errors
/// As [`run_case`].
pub async fn run_case_over(
    command: &[String],
    transport: &Transport,
    case: &Case,
    limits: Limits,
    retry: Retry,
) -> Result<Evidence, Error> {
    super::in_flight::scoped(
        case,
        command,
        run_case_in_flight(command, transport, case, limits, retry),
    )
    .await
}

/// [`run_case_over`], registered as the case in flight.
async fn run_case_in_flight(
    command: &[String],
    transport: &Transport,
    case: &Case,
    limits: Limits,
    retry: Retry,
) -> Result<Evidence, Error> {
    let session = start(command, transport, case, limits).await?;
    let driven = match &session.client {
        Some(client) => {
            let first_frame = session.state.frame_count();
            let mut driven = drive(client, case, retry, limits, &session.callbacks).await;
            driven.call.frames = session.state.frames_since(first_frame);
            driven
        }
        None => Driven {
            call: Call {
                outcome: None,
                text_outcome: None,
                error: session.startup_error.clone(),
                frames: Vec::new(),
            },
            rpc_error: None,
        },
    };
    let discovered = session.client.is_some();
    let (mut finished, signal) = session.finish_with_signal().await;
    if finished.protocol_version.is_none() && discovered {
        // The discover lifecycle keeps no peer info; the version is the one every
        // request carried in `_meta` and the server accepted.
        finished.protocol_version = Some(ProtocolVersion::V_2026_07_28.to_string());
    }
    let mut evidence = Evidence::new(case, command, finished, driven.call);
    evidence.rpc_error = driven.rpc_error;
    evidence.exit_signal = signal;
    Ok(evidence)
}

/// Spawns `command` and opens a discover-lifecycle session declaring the
/// case's capabilities; checks that `calculate` is listed.
async fn start(
    command: &[String],
    transport: &Transport,
    case: &Case,
    limits: Limits,
) -> Result<Session, Error> {
    let hook = client_hook(case.capabilities.clone(), case.wire_answer());
    let (mut session, client_io, handler) = Session::spawn_unconnected(
        command,
        &super::child::Environment::default(),
        transport,
        &case.capabilities,
        limits,
        None,
        Some(hook),
        " (protocol 2026-07-28)",
    )?;
    session.discover(client_io, handler, limits).await;
    if session.startup_error.is_none() {
        session.startup_error = session.check_tool_listed().await.err();
    }
    Ok(session)
}

/// The `calculate` arguments of a case: `{"policy": ...}`.
fn arguments(policy: &str) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("policy".into(), Value::String(policy.to_owned()));
    arguments
}

/// A policy other than `policy`, to mint a foreign state.
fn other_policy(policy: &str) -> &'static str {
    if policy == "raw" { "validated" } else { "raw" }
}

/// The placeholder answers for one `InputRequiredResult` (the proxy writes the
/// raw answer over them), as a spec client: every input request must be a
/// form (or URL) elicitation the client declared.
///
/// # Errors
/// [`HarnessFailure::UndeclaredInputRequest`], naming the request the client
/// may not answer.
fn placeholders(
    capabilities: &Value,
    result: &InputRequiredResult,
    callbacks: &AtomicUsize,
) -> Result<InputResponses, HarnessFailure> {
    let mut responses = InputResponses::new();
    for (key, request) in result.input_requests.iter().flatten() {
        callbacks.fetch_add(1, Ordering::SeqCst);
        let declared = match request {
            InputRequest::Elicitation(elicit) => match &elicit.params {
                ElicitRequestParams::FormElicitationParams { .. } => {
                    declares_form(capabilities).then_some("form")
                }
                ElicitRequestParams::UrlElicitationParams { .. } => {
                    declares_url(capabilities).then_some("url")
                }
                _ => None,
            },
            _ => None,
        };
        if declared.is_none() {
            return Err(HarnessFailure::UndeclaredInputRequest {
                key: key.clone(),
                capabilities: capabilities.clone(),
            });
        }
        responses.insert(key.clone(), json!({"action": "cancel"}));
    }
    Ok(responses)
}

/// Drives one `calculate` call through its rounds with `retry`'s behaviour.
async fn drive(
    client: &RunningService<RoleClient, CaseClient>,
    case: &Case,
    retry: Retry,
    limits: Limits,
    callbacks: &Arc<AtomicUsize>,
) -> Driven {
    let mut driven = Driven {
        call: Call {
            outcome: None,
            text_outcome: None,
            error: None,
            frames: Vec::new(),
        },
        rpc_error: None,
    };
    let once = |params: CallToolRequestParams| async move {
        match tokio::time::timeout(limits.call, client.call_tool_once(params)).await {
            Ok(response) => response,
            Err(_) => Err(ServiceError::Timeout {
                timeout: limits.call,
            }),
        }
    };
    let foreign_state = if retry == Retry::ForeignState {
        let mint = CallToolRequestParams::new(TOOL_NAME)
            .with_arguments(arguments(other_policy(&case.policy)));
        match once(mint).await {
            Ok(CallToolResponse::InputRequired(result)) => result.request_state,
            _ => None,
        }
    } else {
        None
    };
    let mut params = CallToolRequestParams::new(TOOL_NAME).with_arguments(arguments(&case.policy));
    for round in 1..=DRIVER_MAX_ROUNDS {
        let result = match once(params).await {
            Ok(CallToolResponse::Complete(result)) => {
                read_result(&result, &mut driven.call);
                return driven;
            }
            Ok(CallToolResponse::InputRequired(result)) => result,
            Ok(_) => {
                driven.call.error = Some(HarnessFailure::NeitherResultNorInputRequired);
                return driven;
            }
            Err(ServiceError::McpError(error)) => {
                driven.call.error = Some(HarnessFailure::CallRefused {
                    code: i64::from(error.code.0),
                    message: error.message.to_string(),
                });
                driven.rpc_error = serde_json::to_value(&error).ok();
                return driven;
            }
            Err(ServiceError::Timeout { timeout }) => {
                driven.call.error = Some(HarnessFailure::CallTimedOut { within: timeout });
                return driven;
            }
            Err(error) => {
                driven.call.error = Some(HarnessFailure::CallFailed {
                    error: error.to_string(),
                    http: String::new(),
                });
                return driven;
            }
        };
        let responses = match placeholders(&case.capabilities, &result, callbacks) {
            Ok(responses) => responses,
            Err(error) => {
                driven.call.error = Some(error);
                return driven;
            }
        };
        params = CallToolRequestParams::new(TOOL_NAME).with_arguments(arguments(&case.policy));
        params.input_responses = Some(responses);
        params.request_state = result.request_state;
        let first_retry = round == 1;
        match retry {
            Retry::Echo => {}
            Retry::TamperState if first_retry => {
                params.request_state = params
                    .request_state
                    .map(|state| super::tamper::tampered(&state));
            }
            Retry::ForeignState if first_retry => params.request_state = foreign_state.clone(),
            Retry::DropState if first_retry => params.request_state = None,
            Retry::WithholdOnce if first_retry => {
                params.input_responses = Some(InputResponses::new())
            }
            Retry::WithholdAlways => params.input_responses = Some(InputResponses::new()),
            _ => {}
        }
    }
    driven.call.error = Some(HarnessFailure::StillInputRequired {
        requests: DRIVER_MAX_ROUNDS,
    });
    driven
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_declares_the_exact_capabilities_and_writes_the_raw_answer() {
        let mut hook = client_hook(
            json!({"elicitation": {}}),
            Some(WireAnswer::result(
                &json!({"action": "accept", "content": {"units": "3"}}),
            )),
        );
        let retry = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "calculate",
            "_meta": {META_CAPABILITIES: {"elicitation": {"form": {}}}},
            "inputResponses": {"form": {"action": "cancel"}},
            "requestState": "rs1.x.y"
        }});
        assert_eq!(
            hook(retry).0,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "calculate",
                "_meta": {META_CAPABILITIES: {"elicitation": {}}},
                "inputResponses": {"form": {"action": "accept", "content": {"units": "3"}}},
                "requestState": "rs1.x.y"
            }})
        );
        let discover = json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        }});
        assert_eq!(
            hook(discover.clone()).0,
            discover,
            "no capabilities key: unchanged"
        );
    }

    #[test]
    fn an_error_answer_is_written_as_the_input_response_itself() {
        let mut hook = client_hook(
            json!({}),
            Some(WireAnswer::from(crate::case::Answer::Error(
                json!({"code": -32603, "message": "boom"}),
            ))),
        );
        let retry = json!({"method": "tools/call", "params": {"inputResponses": {"form": {}}}});
        assert_eq!(
            hook(retry).0,
            json!({"method": "tools/call", "params": {"inputResponses": {"form": {"code": -32603, "message": "boom"}}}})
        );
        let other = json!({"method": "tools/list", "params": {"inputResponses": {"form": {}}}});
        assert_eq!(hook(other.clone()).0, other, "only tools/call is rewritten");
    }

    #[test]
    fn without_an_answer_the_placeholder_stays() {
        let mut hook = client_hook(json!({}), None);
        let retry = json!({"method": "tools/call", "params": {"inputResponses": {"form": {"action": "cancel"}}}});
        assert_eq!(hook(retry.clone()).0, retry);
    }

    #[test]
    fn the_answer_is_written_into_the_retry_exactly_as_the_case_has_it() {
        let text = r#"{"action":"accept","content":{"units":-0,"unit_value":3e0,"big":18446744073709551616}}"#;
        let mut hook = client_hook(
            json!({}),
            Some(WireAnswer::result_text(text).expect("valid JSON")),
        );
        let retry = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "calculate", "inputResponses": {"form": {"action": "cancel"}}, "requestState": "s"
        }});
        let (message, line) = hook(retry);
        assert_eq!(
            line,
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"calculate","inputResponses":{{"form":{text}}},"requestState":"s"}}}}"#
            )
        );
        assert_eq!(
            message["params"]["inputResponses"]["form"]["action"],
            "accept"
        );
    }

    #[test]
    fn the_other_policy_is_the_other_one() {
        assert_eq!(other_policy("raw"), "validated");
        assert_eq!(other_policy("validated"), "raw");
        assert_eq!(other_policy("diagnostic_unchecked"), "raw");
    }
}
