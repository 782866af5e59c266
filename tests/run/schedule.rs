//! Session mode and parallel cases: `run --session` and `run -j N` give
//! the verdicts of the default serial fresh-process run, on the reference server,
//! the MCP Python SDK peer and deliberately broken servers; a case that fails in
//! a session is re-run alone in a fresh process; a session that ends badly sends
//! its cases to fresh processes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use elicit_check::harness::era::Protocol;
use elicit_check::harness::proxy::{Recording, StrayLine};
use elicit_check::harness::{Finished, Limits, Session, child::Exit};
use elicit_check::oracle::contract::{self, Judging};
use elicit_check::peers::PEERS;
use elicit_check::run::settings::{Mode, SESSION_BATCH, Schedule};
use serde_json::{Value, json};

use crate::support;

/// One `elicit-check run`: its stdout, exit code, verdicts and `run.json`.
struct Run {
    stdout: String,
    code: Option<i32>,
    verdicts: Vec<Value>,
    summary: Value,
}

/// Runs `elicit-check run --cases CASES --seed 5 FLAGS -- server` in a fresh
/// output folder (removed afterwards).
fn run(test: &str, flags: &[&str], cases: usize, server: &[String]) -> Run {
    run_seeded(test, "5", flags, cases, server)
}

/// [`run`] with `--seed SEED`.
fn run_seeded(test: &str, seed: &str, flags: &[&str], cases: usize, server: &[String]) -> Run {
    let dir = std::env::temp_dir().join(format!(
        "elicit-check-{}-schedule-{test}-{}",
        std::process::id(),
        flags.join("")
    ));
    let output = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .args(["run", "--seed", seed, "--cases", &cases.to_string()])
        .args(["--startup-timeout", "60", "--call-timeout", "60"])
        .args(flags)
        .arg("--output")
        .arg(&dir)
        .arg("--")
        .args(server)
        .env_remove("RUST_LOG")
        .env_remove("PROPTEST_CASES")
        .output()
        .expect("elicit-check runs");
    let read = |file: &str| -> Value {
        let text = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|error| {
            panic!(
                "{test} {flags:?}: no {file} ({error}); stderr: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        serde_json::from_str(&text).expect("JSON evidence")
    };
    let verdicts = read("results.json").as_array().cloned().unwrap_or_default();
    let summary = read("run.json");
    let _ = std::fs::remove_dir_all(&dir);
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        code: output.status.code(),
        verdicts,
        summary,
    }
}

/// What a verdict judged, without what depends on the process it ran in: the
/// case, pass or fail, the primary verdict and its evidence, every failure and
/// warning, and the outcome.
fn judged(run: &Run) -> Vec<Value> {
    run.verdicts
        .iter()
        .map(|verdict| {
            json!({
                "case": verdict["case"],
                // A generated case's reason comes from its own generated answer
                // (run.rs), so a verdict given another case's checks differs.
                "reason": verdict["reason"],
                "passed": verdict["passed"],
                "verdict": verdict["verdict"],
                "primary": verdict["primary"],
                "failures": verdict["failures"],
                "warnings": verdict["warnings"],
                "outcome": verdict["evidence"]["outcome"],
            })
        })
        .collect()
}

fn failed_cases(run: &Run) -> Vec<&str> {
    run.verdicts
        .iter()
        .filter(|verdict| verdict["passed"] == false)
        .filter_map(|verdict| verdict["case"].as_str())
        .collect()
}

fn pid(verdict: &Value) -> u64 {
    verdict["evidence"]["pid"].as_u64().expect("a pid")
}

/// The serial fresh-process run and the same run under each of `flags`: the
/// verdicts must be the same, case by case, in the same order.
fn same_verdicts(test: &str, cases: usize, server: &[String], flags: &[&[&str]]) -> Run {
    let serial = run(test, &["-j", "1"], cases, server);
    assert_eq!(serial.summary["mode"], "fresh-process");
    assert_eq!(serial.summary["jobs"], 1);
    for flags in flags {
        let other = run(test, flags, cases, server);
        assert_eq!(
            judged(&other),
            judged(&serial),
            "{test}: {flags:?} judged otherwise than the serial fresh-process run:\n{}",
            other.stdout
        );
        assert_eq!(other.code, serial.code, "{test} {flags:?}");
        let mode = if flags.contains(&"--session") {
            "session"
        } else {
            "fresh-process"
        };
        assert_eq!(other.summary["mode"], mode, "{test} {flags:?}");
        let jobs = flags[flags.iter().position(|f| *f == "-j").expect("-j") + 1];
        assert_eq!(other.summary["jobs"].to_string(), jobs, "{test} {flags:?}");
    }
    serial
}

/// The distinct capability sets among the inputs of `verdicts`.
fn capability_sets(verdicts: &[Value]) -> usize {
    verdicts
        .iter()
        .map(|verdict| verdict["evidence"]["input"]["capabilities"].to_string())
        .collect::<BTreeSet<_>>()
        .len()
}

#[test]
fn session_and_parallel_runs_give_the_serial_verdicts_on_the_reference_server() {
    let server = support::reference_server();
    let serial = same_verdicts(
        "reference",
        30,
        &server,
        &[
            &["-j", "2"],
            &["--session", "-j", "1"],
            &["--session", "-j", "3"],
        ],
    );
    assert_eq!(serial.verdicts.len(), 19 + 30);
    assert!(failed_cases(&serial).is_empty(), "{}", serial.stdout);
    // -j 2 in fresh processes: the same wire, frame for frame, case by case.
    let parallel = run("reference-wire", &["-j", "2"], 30, &server);
    let wires = |run: &Run| -> Vec<Value> {
        run.verdicts
            .iter()
            .map(|verdict| verdict["evidence"]["wire"].clone())
            .collect()
    };
    assert_eq!(wires(&parallel), wires(&serial));
    // In fresh-process mode every case has a process of its own.
    let pids: BTreeSet<u64> = parallel.verdicts.iter().map(pid).collect();
    assert_eq!(pids.len(), parallel.verdicts.len());
    // In one session group (-j 1, fewer cases than a batch), every case passes in
    // its session: exactly one server process per capability set.
    let session = run("reference-pids", &["--session", "-j", "1"], 30, &server);
    assert!(session.verdicts.len() <= SESSION_BATCH);
    // The first case alone (a server that does not start ends the run there),
    // then the other contract cases, then the generated ones, each part with
    // sessions of its own.
    let (first, contract) = session.verdicts[..19].split_at(1);
    let generated = &session.verdicts[19..];
    for part in [first, contract, generated] {
        let pids: BTreeSet<u64> = part.iter().map(pid).collect();
        assert_eq!(pids.len(), capability_sets(part));
    }
    assert!(
        capability_sets(contract) >= 2,
        "the run has capability-guard cases"
    );
    let all: BTreeSet<u64> = session.verdicts.iter().map(pid).collect();
    assert_eq!(
        all.len(),
        1 + capability_sets(contract) + capability_sets(generated)
    );
    for verdict in &session.verdicts {
        let wire = verdict["evidence"]["wire"].as_array().expect("a wire");
        let initialize = wire
            .iter()
            .filter(|frame| frame["message"]["method"] == "initialize")
            .count();
        let calls = wire
            .iter()
            .filter(|frame| frame["message"]["method"] == "tools/call")
            .count();
        assert_eq!((initialize, calls), (1, 1), "{}", verdict["case"]);
    }
    assert!(
        session
            .stdout
            .lines()
            .any(|line| line.starts_with("49 passed, 0 failed in ")
                && line.ends_with("cases/s; session, -j 1)")),
        "{}",
        session.stdout
    );
}

#[test]
fn session_and_parallel_runs_give_the_serial_verdicts_on_a_broken_server() {
    let server = support::calculator(Some("computes-on-decline"));
    let serial = same_verdicts(
        "decline",
        0,
        &server,
        &[
            &["-j", "2"],
            &["--session", "-j", "1"],
            &["--session", "-j", "2"],
        ],
    );
    assert_eq!(
        failed_cases(&serial),
        ["decline_with_spurious_data", "cancel_with_spurious_data"]
    );
    // In session mode each failed case was re-run alone: its process ran no other case.
    let session = run("decline-pids", &["--session", "-j", "1"], 0, &server);
    let mut cases_per_pid: BTreeMap<u64, usize> = BTreeMap::new();
    for verdict in &session.verdicts {
        *cases_per_pid.entry(pid(verdict)).or_default() += 1;
    }
    for verdict in session.verdicts.iter().filter(|v| v["passed"] == false) {
        assert_eq!(cases_per_pid[&pid(verdict)], 1, "{}", verdict["case"]);
    }
    assert!(cases_per_pid.values().any(|&cases| cases > 1));
}

/// Generated cases on a broken server: the same verdicts, and the same minimal
/// failure (shrinking runs in fresh processes in both modes). Seed 1's 12
/// generated cases hold one decline with content, which `computes-on-decline`
/// computes on.
#[test]
fn a_session_run_shrinks_a_generated_failure_to_the_serial_minimal_failure() {
    let server = support::calculator(Some("computes-on-decline"));
    let serial = run_seeded("shrink", "1", &["-j", "1"], 12, &server);
    let session = run_seeded("shrink", "1", &["--session", "-j", "2"], 12, &server);
    assert_eq!(judged(&session), judged(&serial), "{}", session.stdout);
    assert_eq!(session.code, Some(1), "{}", session.stdout);
    let generated_failures = serial
        .verdicts
        .iter()
        .filter(|verdict| verdict["passed"] == false && verdict.get("reason").is_some())
        .count();
    assert_eq!(generated_failures, 1, "{}", serial.stdout);
    // The same minimal failure; its reproduction repeats the run's --session.
    let minimal = |run: &Run| {
        let mut minimal = run.summary["minimal_failure"].clone();
        let reproduce = minimal["reproduce"].take();
        (minimal, reproduce.as_str().unwrap_or_default().to_owned())
    };
    let (serial_minimal, serial_reproduce) = minimal(&serial);
    let (session_minimal, session_reproduce) = minimal(&session);
    assert_eq!(
        serial_minimal["case"]["answer"]["result"]["action"],
        "decline"
    );
    assert_eq!(serial_minimal["outcome"]["computed"], true);
    assert_eq!(session_minimal, serial_minimal);
    assert!(
        serial_reproduce.starts_with("elicit-check run --answer "),
        "{serial_reproduce}"
    );
    assert_eq!(
        session_reproduce,
        serial_reproduce.replacen("run --answer", "run --session --answer", 1)
    );
}

#[test]
fn a_session_that_ends_badly_gives_the_serial_verdicts() {
    support::require_program("sh", "the wrapped servers run under sh");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/servers/calculator.py"
    );
    for (name, tail, failure) in [
        ("exit3", "exit 3", "exit code 3, expected 0"),
        ("bye", "echo bye", r#"non-JSON-RPC line on stdout (#"#),
    ] {
        let server = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            format!("python3 {script}; {tail}"),
        ];
        let serial = same_verdicts(name, 0, &server, &[&["--session", "-j", "1"]]);
        assert_eq!(failed_cases(&serial).len(), 19, "{}", serial.stdout);
        let accept_valid = &serial.verdicts[0];
        assert_eq!(accept_valid["case"], "accept_valid");
        let failures: Vec<&str> = accept_valid["failures"]
            .as_array()
            .expect("failures")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        // One failure, naming the exit code or the line printed at exit.
        assert_eq!(failures.len(), 1, "{name}: {failures:?}");
        assert!(failures[0].starts_with(failure), "{name}: {failures:?}");
        assert!(
            name != "bye" || failures[0].ends_with(r#"): "bye""#),
            "{failures:?}"
        );
    }
}

#[test]
fn the_last_case_of_a_session_carries_its_stderr() {
    support::require_program("sh", "the wrapped server runs under sh");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/servers/calculator.py"
    );
    let server = vec![
        "sh".to_owned(),
        "-c".to_owned(),
        format!("echo session started >&2; exec python3 {script}"),
    ];
    let session = run("stderr", &["--session", "-j", "1"], 0, &server);
    assert_eq!(session.code, Some(0), "{}", session.stdout);
    let mut last_of_pid: BTreeMap<u64, &str> = BTreeMap::new();
    for verdict in &session.verdicts {
        last_of_pid.insert(pid(verdict), verdict["case"].as_str().expect("a name"));
    }
    for verdict in &session.verdicts {
        let last = last_of_pid[&pid(verdict)] == verdict["case"];
        let stderr = if last { "session started\n" } else { "" };
        assert_eq!(verdict["evidence"]["stderr"], stderr, "{}", verdict["case"]);
    }
}

#[test]
fn session_and_parallel_runs_give_the_serial_verdicts_on_the_python_sdk_peer() {
    let environments = crate::peers::environments();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let peer = |name: &str| {
        PEERS
            .iter()
            .find(|peer| peer.name() == name)
            .expect("a listed peer")
            .command(root, &environments)
    };
    let correct = run(
        "sdk1-correct",
        &["--session", "-j", "2"],
        0,
        &peer("python-sdk1-correct"),
    );
    assert_eq!(correct.code, Some(0), "{}", correct.stdout);
    assert_eq!(correct.verdicts.len(), 19);
    assert_eq!(correct.summary["mode"], "session");
    let naive = same_verdicts(
        "sdk1-naive",
        0,
        &peer("python-sdk1-naive"),
        &[&["--session", "-j", "2"]],
    );
    // pydantic's lax defaults, written by hand (as in tests/peers.rs).
    for case in [
        "accept_wrong_type",
        "accept_out_of_range",
        "accept_extra_field",
        "accept_float_integer",
        "accept_boolean_as_integer",
    ] {
        assert!(failed_cases(&naive).contains(&case), "{}", naive.stdout);
    }
}

/// A server that hangs on every `tools/call`, started through `sh` so that each
/// start appends a line to `starts`.
fn counted_hanging_server(starts: &Path) -> Vec<String> {
    support::require_program("python3", "the misbehaving server needs python3");
    let script = support::MISBEHAVING;
    vec![
        "sh".to_owned(),
        "-c".to_owned(),
        r#"echo start >> "$1"; exec python3 "$2" --fault hang-on-call"#.to_owned(),
        "sh".to_owned(),
        starts.display().to_string(),
        script.to_owned(),
    ]
}

/// Runs the contract cases with `flags` against a server that hangs on every
/// call; checks that the run stops after two `hung` cases and returns how many
/// servers it started.
fn starts_until_the_hung_stop(test: &str, flags: &[&str]) -> usize {
    let starts = std::env::temp_dir().join(format!(
        "elicit-check-{}-schedule-{test}-starts",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&starts);
    let server = counted_hanging_server(&starts);
    let dir = std::env::temp_dir().join(format!(
        "elicit-check-{}-schedule-{test}",
        std::process::id()
    ));
    let output = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .args(["run", "--cases", "0"])
        .args(flags)
        .args(["--call-timeout", "0.5", "--shutdown-grace", "1", "--output"])
        .arg(&dir)
        .arg("--")
        .args(&server)
        .env_remove("RUST_LOG")
        .output()
        .expect("elicit-check runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{test}: {stdout}");
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("stopped (hung): 0 passed, 2 failed in ")),
        "{test}: {stdout}"
    );
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("results.json")).expect("results.json"),
    )
    .expect("JSON");
    // Two verdicts, then the end record of a run that stopped.
    let records = results.as_array().expect("an array");
    assert_eq!(records.len(), 3, "{test}: {results}");
    assert!(
        records[..2]
            .iter()
            .all(|verdict| verdict["verdict"] == "hung")
    );
    assert_eq!(records[2]["run_status"], "stopped");
    assert_eq!(records[2]["cases"], 2);
    let started = std::fs::read_to_string(&starts).expect("the start log");
    let _ = std::fs::remove_file(&starts);
    let _ = std::fs::remove_dir_all(&dir);
    started.lines().count()
}

#[test]
fn a_run_stops_at_two_hung_cases_without_running_the_rest_of_its_batch() {
    // Session mode, by the schedule's rules: the first case alone (its session,
    // then its fresh re-run: 2); the other 18 contract cases' batch starts one
    // session per capability set at once (form, {}, {"elicitation":{}}, url: 4);
    // its first case hangs in its session and in its fresh re-run (1), the
    // second hung case in a row counting the first case's, and the batch stops
    // there: 7. Were the batch to count only its own hung cases, the next case of
    // that set would get a new session and a fresh re-run (9); without the stop,
    // each of the 18 cases would cost a session and a fresh run (more than 30).
    assert_eq!(
        starts_until_the_hung_stop("hung-session", &["--session", "-j", "1"]),
        7
    );
    // Fresh processes, two at a time: the first case alone (1), then cases 2
    // and 3 at once (2); the run stops at case 2, the second hung case, and
    // case 3 is ended unjudged: 3. With a window of cases judged before any was
    // logged, the whole window would start first.
    assert_eq!(starts_until_the_hung_stop("hung-parallel", &["-j", "2"]), 3);
}

/// Starts `elicit-check run` with `args`, evidence in `dir`, against `server`,
/// its stdout piped (to read its rows once it ends) and its stderr dropped.
fn spawn_run(args: &[&str], dir: &Path, server: &[String]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .arg("run")
        .args(args)
        .arg("--output")
        .arg(dir)
        .arg("--")
        .args(server)
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("elicit-check runs")
}

/// The number of lines in `path` (0 when it does not exist yet).
fn line_count(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

/// Polls `done` every 25 ms, at most `tries` times (a generous bound: the test
/// asserts what it waited for afterwards, never how long it took).
fn wait_for(done: impl Fn() -> bool, tries: usize) {
    for _ in 0..tries {
        if done() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
}

/// Runs the contract cases with `flags` against a server (behind `sh`) that
/// hangs on the `decline` case (the 6th), waits until `ended` of its servers
/// have exited and the hang has begun, then stops the run with SIGTERM; returns
/// each record's (case, verdict) and the last record's `run_status`.
fn stopped_at_the_decline(
    test: &str,
    flags: &[&str],
    ended: usize,
) -> (Vec<(String, String)>, Value) {
    support::require_program("sh", "the wrapped server runs under sh");
    let dir = std::env::temp_dir().join(format!(
        "elicit-check-{}-schedule-{test}",
        std::process::id()
    ));
    let ends = dir.with_extension("ends");
    let pid_file = dir.with_extension("pid");
    let _ = std::fs::remove_file(&ends);
    let _ = std::fs::remove_file(&pid_file);
    // `sh` appends a line when its server has exited.
    let calculator = support::calculator(Some("hang-on-decline")).join(" ");
    let server = [
        "sh".to_owned(),
        "-c".to_owned(),
        format!(r#"{calculator} --pid-file "$1"; echo ended >> "$2""#),
        "sh".to_owned(),
        pid_file.display().to_string(),
        ends.display().to_string(),
    ];
    let mut args = vec!["--cases", "0"];
    args.extend(flags);
    args.extend(["--call-timeout", "60"]);
    let child = spawn_run(&args, &dir, &server);
    wait_for(|| line_count(&ends) >= ended && pid_file.exists(), 2400);
    assert_eq!(
        line_count(&ends),
        ended,
        "{test}: servers that ended before the stop"
    );
    assert!(pid_file.exists(), "{test}: the decline case hangs");
    std::thread::sleep(std::time::Duration::from_secs(1));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let output = child.wait_with_output().expect("elicit-check ends");
    assert_eq!(output.status.code(), Some(2), "{test}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("results.json")).expect("results.json"),
    )
    .expect("JSON");
    let records = results.as_array().expect("an array");
    let cases = records
        .iter()
        .filter_map(|record| {
            Some((
                record["case"].as_str()?.to_owned(),
                record["verdict"].as_str()?.to_owned(),
            ))
        })
        .collect();
    let end = records
        .last()
        .map_or(Value::Null, |end| end["run_status"].clone());
    // The table has a row for each case kept, in the same order, the
    // interrupted one included with its primary verdict under it.
    let names = support::contract_names();
    let rows: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| names.iter().any(|name| name == word))
        .collect();
    let kept: Vec<&str> = records
        .iter()
        .filter_map(|record| record["case"].as_str())
        .collect();
    assert_eq!(rows, kept, "{test}: {stdout}");
    assert!(
        stdout.contains("\n    decline: interrupted: "),
        "{test}: {stdout}"
    );
    for path in [&ends, &pid_file] {
        let _ = std::fs::remove_file(path);
    }
    let _ = std::fs::remove_dir_all(&dir);
    (cases, end)
}

/// The contract's first `count` cases with `verdict`, then `decline`
/// interrupted, then `after`.
fn kept(count: usize, after: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut cases: Vec<(String, String)> = support::contract_names()
        .into_iter()
        .take(count)
        .map(|name| (name, "passed".to_owned()))
        .collect();
    cases.push(("decline".to_owned(), "interrupted".to_owned()));
    cases.extend(
        after
            .iter()
            .map(|(case, verdict)| ((*case).to_owned(), (*verdict).to_owned())),
    );
    cases
}

/// A run stopped by a signal keeps every case it finished (nothing
/// lost), in case order, with the case in flight as interrupted.
#[test]
fn a_stopped_run_keeps_every_case_it_finished_in_parallel_or_in_a_session() {
    // -j 2: the `cancel` case after the hanging `decline` finishes on the other
    // job (servers of cases 1-5 and 7 end) but waits behind it to be logged.
    let (cases, end) = stopped_at_the_decline("stop-parallel", &["-j", "2"], 6);
    assert_eq!(cases, kept(5, &[("cancel", "passed")]));
    assert_eq!(end, "interrupted");
    // --session: cases 2-5 passed in their session (its server still running:
    // only the first case's server ended), whose batch had not ended; `decline`
    // hangs in the same session.
    let (cases, end) = stopped_at_the_decline("stop-session", &["--session", "-j", "1"], 1);
    assert_eq!(cases, kept(5, &[]));
    assert_eq!(end, "interrupted");
}

/// A run stopped while it shrinks its first generated failure keeps its cases
/// and nothing else: a shrink run is no case (no case named `minimal`,
/// `interrupted`, is logged or counted in run.json).
#[test]
fn a_run_stopped_while_shrinking_logs_no_shrink_run_as_a_case() {
    support::require_program("sh", "the wrapped server runs under sh");
    let dir = std::env::temp_dir().join(format!(
        "elicit-check-{}-schedule-stop-shrink",
        std::process::id()
    ));
    let starts = dir.with_extension("starts");
    let _ = std::fs::remove_file(&starts);
    // 19 contract cases, then seed 1's generated cases, serially: the first,
    // `generated_0001`, is a decline with content that `computes-on-decline`
    // computes on, and is shrunk at once (a serial window is one case). Every
    // start after those 20 is a shrink run, slowed down so the stop comes while
    // one runs.
    let calculator = support::calculator(Some("computes-on-decline")).join(" ");
    let server = [
        "sh".to_owned(),
        "-c".to_owned(),
        format!(
            r#"echo start >> "$1"; [ "$(wc -l < "$1")" -gt 20 ] && sleep 2; exec {calculator}"#
        ),
        "sh".to_owned(),
        starts.display().to_string(),
    ];
    let child = spawn_run(&["--cases", "12", "--seed", "1", "-j", "1"], &dir, &server);
    wait_for(|| line_count(&starts) >= 22, 4800);
    assert!(line_count(&starts) >= 22, "the second shrink run started");
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let output = child.wait_with_output().expect("elicit-check ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect(name)).expect("JSON")
    };
    let results = read("results.json");
    let names: Vec<&str> = results
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|record| record["case"].as_str())
        .collect();
    let mut expected = support::contract_names();
    expected.push("generated_0001".to_owned());
    assert_eq!(names, expected, "{stdout}");
    assert_eq!(results[19]["verdict"], "computed_on_refusal");
    let summary = read("run.json");
    assert_eq!(summary["cases"], 20, "{summary}");
    assert_eq!(summary["verdicts"].get("interrupted"), None, "{summary}");
    let _ = std::fs::remove_file(&starts);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_case_in_a_session_shows_the_handshake_and_only_its_own_call() {
    let runtime = support::runtime();
    let server = support::reference_server();
    let (case, expected) = support::contract_case("accept_valid");
    runtime.block_on(async {
        let mut session = Session::start(&server, &case.capabilities, Limits::default(), None)
            .await
            .expect("the reference server starts");
        let first = session.run_case_in_session(&server, &case).await;
        let second = session.run_case_in_session(&server, &case).await;
        for evidence in [&first, &second] {
            assert_eq!(
                contract::judge(&case, &expected, evidence, Judging::EXACT).failures,
                Vec::<String>::new()
            );
            assert_eq!(evidence.callbacks, 1);
            assert_eq!(evidence.exit_code, Some(0));
            assert!(evidence.started);
            let methods: Vec<&str> = evidence
                .wire
                .iter()
                .filter_map(|frame| frame.message["method"].as_str())
                .collect();
            assert_eq!(
                methods,
                [
                    "initialize",
                    "notifications/initialized",
                    "tools/list",
                    "tools/call",
                    "elicitation/create"
                ]
            );
        }
        assert_eq!(first.pid, second.pid);
        assert!(first.pid.is_some_and(|pid| pid > 1));
        assert_eq!(session.pid(), first.pid);
        assert_eq!(first.wire[..3], second.wire[..3]);
        assert_ne!(first.wire[3..], second.wire[3..]);
        let seen = session.stray_line_count();
        assert_eq!(seen, 0);
        let finished = session.finish().await;
        assert!(finished.ended_cleanly(seen));
    });
}

/// A finished session that ended as the contract wants, with `strays` stray lines.
fn finished(
    code: Option<i32>,
    forced_kill: bool,
    group_left_running: bool,
    strays: usize,
) -> Finished {
    let stray = StrayLine {
        seq: 0,
        line: "noise".into(),
        bytes: 5,
    };
    Finished {
        recording: Recording {
            stray_stdout: vec![stray; strays],
            ..Recording::default()
        },
        exit: Exit {
            code,
            forced_kill,
            stderr: String::new(),
            group_left_running,
        },
        callbacks: 0,
        protocol_version: None,
        pid: None,
        startup_error: None,
        shutdown_grace: std::time::Duration::from_secs(5),
        stopped_by_harness: false,
        url: None,
    }
}

#[test]
fn a_session_ends_cleanly_only_with_code_0_no_kill_nothing_left_and_no_new_stray_line() {
    assert!(finished(Some(0), false, false, 0).ended_cleanly(0));
    assert!(finished(Some(0), false, false, 2).ended_cleanly(2));
    assert!(!finished(Some(0), false, false, 3).ended_cleanly(2));
    assert!(!finished(Some(1), false, false, 0).ended_cleanly(0));
    assert!(!finished(None, false, false, 0).ended_cleanly(0));
    assert!(!finished(Some(0), true, false, 0).ended_cleanly(0));
    assert!(!finished(Some(0), false, true, 0).ended_cleanly(0));
    // Over HTTP the harness stops the server (SIGTERM): ending when asked is
    // clean whatever the exit; needing SIGKILL, leaving its group or printing
    // a new stray line is not.
    let stopped = |code, forced_kill, group_left_running, strays| Finished {
        stopped_by_harness: true,
        ..finished(code, forced_kill, group_left_running, strays)
    };
    assert!(stopped(None, false, false, 0).ended_cleanly(0));
    assert!(stopped(Some(143), false, false, 0).ended_cleanly(0));
    assert!(!stopped(None, true, false, 0).ended_cleanly(0));
    assert!(!stopped(None, false, true, 0).ended_cleanly(0));
    assert!(!stopped(None, false, false, 1).ended_cleanly(0));
}

#[test]
fn the_schedule_window_is_one_case_when_serial_and_a_batch_per_job_in_sessions() {
    let window = |mode, jobs| Schedule { mode, jobs }.window();
    assert_eq!(Schedule::SERIAL.window(), 1);
    assert_eq!(Schedule::default(), Schedule::SERIAL);
    assert_eq!(window(Mode::FreshProcess, 0), 1);
    assert_eq!(window(Mode::FreshProcess, 2), 64);
    assert_eq!(window(Mode::FreshProcess, 3), 96);
    assert_eq!(window(Mode::Session, 1), 1024);
    assert_eq!(window(Mode::Session, 2), 2048);
    assert_eq!(Mode::FreshProcess.to_string(), "fresh-process");
    assert_eq!(Mode::Session.to_string(), "session");
    assert!(Schedule::cores() >= 1);
    let session = Schedule {
        mode: Mode::Session,
        jobs: 2,
    };
    let fresh = Schedule {
        mode: Mode::FreshProcess,
        jobs: 2,
    };
    assert_eq!(session.for_protocols(&[Protocol::V2025_11_25]), session);
    assert_eq!(session.for_protocols(&Protocol::ALL), session);
    assert_eq!(session.for_protocols(&[Protocol::V2026_07_28]), fresh);
    assert_eq!(fresh.for_protocols(&[Protocol::V2025_11_25]), fresh);
}

#[test]
fn a_session_counts_the_stray_lines_its_cases_printed() {
    let runtime = support::runtime();
    let server = support::calculator(Some("stdout-noise"));
    let (case, expected) = support::contract_case("accept_valid");
    runtime.block_on(async {
        let mut session = Session::start(&server, &case.capabilities, Limits::default(), None)
            .await
            .expect("calculator.py starts");
        assert_eq!(session.stray_line_count(), 0);
        let evidence = session.run_case_in_session(&server, &case).await;
        let failures = contract::judge(&case, &expected, &evidence, Judging::BY_MEANING).failures;
        assert!(
            failures
                .iter()
                .any(|failure| failure.to_string().ends_with(r#": "calculating...""#)),
            "{failures:?}"
        );
        assert_eq!(session.stray_line_count(), 1);
        let finished = session.finish().await;
        assert!(finished.ended_cleanly(1));
        assert!(!finished.ended_cleanly(0));
    });
}

/// A call that prints more stray lines than a recording keeps
/// (`MAX_STRAY_LINES`, 100): its evidence keeps the first 100 and counts the
/// other 50, as a fresh process's recording would (the handshake printed none).
#[test]
fn a_case_in_a_session_counts_the_stray_lines_it_did_not_keep() {
    let runtime = support::runtime();
    let mut server = support::calculator(Some("stdout-noise"));
    server.extend(["--noise-lines".to_owned(), "150".to_owned()]);
    let (case, _) = support::contract_case("accept_valid");
    runtime.block_on(async {
        let mut session = Session::start(&server, &case.capabilities, Limits::default(), None)
            .await
            .expect("calculator.py starts");
        let evidence = session.run_case_in_session(&server, &case).await;
        assert_eq!(evidence.stray_stdout.len(), 100);
        assert_eq!(evidence.stray_stdout_not_kept, 50);
        assert_eq!(session.stray_line_count(), 150);
        let finished = session.finish().await;
        assert!(finished.ended_cleanly(150));
        assert!(!finished.ended_cleanly(149));
    });
}

#[test]
fn run_defaults_to_one_job_per_core_and_says_fresh_process_for_2026_07_28_alone() {
    let server = support::reference_server();
    let default = run("default-jobs", &["--case", "accept_valid"], 0, &server);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    assert_eq!(default.summary["jobs"], cores);
    assert_eq!(default.summary["mode"], "fresh-process");
    let era = run(
        "era-session",
        &[
            "--session",
            "--protocol",
            "2026-07-28",
            "--case",
            "accept_valid",
        ],
        0,
        &server,
    );
    assert_eq!(era.code, Some(0), "{}", era.stdout);
    assert_eq!(era.summary["mode"], "fresh-process");
}
