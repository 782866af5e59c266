//! `elicit-check run` end to end: the table, the summary, the exit code and the
//! evidence, against the reference server and against a Python peer server with
//! bugs planted on purpose (`fixtures/servers/calculator.py`).

use std::process::Command;

use serde_json::Value;

use crate::support::run_elicit_check as run;
use crate::support::{OutputDir, calculator};

/// Runs the 19 contract cases (no generated ones) against `server` (empty: the
/// reference server); returns stdout, the exit code and the verdicts written.
fn run_contract(test: &str, server: &[String]) -> (String, Option<i32>, Vec<Value>) {
    let dir = OutputDir::new(test);
    let dir_text = dir.text();
    let mut args = vec!["--cases", "0", "--output", dir_text.as_str()];
    if !server.is_empty() {
        args.push("--");
        args.extend(server.iter().map(String::as_str));
    }
    let output = run(&args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let results = std::fs::read_to_string(dir.join("results.json")).unwrap_or_else(|error| {
        panic!(
            "no results.json ({error}); stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let verdicts: Vec<Value> = serde_json::from_str(&results).expect("results.json is JSON");
    (stdout, output.status.code(), verdicts)
}

/// The names of the failed cases in `results.json`'s verdicts, in order.
fn failed_cases(verdicts: &[Value]) -> Vec<&str> {
    verdicts
        .iter()
        .filter(|verdict| verdict["passed"] == Value::Bool(false))
        .filter_map(|verdict| verdict["case"].as_str())
        .collect()
}

#[test]
fn run_passes_all_nineteen_cases_against_the_reference_server() {
    let (stdout, code, verdicts) = run_contract("reference", &[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(verdicts.len(), 19);
    assert!(
        verdicts
            .iter()
            .all(|verdict| verdict["passed"] == Value::Bool(true))
    );
    // The summary line gives the time, the throughput and how the cases ran.
    let summary = regex::Regex::new(
        r"^19 passed, 0 failed in \d+\.\d s \(\d+\.\d cases/s; fresh-process, -j [1-9]\d*\)$",
    )
    .expect("a regex");
    assert!(
        stdout.lines().any(|line| summary.is_match(line)),
        "{stdout}"
    );
    let row = stdout
        .lines()
        .find(|line| line.starts_with("accept_valid "))
        .expect("a row per case");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["accept_valid", "calculated", "true", "21", "pass"]);
    let evidence = &verdicts[0]["evidence"];
    for key in [
        "case",
        "elicit_check_version",
        "rmcp_version",
        "pid",
        "protocol_version",
        "wire",
        "timeline",
        "callbacks",
        "stray_stdout",
        "stderr",
        "exit_code",
        "forced_kill",
        "outcome",
    ] {
        assert!(evidence.get(key).is_some(), "evidence lacks {key}");
    }
}

#[test]
fn run_passes_a_conformant_python_server_it_did_not_build() {
    let (stdout, code, _) = run_contract("python-ok", &calculator(None));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("19 passed, 0 failed in ")),
        "{stdout}"
    );
}

#[test]
fn a_server_that_computes_on_decline_fails_naming_the_case_and_path() {
    let (stdout, code, verdicts) =
        run_contract("python-decline", &calculator(Some("computes-on-decline")));
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("decline_with_spurious_data: outcome $.computed: true != false"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "cancel_with_spurious_data: outcome $.status: \"calculated\" != \"cancelled\""
        ),
        "{stdout}"
    );
    let failed = failed_cases(&verdicts);
    assert_eq!(
        failed,
        ["decline_with_spurious_data", "cancel_with_spurious_data"]
    );
}

#[test]
fn a_server_that_answers_computed_as_an_integer_fails_every_case_it_answers() {
    let (stdout, code, verdicts) = run_contract("python-int", &calculator(Some("computed-as-int")));
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("accept_valid: outcome $.computed: integer != boolean"),
        "{stdout}"
    );
    assert!(
        stdout.contains("decline: outcome $.computed: integer != boolean"),
        "{stdout}"
    );
    assert_eq!(failed_cases(&verdicts).len(), 19);
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("0 passed, 19 failed in ")),
        "{stdout}"
    );
}

#[test]
fn a_server_that_accepts_a_whole_float_fails_only_that_case() {
    let (stdout, code, verdicts) =
        run_contract("python-float", &calculator(Some("float-as-integer")));
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "accept_float_integer: outcome $.status: \"calculated\" != \"invalid_content\""
        ),
        "{stdout}"
    );
    let failed = failed_cases(&verdicts);
    assert_eq!(failed, ["accept_float_integer"]);
}

#[test]
fn a_line_of_noise_on_stdout_is_caught_although_rmcp_would_skip_it() {
    let (stdout, code, verdicts) = run_contract("python-noise", &calculator(Some("stdout-noise")));
    assert_eq!(code, Some(1), "{stdout}");
    let primary = stdout
        .lines()
        .find(|line| line.starts_with("    accept_valid: "))
        .expect("a line under the failed row");
    assert!(
        primary.starts_with("    accept_valid: stdout_not_json_rpc: stdout line #")
            && primary.ends_with(" is not a JSON-RPC message: \"calculating...\""),
        "{stdout}"
    );
    assert_eq!(verdicts[0]["verdict"], "stdout_not_json_rpc");
    assert_eq!(
        verdicts[0]["evidence"]["stray_stdout"][0]["line"],
        "calculating..."
    );
}

#[test]
fn a_server_that_cannot_start_is_a_clear_error() {
    let output = run(&[
        "--cases",
        "0",
        "--output",
        &OutputDir::new("missing").text(),
        "--",
        "/nonexistent/server",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot start server: /nonexistent/server not found"),
        "{stderr}"
    );
}

/// A negative number after a numeric option is that option's value, refused by
/// clap's own check, never a stray argument: no "use '-- -1'" tip and no hint to
/// put the server command after `--`. A misspelt option gets no such hint
/// either; a stray word does (`bad_arguments_leave_the_previous_evidence_untouched`).
#[test]
fn a_negative_number_is_the_options_value_and_is_refused_as_such() {
    let dir = OutputDir::new("negative");
    for (args, message) in [
        (["--cases", "-1"], "invalid value '-1' for '--cases <N>'"),
        (["--seed", "-5"], "invalid value '-5' for '--seed <S>'"),
        (["-j", "-1"], "invalid value '-1' for '--jobs <N>'"),
        (
            ["--startup-timeout", "-1"],
            "invalid value '-1' for '--startup-timeout <SECS>'",
        ),
        (
            ["--call-timeout", "-2"],
            "invalid value '-2' for '--call-timeout <SECS>'",
        ),
        (["--bogus", "x"], "unexpected argument '--bogus' found"),
    ] {
        let mut all = vec!["--output".to_owned(), dir.text()];
        all.extend(args.iter().map(|arg| (*arg).to_owned()));
        let output = run(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("put the server command after"),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains(&format!("use '-- {}'", args[1])),
            "{args:?}: {stderr}"
        );
        assert!(!dir.path().exists(), "{args:?} wrote evidence");
    }
}

/// Whether process `pid` is alive (a zombie waiting for its parent is not).
fn is_running(pid: u32) -> bool {
    for _ in 0..40 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // The state letter follows the parenthesised command name.
        let state = stat.rsplit(')').next().unwrap_or_default().trim_start();
        if state.starts_with('Z') || state.starts_with('X') {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    true
}

/// Runs `elicit-check run --cases 0` with `extra` arguments; returns the exit
/// code, stderr and the verdicts written (`results.jsonl`: every case that ran,
/// appended as it ended, whatever `results.json` last held).
fn run_failing_start(test: &str, extra: &[&str]) -> (Option<i32>, String, Vec<Value>) {
    let dir = OutputDir::new(test);
    let dir_text = dir.text();
    let mut args = vec!["--cases", "0", "--output", &dir_text];
    args.extend(extra);
    let output = run(&args);
    let results = std::fs::read_to_string(dir.join("results.jsonl")).expect("results.jsonl");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        results
            .lines()
            .map(|line| serde_json::from_str(line).expect("JSON"))
            .collect(),
    )
}

/// A server with tools of its own but no `calculate` is not a contract
/// server: `run` says so and points at `check`, with no verdict row and no
/// reproduction line.
#[test]
fn run_on_a_server_without_calculate_points_at_check() {
    let server = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/servers/mrtr_booking.py"
    );
    let (code, stderr, verdicts) = run_failing_start("no-calculate", &["--", "python3", server]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "this server has no `calculate` tool (it offers book): `run` checks the built-in contract; to check your own tool use `elicit-check check --tool NAME"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("did_not_start"), "{stderr}");
    assert!(!stderr.contains("reproduce"), "{stderr}");
    // No case row: only the run's own summary line, saying why it stopped.
    assert_eq!(verdicts.len(), 1, "{verdicts:?}");
    assert_eq!(verdicts[0]["run_status"], "stopped");
    assert_eq!(verdicts[0]["cases"], 0);
    assert!(
        verdicts[0]["stopped_because"]
            .as_str()
            .is_some_and(|why| why.starts_with("this server has no `calculate` tool")),
        "{verdicts:?}"
    );
}

#[test]
fn a_server_that_exits_at_once_stops_the_run_with_its_stderr() {
    let (code, stderr, verdicts) =
        run_failing_start("exits", &["--", "python3", "/nonexistent/server.py"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("the server did not start: initialize failed"),
        "{stderr}"
    );
    assert!(stderr.contains("can't open file"), "{stderr}");
    assert_eq!(
        verdicts.len(),
        2,
        "the first case's evidence and the run's end"
    );
    assert_eq!(verdicts[0]["evidence"]["started"], Value::Bool(false));
    assert_eq!(verdicts[1]["run_status"], "stopped", "{}", verdicts[1]);
    assert_eq!(verdicts[1]["cases"], 1);
}

#[test]
fn generated_cases_run_after_the_contract_and_land_in_the_evidence() {
    let dir = OutputDir::new("generated");
    let output = run(&["--cases", "20", "--seed", "7", "--output", &dir.text()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line == "generated: 20 passed, 0 failed"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("39 passed, 0 failed in ")),
        "{stdout}"
    );
    let verdicts: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("results.json")).expect("results.json"),
    )
    .expect("JSON");
    assert_eq!(verdicts.len(), 39);
    assert_eq!(verdicts[19]["case"], "generated_0001");
}

#[test]
fn a_broken_server_gets_its_first_generated_failure_shrunk() {
    let dir = OutputDir::new("shrunk");
    // Seed 81 makes the first generated case a decline carrying a valid form.
    let server = calculator(Some("computes-on-decline"));
    let mut args = vec!["--cases", "1", "--seed", "81", "--output"];
    let dir_text = dir.text();
    args.push(&dir_text);
    args.push("--");
    args.extend(server.iter().map(String::as_str));
    let output = run(&args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let minimal = stdout
        .split("minimal failing generated case")
        .nth(1)
        .expect("a minimal failure is printed");
    assert!(minimal.contains("reason:"), "{minimal}");
    assert!(
        minimal.contains("decline with attached a valid form"),
        "{minimal}"
    );
    assert!(
        minimal.contains(r#"outcome:      {"status":"calculated","computed":true"#),
        "{minimal}"
    );
    assert!(
        minimal.contains(r#"expected:     {"status":"declined","computed":false}"#),
        "{minimal}"
    );
}

#[test]
fn one_case_can_be_run_alone_and_an_unknown_name_is_a_clear_error() {
    let dir = OutputDir::new("only");
    let dir_text = dir.text();
    let output = run(&["--cases", "0", "--case", "decline", "--output", &dir_text]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("1 passed, 0 failed in ")),
        "{stdout}"
    );
    let output = run(&["--cases", "0", "--case", "declined", "--output", &dir_text]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no contract case named \"declined\"; the cases are: accept_valid,"),
        "{stderr}"
    );
}

#[test]
fn a_hung_server_gets_a_verdict_within_its_bounds_and_is_killed() {
    let (code, stderr, verdicts) = run_failing_start(
        "hung",
        &[
            "--startup-timeout",
            "0.3",
            "--shutdown-grace",
            "0.3",
            "--",
            "sleep",
            "30",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("the server did not start: initialize did not finish within 0.3 s"),
        "{stderr}"
    );
    assert_eq!(verdicts[0]["evidence"]["forced_kill"], Value::Bool(true));
}

#[test]
fn a_run_stopped_by_sigterm_kills_its_server_and_keeps_the_evidence() {
    let dir = OutputDir::new("sigterm");
    let dir_text = dir.text();
    let pid_file =
        std::env::temp_dir().join(format!("elicit-check-{}-sigterm.pid", std::process::id()));
    let _ = std::fs::remove_file(&pid_file);
    // A server that answers initialize but hangs on tools/call, so the run is mid-case.
    let child = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .args([
            "run",
            "--cases",
            "0",
            "--call-timeout",
            "60",
            "--output",
            &dir_text,
            "--",
        ])
        .args(calculator(None))
        .args(["--bug", "hang-on-call", "--pid-file"])
        .arg(&pid_file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("elicit-check runs");
    let pid = child.id().to_string();
    // The server writes its pid when it starts hanging in tools/call: the case is in flight.
    let mut server_pid = None;
    for _ in 0..400 {
        std::thread::sleep(std::time::Duration::from_millis(25));
        server_pid = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok());
        if server_pid.is_some() {
            break;
        }
    }
    let _ = std::fs::remove_file(&pid_file);
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let output = child.wait_with_output().expect("elicit-check ends");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("terminated: stopping"), "{stderr}");
    let server_pid = server_pid.expect("the server pid was written");
    assert!(
        !is_running(server_pid),
        "server {server_pid} outlived the run"
    );
    let results: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("results.json")).expect("results.json"),
    )
    .expect("results.json is whole JSON");
    // The case in flight is kept as interrupted, with its frames so far, in all
    // three files, and each file says the run was interrupted:
    // results.json and results.jsonl end with the run's end record.
    assert_eq!(results.len(), 2, "the case in flight is kept: {results:?}");
    assert_eq!(
        results[1],
        serde_json::json!({"run_status": "interrupted", "cases": 1, "stopped_because": "terminated by SIGTERM"})
    );
    assert_eq!(results[0]["case"], "accept_valid");
    assert_eq!(results[0]["verdict"], "interrupted");
    assert_eq!(
        results[0]["primary"],
        "the run was terminated while this case was in flight"
    );
    let sent_call = results[0]["evidence"]["wire"]
        .as_array()
        .expect("frames")
        .iter()
        .any(|frame| frame["message"]["method"] == "tools/call");
    assert!(sent_call, "{}", results[0]["evidence"]["wire"]);
    let lines = std::fs::read_to_string(dir.join("results.jsonl")).expect("results.jsonl");
    let lines: Vec<Value> = lines
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(
        lines, results,
        "results.jsonl holds what results.json holds"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).expect("run.json"))
            .expect("run.json is JSON");
    assert_eq!(summary["status"], "interrupted");
    assert_eq!(summary["stopped_because"], "terminated by SIGTERM");
    assert_eq!(summary["verdicts"], serde_json::json!({"interrupted": 1}));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("interrupted after 1 case: 0 passed, 1 failed in ")),
        "{stdout}"
    );
}

/// Validates a `run --json` document against `schemas/run-report.schema.json`;
/// the messages of what breaks it (empty: valid).
fn run_report_errors(document: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schemas/run-report.schema.json"
        ))
        .expect("the run report schema is readable"),
    )
    .expect("the run report schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the run report schema compiles");
    validator
        .iter_errors(document)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect()
}

/// docs/src/verdicts.md: `run.json` and `--json` carry the verdict name, so a
/// CI system can group failures. `run --json` prints one JSON document on
/// stdout (nothing else: the whole of stdout parses), with run.json's members
/// and each case's verdict name, evidence line and reproduction; the closing
/// line for people goes to stderr.
#[test]
fn run_json_prints_one_document_with_the_verdict_name_of_every_case() {
    let dir = OutputDir::new("json");
    let dir_text = dir.text();
    let server = calculator(Some("computes-on-decline"));
    let mut args = vec!["--json", "--cases", "0", "--output", &dir_text, "--"];
    args.extend(server.iter().map(String::as_str));
    let output = run(&args);
    assert_eq!(output.status.code(), Some(1));
    let document: Value =
        serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    assert_eq!(run_report_errors(&document), Vec::<String>::new());
    assert_eq!(document["status"], "finished");
    assert_eq!(document["cases"], 19);
    assert_eq!(document["passed"], 17);
    assert_eq!(
        document["verdicts"],
        serde_json::json!({"computed_on_refusal": 2})
    );
    let results = document["results"].as_array().expect("results");
    assert_eq!(results.len(), 19);
    assert_eq!(
        results[0],
        serde_json::json!({"case": "accept_valid", "passed": true, "verdict": "passed", "primary": "every check held"})
    );
    let script = shlex::try_quote(&server[1]).expect("quotable").into_owned();
    let decline = results
        .iter()
        .find(|line| line["case"] == "decline_with_spurious_data")
        .expect("a line per case");
    assert_eq!(
        decline,
        &serde_json::json!({
            "case": "decline_with_spurious_data",
            "passed": false,
            "verdict": "computed_on_refusal",
            "primary": "computed on a decline (value 21); expected status \"declined\"",
            "reproduce": format!(
                "elicit-check run --case decline_with_spurious_data -- {} {script} --bug computes-on-decline",
                crate::support::python3_quoted()
            ),
        })
    );
    // The document agrees with run.json, member for member.
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).expect("run.json"))
            .expect("run.json is JSON");
    let mut without_results = document.clone();
    without_results
        .as_object_mut()
        .expect("an object")
        .remove("results");
    assert_eq!(without_results, summary);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr
            .lines()
            .any(|line| line.starts_with("17 passed, 2 failed in ")),
        "{stderr}"
    );
    // The schema is a check too: a line without its verdict name, or a failed
    // line without a reproduction, breaks it.
    for (member, line) in [("verdict", 0), ("reproduce", 7)] {
        let mut broken = document.clone();
        assert_eq!(broken["results"][line]["passed"], line == 0);
        broken["results"][line]
            .as_object_mut()
            .expect("a line")
            .remove(member);
        assert_ne!(run_report_errors(&broken), Vec::<String>::new(), "{member}");
    }
}
