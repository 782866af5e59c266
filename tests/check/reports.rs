//! The reports `check` writes for CI beside its table (docs/src/ci.md):
//! `--sarif` (SARIF 2.1.0, validated against the OASIS schema vendored in
//! schemas/vendor/), `--summary` (Markdown for a job's summary page, appended),
//! and `--baseline` (known failures pass, stale entries fail, a bad file is
//! refused before any server starts). The server is
//! `fixtures/servers/calculator.py`: with `--bug computes-on-decline` it acts
//! on a decline, which breaks property 1 and nothing else; with `--bug
//! float-as-integer` it acts on `3.0` for an integer (a warning of property 2);
//! without a bug every property holds.

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
    args.extend(["--", crate::support::python3(), script.as_str()]);
    if let Some(bug) = bug {
        args.extend(["--bug", bug]);
    }
    cli(&args)
}

/// The vendored SARIF 2.1.0 schema's errors for `document` (empty: valid).
pub(super) fn sarif_errors(document: &Value) -> Vec<String> {
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

/// `(testcase name, status, message)` of every `<testcase>` in a JUnit file:
/// status `passed`, `failure`, `error` or `skipped`.
pub(super) fn junit_cases(path: &std::path::Path) -> Vec<(String, &'static str, Option<String>)> {
    use quick_xml::events::{BytesStart, Event};
    let text = std::fs::read_to_string(path).expect("the JUnit file is written");
    let mut reader = quick_xml::Reader::from_str(&text);
    let attribute = |element: &BytesStart, key: &[u8]| {
        element
            .attributes()
            .filter_map(Result::ok)
            .find(|a| a.key.as_ref() == key)
            .map(|a| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .expect("escaped")
                    .into_owned()
            })
    };
    let mut cases: Vec<(String, &'static str, Option<String>)> = Vec::new();
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(element) | Event::Empty(element) => {
                let status = match element.name().as_ref() {
                    b"testcase" => {
                        cases.push((attribute(&element, b"name").expect("name"), "passed", None));
                        continue;
                    }
                    b"failure" => "failure",
                    b"error" => "error",
                    b"skipped" => "skipped",
                    _ => continue,
                };
                let case = cases.last_mut().expect("inside a testcase");
                case.1 = status;
                case.2 = attribute(&element, b"message");
            }
            Event::Eof => break,
            _ => {}
        }
    }
    cases
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("written")).expect("JSON")
}

/// The failed properties a summary lists (`#### P1 fails: …`), in order.
fn summary_failures(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("#### "))
        .filter_map(|rest| rest.split_once(" fails: "))
        .map(|(id, _)| id.to_owned())
        .collect()
}

/// `(ruleId, level)` of every result of a SARIF run.
fn sarif_results(run: &Value) -> Vec<(String, String)> {
    run["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|result| {
            (
                result["ruleId"].as_str().expect("ruleId").to_owned(),
                result["level"].as_str().expect("level").to_owned(),
            )
        })
        .collect()
}

#[test]
fn sarif_has_one_valid_result_per_failed_property() {
    let scratch = Scratch::new("check-reports");
    let sarif = scratch.path().join("check.sarif");
    let sarif_text = sarif.display().to_string();
    let summary = scratch.path().join("summary.md");
    let evidence = scratch.path().join("evidence");
    let run = check_calculator(
        Some("computes-on-decline"),
        &[
            "--sarif",
            &sarif_text,
            "--summary",
            &summary.display().to_string(),
            "--output",
            &evidence.display().to_string(),
        ],
    );
    assert_eq!(run.status.code(), Some(1));
    // The table, the summary and the SARIF name the same failed property.
    let table = String::from_utf8_lossy(&run.stdout);
    assert!(table.contains("\nFAILED: property 1\n"), "{table}");
    let summary = std::fs::read_to_string(&summary).expect("written");
    assert_eq!(summary_failures(&summary), ["P1"], "{summary}");
    let document = read_json(&sarif);
    assert_eq!(
        sarif_results(&document["runs"][0]),
        [("P1".to_owned(), "error".to_owned())]
    );
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
    let rule = &runs[0]["tool"]["driver"]["rules"][0];
    assert_eq!(rule["name"], "NoActOnRefusal");
    assert_eq!(
        rule["shortDescription"]["text"],
        "never acts when an answer was decline or cancel"
    );
    let results = runs[0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{results:#?}");
    assert_eq!(results[0]["ruleId"], "P1");
    assert_eq!(results[0]["ruleIndex"], 0);
    assert_eq!(results[0]["level"], "error");
    let message = results[0]["message"]["text"].as_str().expect("a message");
    assert!(
        message.starts_with(
            "acted although the answer was decline\nfix: act only on the action `accept`: a decline or cancel may carry content, and no other action is an answer\nminimal answer: {\"action\":\"decline\""
        ),
        "{message}"
    );
    // The calculator answers JSON-RPC by hand: no SDK's marks, so the fix
    // speaks the protocol's terms, and its page is the flaw's.
    assert_eq!(results[0]["properties"]["flaw"], "acts-on-refusal");
    assert_eq!(
        results[0]["properties"]["fixUrl"],
        "https://github.com/elicit-check/elicit-check/blob/main/docs/src/fixes/acts-on-refusal.md"
    );
    assert_eq!(results[0]["properties"]["sdk"]["sdk"], Value::Null);
    let help = rule["help"]["text"].as_str().expect("the rule's help");
    assert!(
        help.contains("acts-on-refusal: https://github.com/elicit-check/elicit-check/blob/main/docs/src/fixes/acts-on-refusal.md"),
        "{help}"
    );
    assert!(message.contains("\nreproduce: "), "{message}");
    assert_eq!(
        results[0]["locations"][0]["logicalLocations"][0]["name"],
        "calculate"
    );
    assert_eq!(results[0]["properties"]["protocol"], "2025-11-25");
    assert_eq!(
        results[0]["properties"]["evidence"],
        evidence.join("cases.jsonl").display().to_string()
    );
    assert!(evidence.join("cases.jsonl").is_file());

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

/// A warning fails nothing without `--strict`: a result of level `warning`
/// under its property, and the check passes.
#[test]
fn a_warning_is_a_sarif_result_of_level_warning() {
    let scratch = Scratch::new("check-reports");
    let sarif = scratch.path().join("warning.sarif");
    let run = check_calculator(
        Some("float-as-integer"),
        &[
            "--answer",
            r#"{"action":"accept","content":{"units":3.0,"unit_value":7}}"#,
            "--sarif",
            &sarif.display().to_string(),
        ],
    );
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let document = read_json(&sarif);
    assert_eq!(sarif_errors(&document), Vec::<String>::new());
    assert_eq!(
        sarif_results(&document["runs"][0]),
        [("P2".to_owned(), "warning".to_owned())]
    );
    assert_eq!(
        document["runs"][0]["results"][0]["message"]["text"],
        r#"acted on whole float for integer `units`: 1 of 1, e.g. {"action":"accept","content":{"units":3.0,"unit_value":7}}: valid JSON Schema, refused by strict servers"#
    );
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
    // The second entry names another target's tool: left out, with a warning.
    std::fs::write(
        &baseline,
        "[[known]]\ntool = \"calculate\"\nproperty = \"P1\"\nreason = \"acts on a decline, fixed upstream in 2.0\"\n\n\
         [[known]]\ntool = \"refund\"\nproperty = \"P2\"\nreason = \"another server\"\n",
    )
    .expect("written");
    let file = baseline.display().to_string();
    let sarif = scratch.path().join("known.sarif");
    let junit = scratch.path().join("known.xml");
    let summary = scratch.path().join("known.md");
    let known = check_calculator(
        Some("computes-on-decline"),
        &[
            "--baseline",
            &file,
            "--sarif",
            &sarif.display().to_string(),
            "--junit",
            &junit.display().to_string(),
            "--summary",
            &summary.display().to_string(),
        ],
    );
    let markdown = std::fs::read_to_string(&summary).expect("the summary is written");
    assert!(
        markdown.contains(
            "#### P1 fails (known failure, baseline): acted although the answer was decline\n"
        ),
        "{markdown}"
    );
    let stdout = String::from_utf8_lossy(&known.stdout);
    assert_eq!(known.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "known failure (baseline {file}): P1 in 2025-11-25: acts on a decline, fixed upstream in 2.0\npasses with the baseline {file}\n"
        )),
        "{stdout}"
    );
    // The era's lines say the failure is known, not that the check failed.
    assert!(
        stdout.contains(
            "\nevery failure is a known one (baseline): property 1\nno failure beyond the baseline's in protocol 2025-11-25\n"
        ),
        "{stdout}"
    );
    // Property 1's row reads as known.
    assert!(
        stdout.lines().any(|line| {
            line.starts_with("1  never acts when an answer was decline or cancel")
                && line.ends_with("  known failure (baseline)")
        }),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&known.stderr);
    assert!(
        stderr.contains(&format!(
            "elicit-check: warning: baseline {file} lists P2 of tool \"refund\", not \"calculate\": left out\n"
        )),
        "{stderr}"
    );
    // JUnit agrees with the exit code: the known failure is skipped, not failed.
    let cases = junit_cases(&junit);
    assert_eq!(cases.len(), 8);
    assert_eq!(
        (cases[0].1, cases[0].2.as_deref()),
        (
            "skipped",
            Some(
                format!(
                    "known failure (baseline {file}): P1 in 2025-11-25: acts on a decline, fixed upstream in 2.0"
                )
                .as_str()
            )
        )
    );
    assert!(
        cases.iter().all(|(_, status, _)| *status != "failure"),
        "{cases:?}"
    );
    let document = read_json(&sarif);
    assert_eq!(sarif_errors(&document), Vec::<String>::new());
    assert_eq!(
        document["runs"][0]["results"][0]["suppressions"][0]["justification"],
        "acts on a decline, fixed upstream in 2.0"
    );

    // The same entry against the fixed server: stale, the check fails.
    let junit = scratch.path().join("stale.xml");
    let fixed = check_calculator(
        None,
        &[
            "--baseline",
            &file,
            "--json",
            "--junit",
            &junit.display().to_string(),
        ],
    );
    assert_eq!(fixed.status.code(), Some(1));
    let stale_line =
        format!("stale baseline entry: P1 holds in 2025-11-25; remove its entry from {file}");
    let cases = junit_cases(&junit);
    assert_eq!(
        (cases[0].1, cases[0].2.as_deref()),
        ("failure", Some(stale_line.as_str()))
    );
    assert_eq!(
        cases
            .iter()
            .filter(|(_, status, _)| *status == "failure")
            .count(),
        1,
        "{cases:?}"
    );
    let report: Value = serde_json::from_slice(&fixed.stdout).expect("JSON");
    super::cli::assert_valid_report_json(&report);
    assert_eq!(report["passed"], true, "every property holds");
    assert_eq!(report["baseline"]["passed"], false);
    assert_eq!(
        report["baseline"]["stale"],
        serde_json::json!([{"property": 1, "protocol": "2025-11-25", "reason": "acts on a decline, fixed upstream in 2.0"}])
    );
    let table = check_calculator(None, &["--baseline", &file]);
    assert_eq!(table.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&table.stdout);
    assert!(
        stdout.contains(&format!("{stale_line}\nFAILED with the baseline {file}\n")),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|line| {
            line.starts_with("1  never acts when an answer was decline or cancel")
                && line.ends_with("  holds: stale baseline entry")
        }),
        "{stdout}"
    );
}

#[test]
fn a_bad_baseline_is_refused_before_any_server_starts() {
    let scratch = Scratch::new("check-reports");
    let baseline = scratch.path().join("baseline.toml");
    let file = baseline.display().to_string();
    let marker = scratch.path().join("started");
    let touch = format!("touch '{}'; exec python3 \"$0\"", marker.display());
    let script = fixture("fixtures/servers/calculator.py");
    // (the file's text, none: no file; what stderr says)
    let bad: [(Option<&str>, String); 3] = [
        (
            Some("[[known]]\ntool = \"calculate\"\nproperty = \"P12\"\nreason = \"r\"\n"),
            format!("baseline {file}: [[known]] #1: property \"P12\" is none of P1 to P8"),
        ),
        (
            Some("[[known]]\ntool = \"calculate\"\nproperty = P1\nreason = \"r\"\n"),
            format!("baseline {file}: TOML parse error at line 3"),
        ),
        (None, format!("cannot read the baseline {file}")),
    ];
    for (text, expected) in bad {
        match text {
            Some(text) => std::fs::write(&baseline, text).expect("written"),
            None => std::fs::remove_file(&baseline).expect("removed"),
        }
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
        assert_eq!(run.status.code(), Some(2), "{expected}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(&expected), "{stderr}");
        assert!(!marker.exists(), "no server was started: {expected}");
    }
}
