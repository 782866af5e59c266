//! The reports `check` writes for CI beside its table (docs/src/ci.md):
//! `--sarif` (SARIF 2.1.0, validated against the OASIS schema vendored in
//! schemas/vendor/), `--summary` (Markdown for a job's summary page, appended),
//! and `--baseline` (known failures pass, stale entries fail, a bad file is
//! refused before any server starts). The server is
//! `fixtures/servers/calculator.py`: with `--bug computes-on-decline` it acts
//! on a decline, which breaks property 1 and nothing else; without a bug every
//! property holds.

use serde_json::Value;

use super::cli::{cli, fixture};
use crate::support::Scratch;

/// `check --tool calculate --acted /computed=true` of calculator.py (with
/// `bug`), 2025-11-25 only, with `extra` options before the `--`.
fn check_calculator(bug: Option<&str>, extra: &[&str]) -> std::process::Output {
    let script = fixture("fixtures/servers/calculator.py");
    let mut args = vec![
        "--tool",
        "calculate",
        "--acted",
        "/computed=true",
        "--protocol",
        "2025-11-25",
        "--cases",
        "4",
        "--seed",
        "1",
    ];
    args.extend(extra);
    args.extend(["--", "python3", script.as_str()]);
    if let Some(bug) = bug {
        args.extend(["--bug", bug]);
    }
    cli(&args)
}

/// The vendored SARIF 2.1.0 schema's errors for `document` (empty: valid).
fn sarif_errors(document: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("schemas/vendor/sarif-schema-2.1.0.json"))
            .expect("the SARIF schema is readable"),
    )
    .expect("the SARIF schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    validator
        .iter_errors(document)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect()
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("written")).expect("JSON")
}

#[test]
fn sarif_has_one_valid_result_per_failed_property() {
    let scratch = Scratch::new("check-reports");
    let sarif = scratch.path().join("check.sarif");
    let sarif_text = sarif.display().to_string();
    let run = check_calculator(Some("computes-on-decline"), &["--sarif", &sarif_text]);
    assert_eq!(run.status.code(), Some(1));
    let document = read_json(&sarif);
    assert_eq!(sarif_errors(&document), Vec::<String>::new());
    assert_eq!(document["version"], "2.1.0");
    let runs = document["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "one run per era checked");
    let rules: Vec<&str> = runs[0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|rule| rule["id"].as_str())
        .collect();
    assert_eq!(rules, ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"]);
    let results = runs[0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{results:#?}");
    assert_eq!(results[0]["ruleId"], "P1");
    assert_eq!(results[0]["ruleIndex"], 0);
    assert_eq!(results[0]["level"], "error");
    let message = results[0]["message"]["text"].as_str().expect("a message");
    assert!(
        message.starts_with(
            "acted although the answer was decline\nminimal answer: {\"action\":\"decline\""
        ),
        "{message}"
    );
    assert!(message.contains("\nreproduce: "), "{message}");
    assert_eq!(
        results[0]["locations"][0]["logicalLocations"][0]["name"],
        "calculate"
    );
    assert_eq!(results[0]["properties"]["protocol"], "2025-11-25");

    // A server that holds every property: a valid document with no result.
    let clean = scratch.path().join("clean.sarif");
    let run = check_calculator(None, &["--sarif", &clean.display().to_string()]);
    assert_eq!(run.status.code(), Some(0));
    let document = read_json(&clean);
    assert_eq!(sarif_errors(&document), Vec::<String>::new());
    assert_eq!(document["runs"][0]["results"], Value::Array(Vec::new()));
}

/// The vendored schema is the check: a document without its `version`, or
/// with a result of an unknown level, is refused.
#[test]
fn the_vendored_sarif_schema_refuses_a_broken_document() {
    let no_version = serde_json::json!({"runs": []});
    assert_ne!(sarif_errors(&no_version), Vec::<String>::new());
    let bad_level = serde_json::json!({"version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "elicit-check"}},
        "results": [{"message": {"text": "x"}, "level": "fatal"}]
    }]});
    assert_ne!(sarif_errors(&bad_level), Vec::<String>::new());
}

#[test]
fn the_summary_names_the_same_findings_and_is_appended() {
    let scratch = Scratch::new("check-reports");
    let summary = scratch.path().join("summary.md");
    let summary_text = summary.display().to_string();
    for _ in 0..2 {
        let run = check_calculator(Some("computes-on-decline"), &["--summary", &summary_text]);
        assert_eq!(run.status.code(), Some(1));
    }
    let text = std::fs::read_to_string(&summary).expect("written");
    assert_eq!(
        text.matches("## elicit-check check `calculate`: FAILED\n")
            .count(),
        2,
        "appended, not replaced: {text}"
    );
    let first = &text[..text[1..]
        .find("## elicit-check check")
        .map_or(text.len(), |at| at + 1)];
    assert!(first.contains("| P1 | never acts when an answer was decline or cancel | "));
    assert!(first.contains(" | FAILS |"));
    assert_eq!(first.matches("FAILS").count(), 1, "{first}");
    assert!(first.contains("#### P1 fails: acted although the answer was decline\n"));
    assert!(first.contains("```sh\n") && first.contains("--bug computes-on-decline\n```"));
}

#[test]
fn a_baseline_lets_a_known_failure_pass_and_fails_when_it_is_stale() {
    let scratch = Scratch::new("check-reports");
    let baseline = scratch.path().join("baseline.toml");
    std::fs::write(
        &baseline,
        "[[known]]\ntool = \"calculate\"\nproperty = \"P1\"\nreason = \"acts on a decline, fixed upstream in 2.0\"\n",
    )
    .expect("written");
    let file = baseline.display().to_string();
    let sarif = scratch.path().join("known.sarif");
    let known = check_calculator(
        Some("computes-on-decline"),
        &["--baseline", &file, "--sarif", &sarif.display().to_string()],
    );
    let stdout = String::from_utf8_lossy(&known.stdout);
    assert_eq!(known.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "known failure (baseline {file}): P1 in 2025-11-25: acts on a decline, fixed upstream in 2.0\npasses with the baseline {file}\n"
        )),
        "{stdout}"
    );
    let document = read_json(&sarif);
    assert_eq!(sarif_errors(&document), Vec::<String>::new());
    assert_eq!(
        document["runs"][0]["results"][0]["suppressions"][0]["justification"],
        "acts on a decline, fixed upstream in 2.0"
    );

    // The same entry against the fixed server: stale, the check fails.
    let fixed = check_calculator(None, &["--baseline", &file, "--json"]);
    assert_eq!(fixed.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&fixed.stdout).expect("JSON");
    super::cli::assert_valid_report_json(&report);
    assert_eq!(report["passed"], true, "every property holds");
    assert_eq!(report["baseline"]["passed"], false);
    assert_eq!(
        report["baseline"]["stale"],
        serde_json::json!([{"property": 1, "protocol": "2025-11-25", "reason": "acts on a decline, fixed upstream in 2.0"}])
    );
    let table = check_calculator(None, &["--baseline", &file]);
    assert!(
        String::from_utf8_lossy(&table.stdout).contains(&format!(
            "stale baseline entry: P1 holds in 2025-11-25; remove its entry from {file}\nFAILED with the baseline {file}\n"
        )),
        "{}",
        String::from_utf8_lossy(&table.stdout)
    );
}

#[test]
fn a_bad_baseline_is_refused_before_any_server_starts() {
    let scratch = Scratch::new("check-reports");
    let baseline = scratch.path().join("baseline.toml");
    std::fs::write(
        &baseline,
        "[[known]]\ntool = \"calculate\"\nproperty = \"P12\"\nreason = \"r\"\n",
    )
    .expect("written");
    let marker = scratch.path().join("started");
    let file = baseline.display().to_string();
    let touch = format!("touch '{}'; exec python3 \"$0\"", marker.display());
    let script = fixture("fixtures/servers/calculator.py");
    let run = cli(&[
        "--tool",
        "calculate",
        "--acted",
        "/computed=true",
        "--baseline",
        &file,
        "--",
        "sh",
        "-c",
        &touch,
        &script,
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(&format!(
            "baseline {file}: [[known]] #1: property \"P12\" is none of P1 to P8"
        )),
        "{stderr}"
    );
    assert!(!marker.exists(), "no server was started");
}
