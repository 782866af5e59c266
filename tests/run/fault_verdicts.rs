//! One primary verdict per failed case (docs/src/verdicts.md), each shown by
//! `elicit-check run` against a purpose-built misbehaving server
//! (`fixtures/servers/misbehaving.py --fault NAME`): the verdict is printed first
//! under the row, with its evidence in the protocol's words, and `results.json`
//! and `run.json` carry its name. Also the evidence that never contradicts
//! itself: arguments checked before the folder is touched, and a
//! reproduction command that replays a generated case exactly.

use std::process::Command;

use serde_json::{Value, json};

use crate::support::run_elicit_check as run;
use crate::support::{OutputDir, Scratch, misbehaving};

/// `FLAGS --output DIR -- SERVER...`: the arguments of `elicit-check run`.
fn run_args(flags: &[&str], dir: &OutputDir, server: Vec<String>) -> Vec<String> {
    let mut args: Vec<String> = flags.iter().map(|flag| (*flag).to_owned()).collect();
    args.extend(["--output".to_owned(), dir.text(), "--".to_owned()]);
    args.extend(server);
    args
}

/// What one run of one case against one fault showed.
struct Shown {
    code: Option<i32>,
    stdout: String,
    /// The lines under the case's row (`    CASE: ...`), without the prefix.
    detail: Vec<String>,
    verdicts: Vec<Value>,
    summary: Value,
}

/// Runs contract case `case` against `--fault fault`; `bounds` are extra
/// options (short bounds only where the fault makes them expire anyway).
fn show(fault: &str, case: &str, bounds: &[&str]) -> Shown {
    let dir = OutputDir::new(&format!("{fault}-{case}"));
    let flags: Vec<&str> = ["--case", case].iter().chain(bounds).copied().collect();
    let output = run(&run_args(&flags, &dir, misbehaving(fault)));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let prefix = format!("    {case}: ");
    let detail = stdout
        .lines()
        .filter_map(|line| line.strip_prefix(&prefix))
        .map(str::to_owned)
        .collect();
    Shown {
        code: output.status.code(),
        detail,
        verdicts: dir
            .json("results.json")
            .as_array()
            .cloned()
            .expect("an array"),
        summary: dir.json("run.json"),
        stdout,
    }
}

/// Asserts the verdict `name` with evidence line `evidence` is printed first,
/// carried by results.json and counted in run.json; returns what was shown.
fn assert_verdict(fault: &str, case: &str, bounds: &[&str], name: &str, evidence: &str) -> Shown {
    let shown = show(fault, case, bounds);
    assert_eq!(
        shown.detail.first().map(String::as_str),
        Some(format!("{name}: {evidence}").as_str()),
        "{}",
        shown.stdout
    );
    assert_eq!(shown.verdicts[0]["verdict"], name, "{}", shown.stdout);
    assert_eq!(shown.verdicts[0]["primary"], evidence);
    assert_eq!(shown.summary["verdicts"], json!({ name: 1 }));
    assert!(
        !shown.stdout.contains("Some(") && !shown.stdout.contains("None"),
        "Rust Debug text: {}",
        shown.stdout
    );
    let reproduce = shown.detail.last().expect("a reproduction line");
    assert!(
        reproduce.starts_with(&format!(
            "reproduce: elicit-check run --case {case} -- {} ",
            crate::support::python3_quoted()
        )) && reproduce.ends_with(&format!("/fixtures/servers/misbehaving.py --fault {fault}")),
        "{reproduce}"
    );
    shown
}

#[test]
fn a_server_that_exits_at_once_did_not_start_with_its_exit_code_and_stderr() {
    let shown = assert_verdict(
        "exit-at-start",
        "accept_valid",
        &[],
        "did_not_start",
        "initialize failed: connection closed: initialize response (exit code 3)",
    );
    assert_eq!(shown.code, Some(2), "the run cannot be done");
    assert_eq!(
        shown.detail[1..3],
        [
            "server stderr (last lines):",
            "  | misbehaving.py: cannot read the configuration file"
        ]
    );
    assert_eq!(shown.summary["status"], "stopped");
    assert!(
        shown
            .stdout
            .lines()
            .any(|line| line.starts_with("stopped (did_not_start): 0 passed, 1 failed in ")),
        "{}",
        shown.stdout
    );
}

/// Only the run's first case decides that the server did not start: a server
/// that starts for case 1 and then exits at once gets `did_not_start` on
/// cases 2 and 3, each in its row, and the run goes on to its end (exit 1,
/// `finished`), with the three verdicts in case order.
#[test]
fn a_server_that_stops_starting_after_the_first_case_fails_those_cases_and_the_run_goes_on() {
    let dir = OutputDir::new("starts-once");
    let marker = dir.beside("started");
    let _ = std::fs::remove_dir_all(&marker);
    let script = "if mkdir \"$1\" 2>/dev/null; then exec \"$2\" serve; \
                  else echo 'gone after one start' >&2; exit 3; fi";
    let mut args: Vec<String> = [
        "--case",
        "accept_valid",
        "--case",
        "decline",
        "--case",
        "cancel",
        "-j",
        "1",
        "--output",
        &dir.text(),
        "--",
        "sh",
        "-c",
        script,
        "sh",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    args.push(marker.to_string_lossy().into_owned());
    args.push(env!("CARGO_BIN_EXE_elicit-check").to_owned());
    let output = run(&args);
    let _ = std::fs::remove_dir_all(&marker);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let verdicts = dir.json("results.json");
    let rows: Vec<(&str, &str)> = verdicts
        .as_array()
        .expect("an array")
        .iter()
        .map(|verdict| {
            (
                verdict["case"].as_str().expect("a case name"),
                verdict["verdict"].as_str().unwrap_or("passed"),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("accept_valid", "passed"),
            ("decline", "did_not_start"),
            ("cancel", "did_not_start"),
        ],
        "{stdout}"
    );
    let summary = dir.json("run.json");
    assert_eq!(summary["status"], "finished", "{stdout}");
    assert_eq!(
        summary["verdicts"],
        json!({ "did_not_start": 2 }),
        "{stdout}"
    );
}

#[test]
fn a_server_that_never_answers_initialize_is_named_so_without_an_empty_stderr_banner() {
    let shown = assert_verdict(
        "silent-initialize",
        "accept_valid",
        &["--startup-timeout", "0.5"],
        "no_initialize_reply",
        "no reply to initialize within 0.5 s",
    );
    assert_eq!(shown.code, Some(2));
    assert_eq!(
        shown.detail.len(),
        2,
        "no stderr banner: {:?}",
        shown.detail
    );
}

#[test]
fn a_server_that_exits_during_the_call_crashed_and_nothing_else_is_listed() {
    let shown = assert_verdict(
        "crash-on-call",
        "accept_valid",
        &[],
        "crashed",
        "exit code 3 before replying to tools/call",
    );
    assert_eq!(shown.code, Some(1));
    // The missing outcome, reply and exit code are consequences: not listed.
    assert_eq!(
        shown.detail[1..shown.detail.len() - 1],
        [
            "server stderr (last lines):",
            "  | Traceback (most recent call last):",
            "  | ZeroDivisionError: division by zero"
        ]
    );
    assert!(
        shown.verdicts[0]["failures"]
            .as_array()
            .is_some_and(|failures| failures.len() > 1),
        "results.json keeps every failure"
    );
}

/// The `crashed` verdict names the exit code or the signal. A server that
/// kills itself with SIGKILL once its elicitation is answered crashed, and the
/// verdict names the signal; the evidence keeps it (`exit_signal`).
#[test]
fn a_server_killed_by_a_signal_crashed_and_the_signal_is_named() {
    let shown = assert_verdict(
        "kill-self-on-answer",
        "accept_valid",
        &[],
        "crashed",
        "killed by signal 9 (SIGKILL) before replying to tools/call",
    );
    assert_eq!(shown.code, Some(1));
    let evidence = &shown.verdicts[0]["evidence"];
    assert_eq!(evidence["exit_code"], Value::Null);
    assert_eq!(evidence["exit_signal"], 9);
    assert_eq!(evidence["forced_kill"], false);
    assert!(
        evidence["timeline"]
            .to_string()
            .contains("killed by signal 9 (SIGKILL)"),
        "{}",
        evidence["timeline"]
    );
}

#[test]
fn a_server_that_never_answers_the_call_hung() {
    let shown = assert_verdict(
        "hang-on-call",
        "accept_valid",
        &["--call-timeout", "0.5"],
        "hung",
        "no reply to tools/call within 0.5 s",
    );
    assert_eq!(shown.code, Some(1));
    assert_eq!(shown.detail.len(), 2, "{:?}", shown.detail);
}

#[test]
fn two_consecutive_hung_cases_stop_the_run_unless_keep_going() {
    let dir = OutputDir::new("hung-stop");
    let args = run_args(
        &["--cases", "5", "--seed", "1", "--call-timeout", "0.5"],
        &dir,
        misbehaving("hang-on-call"),
    );
    let output = run(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("stopped (hung): 0 passed, 2 failed in ")),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("stopped after 2 consecutive hung cases (verdict hung: no reply to tools/call); give --keep-going to run every case"),
        "{stderr}"
    );
    let summary = dir.json("run.json");
    assert_eq!(summary["status"], "stopped");
    assert_eq!(summary["cases"], 2);
    let stop = "stopped after 2 consecutive hung cases (verdict hung: no reply to tools/call); give --keep-going to run every case";
    assert_eq!(summary["stopped_because"], stop);
    // results.json and results.jsonl say the run stopped too.
    let results = dir.json("results.json");
    let results = results.as_array().expect("an array");
    assert_eq!(
        results.len(),
        3,
        "2 verdicts and the run's end: {results:?}"
    );
    assert_eq!(results[1]["verdict"], "hung");
    assert_eq!(
        results[2],
        json!({"run_status": "stopped", "cases": 2, "stopped_because": stop})
    );
    assert_eq!(
        dir.read("results.jsonl")
            .lines()
            .last()
            .map(serde_json::from_str::<Value>)
            .and_then(Result::ok),
        Some(results[2].clone())
    );

    let args = run_args(
        &[
            "--case",
            "accept_valid",
            "--case",
            "decline",
            "--case",
            "cancel",
            "--keep-going",
            "--call-timeout",
            "0.5",
        ],
        &dir,
        misbehaving("hang-on-call"),
    );
    let output = run(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("0 passed, 3 failed in ")),
        "{stdout}"
    );
    assert_eq!(dir.json("run.json")["verdicts"], json!({"hung": 3}));
    // A run that finished has no end record: every element is a verdict.
    let results = dir.json("results.json");
    assert!(
        results
            .as_array()
            .is_some_and(|all| all.len() == 3 && all.iter().all(|v| v["verdict"] == "hung")),
        "{results}"
    );
}

/// Section 1b: "once a run starts, run.json, results.json and results.jsonl
/// always describe the same run (an aborted run says so in all three)". A
/// server whose program is gone after its first start (a script that deletes
/// itself, then execs the reference server) cannot be spawned for the second
/// case: the run aborts (exit 2), and each file says so.
#[test]
fn an_aborted_run_says_so_in_all_three_evidence_files() {
    let dir = OutputDir::new("aborted");
    let script = dir.beside("server.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nrm -f \"$0\"\nexec {} serve\n",
            env!("CARGO_BIN_EXE_elicit-check")
        ),
    )
    .expect("the server script");
    let mut permissions = std::fs::metadata(&script).expect("written").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&script, permissions).expect("executable");
    let script_text = script.to_string_lossy().into_owned();
    let output = run(&[
        "--case",
        "accept_valid",
        "--case",
        "decline",
        "-j",
        "1",
        "--output",
        &dir.text(),
        "--",
        &script_text,
    ]);
    let _ = std::fs::remove_file(&script);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
    let because = format!(
        "cannot start server {}: No such file or directory (os error 2)",
        shlex::try_quote(&script_text).expect("quotable")
    );
    assert!(stderr.contains(&because), "{stderr}");
    let summary = dir.json("run.json");
    assert_eq!(summary["status"], "aborted");
    assert_eq!(summary["cases"], 1);
    assert_eq!(summary["stopped_because"], because.as_str());
    let end = json!({"run_status": "aborted", "cases": 1, "stopped_because": because});
    let lines: Vec<Value> = dir
        .read("results.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["case"], "accept_valid");
    assert_eq!(lines[0]["verdict"], "passed");
    assert_eq!(lines[1], end);
    assert_eq!(dir.json("results.json"), Value::Array(lines));
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("aborted after 1 case: 1 passed, 0 failed in ")),
        "{stdout}"
    );
}

/// The hung cases in a row are counted across the run's phases: a hung
/// contract case (the last one run) and the first generated case after it are
/// two consecutive hung cases, and the run stops there (not after a second
/// generated one).
#[test]
fn a_hung_contract_case_and_a_hung_generated_case_are_two_in_a_row() {
    let dir = OutputDir::new("hung-phases");
    let args = run_args(
        &[
            "--case",
            "cancel",
            "--cases",
            "3",
            "--seed",
            "1",
            "--call-timeout",
            "0.5",
        ],
        &dir,
        misbehaving("hang-on-call"),
    );
    let output = run(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let summary = dir.json("run.json");
    assert_eq!(summary["status"], "stopped", "{stdout}");
    assert_eq!(summary["cases"], 2, "{stdout}");
    let results = dir.json("results.json");
    let rows: Vec<(&str, &str)> = results
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|verdict| Some((verdict["case"].as_str()?, verdict["verdict"].as_str()?)))
        .collect();
    assert_eq!(rows, [("cancel", "hung"), ("generated_0001", "hung")]);
}

#[test]
fn a_banner_on_stdout_is_named_with_its_line() {
    let shown = assert_verdict(
        "banner",
        "accept_valid",
        &[],
        "stdout_not_json_rpc",
        "stdout line #1 is not a JSON-RPC message: \"hello\"",
    );
    assert_eq!(shown.code, Some(1));
}

#[test]
fn a_server_that_floods_stdout_keeps_a_hundred_lines_and_counts_the_rest() {
    // `yes` prints "y" lines as fast as the pipe takes them and never answers
    // initialize: a did-not-start case (exit 2) whose evidence keeps the first
    // 100 stray lines and counts the others, instead of millions of records.
    crate::support::require_program("yes", "the flooding server is coreutils' yes");
    let dir = OutputDir::new("flood");
    let output = run(&run_args(
        &["--case", "accept_valid", "--startup-timeout", "2"],
        &dir,
        vec!["yes".to_owned()],
    ));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let verdicts = dir.json("results.json");
    let verdict = &verdicts[0];
    assert_eq!(verdict["verdict"], "stdout_not_json_rpc", "{stdout}");
    let kept = verdict["evidence"]["stray_stdout"]
        .as_array()
        .expect("the stray lines");
    assert_eq!(kept.len(), 100);
    assert!(kept.iter().all(|line| line["line"] == "y"));
    let not_kept = verdict["evidence"]["stray_stdout_not_kept"]
        .as_u64()
        .expect("a count of the lines not kept");
    assert!(not_kept > 0);
    // Five lines named, then one count of all the others.
    let failures: Vec<&str> = verdict["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .filter_map(Value::as_str)
        .filter(|failure| failure.contains("non-JSON-RPC line"))
        .collect();
    assert_eq!(failures.len(), 6, "{failures:?}");
    assert_eq!(
        failures[5],
        format!("and {} more non-JSON-RPC lines on stdout", 95 + not_kept)
    );
    let size = std::fs::metadata(dir.join("results.json"))
        .expect("results.json")
        .len();
    assert!(size < 1 << 20, "results.json is {size} bytes");
}

/// An error reply that is no JSON-RPC error object is a malformed result for
/// the reference server, which answers the call at once (it used to wait for
/// an answer rmcp had refused: `hung`), and for the model.
#[test]
fn the_reference_server_reads_an_error_that_is_no_error_object_as_malformed() {
    for error in [
        "{}",
        "null",
        r#"{"code":-32603}"#,
        r#"{"code":"x","message":1}"#,
    ] {
        let dir = OutputDir::new("answer-error-object");
        let output = run(&[
            "--answer-error".to_owned(),
            error.to_owned(),
            "--output".to_owned(),
            dir.text(),
        ]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{error}: {stdout}");
        let verdict = &dir.json("results.json")[0];
        let malformed = json!({"status": "invalid_response", "computed": false,
                               "error": "malformed elicitation result"});
        assert_eq!(verdict["expected"], malformed, "{error}");
        assert_eq!(verdict["evidence"]["outcome"], malformed, "{error}");
    }
}

#[test]
fn a_second_elicitation_in_one_call_is_re_asked() {
    let shown = assert_verdict(
        "re-ask",
        "accept_valid",
        &[],
        "re_asked",
        "2 elicitation/create requests in one tools/call (ids 0, 1)",
    );
    assert_eq!(shown.code, Some(1));
}

#[test]
fn a_url_elicitation_to_a_form_only_client_is_an_undeclared_mode() {
    let shown = assert_verdict(
        "url-mode",
        "accept_valid",
        &[],
        "undeclared_mode",
        "elicitation/create id 0 asks for mode \"url\", but the client declared only form",
    );
    assert_eq!(shown.code, Some(1));
}

#[test]
fn computing_on_a_decline_with_content_is_computed_on_refusal() {
    let shown = assert_verdict(
        "computes-on-decline",
        "decline_with_spurious_data",
        &[],
        "computed_on_refusal",
        "computed on a decline (value 21); expected status \"declined\"",
    );
    assert_eq!(shown.code, Some(1));
    // The outcome's differences add information: listed below the verdict.
    assert_eq!(
        shown.detail[1],
        "outcome $.status: \"calculated\" != \"declined\""
    );
}

/// The cancel variant: a server that computes from the content of a cancel
/// (and not of a decline) is `computed_on_refusal` on the cancel case.
#[test]
fn computing_on_a_cancel_with_content_is_computed_on_refusal() {
    let shown = assert_verdict(
        "computes-on-cancel",
        "cancel_with_spurious_data",
        &[],
        "computed_on_refusal",
        "computed on a cancel (value 21); expected status \"cancelled\"",
    );
    assert_eq!(shown.code, Some(1));
    assert_eq!(
        shown.detail[1],
        "outcome $.status: \"calculated\" != \"cancelled\""
    );
}

#[test]
fn computing_on_out_of_range_integers_is_computed_on_invalid() {
    let shown = assert_verdict(
        "ignores-bounds",
        "accept_out_of_range",
        &[],
        "computed_on_invalid",
        "computed on an accept the contract refuses (value 77): units must be an integer from 1 to 10, written without fraction or exponent; expected status \"invalid_content\"",
    );
    assert_eq!(shown.code, Some(1));
}

#[test]
fn computed_as_an_integer_is_type_drift() {
    let shown = assert_verdict(
        "computed-as-int",
        "accept_valid",
        &[],
        "type_drift",
        "$.computed is 1 (an integer), expected true (a boolean)",
    );
    assert_eq!(shown.code, Some(1));
}

#[test]
fn a_reply_under_a_string_id_is_a_wrong_reply_id() {
    let shown = assert_verdict(
        "string-reply-id",
        "accept_valid",
        &[],
        "wrong_reply_id",
        "a reply (#8) under id \"2\", which no request of the client carries (the pending request was tools/call id 2)",
    );
    assert_eq!(shown.code, Some(1));
}

#[test]
fn a_server_that_outlives_its_stdin_is_killed_and_named() {
    let shown = assert_verdict(
        "ignore-stdin-close",
        "accept_valid",
        &["--shutdown-grace", "0.5"],
        "ignored_stdin_close",
        "the server did not exit after its stdin closed (no exit code: killed after 0.5 s)",
    );
    assert_eq!(shown.verdicts[0]["evidence"]["forced_kill"], true);
    assert_eq!(shown.detail.len(), 2, "{:?}", shown.detail);
}

#[test]
fn two_consecutive_ignored_stdin_close_cases_stop_the_run_unless_keep_going() {
    let dir = OutputDir::new("ignored-stdin-close-stop");
    let args = run_args(
        &["--shutdown-grace", "0.5", "-j", "2"],
        &dir,
        misbehaving("ignore-stdin-close"),
    );
    let output = run(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("stopped (ignored_stdin_close): 0 passed, 2 failed in ")),
        "{stdout}"
    );
    let stop = "stopped after 2 consecutive ignored_stdin_close cases (the server did not exit \
                within 0.5 s of its stdin closing and was killed each time; MCP 2025-11-25, \
                Lifecycle, Shutdown, stdio); give --keep-going to run every case";
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(stop), "{stderr}");
    let summary = dir.json("run.json");
    assert_eq!(summary["status"], "stopped");
    assert_eq!(summary["cases"], 2);
    assert_eq!(summary["stopped_because"], stop);
    assert_eq!(summary["verdicts"], json!({"ignored_stdin_close": 2}));

    // A case that breaks the row: --keep-going runs all three named cases.
    let dir = OutputDir::new("ignored-stdin-close-keep-going");
    let args = run_args(
        &[
            "--case",
            "accept_valid",
            "--case",
            "decline",
            "--case",
            "cancel",
            "--keep-going",
            "--shutdown-grace",
            "0.5",
        ],
        &dir,
        misbehaving("ignore-stdin-close"),
    );
    let output = run(&args);
    assert_eq!(output.status.code(), Some(1));
    let summary = dir.json("run.json");
    assert_eq!(summary["status"], "finished");
    assert_eq!(summary["verdicts"], json!({"ignored_stdin_close": 3}));
}

/// Section 1b: a typo in `--case`, a server that does not exist (or is a
/// directory, or a file without an execute bit), or a server command without
/// `--` never touches the previous run's evidence.
#[test]
fn bad_arguments_leave_the_previous_evidence_untouched() {
    use std::os::unix::fs::PermissionsExt;
    let dir = OutputDir::new("untouched");
    let output = run(&["--case", "decline", "--output", &dir.text()].map(str::to_owned));
    assert_eq!(output.status.code(), Some(0));
    let before: Vec<String> = ["run.json", "results.json", "results.jsonl"]
        .iter()
        .map(|name| dir.read(name))
        .collect();
    assert_eq!(dir.json("run.json")["status"], "finished");
    // A server "program" that is a folder, and one that is a file nobody may run.
    let programs = Scratch::new("untouched-programs");
    let folder = programs.join("a folder");
    std::fs::create_dir_all(&folder).expect("a folder");
    let plain = programs.join("server.py");
    std::fs::write(&plain, "print('not run')\n").expect("a file");
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).expect("mode 644");
    let folder = folder.to_string_lossy().into_owned();
    let plain = plain.to_string_lossy().into_owned();
    for (args, message) in [
        (
            vec!["--case", "nope"],
            "no contract case named \"nope\"; the cases are: accept_valid,".to_owned(),
        ),
        (
            vec!["--", "/no/such/server"],
            "cannot start server: /no/such/server not found".to_owned(),
        ),
        (
            vec!["--", "no-such-server-program"],
            "cannot start server: no-such-server-program not found on PATH".to_owned(),
        ),
        (
            vec!["--", &folder, "serve"],
            format!("cannot start server: '{folder}' is a directory, not a program"),
        ),
        (
            vec!["--", &plain],
            format!("cannot start server: {plain} is not executable"),
        ),
        (
            vec!["python3", "x.py"],
            "put the server command after `--`, e.g. `elicit-check run -- python3 server.py`"
                .to_owned(),
        ),
        (
            vec!["--case", "generated_0003"],
            "--case generated_N replays a generated case of a seed: give the --seed it came from"
                .to_owned(),
        ),
        (
            vec!["--case", "decline", "--case", "cancel", "--case", "decline"],
            "--case decline is given twice: each case runs once".to_owned(),
        ),
    ] {
        let mut all = vec!["--output".to_owned(), dir.text()];
        all.extend(args.iter().map(|arg| (*arg).to_owned()));
        let output = run(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&message), "{args:?}: {stderr}");
        let after: Vec<String> = ["run.json", "results.json", "results.jsonl"]
            .iter()
            .map(|name| dir.read(name))
            .collect();
        assert_eq!(after, before, "{args:?} changed the evidence");
    }
}

/// `check` refuses a server program that cannot start before anything runs, as
/// `run` does, and both refuse an `--output` that is a file, writing nothing.
#[test]
fn check_refuses_a_program_that_cannot_start_and_both_refuse_an_output_file() {
    let dir = OutputDir::new("check-refused");
    let folder = std::env::temp_dir().to_string_lossy().into_owned();
    for (server, message) in [
        (
            "no-such-server-program",
            "cannot start server: no-such-server-program not found on PATH".to_owned(),
        ),
        (
            folder.as_str(),
            format!("cannot start server: {folder} is a directory, not a program"),
        ),
    ] {
        let output =
            crate::support::elicit_check("check", &["--output", &dir.text(), "--", server]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&message), "{stderr}");
        assert!(!stderr.contains("checking tool"), "{stderr}");
        assert!(
            !dir.path().exists(),
            "{server}: the evidence folder was written"
        );
    }
    let file = OutputDir::new("output-file");
    std::fs::write(file.path(), "not a folder").expect("a file");
    for (subcommand, args) in [
        ("run", vec!["--output", &file.text()]),
        (
            "check",
            vec!["--output", &file.text(), "--", "python3", "x.py"],
        ),
    ] {
        let output = crate::support::elicit_check(subcommand, &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "--output {} is a file, not a folder",
                file.path().display()
            )),
            "{args:?}: {stderr}"
        );
        assert_eq!(
            std::fs::read_to_string(file.path()).expect("the file"),
            "not a folder"
        );
    }
    let _ = std::fs::remove_file(file.path());
}

/// A bare program name is looked up on `PATH` as `execvp` does: a file there
/// without an execute bit is no program, and the message says which file it was.
#[test]
fn a_program_on_path_must_be_executable() {
    use std::os::unix::fs::PermissionsExt;
    let bin = Scratch::new("path-bin");
    let plain = bin.join("my-server");
    std::fs::write(&plain, "#!/bin/sh\n").expect("a file");
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).expect("mode 644");
    let dir = OutputDir::new("path-output");
    let output = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .args(["run", "--output", &dir.text(), "--", "my-server"])
        .env("PATH", bin.path())
        .env_remove("RUST_LOG")
        .output()
        .expect("elicit-check runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "cannot start server: my-server not found on PATH ({} is not executable)",
            plain.display()
        )),
        "{stderr}"
    );
    assert!(
        !dir.path().exists(),
        "no evidence folder for a run that cannot start"
    );
}

/// Section 1b: a failed generated case's reproduction command replays exactly
/// its answer (`--case generated_N --seed S`), and results.json is complete.
#[test]
fn a_generated_failure_reproduces_exactly_from_its_command() {
    let server = crate::support::calculator(Some("computes-on-decline"));
    let dir = OutputDir::new("replay");
    // Seed 81 makes the first generated case a decline carrying a valid form.
    let output = run(&run_args(
        &["--cases", "1", "--seed", "81"],
        &dir,
        server.clone(),
    ));
    assert_eq!(output.status.code(), Some(1));
    let verdicts = dir.json("results.json");
    let verdicts = verdicts.as_array().expect("an array");
    assert_eq!(verdicts.len(), 20, "19 contract cases and 1 generated");
    let generated = &verdicts[19];
    assert_eq!(generated["case"], "generated_0001");
    assert_eq!(generated["verdict"], "computed_on_refusal");
    let expected_command = format!(
        "elicit-check run --case generated_0001 --seed 81 -- {} {}/fixtures/servers/calculator.py --bug computes-on-decline",
        crate::support::python3_quoted(),
        env!("CARGO_MANIFEST_DIR")
    );
    assert_eq!(generated["reproduce"], expected_command.as_str());

    let replay_dir = OutputDir::new("replayed");
    let words = shlex::split(&expected_command).expect("a shell line");
    let mut replay: Vec<String> = words[2..].to_vec();
    replay.splice(0..0, ["--output".to_owned(), replay_dir.text()]);
    let output = run(&replay);
    assert_eq!(output.status.code(), Some(1));
    let replayed = replay_dir.json("results.json");
    let replayed = replayed.as_array().expect("an array");
    assert_eq!(replayed.len(), 1, "only the named case runs");
    assert_eq!(replayed[0]["case"], "generated_0001");
    assert_eq!(
        replayed[0]["evidence"]["input"],
        generated["evidence"]["input"]
    );
    assert_eq!(replayed[0]["verdict"], "computed_on_refusal");
    // run.json counts the replayed generated case; the table has no header
    // (generated cases have no rows), the failure is listed with its reason.
    assert_eq!(replay_dir.json("run.json")["generated_cases"], 1);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("verdict\n"), "{stdout}");
    assert!(stdout.contains("generated_0001"), "{stdout}");
    // --cases beside a named generated case is refused, not ignored.
    replay.splice(0..0, ["--cases".to_owned(), "3".to_owned()]);
    let refused = run(&replay);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("--cases cannot be used with --case generated_N"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

/// Section 1b for `check`: a server that prints `hello` and exits still gets its
/// report file, and the stray stdout line is named.
#[test]
fn check_writes_its_report_when_the_server_did_not_start_and_names_stray_stdout() {
    let dir = OutputDir::new("check-start");
    let output = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .args([
            "check",
            "--tool",
            "calculate",
            "--acted",
            "/computed",
            "--output",
        ])
        .arg(dir.text())
        .args(["--", "python3", "-c", "print('hello')"])
        .env_remove("RUST_LOG")
        .output()
        .expect("elicit-check runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("of python3 -c 'print('\\''hello'\\'')'")
            || stderr.contains("of python3 -c \"print('hello')\""),
        "the command is shell-quoted: {stderr}"
    );
    assert!(
        stderr.contains("--- its stdout lines that are not JSON-RPC ---\n#"),
        "{stderr}"
    );
    assert!(stderr.contains(": \"hello\""), "{stderr}");
    assert!(
        !stderr.contains("its stderr (last lines)"),
        "no empty banner: {stderr}"
    );
    let report = dir.json("check.json");
    assert_eq!(report["passed"], false);
    assert_eq!(report["tool"], "calculate");
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|error| error.starts_with("the server did not start: ")
                && error.contains("\"hello\"")),
        "{report}"
    );
}

/// A run keeps only a tally per case in memory: results.json
/// is rebuilt from results.jsonl, and both must still hold every case of the
/// run, whole, in order, as run.json counts them. A generated case named in
/// `--case` with its seed replays exactly that case (here the third, so the two
/// before it are generated but not run).
#[test]
fn results_json_holds_the_whole_run_and_a_later_generated_case_replays_alone() {
    let dir = OutputDir::new("complete");
    let args = ["--cases", "3", "--seed", "1", "--output", &dir.text()].map(str::to_owned);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0));
    let verdicts = dir.json("results.json");
    let verdicts = verdicts.as_array().expect("an array");
    let lines: Vec<Value> = dir
        .read("results.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(verdicts, &lines, "results.json and results.jsonl agree");
    assert_eq!(verdicts.len(), 22, "19 contract cases and 3 generated");
    assert_eq!(verdicts[0]["case"], "accept_valid");
    assert_eq!(verdicts[21]["case"], "generated_0003");
    assert!(
        verdicts
            .iter()
            .all(|verdict| verdict["verdict"] == "passed")
    );
    let summary = dir.json("run.json");
    assert_eq!(summary["status"], "finished");
    assert_eq!(summary["cases"], 22);
    assert_eq!(summary["passed"], 22);
    assert_eq!(summary["verdicts"], json!({}));

    let replay = OutputDir::new("complete-replay");
    let args = [
        "--case",
        "generated_0003",
        "--seed",
        "1",
        "--output",
        &replay.text(),
    ]
    .map(str::to_owned);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0));
    let replayed = replay.json("results.json");
    let replayed = replayed.as_array().expect("an array");
    assert_eq!(replayed.len(), 1);
    assert_eq!(replayed[0]["case"], "generated_0003");
    assert_eq!(
        replayed[0]["evidence"]["input"],
        verdicts[21]["evidence"]["input"]
    );
}

/// A hung generated case is not shrunk: each shrink run would cost one call
/// bound.
#[test]
fn a_hung_generated_case_is_not_shrunk() {
    let dir = OutputDir::new("hung-generated");
    let args = run_args(
        &[
            "--case",
            "generated_0001",
            "--seed",
            "1",
            "--call-timeout",
            "0.5",
        ],
        &dir,
        misbehaving("hang-on-call"),
    );
    let output = run(&args);
    assert_eq!(output.status.code(), Some(1));
    let summary = dir.json("run.json");
    assert_eq!(summary["verdicts"], json!({"hung": 1}));
    assert_eq!(summary["minimal_failure"], Value::Null);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.contains("minimal failing generated case"),
        "{stdout}"
    );
}

/// Failed generated cases have no table row: each of the first ten is shown
/// before the summary lines as a contract case is under its row (its primary
/// verdict with the evidence, its reproduction line), then how many more
/// there are. Every case of `hang-on-call` hangs, so none is shrunk.
#[test]
fn failed_generated_cases_are_shown_before_the_summary_at_most_ten() {
    let dir = OutputDir::new("generated-shown");
    let mut flags = vec!["--seed", "1", "--call-timeout", "0.5", "--keep-going"];
    let names: Vec<String> = (1..=12)
        .map(|index| format!("generated_{index:04}"))
        .collect();
    for name in &names {
        flags.extend(["--case", name.as_str()]);
    }
    let output = run(&run_args(&flags, &dir, misbehaving("hang-on-call")));
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut expected: Vec<String> = Vec::new();
    for name in &names[..10] {
        expected.push(format!(
            "    {name}: hung: no reply to tools/call within 0.5 s"
        ));
        expected.push(format!(
            "    {name}: reproduce: elicit-check run --case {name} --seed 1 -- {} {} --fault hang-on-call",
            crate::support::python3_quoted(),
            crate::support::MISBEHAVING
        ));
    }
    expected.push("... and 2 more failed generated cases: see results.json".to_owned());
    expected.push("generated: 0 passed, 12 failed".to_owned());
    let lines: Vec<&str> = stdout.lines().collect();
    // No table header (no contract case ran, so no row), then the summary line.
    assert_eq!(lines.len(), expected.len() + 1, "{stdout}");
    assert_eq!(lines[..expected.len()], expected, "{stdout}");
    assert!(
        lines[expected.len()].starts_with("0 passed, 12 failed in "),
        "{stdout}"
    );
    assert_eq!(dir.json("run.json")["verdicts"], json!({"hung": 12}));
}

/// The script of `fixtures/servers/calculator.py` as a reproduction line quotes it.
fn calculator_words(bug: &str) -> (Vec<String>, String) {
    let server = crate::support::calculator(Some(bug));
    let line = elicit_check::error::shell_words(&server);
    (server, line)
}

/// Runs the reproduction line `line` (`elicit-check run ...`) with its output in
/// `dir`; returns the exit code and the verdicts.
fn replay(line: &str, dir: &OutputDir) -> (Option<i32>, Vec<Value>) {
    let words = shlex::split(line).expect("a shell line");
    assert_eq!(words[..2], ["elicit-check", "run"], "{line}");
    let mut args = vec!["--output".to_owned(), dir.text()];
    args.extend(words[2..].iter().cloned());
    let output = run(&args);
    (
        output.status.code(),
        dir.json("results.json")
            .as_array()
            .cloned()
            .expect("an array"),
    )
}

/// Section 1b: the shrunk minimal failure gets a copy-paste reproduction too,
/// `run --answer JSON` with its inputs; run, it gives the same verdict on the
/// same answer, judged against the outcome of a decline ("declined").
#[test]
fn the_minimal_failure_reproduces_from_its_answer_line() {
    let (server, server_line) = calculator_words("computes-on-decline");
    let dir = OutputDir::new("minimal-line");
    // Seed 81 makes the first generated case a decline carrying a valid form.
    let output = run(&run_args(&["--cases", "1", "--seed", "81"], &dir, server));
    assert_eq!(output.status.code(), Some(1));
    let minimal = dir.json("run.json")["minimal_failure"].clone();
    let line = minimal["reproduce"]
        .as_str()
        .expect("a reproduction")
        .to_owned();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout
            .lines()
            .any(|got| got == format!("    reproduce: {line}")),
        "printed under the minimal failure: {stdout}"
    );
    let answer = &minimal["case"]["answer"]["result"];
    assert_eq!(answer["action"], "decline", "{minimal}");
    assert_eq!(
        shlex::split(&line).expect("a shell line"),
        shlex::split(&format!(
            "elicit-check run --answer '{answer}' -- {server_line}"
        ))
        .expect("a shell line"),
        "the contract's policy and capabilities are left out"
    );
    let again = OutputDir::new("minimal-replayed");
    let (code, verdicts) = replay(&line, &again);
    assert_eq!(code, Some(1));
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0]["case"], "answer");
    assert_eq!(verdicts[0]["verdict"], "computed_on_refusal");
    assert_eq!(
        verdicts[0]["expected"],
        json!({"status": "declined", "computed": false})
    );
    assert_eq!(
        verdicts[0]["evidence"]["input"]["answer"]["result"],
        *answer
    );
    assert_eq!(
        verdicts[0]["evidence"]["input"]["capabilities"],
        minimal["case"]["capabilities"]
    );
    assert_eq!(
        verdicts[0]["reproduce"],
        line.as_str(),
        "it reproduces itself"
    );
}

/// Section 1b: a run with `--exact-messages` and `--session` gives
/// reproductions that carry both, and the printed line gives the same verdict.
#[test]
fn a_reproduction_carries_exact_messages_and_session_and_gives_the_same_verdict() {
    let (server, server_line) = calculator_words("computes-on-decline");
    let dir = OutputDir::new("flags-line");
    let mut args: Vec<String> = [
        "--exact-messages",
        "--session",
        "--case",
        "decline_with_spurious_data",
        "--output",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(dir.text());
    args.push("--".to_owned());
    args.extend(server);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(1));
    let verdicts = dir.json("results.json");
    let line = verdicts[0]["reproduce"].as_str().expect("a reproduction");
    assert_eq!(
        line,
        format!(
            "elicit-check run --exact-messages --session --case decline_with_spurious_data -- {server_line}"
        )
    );
    let again = OutputDir::new("flags-replayed");
    let (code, replayed) = replay(line, &again);
    assert_eq!(code, Some(1));
    assert_eq!(replayed[0]["case"], "decline_with_spurious_data");
    assert_eq!(replayed[0]["verdict"], "computed_on_refusal");
    assert_eq!(again.json("run.json")["mode"], "session");
}

/// `run --answer JSON` runs one case with that raw answer (its text sent as
/// written, `-0` kept), judged against the reference model's outcome for its
/// inputs (the contract table: `-0` is no integer, so `invalid_content`; a
/// JSON-RPC error is `protocol_error` with its code and message; no form
/// declared under a guarded policy is `unsupported`). Bad values are refused
/// before anything is written.
/// `--policy` or `--capabilities` without `--answer`: the harness client answers
/// `elicitation/create` as a spec client does (docs/src/run.md, "Options"):
/// `{"action":"cancel"}` when form is declared, JSON-RPC error -32602 when not.
#[test]
fn run_without_an_answer_lets_the_client_answer_as_a_spec_client() {
    for (args, reply) in [
        (
            vec!["--policy", "validated"],
            json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "cancel"}}),
        ),
        (
            vec!["--policy", "diagnostic_unchecked", "--capabilities", "{}"],
            json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32602, "message": "elicitation mode not declared: form"}}),
        ),
    ] {
        let dir = OutputDir::new("no-answer");
        let mut all: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        all.extend(["--output".to_owned(), dir.text()]);
        let output = run(&all);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let verdicts = dir.json("results.json");
        let replies: Vec<&Value> = verdicts[0]["evidence"]["wire"]
            .as_array()
            .expect("the wire")
            .iter()
            .filter(|frame| frame["from"] == "client" && frame["message"].get("method").is_none())
            .map(|frame| &frame["message"])
            .collect();
        assert_eq!(replies, [&reply], "{args:?}");
    }
}

#[test]
fn run_answer_runs_one_case_with_that_raw_answer() {
    for (args, expected) in [
        (
            vec![
                "--answer",
                r#"{"action": "accept", "content": {"units": -0, "unit_value": 7}}"#,
            ],
            json!({"status": "invalid_content", "computed": false, "errors": [["units"]]}),
        ),
        (
            vec!["--answer-error", r#"{"code":-32603,"message":"boom"}"#],
            json!({"status": "protocol_error", "computed": false, "code": -32603, "error": "boom"}),
        ),
        (
            vec!["--capabilities", "{}", "--policy", "raw"],
            json!({"status": "unsupported", "computed": false, "requested": false}),
        ),
    ] {
        let dir = OutputDir::new("answer");
        let mut all: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        all.extend(["--output".to_owned(), dir.text()]);
        let output = run(&all);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stdout}");
        let verdicts = dir.json("results.json");
        assert_eq!(verdicts.as_array().map(Vec::len), Some(1), "{args:?}");
        assert_eq!(verdicts[0]["case"], "answer");
        assert_eq!(verdicts[0]["expected"], expected, "{args:?}");
        assert_eq!(verdicts[0]["evidence"]["outcome"], expected, "{args:?}");
    }
    let dir = OutputDir::new("answer-text");
    let output = run(&[
        "--answer",
        r#"{"action": "accept", "content": {"units": -0, "unit_value": 7}}"#,
        "--output",
        &dir.text(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        dir.json("results.json")[0]["evidence"]["input"]["answer_text"],
        json!({"action": "accept", "content": {"units": -0.0, "unit_value": 7}}),
    );
    assert!(
        dir.read("results.json")
            .contains(r#""answer_text":{"action":"accept","content":{"units":-0,"unit_value":7}}"#),
        "the answer's text is kept as written, without the spaces"
    );
    // A failed --answer case reproduces by its answer.
    let (server, server_line) = calculator_words("computes-on-decline");
    let decline = r#"{"action":"decline","content":{"units":3,"unit_value":7}}"#;
    let dir = OutputDir::new("answer-failed");
    let mut args: Vec<String> = vec!["--answer".to_owned(), decline.to_owned()];
    args.extend(["--output".to_owned(), dir.text(), "--".to_owned()]);
    args.extend(server);
    let output = run(&args);
    assert_eq!(output.status.code(), Some(1));
    let verdicts = dir.json("results.json");
    assert_eq!(verdicts[0]["verdict"], "computed_on_refusal");
    assert_eq!(
        verdicts[0]["primary"],
        "computed on a decline (value 21); expected status \"declined\""
    );
    assert_eq!(
        verdicts[0]["reproduce"],
        format!("elicit-check run --answer '{decline}' -- {server_line}").as_str()
    );
    let refused = OutputDir::new("answer-refused");
    for (args, says) in [
        (
            vec!["--answer", "nope"],
            "--answer \"nope\" is not JSON the oracles can read",
        ),
        // A number beyond f64: refused with serde_json's reason, no panic.
        (
            vec![
                "--answer",
                r#"{"action":"accept","content":{"units":1e400}}"#,
            ],
            "is not JSON the oracles can read: number out of range at line 1 column 43",
        ),
        (
            vec!["--answer-error", r#"{"code":1e400,"message":"x"}"#],
            "is not JSON the oracles can read: number out of range",
        ),
        // A member named twice: parsers disagree on which one wins.
        (
            vec![
                "--answer",
                r#"{"action":"accept","content":{"units":3,"units":3}}"#,
            ],
            "is not JSON the oracles can read: the member \"units\" twice in one object",
        ),
        (
            vec!["--capabilities", "[1]"],
            "--capabilities must be a JSON object, got [1]",
        ),
        (
            vec!["--answer", "{}", "--case", "decline"],
            "the argument '--answer <JSON>' cannot be used with '--case <NAME>'",
        ),
        (
            vec!["--answer", "{}", "--answer-error", "{}"],
            "cannot be used with",
        ),
        (
            vec!["--policy", "lenient"],
            "invalid value 'lenient' for '--policy <NAME>'",
        ),
    ] {
        let mut all: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        all.extend(["--output".to_owned(), refused.text()]);
        let output = run(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(
            !refused.path().exists(),
            "{args:?} wrote the evidence folder"
        );
    }
}

/// JSON-RPC 2.0, section 5: an invalid request object gets `-32600` *with its
/// id* when it has one. Over stdio, a server that answers the line that is not
/// JSON with `-32700` (id null) but the object `{"jsonrpc":"2.0","id":41}`
/// with a `-32600` that has no `id` (as rmcp 3.11 alone does) fails
/// `not_json_and_no_method` with `no_error_reply` naming the missing id, and
/// only that (exit 1).
#[test]
fn an_invalid_request_answered_without_its_id_is_no_error_reply() {
    let dir = OutputDir::new("no-id");
    let output = run(&run_args(
        &["--hostile", "--case", "not_json_and_no_method"],
        &dir,
        misbehaving("request-error-without-id"),
    ));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let verdicts = dir.json("results.json");
    let verdict = &verdicts[0];
    assert_eq!(verdict["verdict"], "no_error_reply");
    assert_eq!(
        verdict["primary"],
        "no JSON-RPC error -32600 with id 41 in reply to the request object with id 41 and no method"
    );
    assert_eq!(
        verdict["failures"],
        json!([
            "no JSON-RPC error -32600 with id 41 in reply to the request object with id 41 and no method"
        ]),
        "the -32700 and the next call are right"
    );
    let error_replies: Vec<&Value> = verdict["evidence"]["wire"]
        .as_array()
        .expect("frames")
        .iter()
        .filter(|frame| frame["from"] == "server" && frame["message"].get("error").is_some())
        .map(|frame| &frame["message"])
        .collect();
    assert_eq!(
        error_replies[..2],
        [
            &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}),
            &json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}}),
        ]
    );
    assert_eq!(
        dir.json("run.json")["verdicts"],
        json!({"no_error_reply": 1})
    );
}
