//! Reentrancy: the client's elicitation handler sends
//! requests of its own to the same server before it answers, in the same session
//! over real stdio, recorded by the proxy.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use elicit_check::harness::child;
use elicit_check::harness::proxy::{self, Frame, ProxyState, Side};
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ClientRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, PingRequest, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde_json::{Value, json};

use crate::support::{reference_server, runtime};

/// A client whose elicitation handler nests requests to the server first.
#[derive(Clone)]
struct Nesting {
    /// What the handler did, in order.
    log: Arc<Mutex<Vec<String>>>,
    /// Handler invocations so far.
    invocations: Arc<AtomicUsize>,
    /// Nest a `tools/call` that times out (its own elicitation is never
    /// answered) instead of `tools/list` and `ping`.
    nested_call_times_out: bool,
}

impl Nesting {
    fn note(&self, event: impl Into<String>) {
        self.log.lock().expect("log").push(event.into());
    }
}

impl ClientHandler for Nesting {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            serde_json::from_value(json!({"elicitation": {"form": {}}})).expect("capabilities"),
            Implementation::new("elicit-check-reentrant", "1"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let invocation = self.invocations.fetch_add(1, Ordering::SeqCst) + 1;
        self.note(format!("elicitation {invocation}"));
        if !self.nested_call_times_out {
            let tools = context.peer.list_tools(None).await;
            self.note(match tools {
                Ok(listed) => format!("nested tools/list: {} tool", listed.tools.len()),
                Err(error) => format!("nested tools/list failed: {error}"),
            });
            let ping = ClientRequest::PingRequest(PingRequest {
                method: Default::default(),
                extensions: Default::default(),
            });
            self.note(match context.peer.send_request(ping).await {
                Ok(_) => "nested ping: answered".to_owned(),
                Err(error) => format!("nested ping failed: {error}"),
            });
        } else if invocation == 1 {
            let nested = context
                .peer
                .call_tool(CallToolRequestParams::new("calculate"));
            self.note(
                match tokio::time::timeout(Duration::from_secs(1), nested).await {
                    Err(_) => "nested tools/call: timed out".to_owned(),
                    Ok(result) => format!("nested tools/call ended: {result:?}"),
                },
            );
        } else if invocation == 2 {
            // The nested call's own elicitation: never answered.
            std::future::pending::<()>().await;
        }
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"units": 3, "unit_value": 7})))
    }
}

/// What one reentrant session left behind.
struct Reentered {
    results: Vec<Option<Value>>,
    log: Vec<String>,
    wire: Vec<Frame>,
    exit: child::Exit,
}

/// Two `calculate` calls in one session of the reference server with `handler`.
fn two_calls(nested_call_times_out: bool) -> Reentered {
    let handler = Nesting {
        log: Arc::default(),
        invocations: Arc::default(),
        nested_call_times_out,
    };
    let log = handler.log.clone();
    runtime().block_on(async move {
        let (process, stdin, stdout) = child::spawn(&reference_server()).expect("spawn");
        let state = ProxyState::new(json!({"elicitation": {"form": {}}}), Instant::now());
        let (client_io, proxy_io) = tokio::io::duplex(1 << 20);
        let (from_client, to_client) = tokio::io::split(proxy_io);
        let to_server = tokio::spawn(proxy::client_to_server(state.clone(), from_client, stdin));
        let to_client = tokio::spawn(proxy::server_to_client(
            state.clone(),
            stdout,
            to_client,
            None,
        ));
        let bound = Duration::from_secs(10);
        let client = tokio::time::timeout(bound, handler.serve(client_io))
            .await
            .expect("initialize within 10 s")
            .expect("initialize");
        let mut results = Vec::new();
        for _ in 0..2 {
            let call = client
                .peer()
                .call_tool(CallToolRequestParams::new("calculate"));
            let result = tokio::time::timeout(bound, call)
                .await
                .expect("within 10 s");
            results.push(result.ok().and_then(|result| result.structured_content));
        }
        let _ = client.cancel().await;
        let _ = tokio::time::timeout(bound, to_server).await;
        let exit = process.shutdown(Duration::from_secs(5)).await;
        let _ = tokio::time::timeout(bound, to_client).await;
        Reentered {
            results,
            log: log.lock().expect("log").clone(),
            wire: state.recording().wire,
            exit,
        }
    })
}

/// The seq of the first frame from `from` with `method` (or, for a reply, the
/// reply to that side's request `method`).
fn seq_of(wire: &[Frame], from: Side, method: &str) -> u64 {
    wire.iter()
        .find(|frame| {
            frame.from == from
                && frame.message.get("method").and_then(Value::as_str) == Some(method)
        })
        .map_or(u64::MAX, |frame| frame.seq)
}

/// The seq of `from`'s reply under `id` (the first one).
fn reply_seq(wire: &[Frame], from: Side, id: &Value) -> u64 {
    wire.iter()
        .find(|frame| {
            frame.from == from
                && frame.message.get("method").is_none()
                && frame.message.get("id") == Some(id)
        })
        .map_or(u64::MAX, |frame| frame.seq)
}

#[test]
fn a_nested_tools_list_and_ping_complete_inside_the_elicitation_and_21_is_computed_once_per_call() {
    let run = two_calls(false);
    let calculated = json!({"status": "calculated", "computed": true, "value": 21});
    assert_eq!(
        run.results,
        vec![Some(calculated.clone()), Some(calculated)]
    );
    assert_eq!(
        run.log,
        vec![
            "elicitation 1",
            "nested tools/list: 1 tool",
            "nested ping: answered",
            "elicitation 2",
            "nested tools/list: 1 tool",
            "nested ping: answered",
        ]
    );
    // The timeline of the first call: elicitation/create, the nested tools/list
    // and ping each answered, then the answer, then the one result.
    let wire = &run.wire;
    let elicitation = seq_of(wire, Side::Server, "elicitation/create");
    let list = wire
        .iter()
        .find(|frame| {
            frame.seq > elicitation && frame.message.get("method") == Some(&json!("tools/list"))
        })
        .expect("a nested tools/list");
    let ping = seq_of(wire, Side::Client, "ping");
    let elicitation_id = wire
        .iter()
        .find(|f| f.seq == elicitation)
        .expect("found")
        .message["id"]
        .clone();
    let ping_id = wire.iter().find(|f| f.seq == ping).expect("a ping").message["id"].clone();
    let order = [
        elicitation,
        list.seq,
        reply_seq(wire, Side::Server, &list.message["id"]),
        ping,
        reply_seq(wire, Side::Server, &ping_id),
        reply_seq(wire, Side::Client, &elicitation_id),
    ];
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{order:?}");
    let call_replies = wire
        .iter()
        .filter(|frame| {
            frame.from == Side::Server
                && frame.message.pointer("/result/structuredContent/computed") == Some(&json!(true))
        })
        .count();
    assert_eq!(call_replies, 2, "one calculated result per call");
    assert_eq!((run.exit.code, run.exit.forced_kill), (Some(0), false));
}

#[test]
fn an_answer_sent_after_the_nested_call_timed_out_still_computes_21_once() {
    let run = two_calls(true);
    let calculated = json!({"status": "calculated", "computed": true, "value": 21});
    assert_eq!(
        run.results,
        vec![Some(calculated.clone()), Some(calculated)]
    );
    assert_eq!(
        run.log,
        vec![
            "elicitation 1",
            "elicitation 2",
            "nested tools/call: timed out",
            "elicitation 3"
        ]
    );
    // Three tools/call (outer, nested, second), two calculated results: the
    // nested call, whose elicitation was never answered, computed nothing.
    let calls = run
        .wire
        .iter()
        .filter(|frame| {
            frame.from == Side::Client && frame.message.get("method") == Some(&json!("tools/call"))
        })
        .count();
    let computed = run
        .wire
        .iter()
        .filter(|frame| {
            frame.message.pointer("/result/structuredContent/computed") == Some(&json!(true))
        })
        .count();
    assert_eq!((calls, computed), (3, 2));
    assert_eq!((run.exit.code, run.exit.forced_kill), (Some(0), false));
}
