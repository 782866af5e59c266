//! `elicit-check run --url`: the contract over Streamable HTTP (MCP 2025-11-25,
//! basic/transports). The Python SDK 1.x and 2.x peers served by their SDK's
//! `streamable-http`, and the TypeScript SDK peers by its
//! `StreamableHTTPServerTransport` (a transport and an `McpServer` per session),
//! give the verdicts they give over stdio: the correct one passes every case,
//! the naive one fails the same contract cases; each peer proven here lists
//! HTTP among its transports (the cross-SDK table's column); a server
//! elicit-check starts gets a free `{port}` per case, a running one a session
//! (`Mcp-Session-Id`) per case and is left running; each case's evidence keeps
//! the URL and its HTTP steps.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use elicit_check::peers::{PEERS, Peer, Transport, Variant};
use serde_json::Value;

use crate::peers::{environments, naive_failures, naive_stdio_run};
use crate::support::{OutputDir, Running, free_port, run_elicit_check};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The environments of the SDK peers this file proves over HTTP, one test
/// each (`python-sdk1`, `python-sdk2`, `node`: src/peers.rs).
const OVER_HTTP: [&str; 3] = ["python-sdk1", "python-sdk2", "node"];

/// The peer of `variant` in `environment` (`python-sdk1`, `python-sdk2`, `node`).
fn sdk_peer(environment: &str, variant: Variant) -> Peer {
    *PEERS
        .iter()
        .find(|peer| peer.name() == format!("{environment}-{}", variant.name()))
        .expect("the SDK peers are listed")
}

/// `elicit-check run ARGS --output DIR [-- COMMAND]` with generous bounds (a
/// Python server takes about a second to start on a loaded machine): exit
/// code, `results.json`, `run.json`.
fn run(name: &str, args: &[&str], command: &[String]) -> (Option<i32>, Vec<Value>, Value) {
    let output = OutputDir::new(name);
    let mut all: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    all.extend(
        [
            "--startup-timeout",
            "60",
            "--call-timeout",
            "60",
            "--shutdown-grace",
            "30",
            "--output",
        ]
        .map(str::to_owned),
    );
    all.push(output.path().to_string_lossy().into_owned());
    if !command.is_empty() {
        all.push("--".to_owned());
        all.extend(command.iter().cloned());
    }
    let ran = run_elicit_check(&all);
    let stderr = String::from_utf8_lossy(&ran.stderr).into_owned();
    let results: Value = serde_json::from_str(&output.read("results.json"))
        .unwrap_or_else(|error| panic!("{name}: results.json: {error}; stderr: {stderr}"));
    let summary = output.json("run.json");
    (
        ran.status.code(),
        results.as_array().cloned().unwrap_or_default(),
        summary,
    )
}

/// The `Mcp-Session-Id`s the requests of one case's evidence carried.
fn session_ids(verdict: &Value) -> BTreeSet<String> {
    verdict["evidence"]["http"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|step| step["step"] == "request")
        .filter_map(|step| step["headers"]["mcp-session-id"].as_str())
        .map(str::to_owned)
        .collect()
}

/// Checks the HTTP steps of one case's evidence: the URL as given, a first
/// POST with no session id whose response assigns one, and the session's
/// `tools/call` POSTed under that id.
fn assert_over_http(verdict: &Value, url: &str) {
    let evidence = &verdict["evidence"];
    assert_eq!(evidence["url"], url, "{}", verdict["case"]);
    let steps = evidence["http"]
        .as_array()
        .expect("HTTP steps are recorded");
    assert_eq!(steps[0]["step"], "request", "{}", steps[0]);
    assert_eq!(steps[0]["method"], "POST", "{}", steps[0]);
    assert_eq!(
        steps[0]["headers"].get("mcp-session-id"),
        None,
        "{}",
        steps[0]
    );
    let assigned = steps
        .iter()
        .find(|step| step["step"] == "response")
        .and_then(|step| step["headers"]["mcp-session-id"].as_str())
        .expect("the initialize response assigns a session id");
    assert_eq!(
        session_ids(verdict),
        BTreeSet::from([assigned.to_owned()]),
        "{}: every later request carries the assigned id",
        verdict["case"]
    );
    assert_eq!(
        evidence["stopped_by_harness"], true,
        "over HTTP the session's end, not the server's exit, ends a case"
    );
}

#[test]
fn python_sdk1_peers_over_http_pass_when_correct_and_fail_the_stdio_cases_when_naive() {
    peers_over_http_give_their_stdio_verdicts("python-sdk1", &[]);
}

#[test]
fn python_sdk2_peers_over_http_pass_when_correct_and_fail_the_stdio_cases_when_naive() {
    peers_over_http_give_their_stdio_verdicts("python-sdk2", &[]);
}

/// The correct TypeScript peer reads each POST body's text itself, so `3.0`
/// stays a non-integer over HTTP as over stdio (`accept_float_integer` passes).
#[test]
fn typescript_sdk_peers_over_http_pass_when_correct_and_fail_the_stdio_cases_when_naive() {
    peers_over_http_give_their_stdio_verdicts("node", &[]);
}

/// SSE polling (MCP 2025-11-25, basic/transports, "Resumability and
/// Redelivery"; SEP-1699), as the TypeScript SDK's transport does it with an
/// event store: the peers close each call's event stream before they elicit,
/// so the `elicitation/create` and the result come only on the GET that
/// resumes the stream with `Last-Event-ID`. The verdicts are those over stdio,
/// and in every case that elicited the form request came on that GET.
#[test]
fn typescript_sdk_peers_with_sse_polling_give_their_stdio_verdicts_over_resumed_streams() {
    let verdicts = peers_over_http_give_their_stdio_verdicts("node", &["--sse-polling", "20"]);
    let mut elicited = 0;
    for verdict in &verdicts {
        let steps = verdict["evidence"]["http"].as_array().expect("HTTP steps");
        let resumed: BTreeSet<u64> = steps
            .iter()
            .filter(|step| {
                step["step"] == "request"
                    && step["method"] == "GET"
                    && step["headers"].get("last-event-id").is_some()
            })
            .filter_map(|step| step["exchange"].as_u64())
            .collect();
        let elicited_on: Vec<u64> = steps
            .iter()
            .filter(|step| {
                step["step"] == "event" && step["carries"]["method"] == "elicitation/create"
            })
            .filter_map(|step| step["exchange"].as_u64())
            .collect();
        if !elicited_on.is_empty() {
            elicited += 1;
        }
        for exchange in elicited_on {
            assert!(
                resumed.contains(&exchange),
                "{}: elicitation/create on exchange {exchange}, not on a resumed stream {resumed:?}",
                verdict["case"]
            );
        }
    }
    assert!(
        elicited > 10,
        "{elicited} of {} cases elicited",
        verdicts.len()
    );
}

/// The cross-SDK table's transports column says HTTP for exactly the peers
/// this file proves over HTTP, stdio for every peer.
#[test]
fn the_peers_listed_over_http_are_those_proven_here() {
    for peer in PEERS {
        let name = peer.name();
        let environment = name
            .strip_suffix(&format!("-{}", peer.variant.name()))
            .expect("a peer's name ends with its variant");
        assert_eq!(
            peer.transports.contains(&Transport::Http),
            OVER_HTTP.contains(&environment),
            "{}: {:?}",
            peer.name(),
            peer.transports
        );
        assert_eq!(
            peer.transports.first(),
            Some(&Transport::Stdio),
            "{}",
            peer.name()
        );
    }
}

/// The correct peer of `environment` served over HTTP (a server per session,
/// each on its `{port}`, started with `server_args` after `--port`) passes
/// every contract case and 4 generated ones (their verdicts are returned); the
/// naive one (a server per case) gets the verdicts it gets over stdio, case by
/// case, and its documented failures, each case's evidence over HTTP.
fn peers_over_http_give_their_stdio_verdicts(
    environment: &str,
    server_args: &[&str],
) -> Vec<Value> {
    assert!(OVER_HTTP.contains(&environment), "{environment}");
    let environments = environments();
    let url = "http://127.0.0.1:{port}/mcp";
    let with_port = |peer: &Peer| {
        let mut command = peer.command(Path::new(ROOT), &environments);
        command.extend(["--port".to_owned(), "{port}".to_owned()]);
        command.extend(server_args.iter().map(|arg| (*arg).to_owned()));
        command
    };
    let correct = sdk_peer(environment, Variant::Correct);
    let label = if server_args.is_empty() {
        environment.to_owned()
    } else {
        format!("{environment}-polling")
    };
    let (code, correct_verdicts, summary) = run(
        &format!("http-{label}-correct"),
        &[
            "--url",
            url,
            "--cases",
            "4",
            "--seed",
            "1",
            "--session",
            "-j",
            "1",
        ],
        &with_port(&correct),
    );
    let failed: Vec<&Value> = correct_verdicts
        .iter()
        .filter(|v| v["passed"] != true)
        .collect();
    assert_eq!(code, Some(0), "{failed:#?}");
    assert_eq!(summary["url"], url);
    assert_eq!(summary["cases"], 19 + 4);
    for verdict in &correct_verdicts {
        assert_eq!(verdict["evidence"]["url"], url, "{}", verdict["case"]);
        assert_eq!(session_ids(verdict).len(), 1, "{}", verdict["case"]);
    }

    let naive = sdk_peer(environment, Variant::Naive);
    let (code, verdicts, _) = run(
        &format!("http-{label}-naive"),
        &["--url", url, "--cases", "0"],
        &with_port(&naive),
    );
    assert_eq!(code, Some(1));
    // Over stdio: the naive peer's run of tests/peers.rs, shared; its contract
    // cases (a TypeScript peer's run adds generated ones).
    let over_stdio: Vec<Value> = naive_stdio_run(&naive)
        .contract_verdicts()
        .cloned()
        .collect();
    // Case by case, the same verdict over both transports.
    let verdict_of = |verdicts: &[Value]| -> Vec<(String, String)> {
        verdicts
            .iter()
            .map(|verdict| {
                (
                    verdict["case"].as_str().unwrap_or_default().to_owned(),
                    verdict["verdict"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    };
    assert_eq!(
        verdict_of(&verdicts),
        verdict_of(&over_stdio),
        "the naive peer gets over HTTP the verdicts it gets over stdio"
    );
    for (case, failure) in naive_failures(&naive) {
        let verdict = verdicts
            .iter()
            .find(|verdict| verdict["case"] == case)
            .expect("every contract case ran");
        let failures: Vec<&str> = verdict["failures"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        assert!(failures.contains(&failure), "{case}: {failures:?}");
        assert_over_http(verdict, url);
        // A server elicit-check started is sent SIGTERM when the session has
        // ended, and stops within the grace: it is not waited for, then killed.
        assert_eq!(verdict["evidence"]["forced_kill"], false, "{case}");
        let reproduce = verdict["reproduce"].as_str().unwrap_or_default();
        assert!(
            reproduce.starts_with(&format!("elicit-check run --url '{url}' --case {case} -- ")),
            "{reproduce}"
        );
    }
    correct_verdicts
}

#[test]
fn a_running_server_gets_one_session_id_per_case_and_is_left_running() {
    let environments = environments();
    let port = free_port();
    let command = sdk_peer("python-sdk1", Variant::Naive).command(Path::new(ROOT), &environments);
    let mut server = Running::start(
        Command::new(&command[0])
            .args(&command[1..])
            .args(["--port", &port.to_string()]),
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    // elicit-check waits for the endpoint to answer, within --startup-timeout.
    let (code, verdicts, summary) = run(
        "http-running",
        &[
            "--url",
            &url,
            "--case",
            "accept_valid",
            "--case",
            "accept_float_integer",
            "--case",
            "decline",
        ],
        &[],
    );
    assert_eq!(
        code,
        Some(1),
        "accept_float_integer fails on the naive peer"
    );
    assert_eq!(summary["server_command"], Value::Array(Vec::new()));
    assert_eq!(summary["url"], url.as_str());
    let passed: Vec<(&str, bool)> = verdicts
        .iter()
        .map(|verdict| {
            (
                verdict["case"].as_str().unwrap_or_default(),
                verdict["passed"] == true,
            )
        })
        .collect();
    assert_eq!(
        passed,
        [
            ("accept_valid", true),
            ("decline", true),
            ("accept_float_integer", false)
        ]
    );
    let mut ids = BTreeSet::new();
    for verdict in &verdicts {
        assert_over_http(verdict, &url);
        ids.extend(session_ids(verdict));
    }
    assert_eq!(ids.len(), 3, "each case is its own session: {ids:?}");
    let reproduce = verdicts[2]["reproduce"].as_str().unwrap_or_default();
    assert_eq!(
        reproduce,
        format!("elicit-check run --url {url} --case accept_float_integer"),
        "no server command to start: nothing after the options"
    );
    assert!(
        matches!(server.0.try_wait(), Ok(None)),
        "a server elicit-check did not start is left running"
    );
}

#[test]
fn url_with_the_hostile_client_cases_is_refused() {
    let ran = run_elicit_check(&["--hostile", "--url", "http://127.0.0.1:8931/mcp"]);
    assert_eq!(ran.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(
        stderr.contains("the argument '--hostile' cannot be used with '--url <URL>'"),
        "{stderr}"
    );
}

#[test]
fn an_http_servers_stdout_is_its_log_its_first_100_lines_in_the_timeline() {
    let environments = environments();
    // 150 lines on stdout before the peer starts serving: over HTTP stdout is
    // the server's log, not the protocol (no stray-line failure), and the
    // timeline keeps its first 100 lines.
    let mut command: Vec<String> = [
        "sh",
        "-c",
        r#"for i in $(seq 1 150); do echo "line $i"; done; exec "$@""#,
        "sh",
    ]
    .map(str::to_owned)
    .to_vec();
    command
        .extend(sdk_peer("python-sdk1", Variant::Correct).command(Path::new(ROOT), &environments));
    command.extend(["--port".to_owned(), "{port}".to_owned()]);
    let url = "http://127.0.0.1:{port}/mcp";
    let (code, verdicts, _) = run(
        "http-stdout-log",
        &["--url", url, "--case", "accept_valid"],
        &command,
    );
    assert_eq!(code, Some(0), "{:#?}", verdicts[0]["failures"]);
    let logged: Vec<&str> = verdicts[0]["evidence"]["timeline"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|event| event["event"].as_str())
        .filter(|event| event.starts_with("server stdout: "))
        .collect();
    let expected: Vec<String> = (1..=100)
        .map(|n| format!("server stdout: line {n}"))
        .collect();
    assert_eq!(logged, expected);
    assert_eq!(
        verdicts[0]["evidence"]["stray_stdout"],
        Value::Array(Vec::new())
    );
    // Started by elicit-check, the server is sent SIGTERM once the session has
    // ended and stops within the grace (not waited for, then killed).
    assert_eq!(verdicts[0]["evidence"]["forced_kill"], false);
    assert_eq!(verdicts[0]["evidence"]["stopped_by_harness"], true);
}
