//! A session with a server that never completes `initialize` keeps why, and its
//! call reports the same reason instead of calling (`src/harness/mod.rs`).

use elicit_check::evidence::{Handshake, HarnessFailure};
use elicit_check::harness::{Limits, Session};
use serde_json::json;

use crate::support::runtime;

#[test]
fn a_server_that_exits_before_initialize_leaves_a_startup_error() {
    let command = vec![
        "python3".to_owned(),
        "-c".to_owned(),
        "import sys; sys.exit(0)".to_owned(),
    ];
    runtime().block_on(async {
        let capabilities = json!({"elicitation": {"form": {}}});
        let mut session = Session::start(&command, &capabilities, Limits::default(), None)
            .await
            .expect("python3 spawns");
        let error = session.startup_error().expect("a startup error").clone();
        assert!(
            matches!(
                &error,
                HarnessFailure::HandshakeFailed {
                    request: Handshake::Initialize,
                    ..
                }
            ),
            "{error}"
        );
        assert!(
            error.to_string().starts_with("initialize failed: "),
            "{error}"
        );
        let call = session.call("validated", None).await;
        assert_eq!(call.error.as_ref(), Some(&error));
        assert_eq!(call.outcome, None);
        let finished = session.finish().await;
        assert_eq!(finished.startup_error.as_ref(), Some(&error));
        assert_eq!(finished.exit.code, Some(0));
    });
}

/// A server that completes `initialize` but offers no `calculate` tool.
const NO_CALCULATE: &str = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "no-calculate", "version": "1"}}
    elif message.get("method") == "tools/list":
        result = {"tools": [{"name": "add", "inputSchema": {"type": "object"}}]}
    else:
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"#;

#[test]
fn a_server_without_the_calculate_tool_leaves_a_startup_error() {
    let command = vec![
        "python3".to_owned(),
        "-c".to_owned(),
        NO_CALCULATE.to_owned(),
    ];
    runtime().block_on(async {
        let session = Session::start(&command, &json!({}), Limits::default(), None)
            .await
            .expect("python3 spawns");
        assert_eq!(
            session.startup_error(),
            Some(&HarnessFailure::ToolNotOffered {
                tool: "calculate".into(),
                offered: vec!["add".into()],
            })
        );
        assert_eq!(
            session.startup_error().map(ToString::to_string).as_deref(),
            Some(r#"the server offers no tool named "calculate" (it offers ["add"])"#)
        );
        session.finish().await;
    });
}

/// Each call's frames are that call's alone: the second call of a session starts
/// at its own `tools/call`, never at `initialize` or the first call's frames
/// (`ProxyState::frame_count` marks where a call begins).
#[test]
fn a_second_call_in_a_session_records_only_its_own_frames() {
    use elicit_check::case::WireAnswer;
    let server = crate::support::reference_server();
    runtime().block_on(async {
        let capabilities = json!({"elicitation": {"form": {}}});
        let mut session = Session::start(&server, &capabilities, Limits::default(), None)
            .await
            .expect("the reference server spawns");
        let first = session
            .call(
                "validated",
                Some(WireAnswer::result(&json!({"action": "decline"}))),
            )
            .await;
        let second = session
            .call(
                "validated",
                Some(WireAnswer::result(&json!({
                    "action": "accept",
                    "content": {"units": 3, "unit_value": 7}
                }))),
            )
            .await;
        session.finish().await;
        let methods = |frames: &[elicit_check::harness::proxy::Frame]| -> Vec<String> {
            frames
                .iter()
                .map(|frame| match frame.message.get("method") {
                    Some(method) => method.as_str().unwrap_or("?").to_owned(),
                    None => "response".to_owned(),
                })
                .collect()
        };
        // Per call: the tools/call request, the elicitation/create request, its
        // response (the answer), the tools/call response.
        let one_call = ["tools/call", "elicitation/create", "response", "response"];
        assert_eq!(methods(&first.frames), one_call);
        assert_eq!(methods(&second.frames), one_call);
        assert_eq!(
            second.outcome.as_ref().and_then(|o| o.get("value")),
            Some(&json!(21))
        );
        assert_ne!(
            first.frames[0].message["id"],
            second.frames[0].message["id"]
        );
    });
}
