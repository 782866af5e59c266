//! The contract suite on servers written with the MCP Python SDK 1.x and 2.x and
//! the TypeScript SDK: every correct peer passes `elicit-check run`, every
//! naive one fails it on named cases with a JSON path, and the cross-SDK table is
//! a snapshot. `scripts/peers.sh` sets the peers up under `target/peers/` (the
//! first run installs from PyPI and npm; later runs find them up to date).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use elicit_check::peers::{self, PEERS, Peer, Variant};
use serde_json::Value;

use crate::support;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Seed of the generated cases of every peer run, so the runs repeat exactly.
const SEED: &str = "1";

/// Runs `scripts/peers.sh` once per test binary; returns the environments folder,
/// or panics with the script's whole log when a peer cannot be installed.
pub(crate) fn environments() -> PathBuf {
    static READY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let ready = READY.get_or_init(|| {
        support::require_program("python3", "the Python SDK peers need python3 >= 3.10");
        support::require_program("node", "the TypeScript SDK peers need node >= 18");
        // ELICIT_CHECK_PEERS_DIR lets a copy of the tree (cargo-mutants) reuse
        // environments set up elsewhere; scripts/peers.sh reads it too.
        let dir = std::env::var_os("ELICIT_CHECK_PEERS_DIR")
            .map_or_else(|| Path::new(ROOT).join("target/peers"), PathBuf::from);
        let output = Command::new("bash")
            .arg(Path::new(ROOT).join("scripts/peers.sh"))
            .env("ELICIT_CHECK_PEERS_DIR", &dir)
            .output()
            .map_err(|error| format!("cannot run bash scripts/peers.sh: {error}"))?;
        if output.status.success() {
            Ok(dir)
        } else {
            Err(format!(
                "scripts/peers.sh failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    });
    ready.clone().unwrap_or_else(|log| panic!("{log}"))
}

/// The options of a `check` of a `delete_records` tool (`fixtures/servers/confirm.py`,
/// the fix guide's pairs): acted at `/deleted`, consent `/confirm=true`, seed 1.
pub(crate) const DELETE_RECORDS: [&str; 8] = [
    "--tool",
    "delete_records",
    "--acted",
    "/deleted",
    "--consent",
    "/confirm=true",
    "--seed",
    "1",
];

/// `check` of `fixtures/servers/confirm.py` (with `--bug BUG` when given) on
/// the Python SDK 1.x peer, as the packaging tests run it through each way of
/// installing: `delete_records`, acted at `/deleted`, consent `/confirm=true`,
/// seed 1, 5 random cases.
pub(crate) fn confirm_check(bug: Option<&str>) -> Vec<String> {
    let mut args: Vec<String> = ["check"]
        .iter()
        .chain(&DELETE_RECORDS)
        .chain(&["--cases", "5", "--"])
        .map(|word| (*word).to_owned())
        .collect();
    args.push(
        environments()
            .join("python-sdk1/bin/python")
            .display()
            .to_string(),
    );
    args.push(
        Path::new(ROOT)
            .join("fixtures/servers/confirm.py")
            .display()
            .to_string(),
    );
    args.extend(
        bug.into_iter()
            .flat_map(|bug| ["--bug".to_owned(), bug.to_owned()]),
    );
    args
}

/// One `elicit-check run` of a server.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    /// `results.json`: every verdict.
    pub(crate) verdicts: Vec<Value>,
    /// `run.json`: counts and the minimal failure.
    pub(crate) summary: Value,
}

impl Run {
    /// The verdicts of the contract cases, in order (a generated case's
    /// verdict carries the `reason` it was generated for).
    pub(crate) fn contract_verdicts(&self) -> impl Iterator<Item = &Value> {
        self.verdicts
            .iter()
            .filter(|verdict| verdict.get("reason").is_none())
    }
}

/// Runs `elicit-check run --cases N --seed 1 -- command` in a fresh output folder.
fn run(name: &str, command: &[String], cases: usize) -> Run {
    run_with(
        name,
        &["--seed", SEED, "--cases", &cases.to_string()],
        command,
    )
}

/// The run of `peer`: a correct peer in session mode (`--session -j 1`: a
/// server per capability set instead of one per case, about a fifth of the
/// starts; `tests/run/schedule.rs` shows session mode gives the serial fresh-process
/// verdicts on the Python SDK peers), a naive one in a fresh process per case
/// (most of its cases fail, and each failure is re-run fresh anyway).
fn peer_run(peer: &Peer, command: &[String]) -> Run {
    let cases = generated_cases(peer).to_string();
    let mut args = vec!["--seed", SEED, "--cases", &cases];
    if peer.variant == Variant::Correct {
        args.extend(["--session", "-j", "1"]);
    }
    run_with(&peer.name(), &args, command)
}

/// The run of a naive peer over stdio ([`peer_run`]: a fresh process per
/// case), made once per test binary and read by every test that compares
/// against it (this file's table, `tests/run/http.rs`'s verdicts over HTTP):
/// 19 to 23 starts of an SDK server each, the same every time.
pub(crate) fn naive_stdio_run(peer: &Peer) -> &'static Run {
    static RUNS: [OnceLock<Run>; PEERS.len()] = [const { OnceLock::new() }; PEERS.len()];
    assert_eq!(peer.variant, Variant::Naive, "{}", peer.name());
    let index = PEERS
        .iter()
        .position(|listed| listed == peer)
        .expect("a listed peer");
    RUNS[index].get_or_init(|| {
        let command = peer.command(Path::new(ROOT), &environments());
        peer_run(peer, &command)
    })
}

/// Runs `elicit-check run ARGS -- command` in a fresh output folder.
fn run_with(name: &str, args: &[&str], command: &[String]) -> Run {
    run_bounded(name, args, "60", command)
}

/// [`run_with`] with `--call-timeout` `call_timeout` (seconds).
fn run_bounded(name: &str, args: &[&str], call_timeout: &str, command: &[String]) -> Run {
    let dir = std::env::temp_dir().join(format!("elicit-check-{}-{name}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .arg("run")
        .args(args)
        // Generous bounds: six peers share two cores with the rest of the suite.
        .args([
            "--startup-timeout",
            "60",
            "--call-timeout",
            call_timeout,
            "--shutdown-grace",
            "30",
            "--output",
        ])
        .arg(&dir)
        .arg("--")
        .args(command)
        .env_remove("RUST_LOG")
        .env_remove("PROPTEST_CASES")
        .output()
        .expect("elicit-check runs");
    let read = |file: &str| -> Value {
        let text = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|error| {
            panic!(
                "{name}: no {file} ({error}); stderr: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        serde_json::from_str(&text).expect("JSON evidence")
    };
    let verdicts = read("results.json");
    let summary = read("run.json");
    let _ = std::fs::remove_dir_all(&dir);
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        verdicts: verdicts.as_array().cloned().unwrap_or_default(),
        summary,
    }
}

/// Generated cases per peer: enough to show the generator reaches each SDK,
/// few enough to keep `cargo test` short (a Python SDK process takes about a
/// second of CPU to start). The naive TypeScript peer also shows shrinking.
fn generated_cases(peer: &Peer) -> usize {
    match (peer.variant, peer.sdk.contains("TypeScript")) {
        (Variant::Correct, true) => 16,
        (Variant::Correct, false) => 8,
        (Variant::Naive, true) => 4,
        (Variant::Naive, false) => 0,
    }
}

/// The failures of contract case `case` in `verdicts`.
fn failures_of<'a>(verdicts: &'a [Value], case: &str) -> Vec<&'a str> {
    verdicts
        .iter()
        .find(|verdict| verdict["case"] == case)
        .and_then(|verdict| verdict["failures"].as_array())
        .map(|failures| failures.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Keys of every object in `value`, counted recursively.
fn key_count(value: &Value) -> usize {
    match value {
        Value::Object(members) => members.len() + members.values().map(key_count).sum::<usize>(),
        Value::Array(items) => items.iter().map(key_count).sum(),
        _ => 0,
    }
}

/// The contract failures each naive peer must show, written by hand from the
/// SDK's documented behaviour: (case, failure naming the JSON path).
pub(crate) fn naive_failures(peer: &Peer) -> Vec<(&'static str, &'static str)> {
    let computed = r#"outcome $.status: "calculated" != "invalid_content""#;
    if peer.sdk.contains("TypeScript") {
        // elicitInput's JSON Schema validator (ajv) counts 3.0 as an integer and
        // allows keys the schema does not name.
        vec![
            ("accept_float_integer", computed),
            ("accept_extra_field", computed),
        ]
    } else {
        // pydantic's lax defaults: "3" -> 3, 3.0 -> 3, true -> 1, no bounds,
        // extra keys ignored.
        vec![
            ("accept_wrong_type", computed),
            ("accept_out_of_range", computed),
            ("accept_extra_field", computed),
            ("accept_float_integer", computed),
            ("accept_boolean_as_integer", computed),
        ]
    }
}

/// How many contract cases `run` runs (`fixtures/cases.json`).
fn contract_count() -> usize {
    elicit_check::case::contract_cases().len()
}

#[test]
fn sdk_peers_pass_run_when_correct_and_fail_it_when_naive_and_the_table_holds() {
    let environments = environments();
    // The correct peers' runs are this test's own; the naive ones are shared.
    let owned: Vec<(Peer, Option<Run>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = PEERS
            .iter()
            .map(|peer| {
                let command = peer.command(Path::new(ROOT), &environments);
                scope.spawn(move || match peer.variant {
                    Variant::Correct => (*peer, Some(peer_run(peer, &command))),
                    Variant::Naive => {
                        naive_stdio_run(peer);
                        (*peer, None)
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("a peer run thread"))
            .collect()
    });
    let runs: Vec<(Peer, &Run)> = owned
        .iter()
        .map(|(peer, run)| (*peer, run.as_ref().unwrap_or_else(|| naive_stdio_run(peer))))
        .collect();
    for (peer, run) in &runs {
        let name = peer.name();
        let cases = contract_count() + generated_cases(peer);
        assert_eq!(run.verdicts.len(), cases, "{name}: {}", run.stdout);
        match peer.variant {
            Variant::Correct => {
                assert_eq!(run.code, Some(0), "{name} fails:\n{}", run.stdout);
                assert_eq!(run.summary["mode"], "session", "{name}");
                let summary = format!("{cases} passed, 0 failed in ");
                assert!(
                    run.stdout.lines().any(|line| line.starts_with(&summary)),
                    "{name}: {}",
                    run.stdout
                );
            }
            Variant::Naive => {
                assert_eq!(run.code, Some(1), "{name} passes:\n{}", run.stdout);
                for (case, failure) in naive_failures(peer) {
                    let failures = failures_of(&run.verdicts, case);
                    assert!(
                        failures.contains(&failure),
                        "{name}: {case} does not fail with {failure:?} but with {failures:?}:\n{}",
                        run.stdout
                    );
                }
            }
        }
    }
    let (_, typescript_naive) = &runs[5];
    let minimal = &typescript_naive.summary["minimal_failure"];
    assert!(
        minimal.is_object(),
        "no minimal failure: {}",
        typescript_naive.stdout
    );
    // At most `result`, `action`, `content` and one field: for instance
    // `{"result":{"action":"accept","content":{"unit_value":1}}}` (`units` missing).
    let answer = &minimal["case"]["answer"];
    assert!(
        key_count(answer) <= 4,
        "the shrunk answer {answer} has more than four keys"
    );

    let rows: Vec<(Peer, Vec<Value>)> = runs
        .into_iter()
        .map(|(peer, run)| (peer, run.contract_verdicts().cloned().collect()))
        .collect();
    let table = peers::table(&rows);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_description("cross-SDK table: the contract cases on each SDK peer");
    settings.bind(|| insta::assert_snapshot!("cross_sdk_table", table));
}

/// A correct Python SDK 1.x server echoes the answer's `-0` under policy `raw` as
/// `0`: Python reads the integer literal `-0` as the integer 0, where serde_json
/// keeps a float -0.0. Same JSON value, so the case passes (it failed with
/// `integer != float` when the comparison went by serde_json's kinds).
#[test]
fn a_python_peer_echoing_negative_zero_as_zero_passes() {
    let environments = environments();
    let peer = PEERS
        .iter()
        .find(|peer| peer.name() == "python-sdk1-correct")
        .expect("the Python SDK 1.x correct peer");
    let command = peer.command(Path::new(ROOT), &environments);
    // Seed 3's generated_0109 is `units: -0` under policy raw.
    let run = run_with(
        "negative-zero",
        &["--seed", "3", "--case", "generated_0109"],
        &command,
    );
    assert_eq!(run.verdicts.len(), 1, "{}", run.stdout);
    let verdict = &run.verdicts[0];
    let reason = verdict["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("policy raw") && reason.contains("units=-0 (negative zero"),
        "generated_0109 of seed 3 is no longer the negative-zero raw case: {reason}"
    );
    let echoed = &verdict["evidence"]["text_outcome"]["content"]["units"];
    assert_eq!(echoed, &Value::from(0), "the peer echoes `-0` as integer 0");
    assert_eq!(verdict["passed"], true, "{}", run.stdout);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn a_text_only_variant_of_the_plain_python_peer_passes() {
    support::require_program("python3", "the plain Python peer needs python3");
    let script = Path::new(ROOT).join("fixtures/peers/calculator_text_only.py");
    let command = vec!["python3".to_owned(), script.to_string_lossy().into_owned()];
    let run = run("text-only", &command, 16);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let summary = format!("{} passed, 0 failed in ", contract_count() + 16);
    assert!(
        run.stdout.lines().any(|line| line.starts_with(&summary)),
        "{}",
        run.stdout
    );
    let accept_valid = &run.verdicts[0]["evidence"];
    assert_eq!(accept_valid["outcome"], Value::Null, "no structuredContent");
    assert_eq!(accept_valid["text_outcome"]["value"], 21);
    let row = run
        .stdout
        .lines()
        .find(|line| line.starts_with("accept_valid "))
        .expect("a row per case");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["accept_valid", "calculated", "true", "21", "pass"]);
}

#[test]
fn peer_versions_match_their_pins() {
    let requirements = |file: &str| {
        std::fs::read_to_string(Path::new(ROOT).join("fixtures/peers").join(file)).expect("pins")
    };
    let package =
        std::fs::read_to_string(Path::new(ROOT).join("fixtures/peers/typescript/package.json"))
            .expect("package.json");
    for peer in PEERS {
        let pinned = if peer.sdk.contains("TypeScript") {
            package.contains(&format!(
                "\"@modelcontextprotocol/sdk\": \"{}\"",
                peer.version
            ))
        } else {
            let file = if peer.sdk.contains("1.x") {
                "requirements-sdk1.txt"
            } else {
                "requirements-sdk2.txt"
            };
            requirements(file)
                .lines()
                .any(|line| line == format!("mcp=={}", peer.version))
        };
        assert!(
            pinned,
            "{}: version {} is not the pinned one",
            peer.name(),
            peer.version
        );
    }
}

#[test]
#[should_panic(expected = "python3-missing-here not found on PATH")]
fn a_missing_interpreter_fails_the_test_saying_which_and_why() {
    support::require_program(
        "python3-missing-here",
        "the Python SDK peers need python3 >= 3.10",
    );
}

/// The `calculate` contract written the Python SDK 1.x's way
/// (`fixtures/peers/python_sdk1_elicit.py`: `ctx.elicit` with a strict pydantic
/// model, `elicit_form` for the raw policies) differs from the reference server
/// in detail only: judged by meaning (`src/oracle/meaning.rs`) it passes every
/// contract case, each answer that is no `ElicitResult`, and the `content: null`
/// echo; the one thing it really does wrong, waiting forever after a result that
/// is not an object, is a `hung` case that says so.
#[test]
fn a_python_sdk_1_server_written_the_sdks_way_differs_in_detail_only() {
    let environments = environments();
    let python = environments.join("python-sdk1/bin/python");
    let script = Path::new(ROOT).join("fixtures/peers/python_sdk1_elicit.py");
    let command = vec![
        python.to_string_lossy().into_owned(),
        script.to_string_lossy().into_owned(),
    ];
    let contract = run_with(
        "sdk-way",
        &["--cases", "0", "--session", "-j", "1"],
        &command,
    );
    assert_eq!(
        run_code_and_failures(&contract),
        (Some(0), vec![]),
        "{}",
        contract.stdout
    );
    // pydantic's `extra="forbid"` sends additionalProperties: one warning line
    // for the run, each case keeping it in results.json.
    let warning = "requestedSchema $.additionalProperties: outside the MCP restricted subset";
    let lines: Vec<&str> = contract
        .stdout
        .lines()
        .filter(|line| line.contains(warning))
        .collect();
    assert_eq!(lines.len(), 1, "{}", contract.stdout);
    assert!(lines[0].starts_with("warning ("), "{}", lines[0]);
    assert!(lines[0].contains(" cases): "), "{}", lines[0]);
    let accept_valid = &contract.verdicts[0];
    assert!(
        accept_valid["warnings"].to_string().contains(warning),
        "{accept_valid}"
    );

    // (answer, policy, whether judging by meaning had to tolerate a detail)
    let answers: [(&str, &str, bool); 6] = [
        (r#"{"action":"reject"}"#, "validated", true),
        (
            r#"{"action":" accept","content":{"units":3,"unit_value":7}}"#,
            "validated",
            true,
        ),
        (r#"{"action":"accept","content":true}"#, "validated", true),
        (
            r#"{"action":"accept","content":{"units":"3","unit_value":{"value":3}}}"#,
            "validated",
            true,
        ),
        (r#"{"action":"accept","content":"u"}"#, "raw", true),
        (r#"{"action":"decline"}"#, "raw", false),
    ];
    let runs: Vec<Run> = std::thread::scope(|scope| {
        let handles: Vec<_> = answers
            .iter()
            .enumerate()
            .map(|(index, (answer, policy, _))| {
                let command = &command;
                scope.spawn(move || {
                    run_with(
                        &format!("sdk-way-{index}"),
                        &["--answer", answer, "--policy", policy],
                        command,
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("a run"))
            .collect()
    });
    for ((answer, policy, tolerated), run) in answers.iter().zip(&runs) {
        assert_eq!(run.verdicts.len(), 1, "{answer}: {}", run.stdout);
        let verdict = &run.verdicts[0];
        assert_eq!(verdict["passed"], true, "{policy} {answer}: {}", run.stdout);
        assert_eq!(
            verdict.get("notes").is_some(),
            *tolerated,
            "{answer}: {verdict}"
        );
    }
    // The echo of a decline carries `content: null`: no content.
    assert_eq!(
        runs[5].verdicts[0]["evidence"]["text_outcome"]["content"],
        Value::Null,
        "{}",
        runs[5].verdicts[0]
    );
    assert!(
        runs[5].verdicts[0]["evidence"]["text_outcome"]
            .as_object()
            .is_some_and(|outcome| outcome.contains_key("content")),
        "the peer echoes content: null"
    );

    let hung = run_bounded("sdk-way-173", &["--answer", "173"], "5", &command);
    assert_eq!(hung.code, Some(1), "{}", hung.stdout);
    assert_eq!(hung.verdicts[0]["verdict"], "hung");
    assert_eq!(
        hung.verdicts[0]["primary"],
        "no reply to tools/call within 5 s after a result that is not an object (173) \
         answered its elicitation/create"
    );
}

/// A run's exit code and the cases that failed, with their verdicts.
fn run_code_and_failures(run: &Run) -> (Option<i32>, Vec<String>) {
    let failed = run
        .verdicts
        .iter()
        .filter(|verdict| verdict["passed"] == false)
        .map(|verdict| format!("{}: {}", verdict["case"], verdict["primary"]))
        .collect();
    (run.code, failed)
}
