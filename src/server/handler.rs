//! The reference server: an rmcp `ServerHandler` with one tool, `calculate`.
//!
//! Source: the `calculate` contract (docs/src/contract.md) and its 2026-07-28 form
//! (docs/src/eras.md). One server, both protocol eras, chosen per
//! request by the protocol version the request runs under:
//!
//! - **2025-11-25** (an `initialize` session): the handler reads the client's
//!   declared capabilities, runs the guard, asks at most once with
//!   `elicitation/create`, and decides.
//! - **2026-07-28** (no `initialize`; every request carries its protocol version
//!   and client capabilities in `_meta`): without form support the call fails
//!   with JSON-RPC `-32021` (`data.requiredCapabilities` names elicitation);
//!   otherwise the first call answers an `InputRequiredResult` carrying the same
//!   form request under the key `"form"` and a sealed `requestState`, and the
//!   retry's `inputResponses["form"]` is decided by the same pure core
//!   ([`crate::server::request_state`] has the round logic).
//!
//! Either way the outcome goes out both as `structuredContent` and as the JSON
//! text of `content[0]`.

use std::sync::{Arc, Mutex};

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ElicitRequest,
    ElicitRequestParams, ElicitationSchema, Implementation, InputRequest, InputRequests,
    InputRequiredResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use crate::server::decision::{self, Policy};
use crate::server::form::FIELDS;
use crate::server::lines::{self, Gate};
use crate::server::outcome::Outcome;
use crate::server::reply::Reply;
use crate::server::request_state::{self, FORM_KEY, RequestStates, Step};

/// The tool's name.
pub const TOOL_NAME: &str = "calculate";

/// The `message` of the form elicitation.
pub const ELICITATION_MESSAGE: &str = "How many units, and what is one unit worth?";

/// The protocol version the reference server answers at `initialize`.
pub const PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// The first protocol version of multi round-trip requests: from it on the
/// server never sends `elicitation/create` and answers `InputRequiredResult`.
pub const MRTR_PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2026_07_28;

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

/// The form elicitation both eras send: `{"mode":"form","message":...,"requestedSchema":...}`.
fn form_params() -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: ELICITATION_MESSAGE.to_owned(),
        requested_schema: requested_schema(),
    }
}

/// The capabilities a 2026-07-28 client must declare for `calculate`:
/// `{"elicitation":{"form":{}}}`, sent as `data.requiredCapabilities` of `-32021`.
pub fn required_capabilities() -> ClientCapabilities {
    serde_json::from_value(json!({"elicitation": {"form": {}}}))
        .expect("a form elicitation capability parses")
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

/// The reference elicitation server. Stateless: every call decides alone; on
/// 2026-07-28 what a call must remember between rounds travels in the sealed
/// `requestState`.
#[derive(Debug, Clone)]
pub struct ReferenceServer {
    states: Arc<RequestStates>,
    /// How long a 2025-11-25 call waits for the answer to its `elicitation/create`
    /// (`None`: as long as the session lasts).
    elicitation_timeout: Option<Duration>,
}

impl Default for ReferenceServer {
    /// A fresh random sealing key and [`request_state::DEFAULT_TTL`].
    fn default() -> Self {
        Self::with_request_state_ttl(request_state::DEFAULT_TTL)
    }
}

impl ReferenceServer {
    /// A server with a fresh random sealing key whose `requestState`s stay valid
    /// for `ttl` (`0`: every state has expired by the time it comes back; tests).
    pub fn with_request_state_ttl(ttl: Duration) -> Self {
        Self::with_request_states(RequestStates::new(ttl))
    }

    /// A server sealing with `states` (tests: a known key).
    pub fn with_request_states(states: RequestStates) -> Self {
        ReferenceServer {
            states: Arc::new(states),
            elicitation_timeout: None,
        }
    }

    /// The same server, waiting at most `timeout` for each elicitation answer
    /// (the reference server under bad answers): then the call ends `timed_out`, rmcp sends
    /// `notifications/cancelled` for the request, and a late answer is ignored.
    pub fn with_elicitation_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.elicitation_timeout = timeout;
        self
    }

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
        let answer = match self.elicitation_timeout {
            None => context.peer.create_elicitation(form_params()).await,
            Some(timeout) => {
                let answer = context
                    .peer
                    .create_elicitation_with_timeout(form_params(), Some(timeout))
                    .await;
                if let Err(rmcp::service::ServiceError::Timeout { .. }) = answer {
                    return Ok(Outcome::TimedOut);
                }
                answer
            }
        };
        let reply = Reply::from_service(answer).map_err(|error| {
            ErrorData::internal_error(format!("elicitation/create got no answer: {error}"), None)
        })?;
        Ok(decision::conclude(policy, &reply))
    }

    /// Runs one 2026-07-28 `calculate` call (a first call or a retry).
    ///
    /// # Errors
    /// `-32021` when the request's `_meta` declares no form elicitation; `-32602`
    /// for a retry whose `requestState` is missing, tampered, foreign or expired,
    /// or that still lacks the answer after [`request_state::MAX_ROUNDS`] rounds.
    fn calculate_mrtr(
        &self,
        policy: Policy,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let capabilities = context.client_capabilities();
        let elicitation = capabilities
            .as_ref()
            .and_then(|caps| caps.elicitation.as_ref());
        if !decision::form_supported(elicitation) {
            return Err(ErrorData::missing_required_client_capability(
                required_capabilities(),
            ));
        }
        let arguments = request.arguments.clone().unwrap_or_default();
        let opened = request
            .request_state
            .as_deref()
            .map(|state| self.states.open(state, &request.name, &arguments));
        match request_state::step(opened, request.input_responses.as_ref()) {
            Step::Ask { round } => {
                let mut requests = InputRequests::new();
                requests.insert(
                    FORM_KEY.to_owned(),
                    InputRequest::Elicitation(ElicitRequest::new(form_params())),
                );
                let state = self.states.seal(&request.name, &arguments, round);
                tracing::info!(%policy, round, "calculate: input required");
                Ok(InputRequiredResult::new(Some(requests), Some(state)).into())
            }
            Step::Decide(answer) => {
                let outcome = decision::conclude(policy, &Reply::from_result(&answer));
                tracing::info!(%policy, status = outcome.status(), "calculate");
                Ok(CallToolResult::structured(outcome.to_json()).into())
            }
            Step::Refuse(refusal) => {
                tracing::warn!(?refusal, "calculate: retry refused");
                Err(ErrorData::invalid_params(refusal.message(), None))
            }
        }
    }
}

/// Whether this request runs under 2026-07-28 or later (read from its `_meta`,
/// else from the session's `initialize`).
fn is_mrtr(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= MRTR_PROTOCOL_VERSION)
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
        if is_mrtr(&context) {
            return self.calculate_mrtr(policy, &request, &context);
        }
        let outcome = self.calculate(policy, &context).await?;
        tracing::info!(%policy, status = outcome.status(), "calculate");
        Ok(CallToolResult::structured(outcome.to_json()).into())
    }
}

/// Serves the reference server on this process's stdin/stdout until stdin closes,
/// with `requestState`s valid for [`request_state::DEFAULT_TTL`].
///
/// stdout carries only JSON-RPC frames; logs go to stderr. Every line read passes
/// the line filter [`lines`] before rmcp parses it (parse errors, replies under a
/// wrong id, calls before `notifications/initialized`, extra result members).
///
/// # Errors
/// See [`serve_stdio_with_ttl`].
pub async fn serve_stdio() -> anyhow::Result<()> {
    serve_stdio_with_ttl(request_state::DEFAULT_TTL).await
}

/// Serves the reference server on stdin/stdout, both eras: an `initialize`
/// opens a 2025-11-25 session; a first request with complete inline `_meta`
/// (`server/discover`, then `tools/call`) runs 2026-07-28. `ttl` bounds how long
/// a sealed `requestState` stays valid. Every line read passes the line filter
/// [`lines`]; at the end of stdin the server stops once every request received is
/// answered or waits on an answer the client can no longer send.
///
/// # Errors
/// The rmcp initialization error when the client's first request fails, or the
/// join error of the service task.
pub async fn serve_stdio_with_ttl(ttl: Duration) -> anyhow::Result<()> {
    serve_stdio_with(ReferenceServer::with_request_state_ttl(ttl)).await
}

/// Serves `server` on stdin/stdout, as [`serve_stdio_with_ttl`] describes.
///
/// # Errors
/// As [`serve_stdio_with_ttl`].
pub async fn serve_stdio_with(server: ReferenceServer) -> anyhow::Result<()> {
    let gate = Arc::new(Mutex::new(Gate::default()));
    let (filtered, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, outbound) = tokio::io::duplex(1 << 20);
    let (errors, error_replies) = tokio::sync::mpsc::unbounded_channel();
    let mut inbound = tokio::spawn(lines::filter_inbound(
        stdin_reader(),
        filtered,
        gate.clone(),
        errors,
    ));
    let writer = tokio::spawn(lines::merge_outbound(
        outbound,
        error_replies,
        stdout_writer(),
        gate.clone(),
    ));
    let service = server.serve((server_in, server_out)).await?;
    let stdin_closed_and_settled = async {
        let _ = (&mut inbound).await;
        // The client can send nothing more: stop once every request it sent is
        // answered, or waits on an answer that can no longer come.
        while !gate.lock().map(|gate| gate.settled()).unwrap_or(true) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let ended = tokio::select! {
        ended = service.waiting() => Some(ended),
        () = stdin_closed_and_settled => None,
    };
    inbound.abort();
    if let Some(ended) = ended {
        // rmcp's side of the pipe is closed: the writer drains it and ends.
        let _ = writer.await;
        ended?;
    }
    Ok(())
}

/// This process's stdin for the line filter. When stdin is a pipe (as a client
/// that spawns the server gives it), it is read without blocking on the
/// runtime's own thread; otherwise (a terminal, a file, a socket) through
/// tokio's stdin, which reads on a blocking thread and hands each chunk over
/// (one thread hand-off less per client frame).
fn stdin_reader() -> Box<dyn tokio::io::AsyncRead + Send + Unpin> {
    use std::os::fd::AsFd;
    let pipe = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(tokio::net::unix::pipe::Receiver::from_owned_fd);
    match pipe {
        Ok(pipe) => Box::new(pipe),
        Err(_) => Box::new(tokio::io::stdin()),
    }
}

/// This process's stdout for the line writer: written without blocking when it
/// is a pipe, else through tokio's stdout (a blocking thread), as [`stdin_reader`].
fn stdout_writer() -> Box<dyn tokio::io::AsyncWrite + Send + Unpin> {
    use std::os::fd::AsFd;
    let pipe = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(tokio::net::unix::pipe::Sender::from_owned_fd);
    match pipe {
        Ok(pipe) => Box::new(pipe),
        Err(_) => Box::new(tokio::io::stdout()),
    }
}
