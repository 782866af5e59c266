//! The reference server: an rmcp `ServerHandler` with one tool, `calculate`.
//!
//! Source: issue 2, section 2. Protocol 2025-11-25 over stdio. The handler
//! reads the client's declared capabilities, runs the guard, asks at most once
//! with `elicitation/create`, and returns the decision's outcome both as
//! `structuredContent` and as the JSON text of `content[0]`.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequestParams,
    ElicitationSchema, Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::server::decision::{self, Policy};
use crate::server::form::FIELDS;
use crate::server::outcome::Outcome;
use crate::server::reply::{self, Reply};

/// The tool's name.
pub const TOOL_NAME: &str = "calculate";

/// The `message` of the form elicitation.
pub const ELICITATION_MESSAGE: &str = "How many units, and what is one unit worth?";

/// The protocol version the reference server speaks.
pub const PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// The `requestedSchema` sent with every `elicitation/create`:
/// `{"type":"object","properties":{"units":{"type":"integer","minimum":1,"maximum":10},
/// "unit_value":{"type":"integer","minimum":1,"maximum":100}},"required":["units","unit_value"]}`.
pub fn requested_schema() -> ElicitationSchema {
    let mut schema = FIELDS
        .iter()
        .fold(ElicitationSchema::builder(), |builder, field| {
            builder.required_integer(field.name, field.minimum, field.maximum)
        })
        .build()
        .expect("required integer properties always build");
    // rmcp keeps properties in a BTreeMap; send them in schema order (units first).
    schema.property_order = Some(FIELDS.iter().map(|field| field.name.to_owned()).collect());
    schema
}

/// The `inputSchema` of `calculate`: one optional string argument `policy`.
fn input_schema() -> Arc<serde_json::Map<String, Value>> {
    let schema = json!({
        "type": "object",
        "properties": {
            "policy": {
                "type": "string",
                "enum": Policy::ALL.map(Policy::as_str),
                "default": Policy::Validated.as_str(),
                "description": "validated (default): compute only on a valid accept; raw: return the answer as received; diagnostic_unchecked: ask without the capability guard"
            }
        }
    });
    match schema {
        Value::Object(object) => Arc::new(object),
        _ => unreachable!("a json! object literal is an object"),
    }
}

/// The reference elicitation server. Stateless: every call decides alone.
#[derive(Debug, Clone, Default)]
pub struct ReferenceServer;

impl ReferenceServer {
    /// The `calculate` tool as listed by `tools/list`.
    pub fn tool() -> Tool {
        Tool::new(
            TOOL_NAME,
            "Asks for units (1..=10) and unit_value (1..=100) and returns units × unit_value",
            input_schema(),
        )
    }

    /// Runs one `calculate` call: guard, at most one elicitation, decision.
    async fn calculate(
        &self,
        policy: Policy,
        context: &RequestContext<RoleServer>,
    ) -> Result<Outcome, ErrorData> {
        let capabilities = context.client_capabilities();
        let elicitation = capabilities
            .as_ref()
            .and_then(|caps| caps.elicitation.as_ref());
        if !decision::should_elicit(decision::form_supported(elicitation), policy) {
            return Ok(Outcome::Unsupported);
        }
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: ELICITATION_MESSAGE.to_owned(),
            requested_schema: requested_schema(),
        };
        let answer = context.peer.create_elicitation(params).await;
        let reply = Reply::from_service(answer).map_err(|error| {
            ErrorData::internal_error(format!("elicitation/create got no answer: {error}"), None)
        })?;
        Ok(decision::conclude(policy, &reply))
    }
}

/// Reads `policy` from the call's arguments (absent means `validated`).
fn policy_argument(request: &CallToolRequestParams) -> Result<Policy, ErrorData> {
    match request
        .arguments
        .as_ref()
        .and_then(|args| args.get("policy"))
    {
        None => Ok(Policy::Validated),
        Some(Value::String(text)) => text.parse().map_err(|error: decision::UnknownPolicy| {
            ErrorData::invalid_params(error.to_string(), None)
        }),
        Some(other) => Err(ErrorData::invalid_params(
            format!("policy must be a string, got {other}"),
            None,
        )),
    }
}

impl ServerHandler for ReferenceServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = PROTOCOL_VERSION;
        info.server_info = Implementation::new("elicit-check", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![Self::tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL_NAME {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        }
        let policy = policy_argument(&request)?;
        let outcome = self.calculate(policy, &context).await?;
        tracing::info!(%policy, status = outcome.status(), "calculate");
        Ok(CallToolResult::structured(outcome.to_json()).into())
    }
}

/// Serves the reference server on this process's stdin/stdout until stdin closes.
///
/// stdout carries only JSON-RPC frames; logs go to stderr. Every line read passes
/// through [`reply::without_extra_members`] before rmcp parses it, so an answer
/// with members beyond those of an `ElicitResult` is still read as one.
///
/// # Errors
/// The rmcp initialization error when the client's `initialize` fails, or the
/// join error of the service task.
pub async fn serve_stdio() -> anyhow::Result<()> {
    let (lines_in, server_in) = tokio::io::duplex(1 << 20);
    let pump = tokio::spawn(forward_lines(tokio::io::stdin(), lines_in));
    let service = ReferenceServer
        .serve((server_in, tokio::io::stdout()))
        .await?;
    service.waiting().await?;
    pump.abort();
    Ok(())
}

/// Copies `from` to `to` line by line, each through
/// [`reply::without_extra_members`]; closes `to` at the end of `from`.
async fn forward_lines(from: impl AsyncRead + Unpin, mut to: impl AsyncWrite + Unpin) {
    let mut lines = BufReader::new(from).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line = reply::without_extra_members(&line).unwrap_or(line);
        if to.write_all(line.as_bytes()).await.is_err() || to.write_all(b"\n").await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}
