//! Nothing the harness starts outlives the run (docs/src/verdicts.md, "What the harness does to a server"): the server
//! runs in its own process group, and the whole group is killed when the case
//! ends, whether the server exited, timed out, or the run was stopped by a signal.
//! Servers here are shell wrappers whose grandchild ignores stdin close, the way
//! `sh -c`, `npx` and `uvx` start real servers.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::support::Scratch;

/// The live (non-zombie) processes whose process group is `group`, from `/proc`.
fn live_members(group: i32) -> Vec<String> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc")
        .expect("/proc is readable")
        .flatten()
    {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...; comm may hold spaces, so split after ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (Some(state), Some(pgrp)) = (fields.first(), fields.get(2)) else {
            continue;
        };
        if *state != "Z" && pgrp.parse::<i32>() == Ok(group) {
            members.push(format!("{})", head.trim()));
        }
    }
    members
}

/// Waits (at most 10 s, a bound, not a timing assertion) until group `group` has
/// no live process; returns the processes still there otherwise.
fn wait_group_gone(group: i32) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let members = live_members(group);
        if members.is_empty() || Instant::now() > deadline {
            return members;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The wrapper (the server the harness spawned, so also its group id) and its
/// grandchild, as written by the wrapper script to a file: `"$$ $!"`.
struct Pids {
    wrapper: i32,
    grandchild: i32,
}

/// Waits (at most 20 s) for `file` to hold the two pids written by the wrapper.
fn read_pids(file: &str) -> Pids {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Some((wrapper, grandchild)) = text.trim().split_once(' ')
            && let (Ok(wrapper), Ok(grandchild)) = (wrapper.parse(), grandchild.parse())
        {
            return Pids {
                wrapper,
                grandchild,
            };
        }
        assert!(Instant::now() < deadline, "the wrapper never wrote {file}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether process `pid` exists and is not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_owned())
        })
        .is_some_and(|rest| !rest.starts_with('Z'))
}

/// Asserts that the wrapper's whole group is gone, the grandchild included.
fn assert_nothing_left(pids: &Pids, label: &str) {
    assert_eq!(
        wait_group_gone(pids.wrapper),
        Vec::<String>::new(),
        "{label}: processes left in the server's group {}",
        pids.wrapper
    );
    assert!(
        !alive(pids.grandchild),
        "{label}: the wrapper's grandchild {} is still running",
        pids.grandchild
    );
}

fn elicit_check(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_elicit-check"));
    command
        .arg("run")
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// `run --case accept_valid` with evidence in `output`, against `sh -c script`
/// whose `$0` is the elicit-check binary (the script runs `"$0" serve`).
fn accept_valid_behind_sh(script: &str, output: &str) -> std::process::Output {
    elicit_check(&[
        "--case",
        "accept_valid",
        "--output",
        output,
        "--",
        "sh",
        "-c",
        script,
        env!("CARGO_BIN_EXE_elicit-check"),
    ])
    .output()
    .expect("elicit-check runs")
}

/// A `sleep` started by the test itself, outside any group the harness makes.
struct Bystander(Child);

impl Bystander {
    fn start() -> Bystander {
        Bystander(
            Command::new("sleep")
                .arg("1000")
                .spawn()
                .expect("sleep starts"),
        )
    }

    fn still_running(&mut self) -> bool {
        self.0.try_wait().expect("try_wait").is_none()
    }
}

impl Drop for Bystander {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An `elicit-check run` started by a test; stopped with SIGTERM if the test
/// fails before stopping it itself.
struct Runner(Option<Child>);

impl Runner {
    /// Sends `signal` to the run and waits for it to end.
    fn stop(&mut self, signal: Signal) -> std::process::ExitStatus {
        let mut child = self.0.take().expect("running");
        let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid fits"));
        kill(pid, signal).expect("the elicit-check process this test started gets the signal");
        child.wait().expect("elicit-check ends")
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        if self.0.is_some() {
            self.stop(Signal::SIGTERM);
        }
    }
}

fn results(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("results.json")).expect("results.json written");
    serde_json::from_str(&text).expect("results.json is JSON")
}

#[test]
fn a_wrapper_that_never_answers_initialize_is_killed_with_its_grandchild() {
    let scratch = Scratch::new("startup");
    let pid_file = scratch.arg("pid");
    let output = scratch.arg("out");
    let mut bystander = Bystander::start();
    // The sleep is a grandchild; the wrapper waits for it and never speaks MCP.
    let script = format!("sleep 1000 & echo $$ $! > {pid_file}; wait; echo never");
    let run = elicit_check(&[
        "--case",
        "accept_valid",
        "--startup-timeout",
        "1",
        "--shutdown-grace",
        "1",
        "--output",
        &output,
        "--",
        "sh",
        "-c",
        &script,
    ])
    .output()
    .expect("elicit-check runs");
    assert_eq!(
        run.status.code(),
        Some(2),
        "a server that never starts stops the run"
    );
    assert_nothing_left(&read_pids(&pid_file), "startup timeout");
    assert!(
        bystander.still_running(),
        "a process the harness did not start was touched"
    );
}

#[test]
fn a_grandchild_left_running_after_a_normal_exit_is_killed_and_recorded() {
    let scratch = Scratch::new("normal");
    let pid_file = scratch.arg("pid");
    let output = scratch.arg("out");
    // The wrapper leaves a sleep behind (holding the server's pipes) and execs the
    // reference server, which passes the case and exits when stdin closes.
    let script = format!("sleep 1000 & echo $$ $! > {pid_file}; exec \"$0\" serve");
    let run = accept_valid_behind_sh(&script, &output);
    assert_eq!(
        run.status.code(),
        Some(0),
        "stdout: {}",
        String::from_utf8_lossy(&run.stdout)
    );
    let pids = read_pids(&pid_file);
    assert_nothing_left(&pids, "normal exit");
    let verdicts = results(Path::new(&output));
    let evidence = &verdicts[0]["evidence"];
    assert_eq!(evidence["pid"], Value::from(pids.wrapper));
    assert_eq!(evidence["exit_code"], Value::from(0));
    assert_eq!(evidence["group_left_running"], Value::Bool(true));
    let timeline = evidence["timeline"].to_string();
    assert!(
        timeline.contains("still running after it exited; killed"),
        "the timeline says the group was killed: {timeline}"
    );
    // The case passes, with a warning saying so, in results.json and once in
    // the closing lines, naming the case.
    let warning = "a process of the server's process group was still running after the \
                   server exited; it was killed";
    assert_eq!(verdicts[0]["passed"], Value::Bool(true));
    assert_eq!(verdicts[0]["warnings"], serde_json::json!([warning]));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains(&format!("\nwarning (accept_valid): {warning}\n")),
        "{stdout}"
    );
}

#[test]
fn a_server_that_leaves_nothing_of_its_group_running_has_no_such_warning() {
    let scratch = Scratch::new("no-warning");
    let output = scratch.arg("out");
    let run = accept_valid_behind_sh("exec \"$0\" serve", &output);
    assert_eq!(run.status.code(), Some(0));
    let verdicts = results(Path::new(&output));
    assert_eq!(
        verdicts[0]["evidence"]["group_left_running"],
        Value::Bool(false)
    );
    assert_eq!(verdicts[0]["warnings"], serde_json::json!([]));
    assert!(!String::from_utf8_lossy(&run.stdout).contains("warning"));
}

#[test]
fn a_run_stopped_by_sigterm_or_sigint_kills_the_server_group_in_flight() {
    for (signal, name) in [(Signal::SIGTERM, "sigterm"), (Signal::SIGINT, "sigint")] {
        let scratch = Scratch::new(name);
        let pid_file = scratch.arg("pid");
        let output = scratch.arg("out");
        let script = format!("sleep 1000 & echo $$ $! > {pid_file}; wait; echo never");
        let run = elicit_check(&[
            "--case",
            "accept_valid",
            "--startup-timeout",
            "600",
            "--output",
            &output,
            "--",
            "sh",
            "-c",
            &script,
        ])
        .spawn()
        .expect("elicit-check starts");
        let mut run = Runner(Some(run));
        let pids = read_pids(&pid_file);
        assert_eq!(
            live_members(pids.wrapper).len(),
            2,
            "{name}: the wrapper and its grandchild run in the server's own group"
        );
        let status = run.stop(signal);
        assert_eq!(status.code(), Some(2), "{name}: an interrupted run exits 2");
        assert_nothing_left(&pids, name);
    }
}

/// Waits (at most 20 s) until `file` holds a pid.
fn read_pid(file: &str) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "nothing wrote {file}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `sh -c SCRIPT` where SCRIPT starts a `sleep 1000` grandchild (which never
/// reads stdin, so it ignores stdin close), writes `$$ $!` to `pid_file` and
/// then runs `server` (exec'd when `exec`, else waited for, as `npx` and `uv
/// run` do), the shell-quoted words after it. The grandchild's stdout and
/// stderr go to `/dev/null`, so the server's own exit closes its pipes.
fn wrapper(pid_file: &str, server: &[String], exec: bool) -> Vec<String> {
    let server = elicit_check::error::shell_words(server);
    let run = if exec { "exec " } else { "" };
    vec![
        "sh".to_owned(),
        "-c".to_owned(),
        format!("sleep 1000 >/dev/null 2>&1 & echo $$ $! > {pid_file}; {run}{server}"),
    ]
}

/// Runs `accept_valid` against a wrapper (not exec'd) around
/// `misbehaving.py --fault FAULT` with `bounds`, while a bystander the harness
/// did not start runs: the run exits 1 with `verdict` and `primary`, nothing of
/// the server's group is left (by pid: the wrapper's group and the grandchild),
/// and the bystander is untouched. Returns the case's evidence.
fn fails_and_leaves_nothing(
    test: &str,
    fault: &str,
    bounds: &[&str],
    verdict: &str,
    primary: &str,
) -> Value {
    let scratch = Scratch::new(test);
    let pid_file = scratch.arg("pid");
    let output = scratch.arg("out");
    let mut bystander = Bystander::start();
    let command = wrapper(&pid_file, &crate::support::misbehaving(fault), false);
    let mut args = vec!["--case", "accept_valid", "--output", &output];
    args.extend(bounds);
    args.push("--");
    args.extend(command.iter().map(String::as_str));
    let run = elicit_check(&args).output().expect("elicit-check runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{test}: {stdout}");
    let pids = read_pids(&pid_file);
    assert_nothing_left(&pids, test);
    assert!(
        bystander.still_running(),
        "{test}: a process the harness did not start was touched"
    );
    let verdicts = results(Path::new(&output));
    assert_eq!(verdicts[0]["verdict"], verdict, "{test}: {stdout}");
    assert_eq!(verdicts[0]["primary"], primary, "{test}: {stdout}");
    assert_eq!(verdicts[0]["evidence"]["pid"], Value::from(pids.wrapper));
    verdicts[0]["evidence"].clone()
}

/// A failing case: the server the wrapper waits for exits with code 3 during
/// `tools/call` (the wrapper exits with it); the grandchild left behind in the
/// group is killed and recorded.
#[test]
fn a_wrapper_whose_server_crashes_leaves_nothing_of_its_group() {
    let evidence = fails_and_leaves_nothing(
        "crash",
        "crash-on-call",
        &[],
        "crashed",
        "exit code 3 before replying to tools/call",
    );
    assert_eq!(evidence["exit_code"], 3);
    assert_eq!(evidence["forced_kill"], false);
    assert_eq!(evidence["group_left_running"], true);
}

/// A call timeout: the server never answers `tools/call`; after the call bound
/// stdin closes, the server exits, the wrapper with it, and the grandchild is
/// killed with the group.
#[test]
fn a_wrapper_whose_server_hangs_on_the_call_leaves_nothing_of_its_group() {
    let evidence = fails_and_leaves_nothing(
        "hang",
        "hang-on-call",
        &["--call-timeout", "1"],
        "hung",
        "no reply to tools/call within 1 s",
    );
    assert_eq!(evidence["forced_kill"], false);
    assert_eq!(evidence["group_left_running"], true);
}

/// The forced kill after the shutdown grace: the server ignores stdin close
/// (and SIGTERM); after the grace the whole group (wrapper, server,
/// grandchild) is killed.
#[test]
fn a_wrapper_whose_server_outlives_the_shutdown_grace_is_killed_with_its_group() {
    let evidence = fails_and_leaves_nothing(
        "grace",
        "ignore-stdin-close",
        &["--shutdown-grace", "1"],
        "ignored_stdin_close",
        "the server did not exit after its stdin closed (no exit code: killed after 1 s)",
    );
    assert_eq!(evidence["forced_kill"], true);
    assert_eq!(evidence["exit_code"], Value::Null);
}

/// A stopped run keeps its case in flight, under `run --hostile` too: SIGTERM
/// while a hostile case waits on the server keeps that case as `interrupted` with
/// its frames so far
/// (the raw session registered as the case in flight), with a `--hostile`
/// reproduction, and kills the server's whole group (a wrapper's grandchild too).
#[test]
fn a_hostile_run_stopped_by_sigterm_keeps_the_case_in_flight_and_kills_its_group() {
    let scratch = Scratch::new("hostile-sigterm");
    let pid_file = scratch.arg("pid");
    let hanging = scratch.arg("hanging");
    let output = scratch.arg("out");
    let mut bystander = Bystander::start();
    let mut server = crate::support::calculator(Some("hang-on-call"));
    server.extend(["--pid-file".to_owned(), hanging.clone()]);
    let command = wrapper(&pid_file, &server, true);
    let mut args = vec![
        "--hostile",
        "--case",
        "reply_id_mistyped",
        "--startup-timeout",
        "600",
        "--call-timeout",
        "600",
        "--output",
        &output,
        "--",
    ];
    args.extend(command.iter().map(String::as_str));
    let mut run = Runner(Some(
        elicit_check(&args).spawn().expect("elicit-check starts"),
    ));
    let pids = read_pids(&pid_file);
    // calculator.py writes this file when it starts hanging in tools/call: the
    // case is in flight.
    assert_eq!(
        read_pid(&hanging),
        pids.wrapper,
        "exec keeps the wrapper's pid"
    );
    let status = run.stop(Signal::SIGTERM);
    assert_eq!(status.code(), Some(2), "an interrupted run exits 2");
    assert_nothing_left(&pids, "hostile sigterm");
    assert!(
        bystander.still_running(),
        "a process the harness did not start was touched"
    );
    let verdicts = results(Path::new(&output));
    assert_eq!(verdicts.len(), 2, "{verdicts:?}");
    let kept = &verdicts[0];
    assert_eq!(kept["case"], "reply_id_mistyped");
    assert_eq!(kept["verdict"], "interrupted");
    assert_eq!(
        kept["primary"],
        "the run was terminated while this case was in flight"
    );
    assert_eq!(kept["evidence"]["pid"], Value::from(pids.wrapper));
    assert_eq!(
        kept["evidence"]["input"]["capabilities"],
        serde_json::json!({"elicitation": {"form": {}}})
    );
    let client_methods: Vec<&str> = kept["evidence"]["wire"]
        .as_array()
        .expect("frames")
        .iter()
        .filter(|frame| frame["from"] == "client")
        .filter_map(|frame| frame["message"]["method"].as_str())
        .collect();
    assert_eq!(
        client_methods,
        ["initialize", "notifications/initialized", "tools/call"],
        "the frames so far are kept"
    );
    assert_eq!(
        kept["reproduce"],
        format!(
            "elicit-check run --hostile --case reply_id_mistyped -- {}",
            elicit_check::error::shell_words(&command)
        )
        .as_str()
    );
    assert_eq!(
        verdicts[1],
        serde_json::json!({"run_status": "interrupted", "cases": 1, "stopped_because": "terminated by SIGTERM"})
    );
}

/// `check` stopped by SIGINT while its server hangs at start-up: the server is
/// killed, the check exits 2, and the message says where the calls that ran
/// before it are, or, without `--output`, that none were kept. No report an
/// earlier run left passes for this one: JUnit, SARIF, the summary and
/// `check.json` say the tool was not checked, and why.
#[test]
fn a_check_stopped_by_sigint_says_where_the_calls_that_ran_are_or_that_none_were_kept() {
    for with_output in [false, true] {
        let scratch = Scratch::new(if with_output {
            "check-sigint-out"
        } else {
            "check-sigint"
        });
        let pid_file = scratch.arg("pid");
        let output = scratch.arg("out");
        let script = format!("echo $$ > {pid_file}; exec sleep 1000");
        let mut args = vec![
            "check",
            "--tool",
            "t",
            "--acted",
            "/acted",
            "--protocol",
            "2025-11-25",
            "--startup-timeout",
            "600",
        ];
        if with_output {
            args.extend(["--output", &output]);
        }
        // An earlier run's reports, all passing.
        let junit = scratch.arg("check.xml");
        let sarif = scratch.arg("check.sarif");
        let summary = scratch.arg("summary.md");
        std::fs::write(&junit, r#"<testsuites tests="8" failures="0"/>"#).expect("old JUnit");
        std::fs::write(&sarif, "{\"runs\": []}").expect("old SARIF");
        std::fs::write(&summary, "## elicit-check check `t`: PASSED\n\n").expect("old summary");
        args.extend(["--junit", &junit, "--sarif", &sarif, "--summary", &summary]);
        args.extend(["--", "sh", "-c", &script]);
        let (ended, server) = stopped_by_sigint(&args, &pid_file);
        assert_eq!(ended.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&ended.stderr);
        let said = if with_output {
            format!(
                "interrupted; the calls that ran before it are in {output}/cases.jsonl (those of a phase not judged yet marked \"not_judged\": true)"
            )
        } else {
            "interrupted; no report (give --output DIR to keep the sessions that finish)".to_owned()
        };
        assert!(stderr.contains(&said), "{stderr}");
        let read = |path: &str| std::fs::read_to_string(path).expect("a report written");
        let junit = read(&junit);
        assert!(
            junit.contains("errors=\"1\"") && junit.contains("message=\"interrupted; "),
            "{junit}"
        );
        let sarif: Value = serde_json::from_str(&read(&sarif)).expect("SARIF is JSON");
        let invocation = &sarif["runs"][0]["invocations"][0];
        assert_eq!(invocation["executionSuccessful"], false, "{sarif:#}");
        let summary = read(&summary);
        assert!(
            summary.contains(&format!("## elicit-check check `t`: NOT CHECKED\n\n{said}")),
            "appended after the old one: {summary}"
        );
        if with_output {
            let report: Value =
                serde_json::from_str(&read(&format!("{output}/check.json"))).expect("JSON");
            assert_eq!(
                (&report["passed"], &report["outcome"], &report["error"]),
                (
                    &Value::Bool(false),
                    &Value::from("not_checked"),
                    &Value::from("interrupted: stopped by a signal before its report")
                ),
                "{report:#}"
            );
        }
        // The server leads its own group; a zombie left for init to reap is gone.
        assert_eq!(
            wait_group_gone(server),
            Vec::<String>::new(),
            "the server's group"
        );
        assert!(!alive(server), "the server {server} is gone");
    }
}

/// `check --output` stopped by SIGINT in the middle of its planned cases
/// (session mode: `forms.py --hang-from 4` answers the first 3 calls of its
/// process and leaves the 4th unanswered): the calls the phase had run are
/// not lost. `cases.jsonl` holds the probe's calls, judged, then the 3
/// planned cases that ran (`coverage 0` to `coverage 2`, each with its
/// reply), marked `"not_judged": true`; the case in flight is not there, and
/// the time line says the check stopped, not that it checked.
#[test]
fn a_check_stopped_in_its_planned_cases_keeps_the_calls_that_ran_marked_not_judged() {
    let scratch = Scratch::new("check-sigint-planned");
    let hung_file = scratch.arg("hung");
    let output = scratch.arg("out");
    let forms = format!("{}/fixtures/servers/forms.py", env!("CARGO_MANIFEST_DIR"));
    let (ended, server) = stopped_by_sigint(
        &[
            "check",
            "--tool",
            "choose_size",
            "--acted",
            "/acted",
            "--protocol",
            "2025-11-25",
            "--seed",
            "1",
            "--call-timeout",
            "600",
            "--output",
            &output,
            "--",
            crate::support::python3(),
            "-S",
            &forms,
            "--form",
            "enum",
            "--hang-from",
            "4",
            "--hung-file",
            &hung_file,
        ],
        &hung_file,
    );
    assert_eq!(ended.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert!(
        stderr.contains(&format!(
            "interrupted; the calls that ran before it are in {output}/cases.jsonl (those of a phase not judged yet marked \"not_judged\": true)"
        )),
        "{stderr}"
    );
    // Nothing was checked: the time line says the check stopped.
    assert!(
        stderr.contains("elicit-check: stopped after ") && !stderr.contains("checked in"),
        "{stderr}"
    );
    let log = std::fs::read_to_string(scratch.join("out/cases.jsonl")).expect("cases.jsonl");
    let records: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON record per line"))
        .collect();
    let (probe, planned): (Vec<&Value>, Vec<&Value>) = records.iter().partition(|record| {
        record["case"]
            .as_str()
            .is_some_and(|case| case.starts_with("probe"))
    });
    assert!(!probe.is_empty(), "{log}");
    assert!(
        probe
            .iter()
            .all(|record| record.get("not_judged").is_none()),
        "the probe's calls were judged: {log}"
    );
    let cases: Vec<(&Value, &Value)> = planned
        .iter()
        .map(|record| (&record["case"], &record["not_judged"]))
        .collect();
    let yes = Value::Bool(true);
    assert_eq!(
        cases,
        vec![
            (&Value::from("coverage 0"), &yes),
            (&Value::from("coverage 1"), &yes),
            (&Value::from("coverage 2"), &yes),
        ],
        "{log}"
    );
    assert!(
        planned
            .iter()
            .all(|record| record["reply"]["result"].is_object()),
        "each planned call that ran has its reply: {log}"
    );
    assert_eq!(
        wait_group_gone(server),
        Vec::<String>::new(),
        "the server's group"
    );
    assert!(!alive(server), "the server {server} is gone");
}

/// `check --config` over several targets stopped by SIGINT in its first
/// target: that target's server is killed, the check exits 2 naming the
/// target and how many finished, and no earlier run's targets report is left
/// in `--output` to pass for this run's.
#[test]
fn a_check_of_several_targets_stopped_by_sigint_leaves_no_earlier_report() {
    let scratch = Scratch::new("check-targets-sigint");
    let pid_file = scratch.arg("pid");
    let output = scratch.arg("out");
    std::fs::create_dir_all(&output).expect("the evidence folder");
    std::fs::write(scratch.join("out/check.json"), "{\"passed\": true}\n").expect("an old report");
    let config = scratch.join("ci.toml");
    let script = format!("echo $$ > {pid_file}; exec sleep 1000");
    std::fs::write(
        &config,
        format!(
            "[[target]]\nname = \"hang\"\ncommand = [\"sh\", \"-c\", {script:?}]\ntool = \"t\"\nacted = \"/acted\"\n\
             [[target]]\nname = \"never\"\ncommand = [\"sh\", \"-c\", \"exit 1\"]\ntool = \"t\"\nacted = \"/acted\"\n"
        ),
    )
    .expect("config written");
    let config = config.display().to_string();
    let (ended, server) = stopped_by_sigint(
        &[
            "check",
            "--config",
            &config,
            "--protocol",
            "2025-11-25",
            "--startup-timeout",
            "600",
            "--output",
            &output,
        ],
        &pid_file,
    );
    assert_eq!(ended.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert!(
        stderr.contains(&format!(
            "target hang, after 0 of 2 targets: interrupted; the calls that ran before it are in {output}/hang/cases.jsonl (those of a phase not judged yet marked \"not_judged\": true)"
        )),
        "{stderr}"
    );
    assert!(
        !scratch.join("out/check.json").exists(),
        "the earlier report is gone"
    );
    assert_eq!(
        wait_group_gone(server),
        Vec::<String>::new(),
        "the server's group"
    );
    assert!(!alive(server), "the server {server} is gone");
}

/// `elicit-check ARGS`, sent SIGINT once its server (which writes its pid to
/// `pid_file`, then hangs) has started: what it printed, and the server's pid.
fn stopped_by_sigint(args: &[&str], pid_file: &str) -> (std::process::Output, i32) {
    let check = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("elicit-check starts");
    let server = read_pid(pid_file);
    let pid = Pid::from_raw(i32::try_from(check.id()).expect("pid fits"));
    kill(pid, Signal::SIGINT).expect("the check gets the signal");
    (check.wait_with_output().expect("elicit-check ends"), server)
}

/// `Session::stop` ends a session without waiting for the server to exit on
/// its own: a server that ignores stdin close is stopped with SIGTERM at
/// once (no forced kill, no wait for the 30 s grace) and its end is the
/// harness's doing (`stopped_by_harness`); one that ignores SIGTERM too is
/// ended all the same, and nothing of its group is left. `Session::finish` waits for a
/// server's own exit, code 0 after its stdin closed, and that end is the
/// server's.
#[test]
fn stop_ends_a_server_at_once_and_finish_waits_for_its_own_exit() {
    use elicit_check::harness::{Limits, Session};
    let limits = Limits {
        startup: Duration::from_secs(30),
        call: Duration::from_secs(30),
        shutdown: Duration::from_secs(30),
    };
    let capabilities = serde_json::json!({"elicitation": {"form": {}}});
    let lingering = vec![
        crate::peers::environments()
            .join("python-sdk1/bin/python")
            .display()
            .to_string(),
        format!(
            "{}/fixtures/servers/stateful.py",
            env!("CARGO_MANIFEST_DIR")
        ),
        "unasked".to_owned(),
        "--linger".to_owned(),
    ];
    let runtime = crate::support::runtime();
    runtime.block_on(async {
        let session = Session::open(&lingering, &capabilities, limits, None)
            .await
            .expect("the server starts");
        assert_eq!(session.startup_error(), None);
        let group = session.pid().expect("a pid") as i32;
        let stopped = session.stop().await;
        assert!(stopped.stopped_by_harness);
        assert!(!stopped.exit.forced_kill, "{:?}", stopped.exit);
        assert_eq!(wait_group_gone(group), Vec::<String>::new());

        let deaf = crate::support::misbehaving("ignore-stdin-close");
        let session = Session::open(&deaf, &capabilities, limits, None)
            .await
            .expect("the server starts");
        let group = session.pid().expect("a pid") as i32;
        // SIGTERM may come before it ignores it (it does so once stdin
        // closes): ended either way, by the harness, with nothing left.
        let stopped = session.stop().await;
        assert!(stopped.stopped_by_harness);
        assert_eq!(wait_group_gone(group), Vec::<String>::new());

        let clean = crate::support::reference_server();
        let session = Session::open(&clean, &capabilities, limits, None)
            .await
            .expect("the server starts");
        let finished = session.finish().await;
        assert!(!finished.stopped_by_harness);
        assert_eq!(finished.exit.code, Some(0), "{:?}", finished.exit);
        assert!(!finished.exit.forced_kill);
    });
}
