//! Hostile client frames (docs/src/hostile.md): what rmcp 3.11 does alone,
//! the reference server behind its line filter meeting every case, and
//! `fixtures/servers/calculator.py` failing each of the four client-side findings.

use std::time::Duration;

use elicit_check::harness::Limits;
use elicit_check::harness::hostile::{self, HostileCase};
use elicit_check::oracle::hostile::judge;
use elicit_check::server::ReferenceServer;
use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::{calculator, reference_server, require_program, runtime};

/// Plays `cases` against `command`, all at once, and judges each.
fn play_all(
    command: &[String],
    cases: &[HostileCase],
    exact: bool,
) -> Vec<(HostileCase, Vec<String>)> {
    play_and_keep(command, cases, exact)
        .into_iter()
        .map(|(case, failures, _)| (case, failures))
        .collect()
}

/// As [`play_all`], keeping each case's evidence.
fn play_and_keep(
    command: &[String],
    cases: &[HostileCase],
    exact: bool,
) -> Vec<(HostileCase, Vec<String>, hostile::Played)> {
    runtime().block_on(async {
        let tasks: Vec<_> = cases
            .iter()
            .map(|&case| {
                let command = command.to_vec();
                tokio::spawn(async move {
                    let played = case
                        .play(&command, Limits::default())
                        .await
                        .expect("the server starts");
                    (case, judge(case, &played, exact).iter().map(ToString::to_string).collect(), played)
                })
            })
            .collect();
        let mut judged = Vec::new();
        for task in tasks {
            let (case, failures, played) = task.await.expect("the case task ends");
            if case == HostileCase::NotJsonAndNoMethod && exact {
                // The reference server's exact replies (src/server/lines.rs).
                let wire: Vec<&Value> = played.recording.wire.iter().map(|frame| &frame.message).collect();
                assert!(wire.contains(&&json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}})));
                assert!(wire.contains(&&json!({"jsonrpc":"2.0","id":41,"error":{"code":-32600,"message":"Invalid Request: no method"}})));
            }
            if case == HostileCase::CallBeforeInitialized && exact {
                let wire: Vec<&Value> = played.recording.wire.iter().map(|frame| &frame.message).collect();
                assert!(wire.contains(&&json!({"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: tools/call before notifications/initialized"}})));
            }
            judged.push((case, failures, played));
        }
        judged
    })
}

#[test]
fn the_reference_server_meets_every_hostile_client_case() {
    let judged = play_and_keep(&reference_server(), &HostileCase::ALL, true);
    let failed: Vec<_> = judged
        .iter()
        .filter(|(_, failures, _)| !failures.is_empty())
        .map(|(case, failures, _)| (case, failures))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(judged.len(), 16);
    // Wire snapshots (snapshots/hostile_*.snap), but for the two answers of
    // megabytes and 10,000 levels.
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    for (case, _, played) in &judged {
        if matches!(case, HostileCase::OversizedAnswer | HostileCase::DeepAnswer) {
            continue;
        }
        let text = elicit_check::transcript::render_with_stray(
            &played.recording.wire,
            &played.recording.stray_stdout,
        );
        settings.set_description(format!("wire of hostile-client case {}", case.name()));
        settings.bind(|| insta::assert_snapshot!(format!("hostile_{}", case.name()), text));
    }
}

#[test]
fn calculator_py_fails_each_client_side_finding_of_the_issue() {
    require_program("python3", "calculator.py is a Python script");
    let plain = play_all(
        &calculator(None),
        &[
            HostileCase::CallBeforeInitialized,
            HostileCase::ReplyIdMistyped,
            HostileCase::NotJsonAndNoMethod,
        ],
        false,
    );
    let lenient = play_all(
        &calculator(Some("lenient-action")),
        &[HostileCase::ActionUpperCase, HostileCase::ActionCapitalized],
        false,
    );
    let primary: Vec<(&str, String)> = plain
        .iter()
        .chain(&lenient)
        .map(|(case, failures)| (case.name(), failures.first().cloned().unwrap_or_default()))
        .collect();
    assert_eq!(
        primary,
        vec![
            ("call_before_initialized", "elicitation/create (frame #3) sent before the client's notifications/initialized (frame #4); MCP 2025-11-25: a server SHOULD NOT send requests other than pings and logging before it".to_owned()),
            ("reply_id_mistyped", r#"tools/call id 1 after an accept under the request's id in another JSON type ("0" for 0): outcome {"status":"calculated","computed":true,"value":21}, expected status "declined", computed false"#.to_owned()),
            ("not_json_and_no_method", "no JSON-RPC error -32700 with id null in reply to the line that is not JSON".to_owned()),
            ("action_upper_case", r#"tools/call id 1 after an answer with action "ACCEPT", which is no spec action: outcome {"status":"calculated","computed":true,"value":21}, expected status "invalid_response", computed false"#.to_owned()),
            ("action_capitalized", r#"tools/call id 1 after an answer with action "Accept", which is no spec action: outcome {"status":"calculated","computed":true,"value":21}, expected status "invalid_response", computed false"#.to_owned()),
        ]
    );
    // calculator.py dies on the line that is not JSON (a Python traceback): the
    // exit code is among the secondary failures.
    assert!(
        plain[2].1.contains(&"exit code 1, expected 0".to_owned()),
        "{:?}",
        plain[2].1
    );
}

/// Writes `line` and a newline.
async fn send(to: &mut tokio::io::DuplexStream, line: &[u8]) {
    to.write_all(line).await.expect("write");
    to.write_all(b"\n").await.expect("write");
}

/// `serve --elicitation-timeout 2`: an elicitation left unanswered ends the call
/// `timed_out` with `notifications/cancelled` for it; the late answer computes
/// nothing and the next call in the session still computes 21
/// (the reference server under bad answers).
#[test]
fn an_elicitation_timeout_cancels_the_request_and_ignores_the_late_answer() {
    let mut command = reference_server();
    command.extend(["--elicitation-timeout".to_owned(), "2".to_owned()]);
    let judged = play_all(&command, &[HostileCase::LateAnswerAfterTimeout], true);
    assert_eq!(
        judged,
        vec![(HostileCase::LateAnswerAfterTimeout, Vec::<String>::new())]
    );
}

/// Reads server lines until `done` holds for the lines so far (bounded: 10 s).
async fn read_until(
    lines: &mut tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let mut seen = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), async {
        while !done(&seen) {
            let line = lines.next_line().await.expect("read").expect("a line");
            seen.push(serde_json::from_str(&line).expect("rmcp writes JSON"));
        }
    })
    .await
    .unwrap_or_else(|_| panic!("waited 10 s; lines so far: {seen:?}"));
    seen
}

/// What rmcp 3.11's own transport and service do with hostile frames, without
/// the reference server's line filter (so the filter's reasons stay checked).
#[test]
fn rmcp_alone_elicits_before_initialized_drops_non_json_and_matches_id_0_to_string_0() {
    runtime().block_on(async {
        let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, from_server) = tokio::io::duplex(1 << 16);
        let service = tokio::spawn(async move {
            let running = ReferenceServer::default()
                .serve((server_in, server_out))
                .await?;
            running.waiting().await?;
            anyhow::Ok(())
        });
        let mut lines = BufReader::new(from_server).lines();
        let is_reply = |id: Value| {
            move |seen: &[Value]| {
                seen.iter()
                    .any(|m| m.get("method").is_none() && m.get("id") == Some(&id))
            }
        };
        send(&mut to_server, &hostile::initialize(0)).await;
        read_until(&mut lines, is_reply(json!(0))).await;
        // A call before notifications/initialized: rmcp elicits at once.
        send(&mut to_server, &hostile::call(1)).await;
        let seen = read_until(&mut lines, |seen| !seen.is_empty()).await;
        assert_eq!(seen[0]["method"], json!("elicitation/create"));
        assert_eq!(seen[0]["id"], json!(0));
        // A line that is not JSON gets nothing; an object without method gets
        // -32600 without its id.
        send(&mut to_server, b"this is not JSON {").await;
        send(&mut to_server, br#"{"jsonrpc":"2.0","id":41}"#).await;
        send(
            &mut to_server,
            br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        )
        .await;
        let seen = read_until(&mut lines, |seen| {
            is_reply(json!(2))(seen)
                && seen
                    .iter()
                    .any(|m| m.pointer("/error/code") == Some(&json!(-32600)))
        })
        .await;
        assert!(
            !seen
                .iter()
                .any(|m| m.pointer("/error/code") == Some(&json!(-32700))),
            "{seen:?}"
        );
        let invalid = seen
            .iter()
            .find(|m| m.pointer("/error/code") == Some(&json!(-32600)))
            .expect("found above");
        assert_eq!(invalid.get("id"), None, "{invalid}");
        // A reply under "0" is taken for the request with id 0: 21 is computed
        // although the reply under the right id declines.
        send(
            &mut to_server,
            &hostile::reply(&json!("0"), hostile::VALID_ACCEPT),
        )
        .await;
        send(
            &mut to_server,
            &hostile::reply(&json!(0), r#"{"action":"decline"}"#),
        )
        .await;
        let seen = read_until(&mut lines, is_reply(json!(1))).await;
        let reply = seen
            .iter()
            .find(|m| m.get("id") == Some(&json!(1)))
            .expect("found above");
        assert_eq!(
            reply["result"]["structuredContent"],
            json!({"status":"calculated","computed":true,"value":21})
        );
        service.abort();
    });
}

/// A fresh evidence folder for one CLI run.
fn output_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("elicit-check-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("evidence file")).expect("JSON")
}

/// `elicit-check run --hostile` with no server command: the reference server
/// passes all 16 cases, each a row and a verdict in the three evidence files.
#[test]
fn run_hostile_passes_all_16_cases_on_the_reference_server() {
    let dir = output_dir("hostile-reference");
    let output = crate::support::run_elicit_check(&[
        "--hostile".as_ref(),
        "--output".as_ref(),
        dir.as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    for case in HostileCase::ALL {
        assert!(
            stdout
                .lines()
                .any(|line| line.starts_with(case.name()) && line.ends_with("  pass")),
            "no passing row for {}: {stdout}",
            case.name()
        );
    }
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("16 passed, 0 failed in ")),
        "{stdout}"
    );
    let results = read_json(&dir.join("results.json"));
    let names: Vec<&str> = results
        .as_array()
        .expect("an array")
        .iter()
        .map(|verdict| {
            assert_eq!(verdict["verdict"], "passed", "{verdict}");
            verdict["case"].as_str().expect("a name")
        })
        .collect();
    let all: Vec<&str> = HostileCase::ALL.iter().map(|case| case.name()).collect();
    assert_eq!(names, all);
    let lines = std::fs::read_to_string(dir.join("results.jsonl")).expect("results.jsonl");
    assert_eq!(lines.lines().count(), 16);
    let run = read_json(&dir.join("run.json"));
    assert_eq!(
        (
            &run["status"],
            &run["hostile"],
            &run["cases"],
            &run["passed"]
        ),
        (&json!("finished"), &json!(true), &json!(16), &json!(16))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `run --hostile --case ... -- python3 calculator.py`: each failed case leads
/// with its primary verdict, keeps its frames, ends with a reproduction that
/// replays it, run.json counts the verdicts, and the exit code is 1.
#[test]
fn run_hostile_names_the_verdict_of_each_failed_case_of_a_server_with_the_faults() {
    let dir = output_dir("hostile-calculator");
    let server = calculator(None);
    let mut args: Vec<std::ffi::OsString> = vec!["--hostile".into()];
    for case in [
        "call_before_initialized",
        "reply_id_mistyped",
        "not_json_and_no_method",
        "action_reject",
    ] {
        args.extend(["--case".into(), case.into()]);
    }
    args.extend(["--output".into(), dir.clone().into_os_string(), "--".into()]);
    args.extend(server.iter().map(Into::into));
    let output = crate::support::run_elicit_check(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    // calculator.py elicits at once, takes "0" for 0, has no -32700 (it dies on
    // the line) and checks the action exactly (so action_reject passes).
    for line in [
        "    call_before_initialized: elicited_before_initialized: elicitation/create (frame #3) sent before the client's notifications/initialized (frame #4); MCP 2025-11-25: a server SHOULD NOT send requests other than pings and logging before it",
        r#"    reply_id_mistyped: computed_on_refusal: tools/call id 1 after an accept under the request's id in another JSON type ("0" for 0): outcome {"status":"calculated","computed":true,"value":21}, expected status "declined", computed false"#,
        "    not_json_and_no_method: no_error_reply: no JSON-RPC error -32700 with id null in reply to the line that is not JSON",
        "    not_json_and_no_method: exit code 1, expected 0",
    ] {
        assert!(
            stdout.lines().any(|got| got == line),
            "no line {line:?}:\n{stdout}"
        );
    }
    let script = shlex::try_quote(&server[1]).expect("quotable").into_owned();
    let reproduce = format!(
        "    reply_id_mistyped: reproduce: elicit-check run --hostile --case reply_id_mistyped -- {} {script}",
        crate::support::python3_quoted()
    );
    assert!(stdout.lines().any(|got| got == reproduce), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("action_reject ") && line.ends_with("  pass")),
        "{stdout}"
    );
    let run = read_json(&dir.join("run.json"));
    assert_eq!(
        run["verdicts"],
        json!({"elicited_before_initialized": 1, "no_error_reply": 1, "computed_on_refusal": 1})
    );
    let results = read_json(&dir.join("results.json"));
    let mistyped = &results[1];
    assert_eq!(mistyped["case"], "reply_id_mistyped");
    let sent_under_string_id = mistyped["evidence"]["wire"]
        .as_array()
        .expect("frames")
        .iter()
        .any(|frame| frame["from"] == "client" && frame["message"]["id"] == json!("0"));
    assert!(sent_under_string_id, "the frames are kept: {mistyped}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--hostile` runs instead of the contract and generated cases, so it refuses
/// their options; a hostile case name without `--hostile` says to add it.
/// Nothing is written either way.
#[test]
fn hostile_options_are_checked_before_anything_runs() {
    let dir = output_dir("hostile-refused");
    for (args, says) in [
        (
            vec!["--hostile", "--cases", "3"],
            "the argument '--hostile' cannot be used with '--cases <N>'",
        ),
        (
            vec!["--case", "deep_answer"],
            "elicit-check: \"deep_answer\" is a hostile-client case: add --hostile",
        ),
        (
            vec!["--hostile", "--case", "accept_valid"],
            "elicit-check: no hostile-client case named \"accept_valid\"; the cases are: call_before_initialized,",
        ),
    ] {
        let mut all: Vec<&std::ffi::OsStr> = args.iter().map(|arg| arg.as_ref()).collect();
        all.extend(["--output".as_ref(), dir.as_os_str()]);
        let output = crate::support::run_elicit_check(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!dir.exists(), "{args:?} wrote the evidence folder");
    }
}

/// A server that answers `initialize` and nothing else, and exits 0 at the end
/// of stdin: the `tools/list` read just before stdin closed is never answered,
/// verdict `dropped_request` (exit 1).
#[test]
fn a_server_that_exits_without_answering_the_last_request_dropped_it() {
    require_program("python3", "the test server is a Python one-liner");
    let script = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "drops", "version": "0"}}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"#;
    let dir = output_dir("hostile-dropped");
    let output = crate::support::run_elicit_check(&[
        "--hostile",
        "--case",
        "eof_right_after_request",
        "--output",
        dir.to_str().expect("a UTF-8 temp path"),
        "--",
        "python3",
        "-c",
        script,
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.lines().any(|line| line
            == "    eof_right_after_request: dropped_request: tools/list id 1: no result before exit; a request read before stdin closed must be answered"),
        "{stdout}"
    );
    assert_eq!(
        read_json(&dir.join("run.json"))["verdicts"],
        json!({"dropped_request": 1})
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hostile clients: an elicitation answered twice. JSON-RPC 2.0 gives a
/// request one response, so only the first reply under its id counts: the
/// decline. calculator.py (which reads one line as the answer) passes;
/// `--bug second-answer`, which takes a second reply under the same id that
/// came with the first, computes 21 on it and fails `computed_on_refusal`
/// (exit 1). The reference server passes too (see
/// `the_reference_server_meets_every_hostile_client_case`).
#[test]
fn a_server_that_takes_the_second_answer_to_one_elicitation_fails_reply_twice() {
    let run_case = |name: &str, server: &[String]| {
        let dir = output_dir(name);
        let mut args: Vec<std::ffi::OsString> = vec![
            "--hostile".into(),
            "--case".into(),
            "reply_twice".into(),
            "--output".into(),
            dir.clone().into_os_string(),
            "--".into(),
        ];
        args.extend(server.iter().map(Into::into));
        let output = crate::support::run_elicit_check(&args);
        let results = read_json(&dir.join("results.json"));
        let _ = std::fs::remove_dir_all(&dir);
        (output.status.code(), results[0].clone())
    };
    let (code, plain) = run_case("twice-plain", &calculator(None));
    assert_eq!(code, Some(0), "{plain}");
    assert_eq!(plain["verdict"], "passed");
    assert_eq!(
        plain["evidence"]["outcome"],
        json!({"status": "declined", "computed": false})
    );
    let (code, second) = run_case("twice-second", &calculator(Some("second-answer")));
    assert_eq!(code, Some(1), "{second}");
    assert_eq!(second["verdict"], "computed_on_refusal");
    assert_eq!(
        second["primary"],
        r#"tools/call id 1 after a decline, then an accept under the same id: outcome {"status":"calculated","computed":true,"value":21}, expected status "declined", computed false"#
    );
    // Both replies were sent under the request's own id, 0.
    let replies: Vec<&Value> = second["evidence"]["wire"]
        .as_array()
        .expect("frames")
        .iter()
        .filter(|frame| frame["from"] == "client" && frame["message"].get("result").is_some())
        .map(|frame| &frame["message"])
        .collect();
    assert_eq!(
        replies,
        [
            &json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "decline"}}),
            &json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {"units": 3, "unit_value": 7}}}),
        ]
    );
}

/// What rmcp 3.11 alone does when stdin ends while a call waits on its
/// elicitation (the reason for `Gate::settled` in the reference server's line
/// filter): its service drains in-flight handlers for a bounded time (5 s,
/// `drain_timeout` in rmcp's `service.rs`; not asserted here), but this
/// handler's elicitation can never be answered, so the service ends (quit
/// reason `Closed`) with no reply to the call: nothing after the
/// `elicitation/create` is written. The bound here is generous; the verdict,
/// not the time, is asserted.
#[test]
fn rmcp_alone_ends_at_eof_without_replying_to_a_call_whose_elicitation_is_pending() {
    runtime().block_on(async {
        let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, from_server) = tokio::io::duplex(1 << 16);
        let service = tokio::spawn(async move {
            let running = ReferenceServer::default()
                .serve((server_in, server_out))
                .await?;
            anyhow::Ok(running.waiting().await?)
        });
        let mut lines = BufReader::new(from_server).lines();
        send(&mut to_server, &hostile::initialize(0)).await;
        read_until(&mut lines, |seen| !seen.is_empty()).await;
        send(&mut to_server, hostile::INITIALIZED.as_bytes()).await;
        send(&mut to_server, &hostile::call(1)).await;
        let seen = read_until(&mut lines, |seen| !seen.is_empty()).await;
        assert_eq!(seen[0]["method"], json!("elicitation/create"));
        drop(to_server);
        let ended = tokio::time::timeout(Duration::from_secs(120), service)
            .await
            .expect("the service ends after stdin closed")
            .expect("the service task ends")
            .expect("the service ends without an error");
        assert!(
            matches!(ended, rmcp::service::QuitReason::Closed),
            "{ended:?}"
        );
        let after = tokio::time::timeout(Duration::from_secs(120), lines.next_line())
            .await
            .expect("stdout ends")
            .expect("read");
        assert_eq!(after, None, "no reply to the call after stdin closed");
    });
}
