//! `check --config` over a config's targets (docs/src/ci.md, "Many targets"):
//! every `[[target]]` checked in one run, `--target NAME` choosing,
//! `--shard K/N` slicing them for a CI matrix, and `elicit-check merge`
//! joining the slices' reports into the whole.
//!
//! The config is fixtures/configs/calculators.toml: three targets of the tool
//! `calculate` of fixtures/servers/calculator.py (standard-library Python).
//! `correct` holds every property; `on-decline` (`--bug computes-on-decline`)
//! acts on a decline, which breaks property 1 and nothing else; `float`
//! (`--bug float-as-integer`) acts on a whole float for an integer, a warning
//! of property 2 for each of the two integer fields (`units`, `unit_value`),
//! which fails nothing without `strict`.

use std::process::{Command, Output};

use serde_json::Value;

use super::cli::{assert_valid_against, assert_valid_report_json, cli};
use super::reports::{junit_cases, sarif_errors};
use crate::support::Scratch;

const CONFIG: &str = "fixtures/configs/calculators.toml";

/// Validates a targets document against schemas/check-targets.schema.json,
/// and each target's report against schemas/check-report.schema.json.
fn assert_valid_targets_json(document: &Value) {
    assert_valid_against("schemas/check-targets.schema.json", document);
    for entry in document["targets"].as_array().expect("targets") {
        if let Some(report) = entry.get("report") {
            assert_valid_report_json(report);
        }
    }
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON ({error}); stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// `(name, outcome, verdict)` of each target, in order.
fn outcomes(document: &Value) -> Vec<(String, String, String)> {
    document["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|entry| {
            (
                entry["name"].as_str().expect("name").to_owned(),
                entry["outcome"].as_str().expect("outcome").to_owned(),
                entry["verdict"].as_str().expect("verdict").to_owned(),
            )
        })
        .collect()
}

/// An era and its property verdicts (`holds`, `fails`, `untested`), P1 first.
type EraVerdicts = (String, Vec<String>);

/// Per target, its name and each era's property verdicts: what a merge must
/// keep of the unsharded report.
fn property_verdicts(document: &Value) -> Vec<(String, Vec<EraVerdicts>)> {
    document["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|entry| {
            let eras = entry["report"]["eras"]
                .as_array()
                .map(|eras| {
                    eras.iter()
                        .map(|era| {
                            let verdicts = era["report"]["properties"]
                                .as_array()
                                .expect("properties")
                                .iter()
                                .map(|property| {
                                    property["verdict"].as_str().expect("verdict").to_owned()
                                })
                                .collect();
                            (
                                era["protocol"].as_str().expect("protocol").to_owned(),
                                verdicts,
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            (entry["name"].as_str().expect("name").to_owned(), eras)
        })
        .collect()
}

/// `elicit-check merge ARGS`, from the repository root.
fn merge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .arg("merge")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("elicit-check runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const HOLDS: &str = "every property holds in protocol 2025-11-25";

#[test]
fn every_target_of_the_config_is_checked_and_each_report_holds_them_all() {
    let scratch = Scratch::new("targets-all");
    let (dir, junit, sarif, summary) = (
        scratch.arg("evidence"),
        scratch.arg("check.xml"),
        scratch.arg("check.sarif"),
        scratch.arg("summary.md"),
    );
    let output = cli(&[
        "--config",
        CONFIG,
        "--json",
        "--output",
        &dir,
        "--junit",
        &junit,
        "--sarif",
        &sarif,
        "--summary",
        &summary,
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let document = json_of(&output);
    assert_valid_targets_json(&document);
    assert_eq!(document["selected"], 3);
    assert_eq!(document["passed"], false);
    assert!(document.get("shard").is_none());
    assert_eq!(
        outcomes(&document),
        [
            ("correct".into(), "passed".into(), HOLDS.into()),
            (
                "on-decline".into(),
                "failed".into(),
                "FAILED: P1 in 2025-11-25".into()
            ),
            (
                "float".into(),
                "passed".into(),
                format!("{HOLDS} (2 warnings)")
            ),
        ]
    );
    let positions: Vec<&Value> = document["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|entry| &entry["position"])
        .collect();
    assert_eq!(positions, [0, 1, 2]);
    // Property 1 fails for on-decline only.
    for (name, eras) in property_verdicts(&document) {
        let [(protocol, verdicts)] = eras.as_slice() else {
            panic!("{name}: one era expected, got {eras:?}");
        };
        assert_eq!(protocol, "2025-11-25");
        let failed: Vec<usize> = (0..verdicts.len())
            .filter(|&i| verdicts[i] == "fails")
            .collect();
        let expected: &[usize] = if name == "on-decline" { &[0] } else { &[] };
        assert_eq!(failed, expected, "{name}: {verdicts:?}");
    }

    // The evidence: one folder per target, and the targets' report.
    let whole: Value = serde_json::from_str(
        &std::fs::read_to_string(scratch.join("evidence/check.json")).expect("DIR/check.json"),
    )
    .expect("JSON");
    assert_eq!(outcomes(&whole), outcomes(&document));
    for name in ["correct", "on-decline", "float"] {
        let report: Value = serde_json::from_str(
            &std::fs::read_to_string(scratch.join(&format!("evidence/{name}/check.json")))
                .expect("DIR/NAME/check.json"),
        )
        .expect("JSON");
        let entry = document["targets"]
            .as_array()
            .expect("targets")
            .iter()
            .find(|entry| entry["name"] == name)
            .expect("the entry");
        assert_eq!(report, entry["report"], "{name}");
        let sessions =
            std::fs::read_to_string(scratch.join(&format!("evidence/{name}/cases.jsonl")))
                .expect("DIR/NAME/cases.jsonl");
        assert!(sessions.lines().count() > 1, "{name}: {sessions}");
    }

    // JUnit: one testsuite per target and era; property 1 of on-decline fails.
    let cases = junit_cases(std::path::Path::new(&junit));
    assert_eq!(cases.len(), 3 * 8);
    let failures: Vec<usize> = cases
        .iter()
        .enumerate()
        .filter(|(_, (_, status, _))| *status == "failure")
        .map(|(index, _)| index)
        .collect();
    assert_eq!(failures, [8], "{cases:#?}");
    let xml = std::fs::read_to_string(&junit).expect("JUnit");
    for name in ["correct", "on-decline", "float"] {
        assert!(
            xml.contains(&format!(
                "name=\"elicit-check check {name} (protocol 2025-11-25)\""
            )),
            "{xml}"
        );
    }

    // SARIF: a run per target and era, kept apart by name; one error result.
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF")).expect("JSON");
    assert_eq!(sarif_errors(&sarif), Vec::<String>::new());
    let runs: Vec<(String, Vec<(String, String)>)> = sarif["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|run| {
            let results = run["results"]
                .as_array()
                .expect("results")
                .iter()
                .map(|result| {
                    (
                        result["ruleId"].as_str().expect("rule").to_owned(),
                        result["level"].as_str().expect("level").to_owned(),
                    )
                })
                .collect();
            (
                run["automationDetails"]["id"]
                    .as_str()
                    .expect("id")
                    .to_owned(),
                results,
            )
        })
        .collect();
    let warning = ("P2".to_owned(), "warning".to_owned());
    assert_eq!(
        runs,
        [
            ("elicit-check/correct/2025-11-25/".to_owned(), vec![]),
            (
                "elicit-check/on-decline/2025-11-25/".to_owned(),
                vec![("P1".to_owned(), "error".to_owned())]
            ),
            (
                "elicit-check/float/2025-11-25/".to_owned(),
                vec![warning.clone(), warning]
            ),
        ]
    );

    // The summary: the overview first, then each target's.
    let summary = std::fs::read_to_string(&summary).expect("summary");
    assert!(
        summary.starts_with("## elicit-check check: FAILED\n"),
        "{summary}"
    );
    assert!(
        summary.contains("| on-decline | calculate | FAILED: P1 in 2025-11-25 |"),
        "{summary}"
    );
    let headings: Vec<&str> = summary
        .lines()
        .filter(|line| line.starts_with("## "))
        .collect();
    assert_eq!(
        headings,
        [
            "## elicit-check check: FAILED",
            "## elicit-check check `correct`: PASSED",
            "## elicit-check check `on-decline`: FAILED",
            "## elicit-check check `float`: PASSED",
        ]
    );
}

#[test]
fn two_shards_check_each_target_once_and_merge_into_the_unsharded_verdicts() {
    let scratch = Scratch::new("targets-shards");
    let whole = cli(&["--config", CONFIG, "--json"]);
    assert_eq!(whole.status.code(), Some(1), "{}", stderr(&whole));
    let whole = json_of(&whole);
    let mut files = Vec::new();
    let mut names = Vec::new();
    for (shard, expected_exit) in [("1/2", 0), ("2/2", 1)] {
        let output = cli(&["--config", CONFIG, "--shard", shard, "--json"]);
        assert_eq!(
            output.status.code(),
            Some(expected_exit),
            "{shard}: {}",
            stderr(&output)
        );
        let document = json_of(&output);
        assert_valid_targets_json(&document);
        let (index, count) = shard.split_once('/').expect("K/N");
        assert_eq!(document["shard"]["index"], index.parse::<u64>().expect("K"));
        assert_eq!(document["shard"]["count"], count.parse::<u64>().expect("N"));
        assert_eq!(document["selected"], 3);
        names.push(
            outcomes(&document)
                .into_iter()
                .map(|(name, _, _)| name)
                .collect::<Vec<_>>(),
        );
        let file = scratch.join(&format!("shard-{index}.json"));
        std::fs::write(&file, &output.stdout).expect("written");
        files.push(file.display().to_string());
    }
    // Round-robin over the file's order: positions 0 and 2, then 1.
    assert_eq!(names, [vec!["correct", "float"], vec!["on-decline"]]);

    // Given in any order, the shards merge into the whole config.
    let merged = merge(&[&files[1], &files[0], "--json"]);
    assert_eq!(merged.status.code(), Some(1), "{}", stderr(&merged));
    let merged = json_of(&merged);
    assert_valid_targets_json(&merged);
    assert!(merged.get("shard").is_none());
    assert_eq!(merged["selected"], 3);
    assert_eq!(merged["passed"], false);
    assert_eq!(outcomes(&merged), outcomes(&whole));
    assert_eq!(property_verdicts(&merged), property_verdicts(&whole));

    let table = merge(&[&files[0], &files[1]]);
    assert_eq!(table.status.code(), Some(1));
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.starts_with(&format!("== the 3 targets of {CONFIG}\n")),
        "{table}"
    );
    assert!(table.ends_with("FAILED: on-decline (1 of 3)\n"), "{table}");

    let one = merge(&[&files[0]]);
    assert_eq!(one.status.code(), Some(2));
    assert_eq!(
        stderr(&one).trim(),
        "elicit-check: shard 2/2 missing: give the report of every shard"
    );
}

#[test]
fn target_names_choose_and_one_targets_options_are_refused_for_several() {
    let output = cli(&["--config", CONFIG, "--target", "on-decline", "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let document = json_of(&output);
    assert_eq!(document["selected"], 1);
    assert_eq!(
        outcomes(&document),
        [(
            "on-decline".into(),
            "failed".into(),
            "FAILED: P1 in 2025-11-25".into()
        )]
    );
    // One target chosen: one target's options apply to it (here an acted
    // pointer no reply carries, which the probe refuses).
    let output = cli(&[
        "--config", CONFIG, "--target", "correct", "--acted", "/booked", "--json",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let document = json_of(&output);
    assert_eq!(document["targets"][0]["outcome"], "error");
    let error = document["targets"][0]["error"].as_str().expect("error");
    assert!(
        error.starts_with("--acted /booked cannot be read from the tool's reply"),
        "{error}"
    );

    let output = cli(&["--config", CONFIG, "--target", "rounding"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim(),
        "elicit-check: the config has no [[target]] named \"rounding\" (it has: correct, on-decline, float)"
    );
    let output = cli(&["--config", CONFIG, "--acted", "/computed", "--cases", "2"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim(),
        format!(
            "elicit-check: one target's options (--acted) cannot apply to the 3 targets of {CONFIG}: give them in each [[target]], or choose one with --target NAME"
        )
    );
    let output = cli(&["--config", CONFIG, "--shard", "3/2"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("shard \"3/2\": K must be 1 to N"),
        "{}",
        stderr(&output)
    );
    let output = cli(&[
        "--shard",
        "1/2",
        "--tool",
        "calculate",
        "--",
        "python3",
        "server.py",
    ]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_target_that_cannot_be_checked_is_reported_and_the_others_still_run() {
    let scratch = Scratch::new("targets-error");
    let config = scratch.join("ci.toml");
    std::fs::write(
        &config,
        "[[target]]\n\
         name = \"renamed\"\n\
         command = [\"python3\", \"fixtures/servers/calculator.py\"]\n\
         tool = \"compute\"\n\
         acted = \"/computed=true\"\n\
         protocol = \"2025-11-25\"\n\
         [[target]]\n\
         command = [\"python3\", \"fixtures/servers/calculator.py\"]\n\
         tool = \"calculate\"\n\
         acted = \"/computed=true\"\n\
         protocol = \"2025-11-25\"\n\
         cases = 2\n\
         seed = 1\n",
    )
    .expect("config written");
    let (junit, sarif) = (scratch.arg("check.xml"), scratch.arg("check.sarif"));
    let config = config.display().to_string();
    let output = cli(&[
        "--config", &config, "--json", "--junit", &junit, "--sarif", &sarif,
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output)
            .ends_with("1 of 2 targets could not be checked: renamed (the report says why)\n"),
        "{}",
        stderr(&output)
    );
    let document = json_of(&output);
    assert_valid_targets_json(&document);
    let entries = outcomes(&document);
    assert_eq!(
        entries[1],
        ("calculate".into(), "passed".into(), HOLDS.into())
    );
    assert_eq!(entries[0].0, "renamed");
    assert_eq!(entries[0].1, "error");
    assert!(
        entries[0]
            .2
            .starts_with("not checked: the server offers no tool named \"compute\""),
        "{entries:?}"
    );
    let cases = junit_cases(std::path::Path::new(&junit));
    assert_eq!(cases[0].0, "check");
    assert_eq!(cases[0].1, "error");
    assert_eq!(cases.len(), 1 + 8);
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF")).expect("JSON");
    assert_eq!(sarif_errors(&sarif), Vec::<String>::new());
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(
        sarif["runs"][0]["automationDetails"]["id"],
        "elicit-check/renamed/"
    );
}

#[test]
fn a_baseline_entry_naming_a_target_speaks_of_it_alone() {
    let scratch = Scratch::new("targets-baseline");
    let baseline = scratch.join("baseline.toml");
    let write = |target: &str| {
        std::fs::write(
            &baseline,
            format!(
                "[[known]]\ntool = \"calculate\"\ntarget = \"{target}\"\nproperty = \"P1\"\nreason = \"acts on a decline, fix under way\"\n"
            ),
        )
        .expect("baseline written");
    };
    let file = baseline.display().to_string();
    write("on-decline");
    let output = cli(&["--config", CONFIG, "--baseline", &file, "--json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        outcomes(&json_of(&output)),
        [
            ("correct".into(), "passed".into(), HOLDS.into()),
            (
                "on-decline".into(),
                "passed".into(),
                "passes with the baseline (known: P1 in 2025-11-25)".into()
            ),
            (
                "float".into(),
                "passed".into(),
                format!("{HOLDS} (2 warnings)")
            ),
        ]
    );
    // The same entry on the target that holds: stale there, and on-decline's
    // failure is new.
    write("correct");
    let output = cli(&["--config", CONFIG, "--baseline", &file, "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        outcomes(&json_of(&output))[..2],
        [
            (
                "correct".into(),
                "failed".into(),
                "FAILED with the baseline: stale baseline entry: P1 in 2025-11-25".into()
            ),
            (
                "on-decline".into(),
                "failed".into(),
                "FAILED with the baseline: P1 in 2025-11-25".into()
            ),
        ]
    );
}

#[test]
fn one_targets_shards_slice_its_cases_and_merge_into_its_unsharded_verdicts() {
    let scratch = Scratch::new("targets-case-slices");
    let one = ["--config", CONFIG, "--target", "on-decline"];
    let whole = cli(&[&one[..], &["--json"]].concat());
    assert_eq!(whole.status.code(), Some(1), "{}", stderr(&whole));
    let whole = json_of(&whole);
    let mut files = Vec::new();
    let mut coverage = 0;
    for shard in ["1/2", "2/2"] {
        let output = cli(&[&one[..], &["--shard", shard, "--json"]].concat());
        let document = json_of(&output);
        assert_valid_targets_json(&document);
        assert_eq!(document["cases_sliced"], true, "{shard}");
        assert_eq!(document["selected"], 1);
        let report = &document["targets"][0]["report"]["eras"][0]["report"];
        coverage += report["coverage_cases"].as_u64().expect("coverage cases");
        // The capability sessions (property 4) run in slice 1 only.
        let p4 = &report["properties"][3]["verdict"];
        assert_eq!(
            p4,
            if shard == "1/2" { "holds" } else { "untested" },
            "{shard}"
        );
        let file = scratch.join(&format!("slice-{}.json", &shard[..1]));
        std::fs::write(&file, &output.stdout).expect("written");
        files.push(file.display().to_string());
    }
    // Every coverage case ran in exactly one slice.
    assert_eq!(
        Some(coverage),
        whole["targets"][0]["report"]["eras"][0]["report"]["coverage_cases"].as_u64()
    );
    let merged = merge(&[&files[0], &files[1], "--json"]);
    assert_eq!(merged.status.code(), Some(1), "{}", stderr(&merged));
    let merged = json_of(&merged);
    assert_valid_targets_json(&merged);
    assert!(merged.get("cases_sliced").is_none());
    assert_eq!(outcomes(&merged), outcomes(&whole));
    assert_eq!(property_verdicts(&merged), property_verdicts(&whole));
}

#[test]
fn slicing_one_targets_cases_needs_a_seed_and_no_baseline() {
    let scratch = Scratch::new("targets-case-slices-refused");
    let config = scratch.join("one.toml");
    std::fs::write(
        &config,
        "[[target]]\ncommand = [\"python3\", \"fixtures/servers/calculator.py\"]\ntool = \"calculate\"\nacted = \"/computed=true\"\n",
    )
    .expect("config written");
    let config = config.display().to_string();
    let output = cli(&["--config", &config, "--shard", "1/2"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim(),
        format!(
            "elicit-check: target calculate of {config}: --shard 1/2 slices the cases of the config's one target: give it a fixed seed (--seed S, or seed = S in its [[target]]) so every shard draws the same cases"
        )
    );
    let baseline = scratch.join("baseline.toml");
    std::fs::write(&baseline, "").expect("an empty baseline");
    let baseline = baseline.display().to_string();
    let output = cli(&[
        "--config",
        &config,
        "--seed",
        "1",
        "--shard",
        "2/2",
        "--baseline",
        &baseline,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "--shard 2/2 slices one target's cases, and a baseline speaks of the whole target"
        ),
        "{}",
        stderr(&output)
    );
}
