//! `elicit-check check --url`: the same properties over Streamable HTTP (MCP
//! 2025-11-25, basic/transports). The published
//! `@modelcontextprotocol/server-everything` served over HTTP fails the
//! properties it fails over stdio, whether elicit-check starts it per session
//! (`{port}`) or it is already running (one `Mcp-Session-Id` per session); the
//! HTTP steps are in the evidence in the wire's order; a URL nothing answers
//! at, or a server that never writes a status line, is a clear bounded error.
//! A TypeScript SDK 1.x server that sends its form on the standalone GET
//! stream (as the SDK's own elicitation example does) gets it to every
//! planned case, because the standalone stream is open before the tool is
//! called.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

use super::cli::{assert_valid_report_json, cli, era, fixture, server_everything};
use crate::support::{OutputDir, Running, free_port};

const SERVER_EVERYTHING: &str =
    "target/server-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

/// The verdicts of properties 1 to 6 of `server-everything`'s eliciting tool,
/// over stdio as over HTTP: it acts on an accept whose content is invalid (2)
/// and sends a form request to a client that declared only url elicitation (4).
const SERVER_EVERYTHING_VERDICTS: [&str; 6] =
    ["holds", "fails", "holds", "fails", "holds", "untested"];

/// The options both runs share: the tool, its acted text, a small seed.
fn options<'a>(url: &'a str, output: &'a str) -> Vec<&'a str> {
    vec![
        "--url",
        url,
        "--tool",
        "trigger-elicitation-request",
        "--acted-text",
        "User provided the requested information",
        "--protocol",
        "2025-11-25",
        "--cases",
        "4",
        "--seed",
        "1",
        "--max-shrink-runs",
        "4",
        "--json",
        "--output",
        output,
    ]
}

/// The `--json` report of a check that found a property failing (exit 1),
/// validated against schemas/check-report.schema.json.
fn failed_report(run: &std::process::Output) -> Value {
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let document: Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_valid_report_json(&document);
    document
}

/// Properties 1 to 6 of the one era's report.
fn verdicts(document: &Value) -> Vec<String> {
    let report = era(document, "2025-11-25");
    (0..6)
        .map(|n| {
            report["properties"][n]["verdict"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// Every record of `cases.jsonl`.
fn records(output: &OutputDir) -> Vec<Value> {
    output
        .read("cases.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each record is JSON"))
        .collect()
}

/// The HTTP steps of `record` with its frames, in the recording's order:
/// `POST /mcp`, `response 200`, `event`, `frame server elicitation/create`, ...
fn sequence(record: &Value) -> Vec<(u64, String)> {
    let mut steps: Vec<(u64, String)> = record["http"]
        .as_array()
        .expect("an HTTP record has http steps")
        .iter()
        .map(|step| {
            let seq = step["seq"].as_u64().expect("seq");
            let words = match step["step"].as_str().expect("step") {
                "request" => format!(
                    "{} {}",
                    step["method"].as_str().unwrap_or("?"),
                    step["path"].as_str().unwrap_or("?")
                ),
                "response" => format!("response {}", step["status"]),
                other => other.to_owned(),
            };
            (seq, words)
        })
        .collect();
    for frame in record["wire"].as_array().expect("wire") {
        let method = frame["message"]["method"].as_str().unwrap_or("reply");
        let from = frame["from"].as_str().unwrap_or("?");
        steps.push((
            frame["seq"].as_u64().expect("seq"),
            format!("frame {from} {method}"),
        ));
    }
    steps.sort();
    steps
}

/// The `Mcp-Session-Id` the record's requests carried (one per session).
fn session_ids(record: &Value) -> BTreeSet<String> {
    record["http"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|step| step["step"] == "request")
        .filter_map(|step| step["headers"]["mcp-session-id"].as_str())
        .map(str::to_owned)
        .collect()
}

/// Checks what every HTTP session of server-everything shows: the first
/// POST carries no session id and its response assigns one; every later
/// request carries it and the negotiated version; the elicitation/create
/// arrives as an event of the tools/call POST's stream; a DELETE, when the
/// record holds the session's end, is its last request. The order of POSTs
/// and frames is checked on such whole sessions (fresh runs; a session-mode
/// case's record holds the handshake and its own call only): returns whether
/// the record was one.
fn assert_http_session(record: &Value) -> bool {
    let http = record["http"].as_array().expect("http steps");
    let first = &http[0];
    assert_eq!(
        (first["step"].as_str(), first["method"].as_str()),
        (Some("request"), Some("POST"))
    );
    assert_eq!(first["headers"].get("mcp-session-id"), None, "{first}");
    assert_eq!(
        first["headers"]["accept"],
        "application/json, text/event-stream"
    );
    let assigned = http
        .iter()
        .find(|step| step["step"] == "response")
        .and_then(|step| step["headers"]["mcp-session-id"].as_str())
        .expect("the initialize response assigns a session id")
        .to_owned();
    for request in http.iter().filter(|step| step["step"] == "request").skip(1) {
        assert_eq!(
            request["headers"]["mcp-session-id"],
            assigned.as_str(),
            "{request}"
        );
        assert_eq!(
            request["headers"]["mcp-protocol-version"], "2025-11-25",
            "{request}"
        );
    }
    let deletes: Vec<&Value> = http
        .iter()
        .filter(|step| step["method"] == "DELETE")
        .collect();
    // A fresh run's record ends with the DELETE that ended its session; a
    // session-mode case shows the handshake and its own call only.
    assert!(deletes.len() <= 1, "{deletes:?}");
    if let Some(delete) = deletes.first() {
        let last_request = http
            .iter()
            .rfind(|step| step["step"] == "request")
            .expect("requests");
        assert_eq!(last_request, *delete);
    }
    let Some(_) = deletes.first() else {
        return false;
    };
    // The n-th client frame went out as the n-th POST, and the
    // elicitation/create came as an event of the tools/call's POST.
    let client_frames: Vec<&Value> = record["wire"]
        .as_array()
        .expect("wire")
        .iter()
        .filter(|frame| frame["from"] == "client")
        .collect();
    let posts: Vec<&Value> = http
        .iter()
        .filter(|step| step["step"] == "request" && step["method"] == "POST")
        .collect();
    assert_eq!(
        posts.len(),
        client_frames.len(),
        "one POST per client frame"
    );
    let call = client_frames
        .iter()
        .position(|frame| frame["message"]["method"] == "tools/call")
        .expect("the call is on the wire");
    let call_exchange = &posts[call]["exchange"];
    let asked = record["wire"]
        .as_array()
        .expect("wire")
        .iter()
        .find(|frame| frame["message"]["method"] == "elicitation/create");
    if let Some(asked) = asked {
        let seq = asked["seq"].as_u64().expect("seq");
        let carrier = http
            .iter()
            .rfind(|step| step["step"] == "event" && step["seq"].as_u64() < Some(seq))
            .expect("an event before the elicitation/create frame");
        assert_eq!(
            &carrier["exchange"],
            call_exchange,
            "{}",
            serde_json::to_string(&sequence(record)).unwrap_or_default()
        );
    }
    true
}

#[test]
fn server_everything_started_per_session_over_http_fails_as_over_stdio_with_the_http_steps_in_the_evidence()
 {
    server_everything();
    let output = OutputDir::new("http-started");
    let out = output.path().to_string_lossy().into_owned();
    let mut args = options("http://127.0.0.1:{port}/mcp", &out);
    args.extend([
        "--",
        "env",
        "PORT={port}",
        "node",
        SERVER_EVERYTHING,
        "streamableHttp",
    ]);
    let run = cli(&args);
    let document = failed_report(&run);
    assert_eq!(document["url"], "http://127.0.0.1:{port}/mcp");
    assert_eq!(verdicts(&document), SERVER_EVERYTHING_VERDICTS);
    let report = era(&document, "2025-11-25");
    let reproduce = report["properties"][1]["failure"]["reproduce"]
        .as_str()
        .expect("a reproduction line");
    assert!(
        reproduce.contains("--url 'http://127.0.0.1:{port}/mcp'")
            && reproduce.ends_with("-- env 'PORT={port}' node target/server-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js streamableHttp"),
        "{reproduce}"
    );
    let records = records(&output);
    assert!(!records.is_empty());
    // Property 7 over HTTP: a valid accept planted in another session, and
    // under no session id, is not taken by server-everything.
    assert_eq!(report["properties"][6]["verdict"], "holds");
    let (planted, records): (Vec<&Value>, Vec<&Value>) = records.iter().partition(|record| {
        record["case"]
            .as_str()
            .is_some_and(|case| case.starts_with("cross-session: "))
    });
    assert_planted_replies_not_taken(&planted);
    let mut asked = 0;
    let mut whole = 0;
    for record in records {
        whole += usize::from(assert_http_session(record));
        asked += usize::from(
            sequence(record)
                .iter()
                .any(|(_, w)| w == "frame server elicitation/create"),
        );
        assert_eq!(
            record["stray_stdout"],
            Value::Array(Vec::new()),
            "the server's stdout log is no stray line over HTTP"
        );
    }
    assert!(asked > 0, "some session was asked to fill the form");
    assert!(whole > 0, "the probes run in sessions of their own");
}

/// The two sessions of property 7 over HTTP, as server-everything answers
/// them: the valid accept goes out under a second session's id (a session of
/// its own, opened and ended around it) and then under none (refused with
/// 400, "Bad Request: No valid session ID provided"), each before the call's own
/// decline under its own id; the tool acts on neither.
fn assert_planted_replies_not_taken(planted: &[&Value]) {
    let cases: Vec<&str> = planted
        .iter()
        .filter_map(|record| record["case"].as_str())
        .collect();
    assert_eq!(
        cases,
        [
            "cross-session: a valid accept POSTed under another session's Mcp-Session-Id",
            "cross-session: a valid accept POSTed under no Mcp-Session-Id"
        ]
    );
    for (record, sessions) in planted.iter().zip([2, 1]) {
        assert_eq!(record["reading"]["acted"], false, "{}", record["case"]);
        assert_eq!(session_ids(record).len(), sessions, "{}", record["case"]);
        let http = record["http"].as_array().expect("http steps");
        let own = http
            .iter()
            .find(|step| step["step"] == "response")
            .and_then(|step| step["headers"]["mcp-session-id"].as_str())
            .expect("a session id");
        // The replies to elicitation/create id 0, in order: the planted
        // accept, then the call's own decline under its own id.
        let replies: Vec<&Value> = http
            .iter()
            .filter(|step| {
                step["step"] == "request" && step["carries"] == serde_json::json!({"id": 0})
            })
            .collect();
        assert_eq!(replies.len(), 2, "{}", record["case"]);
        assert_ne!(replies[0]["headers"]["mcp-session-id"].as_str(), Some(own));
        assert_eq!(replies[1]["headers"]["mcp-session-id"], own);
        let planted_status = http
            .iter()
            .find(|step| step["step"] == "response" && step["exchange"] == replies[0]["exchange"])
            .map(|step| step["status"].clone());
        if sessions == 1 {
            assert_eq!(replies[0]["headers"].get("mcp-session-id"), None);
            assert_eq!(planted_status, Some(serde_json::json!(400)));
        }
    }
}

#[test]
fn a_running_server_is_checked_one_session_id_per_session_and_left_running() {
    server_everything();
    let port = free_port();
    let server = Running::start(
        Command::new("node")
            .args([fixture(SERVER_EVERYTHING).as_str(), "streamableHttp"])
            .env("PORT", port.to_string()),
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    let output = OutputDir::new("http-running");
    let out = output.path().to_string_lossy().into_owned();
    let run = cli(&options(&url, &out));
    let document = failed_report(&run);
    assert_eq!(document["server_command"], Value::Array(Vec::new()));
    assert_eq!(verdicts(&document), SERVER_EVERYTHING_VERDICTS);
    // `--cases 4`: the sessions of the replies planted in another session
    // are not random cases.
    assert_eq!(era(&document, "2025-11-25")["cases"], 4);
    let reproduce = era(&document, "2025-11-25")["properties"][1]["failure"]["reproduce"]
        .as_str()
        .expect("a reproduction line")
        .to_owned();
    // No server command to start: nothing after the options.
    assert!(
        reproduce.contains(&format!("--url {url} --protocol 2025-11-25"))
            && !reproduce.contains(" -- "),
        "{reproduce}"
    );
    // Each record is one session (a fresh run or one session's case), and the
    // fresh runs each got their own id from the one server.
    let records = records(&output);
    let (planted, records): (Vec<&Value>, Vec<&Value>) = records.iter().partition(|record| {
        record["case"]
            .as_str()
            .is_some_and(|case| case.starts_with("cross-session: "))
    });
    assert_planted_replies_not_taken(&planted);
    let mut ids = BTreeSet::new();
    for record in records {
        let _whole = assert_http_session(record);
        let own = session_ids(record);
        assert_eq!(own.len(), 1, "{own:?}");
        ids.extend(own);
    }
    assert!(
        ids.len() > 1,
        "sessions are told apart by Mcp-Session-Id: {ids:?}"
    );
    let mut server = server;
    assert_eq!(
        server.0.try_wait().expect("the server's status"),
        None,
        "a server elicit-check did not start is left running"
    );
}

#[test]
fn a_url_nothing_answers_at_fails_to_start_naming_the_http_request() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let run = cli(&[
        "--url",
        &url,
        "--tool",
        "book",
        "--acted-not-error",
        "--protocol",
        "2025-11-25",
        // A refused connection fails at once; the bound only keeps a loaded
        // machine from reading it as a timeout.
        "--startup-timeout",
        "5",
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(&format!("no session opened with {url}: initialize failed"))
            && stderr.contains("HTTP: POST /mcp got no response")
            && stderr.contains("onnection refused"),
        "{stderr}"
    );
}

#[test]
fn a_server_that_accepts_the_connection_and_never_answers_is_bounded_by_the_call_limit() {
    // Listens, accepts into its backlog, never reads nor writes.
    let script = "import socket, sys, time\n\
                  s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(8)\n\
                  time.sleep(120)\n";
    let run = cli(&[
        "--url",
        "http://127.0.0.1:{port}/mcp",
        "--tool",
        "book",
        "--acted-not-error",
        "--protocol",
        "2025-11-25",
        "--startup-timeout",
        "2",
        "--call-timeout",
        "1",
        "--",
        "python3",
        "-c",
        script,
        "{port}",
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("HTTP: POST /mcp got no response: no status line within 1 s"),
        "{stderr}"
    );
}

#[test]
fn a_url_elicit_check_cannot_use_is_refused_before_anything_starts() {
    for (url, server, why) in [
        ("https://127.0.0.1:8443/mcp", None, "https is not supported"),
        (
            "http://127.0.0.1:{port}/mcp",
            None,
            "give the server command after `--`",
        ),
        ("127.0.0.1:8080/mcp", Some("true"), "not an absolute URL"),
    ] {
        let mut args = vec!["--url", url, "--tool", "book", "--acted-not-error"];
        if let Some(program) = server {
            args.extend(["--", program]);
        }
        let run = cli(&args);
        assert_eq!(run.status.code(), Some(2), "{url}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            stderr.contains(&format!("--url {url:?}: ")) && stderr.contains(why),
            "{stderr}"
        );
    }
}

/// `check --url` of `calculate` on `fixtures/servers/misbehaving_http.py
/// --fault FAULT`, started by elicit-check on its `{port}`, 2025-11-25 only.
fn check_misbehaving_http(fault: &str) -> std::process::Output {
    let mut args = vec![
        "--url",
        "http://127.0.0.1:{port}/mcp",
        "--tool",
        "calculate",
        "--acted",
        "/computed=true",
        "--protocol",
        "2025-11-25",
        "--cases",
        "2",
        "--seed",
        "1",
        "--max-shrink-runs",
        "2",
        "--startup-timeout",
        "60",
        "--json",
        "--",
    ];
    let command = crate::support::misbehaving_http(fault);
    args.extend(command.iter().map(String::as_str));
    cli(&args)
}

/// Property 5 holds a session over HTTP to the transport's rules: a server
/// that sends the call's `elicitation/create` on its `initialize` POST's
/// stream breaks it, with the exchange named, though it computes right
/// (properties 1 to 3 hold); the same server without the fault holds it.
#[test]
fn an_elicitation_on_a_foreign_stream_breaks_property_5_over_http() {
    let document = failed_report(&check_misbehaving_http("foreign-stream"));
    assert_eq!(
        verdicts(&document),
        ["holds", "holds", "holds", "holds", "fails", "untested"]
    );
    let report = era(&document, "2025-11-25");
    assert_eq!(
        report["properties"][4]["failure"]["reason"],
        "HTTP: elicitation/create id 0 came on the event stream of POST /mcp (initialize id 0, exchange 1), not on that of POST /mcp (tools/call id 2, exchange 5) or the standalone GET stream"
    );
    let clean = check_misbehaving_http("none");
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stdout)
    );
}

/// A call answered with status 500 leaves nothing to check (exit 2), and the
/// error names the HTTP status that stopped it.
#[test]
fn a_call_refused_with_an_error_status_names_the_status() {
    let run = check_misbehaving_http("error-status");
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(
            "tools/call \"calculate\" asked for no form: no reply to tools/call; HTTP: POST /mcp got status 500; nothing to check"
        ),
        "{stderr}"
    );
}

/// A server that matches replies to its `elicitation/create` by JSON-RPC id
/// alone (`misbehaving_http.py --fault global-answers`) acts on a valid
/// accept POSTed in another session though its own session declined: property
/// 7 fails with that reason, and its reproduction is the check itself (the
/// planted sessions run on every check over HTTP). Properties 1 to 5 hold.
#[test]
fn a_server_that_takes_a_reply_from_another_session_fails_property_7() {
    let document = failed_report(&check_misbehaving_http("global-answers"));
    assert_eq!(
        verdicts(&document),
        ["holds", "holds", "holds", "holds", "holds", "untested"]
    );
    let report = era(&document, "2025-11-25");
    let property_7 = &report["properties"][6];
    assert_eq!(property_7["verdict"], "fails");
    assert_eq!(
        property_7["failure"]["reason"],
        "acted on a valid accept POSTed under another session's Mcp-Session-Id, though its own session's answer was decline"
    );
    assert_eq!(
        property_7["failure"]["answers"],
        serde_json::json!([{"action": "decline"}])
    );
    let reproduce = property_7["failure"]["reproduce"]
        .as_str()
        .expect("a reproduction line");
    assert!(
        !reproduce.contains("--answer") && reproduce.ends_with("--fault global-answers"),
        "{reproduce}"
    );
}

/// `check --url` of `delete_project` on
/// `fixtures/peers/typescript/standalone_form.mjs` (TypeScript SDK 1.32,
/// written as the SDK's `elicitationFormExample`: `server.elicitInput` with
/// no `relatedRequestId`, so the form goes on the standalone GET stream and
/// is dropped while none is open), started on its `{port}` for each case
/// (`--fresh`: every call is the first of its session, the one a client that
/// calls before its GET stream is established loses), 2025-11-25 only: the
/// `--json` report and the evidence.
fn check_standalone_form(bug: Option<&str>, output: &OutputDir) -> (Option<i32>, Value) {
    let environments = crate::peers::environments();
    let server = environments.join("node/standalone_form.mjs");
    let out = output.path().to_string_lossy().into_owned();
    let server = server.to_string_lossy().into_owned();
    let mut args = vec![
        "--url",
        "http://127.0.0.1:{port}/mcp",
        "--tool",
        "delete_project",
        "--acted",
        "/deleted",
        "--fresh",
        "--protocol",
        "2025-11-25",
        "--cases",
        "8",
        "--seed",
        "1",
        "--max-shrink-runs",
        "4",
        "--startup-timeout",
        "30",
        "--json",
        "--output",
        &out,
        "--",
        "node",
        &server,
        "--port",
        "{port}",
    ];
    if let Some(bug) = bug {
        args.extend(["--bug", bug]);
    }
    let run = cli(&args);
    let document: Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|_| panic!("a JSON report: {}", String::from_utf8_lossy(&run.stderr)));
    assert_valid_report_json(&document);
    (run.status.code(), document)
}

/// Properties 1 to 8 of the one era's report.
fn all_verdicts(document: &Value) -> Vec<&str> {
    era(document, "2025-11-25")["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .map(|property| property["verdict"].as_str().unwrap_or_default())
        .collect()
}

/// Every record of a planned case (`coverage N`, `case N`) sent at least
/// one answer: the form reached it. Returns how many there were.
fn every_planned_case_reached_the_form(output: &OutputDir) -> usize {
    let planned: Vec<Value> = records(output)
        .into_iter()
        .filter(|record| {
            record["case"].as_str().is_some_and(|case| {
                let (kind, index) = case.split_once(' ').unwrap_or_default();
                matches!(kind, "coverage" | "case") && index.parse::<usize>().is_ok()
            })
        })
        .collect();
    let missed: Vec<&Value> = planned
        .iter()
        .filter(|record| record["sent"].as_array().is_none_or(Vec::is_empty))
        .map(|record| &record["case"])
        .collect();
    assert_eq!(missed, Vec::<&Value>::new(), "cases the form never reached");
    planned.len()
}

#[test]
fn a_form_sent_on_the_standalone_stream_reaches_every_planned_case_and_the_correct_server_passes() {
    let output = OutputDir::new("http-standalone-form");
    let (code, document) = check_standalone_form(None, &output);
    assert_eq!(code, Some(0), "{document}");
    assert_eq!(
        all_verdicts(&document),
        [
            "holds", "holds", "holds", "holds", "holds", "holds", "holds", "untested"
        ]
    );
    let report = era(&document, "2025-11-25");
    assert_eq!(
        report["consent_fields"],
        serde_json::json!(["/confirm is a consent field: acts only when true"])
    );
    // Every planned case ran and reached the form: the coverage cases and
    // the 8 random ones.
    let planned = report["coverage_cases"].as_u64().expect("a count") + 8;
    assert_eq!(every_planned_case_reached_the_form(&output) as u64, planned);
    // The form came on the standalone GET stream, whose status line came
    // before the call's POST went out.
    for record in records(&output) {
        let http = record["http"].as_array().expect("http steps");
        let Some(asked) = http.iter().find(|step| {
            step["step"] == "event" && step["carries"]["method"] == "elicitation/create"
        }) else {
            continue;
        };
        let step = |kind: &str, exchange: &Value| {
            http.iter()
                .find(|step| step["step"] == kind && &step["exchange"] == exchange)
                .unwrap_or_else(|| panic!("{}: no {kind} of exchange {exchange}", record["case"]))
        };
        let stream = &asked["exchange"];
        assert_eq!(
            step("request", stream)["method"],
            "GET",
            "{}",
            record["case"]
        );
        let call = http
            .iter()
            .find(|step| step["carries"]["method"] == "tools/call")
            .expect("the call's POST");
        assert!(
            step("response", stream)["seq"].as_u64() < call["seq"].as_u64(),
            "{}",
            record["case"]
        );
    }
}

#[test]
fn a_form_sent_on_the_standalone_stream_reaches_every_planned_case_and_an_accept_only_server_fails_property_2()
 {
    let output = OutputDir::new("http-standalone-form-bug");
    let (code, document) = check_standalone_form(Some("accept-only"), &output);
    assert_eq!(code, Some(1), "{document}");
    // It acts on any accept the SDK lets through: one without content, and
    // `confirm: false` (so no consent field is found, and no valid accept
    // is refused).
    assert_eq!(
        all_verdicts(&document),
        [
            "holds", "fails", "holds", "holds", "holds", "holds", "holds", "untested"
        ]
    );
    let failure = &era(&document, "2025-11-25")["properties"][1]["failure"];
    assert_eq!(
        failure["reason"],
        "acted on an accept whose content is invalid: accept has no content"
    );
    assert_eq!(
        failure["answers"],
        serde_json::json!([{"action": "accept"}])
    );
    assert!(every_planned_case_reached_the_form(&output) > 0);
}

/// A server behind a bearer token (401 without it, MCP 2025-11-25,
/// basic/authorization): without `--header` the check cannot start (exit 2,
/// naming the status); with `--header 'Authorization: Bearer ${TOKEN}'`
/// (the token in the environment) every request carries it, the planted
/// reply's second session included, and the check passes; the token is in
/// no report, evidence or reproduction line, and a literal value is shown
/// as `***`.
#[test]
fn a_server_behind_a_bearer_token_is_checked_with_a_header_that_no_report_shows() {
    const TOKEN: &str = "tok-7f3a9c1e-never-printed";
    let dir = crate::support::Scratch::new("bearer");
    let evidence = dir.path().join("evidence");
    let sarif = dir.path().join("check.sarif");
    let junit = dir.path().join("check.xml");
    let summary = dir.path().join("summary.md");
    let mut server = crate::support::misbehaving_http("global-answers");
    server.extend(["--require-bearer-env".to_owned(), "TOKEN".to_owned()]);
    let run = |headers: &[&str]| {
        let mut args: Vec<String> = [
            "check",
            "--url",
            "http://127.0.0.1:{port}/mcp",
            "--tool",
            "calculate",
            "--acted",
            "/computed=true",
            "--protocol",
            "2025-11-25",
            "--cases",
            "2",
            "--seed",
            "1",
            "--max-shrink-runs",
            "2",
            "--startup-timeout",
            "60",
        ]
        .map(str::to_owned)
        .to_vec();
        for header in headers {
            args.extend(["--header".to_owned(), (*header).to_owned()]);
        }
        args.extend(["--output".to_owned(), evidence.display().to_string()]);
        args.extend(["--sarif".to_owned(), sarif.display().to_string()]);
        args.extend(["--junit".to_owned(), junit.display().to_string()]);
        args.extend(["--summary".to_owned(), summary.display().to_string()]);
        args.push("--".to_owned());
        args.extend(server.iter().cloned());
        std::process::Command::new(env!("CARGO_BIN_EXE_elicit-check"))
            .args(&args)
            .env("TOKEN", TOKEN)
            .env_remove("RUST_LOG")
            .output()
            .expect("elicit-check runs")
    };
    let refused = run(&[]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("401"), "{stderr}");

    let checked = run(&[
        "Authorization: Bearer ${TOKEN}",
        "X-Gateway-Key: k-literal-9",
    ]);
    let stdout = String::from_utf8_lossy(&checked.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&checked.stderr).into_owned();
    // The server takes a reply from another session (property 7): the
    // planted session reached it, so it carried the header too.
    assert_eq!(checked.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("7  never acts without a valid consenting answer"),
        "{stdout}"
    );
    assert!(
        stdout.contains("--header 'Authorization: Bearer ${TOKEN}' --header 'X-Gateway-Key: ***'"),
        "the reproduction lines carry the headers as given, a literal value hidden: {stdout}"
    );
    let mut everything = stdout + &stderr;
    for path in [
        evidence.join("cases.jsonl"),
        evidence.join("check.json"),
        sarif.clone(),
        junit.clone(),
        summary.clone(),
    ] {
        everything.push_str(
            &std::fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("{}: {error}", path.display())),
        );
    }
    assert!(!everything.contains(TOKEN), "the token was printed");
    assert!(
        !everything.contains("k-literal-9"),
        "a literal header value was printed"
    );
}
