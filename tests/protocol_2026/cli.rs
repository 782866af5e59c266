//! `elicit-check run --protocol` end to end against the reference server.

use std::process::Command;

use serde_json::Value;

use crate::support::OutputDir;

/// Runs `elicit-check run --cases 0 --output DIR` plus `args`; returns stdout,
/// the exit code, the verdicts and `run.json`.
fn run(test: &str, args: &[&str]) -> (String, Option<i32>, Vec<Value>, Value) {
    let dir = OutputDir::new(&format!("mrtr-{test}"));
    let output = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .args(["run", "--cases", "0", "--output"])
        .arg(dir.path())
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("PROPTEST_CASES")
        .output()
        .expect("elicit-check runs");
    let read = |name: &str| -> Value {
        let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|error| {
            panic!(
                "no {name} ({error}); stderr: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        serde_json::from_str(&text).expect("JSON")
    };
    let verdicts = read("results.json").as_array().cloned().expect("an array");
    let summary = read("run.json");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        output.status.code(),
        verdicts,
        summary,
    )
}

#[test]
fn run_on_2026_07_28_passes_the_contract_with_the_era_in_the_evidence() {
    let (stdout, code, verdicts, summary) = run("modern", &["--protocol", "2026-07-28"]);
    assert_eq!(code, Some(0), "{stdout}");
    let contract = elicit_check::case::contract_cases().len();
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|line| line.starts_with(&format!("{contract} passed, 0 failed in "))),
        "{stdout}"
    );
    assert!(
        stdout.contains("unsupported_guarded               jsonrpc -32021"),
        "{stdout}"
    );
    assert_eq!(verdicts.len(), contract);
    for verdict in &verdicts {
        assert_eq!(verdict["evidence"]["protocol_version"], "2026-07-28");
    }
    assert_eq!(summary["protocol"], "2026-07-28");
}

#[test]
fn run_defaults_to_2025_11_25() {
    let (stdout, code, verdicts, summary) = run("default", &["--case", "accept_valid"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0]["evidence"]["protocol_version"], "2025-11-25");
    assert_eq!(summary["protocol"], "2025-11-25");
}

#[test]
fn run_in_both_eras_names_each_era_and_passes_the_table() {
    let (stdout, code, verdicts, _) = run(
        "both",
        &[
            "--protocol",
            "both",
            "--case",
            "accept_valid",
            "--case",
            "url_only_guarded",
        ],
    );
    assert_eq!(code, Some(0), "{stdout}");
    let names: Vec<&str> = verdicts
        .iter()
        .filter_map(|verdict| verdict["case"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "accept_valid",
            "accept_valid@2026-07-28",
            "url_only_guarded",
            "url_only_guarded@2026-07-28"
        ]
    );
    assert_eq!(verdicts[3]["evidence"]["rpc_error"]["code"], -32021);
    assert_eq!(
        verdicts[3]["expected"],
        serde_json::json!({"jsonrpc_error": {"code": -32021}})
    );
}

#[test]
fn an_unknown_protocol_is_refused_before_anything_runs() {
    let output = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .args(["run", "--protocol", "2026-07-29"])
        .output()
        .expect("elicit-check runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("invalid value '2026-07-29' for '--protocol <PROTOCOL>'"),
        "{stderr}"
    );
}

/// `--case NAME@2026-07-28`, the name `--protocol both` gives a case's
/// 2026-07-28 verdict (and its reproduction line), runs that case in that era
/// only, as `--case NAME --protocol 2026-07-28` does.
#[test]
fn a_case_named_as_its_2026_07_28_verdict_runs_in_that_era_only() {
    let (stdout, code, verdicts, summary) = run("era-name", &["--case", "accept_valid@2026-07-28"]);
    assert_eq!(code, Some(0), "{stdout}");
    let cases: Vec<(&Value, &Value)> = verdicts
        .iter()
        .map(|verdict| (&verdict["case"], &verdict["evidence"]["protocol_version"]))
        .collect();
    assert_eq!(cases, [(&"accept_valid".into(), &"2026-07-28".into())]);
    assert_eq!(summary["protocol"], "2026-07-28");

    // With --protocol 2026-07-28 given, a plain name beside it runs there too.
    let (stdout, code, verdicts, _) = run(
        "era-name-explicit",
        &[
            "--protocol",
            "2026-07-28",
            "--case",
            "decline@2026-07-28",
            "--case",
            "cancel",
        ],
    );
    assert_eq!(code, Some(0), "{stdout}");
    let cases: Vec<(&Value, &Value)> = verdicts
        .iter()
        .map(|verdict| (&verdict["case"], &verdict["evidence"]["protocol_version"]))
        .collect();
    assert_eq!(
        cases,
        [
            (&"decline".into(), &"2026-07-28".into()),
            (&"cancel".into(), &"2026-07-28".into())
        ]
    );
}

#[test]
fn a_case_named_as_its_2026_07_28_verdict_is_refused_beside_another_era() {
    let dir = OutputDir::new("mrtr-era-refused");
    for (args, message) in [
        (
            vec!["--protocol", "both", "--case", "accept_valid@2026-07-28"],
            "--case accept_valid@2026-07-28 is the case's run in protocol 2026-07-28, but \
             --protocol is both: give --case accept_valid --protocol both, or leave out --protocol",
        ),
        (
            vec![
                "--protocol",
                "2025-11-25",
                "--case",
                "accept_valid@2026-07-28",
            ],
            "--case accept_valid@2026-07-28 is the case's run in protocol 2026-07-28, but \
             --protocol is 2025-11-25: give --case accept_valid --protocol 2025-11-25, or leave \
             out --protocol",
        ),
        (
            vec!["--case", "accept_valid@2026-07-28", "--case", "decline"],
            "--case accept_valid@2026-07-28 runs in protocol 2026-07-28 and --case decline in \
             2025-11-25: give --protocol 2026-07-28 to run both there, or run them separately",
        ),
        (
            vec!["--case", "accept_valid@2025-11-25"],
            "no contract case named \"accept_valid@2025-11-25\"",
        ),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_elicit-check"))
            .args(["run", "--output"])
            .arg(dir.path())
            .args(&args)
            .env_remove("RUST_LOG")
            .output()
            .expect("elicit-check runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!dir.path().exists(), "{args:?} wrote evidence");
    }
}
