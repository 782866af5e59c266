//! The primary verdicts that are the Streamable HTTP transport's own (MCP
//! 2025-11-25, basic/transports; docs/src/verdicts.md), each shown by `elicit-check
//! run --url` against a purpose-built server (`fixtures/servers/misbehaving_http.py
//! --fault NAME`, the `calculate` contract over HTTP with the standard library,
//! started by elicit-check on a `{port}` it picks): the verdict is printed first
//! under the row with the HTTP exchange that shows it, and `results.json` and
//! `run.json` carry its name. The same server without a fault passes, so each
//! verdict comes from its fault alone.

use serde_json::{Value, json};

use crate::support::{OutputDir, misbehaving_http, run_elicit_check};

const URL: &str = "http://127.0.0.1:{port}/mcp";

/// What `run --url URL --case accept_valid` showed against `--fault fault`.
struct Shown {
    code: Option<i32>,
    stdout: String,
    /// The lines under the case's row, without the `    accept_valid: ` prefix.
    detail: Vec<String>,
    verdict: Value,
    summary: Value,
}

fn show(fault: &str) -> Shown {
    let dir = OutputDir::new(&format!("http-{fault}"));
    let mut args: Vec<String> = [
        "--url",
        URL,
        "--case",
        "accept_valid",
        "--startup-timeout",
        "60",
        "--call-timeout",
        "60",
        "--output",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(dir.text());
    args.push("--".to_owned());
    args.extend(misbehaving_http(fault));
    let output = run_elicit_check(&args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let detail = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("    accept_valid: "))
        .map(str::to_owned)
        .collect();
    let verdicts = dir.json("results.json");
    Shown {
        code: output.status.code(),
        detail,
        verdict: verdicts[0].clone(),
        summary: dir.json("run.json"),
        stdout,
    }
}

/// Asserts verdict `name` with evidence `evidence` is printed first, carried by
/// results.json and counted in run.json, the run failed (exit 1).
fn assert_verdict(fault: &str, name: &str, evidence: &str) -> Shown {
    let shown = show(fault);
    assert_eq!(
        shown.detail.first().map(String::as_str),
        Some(format!("{name}: {evidence}").as_str()),
        "{}",
        shown.stdout
    );
    assert_eq!(shown.code, Some(1), "{}", shown.stdout);
    assert_eq!(shown.verdict["verdict"], name);
    assert_eq!(shown.verdict["primary"], evidence);
    assert_eq!(shown.summary["verdicts"], json!({ name: 1 }));
    shown
}

/// The HTTP steps of exchange `exchange` in a case's evidence.
fn steps_of(verdict: &Value, exchange: u64) -> Vec<Value> {
    verdict["evidence"]["http"]
        .as_array()
        .expect("HTTP steps are recorded")
        .iter()
        .filter(|step| step["exchange"] == exchange)
        .cloned()
        .collect()
}

#[test]
fn the_http_server_without_a_fault_passes() {
    let shown = show("none");
    assert_eq!(shown.code, Some(0), "{}", shown.stdout);
    assert_eq!(shown.verdict["verdict"], "passed");
    // The POSTs say which JSON-RPC message they carried, the call's stream
    // which message each event carried.
    let call = steps_of(&shown.verdict, 5);
    assert_eq!(
        call[0]["carries"],
        json!({"method": "tools/call", "id": 2}),
        "{call:#?}"
    );
    let carried: Vec<&Value> = call
        .iter()
        .filter(|step| step["step"] == "event")
        .map(|step| &step["carries"])
        .collect();
    assert_eq!(
        carried,
        [
            &json!({"method": "elicitation/create", "id": 0}),
            &json!({"id": 2})
        ]
    );
}

#[test]
fn an_error_status_to_the_call_is_http_error_status() {
    let shown = assert_verdict(
        "error-status",
        "http_error_status",
        "POST /mcp (tools/call id 2, exchange 5) got status 500: \"Internal Server Error\"",
    );
    // The session's consequences (no outcome, the transport closed) are not
    // repeated under it.
    assert_eq!(shown.verdict["evidence"]["outcome"], Value::Null);
    assert!(
        !shown
            .detail
            .iter()
            .any(|line| line.contains("Transport closed")),
        "{}",
        shown.stdout
    );
}

#[test]
fn a_result_in_a_text_plain_body_is_http_not_json() {
    let shown = assert_verdict(
        "text-plain",
        "http_not_json",
        "POST /mcp (tools/call id 2, exchange 5) got 200 with Content-Type text/plain, not application/json or text/event-stream: \"{\\\"jsonrpc\\\": \\\"2.0\\\", \\\"id\\\": 2, \\\"result\\\": {\\\"content\\\": [{\\\"type\\\": \\\"text\\\", \\\"text\\\": \\\"{\\\\\\\"status\\\\\\\": \\\\\\\"calculated\\\\\\\", \\\\\\\"computed\\\\\\\": \"…",
    );
    // Not forwarded as a JSON-RPC message: the client never saw a result.
    assert_eq!(shown.verdict["evidence"]["outcome"], Value::Null);
}

#[test]
fn a_call_stream_that_ends_without_the_result_is_stream_ended_without_result() {
    // The session stops when the stream ends: not at the 60 s call bound,
    // which would make the verdict `hung`.
    let shown = assert_verdict(
        "stream-ends",
        "stream_ended_without_result",
        "the event stream of POST /mcp (tools/call id 2, exchange 5) ended (end of stream) before its response, with no event id to resume from",
    );
    let call = steps_of(&shown.verdict, 5);
    assert_eq!(
        call.last().expect("steps")["how"],
        "end of stream",
        "{call:#?}"
    );
}

#[test]
fn an_elicitation_on_the_initialize_stream_is_elicited_on_foreign_stream() {
    let shown = assert_verdict(
        "foreign-stream",
        "elicited_on_foreign_stream",
        "elicitation/create id 0 came on the event stream of POST /mcp (initialize id 0, exchange 1), not on that of POST /mcp (tools/call id 2, exchange 5) or the standalone GET stream",
    );
    // The call itself was answered right: only the stream was wrong.
    assert_eq!(
        shown.verdict["evidence"]["outcome"],
        json!({"status": "calculated", "computed": true, "value": 21})
    );
}
