//! A session with a server that never completes `initialize` keeps why, and its
//! call reports the same reason instead of calling (`src/harness/mod.rs`).

use elicit_check::harness::{Limits, Session};
use serde_json::json;

use crate::util::runtime;

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
        let error = session.startup_error().expect("a startup error").to_owned();
        assert!(error.starts_with("initialize failed: "), "{error}");
        let call = session.call("validated", None).await;
        assert_eq!(call.error.as_deref(), Some(error.as_str()));
        assert_eq!(call.outcome, None);
        let finished = session.finish().await;
        assert_eq!(finished.startup_error.as_deref(), Some(error.as_str()));
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
            Some(r#"the server offers no tool named "calculate" (it offers ["add"])"#)
        );
        session.finish().await;
    });
}
