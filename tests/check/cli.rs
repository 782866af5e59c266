//! `elicit-check check`: anyone's stdio server, judged from the
//! `requestedSchema` it sends. The reference server passes; the purpose-built
//! servers of `fixtures/servers/forms.py` pass when careful and fail property 1
//! or 2 with a small shrunk answer when naive; exit codes, `--json`, `--junit`,
//! `--config` and the published `@modelcontextprotocol/server-everything`.

use std::path::Path;
use std::process::{Command, Output};

use elicit_check::check::{self, CheckReport, PropertyVerdict, Target};
use elicit_check::report;
use serde_json::{Value, json};

use crate::support::{Scratch, reference_server};

/// The four forms of `forms.py`: (form, tool).
const FORMS: [(&str, &str); 4] = [
    ("email", "subscribe"),
    ("enum", "choose_size"),
    ("multi", "pick_toppings"),
    ("boolean", "archive"),
];

pub(super) fn fixture(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// `python3 fixtures/servers/forms.py --form FORM [--naive]`.
fn forms_server(form: &str, naive: bool) -> Vec<String> {
    // The fixtures use the standard library only: `-S`, no `site` import.
    let mut command = vec![
        crate::support::python3().to_owned(),
        "-S".to_owned(),
        fixture("fixtures/servers/forms.py"),
        "--form".to_owned(),
        form.to_owned(),
    ];
    if naive {
        command.push("--naive".to_owned());
    }
    command
}

/// `elicit-check check ARGS`, with the environment of a developer's shell scrubbed.
pub(super) fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elicit-check"))
        .arg("check")
        .args(args)
        .env_remove("CI")
        .env_remove("RUST_LOG")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("elicit-check runs")
}

/// `elicit-check check ARGS` (which give `--json`), asserting its exit
/// `code` (`context` and both outputs in the message): the JSON document on
/// stdout.
fn cli_json(args: &[&str], code: i32, context: &str) -> Value {
    let output = cli(args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(code),
        "{context}: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(&stdout).expect("stdout is one JSON document")
}

fn verdicts(report: &CheckReport) -> Vec<PropertyVerdict> {
    report.properties.iter().map(|p| p.verdict).collect()
}

/// Keys in an answer, counting the keys of its `content` object too:
/// `{"action":"accept","content":{"a":1}}` has 3.
fn keys(answer: &Value) -> usize {
    let object = answer.as_object().map_or(0, serde_json::Map::len);
    let content = answer
        .get("content")
        .and_then(Value::as_object)
        .map_or(0, serde_json::Map::len);
    object + content
}

/// The report of era `protocol` in a `--json` document (Null when that era
/// was not checked).
pub(super) fn era<'a>(document: &'a Value, protocol: &str) -> &'a Value {
    document["eras"]
        .as_array()
        .and_then(|eras| eras.iter().find(|era| era["protocol"] == protocol))
        .map_or(&Value::Null, |era| &era["report"])
}

/// Validates a `--json` document against `schemas/check-report.schema.json`.
pub(super) fn assert_valid_report_json(document: &Value) {
    assert_valid_against("schemas/check-report.schema.json", document);
}

/// Validates `document` against the JSON schema in the file `schema` (a path
/// from the repository root).
pub(super) fn assert_valid_against(schema: &str, document: &Value) {
    let schema_text: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(schema)).expect("the schema is readable"),
    )
    .expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema_text).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "the JSON breaks {schema}: {errors:#?}");
}

/// On a pipe, progress shows only with `--progress`: a plain line when the
/// phase changes (and at most every 10 s otherwise), naming the era, the
/// phase, the call and the counts; without it, stderr has no progress line.
#[test]
fn progress_lines_come_on_a_pipe_only_with_progress() {
    let server = reference_server();
    let mut args = vec![
        "--tool",
        "calculate",
        "--acted",
        "/computed",
        "--cases",
        "3",
        "--seed",
        "1",
        "--protocol",
        "2025-11-25",
        "--progress",
        "--",
    ];
    args.extend(server.iter().map(String::as_str));
    let output = cli(&args);
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("elicit-check: progress: "))
        .collect();
    assert_eq!(
        lines.first().copied(),
        Some(
            "elicit-check: progress: 2025-11-25 probe: probe: a consenting valid accept (0 calls done)"
        ),
        "{stderr}"
    );
    // One line per phase in this short run: the probe, the coverage phase,
    // the random phase and the capability sessions, in that order.
    let phases: Vec<&str> = lines
        .iter()
        .filter_map(|line| line.split_whitespace().nth(3))
        .collect();
    assert_eq!(
        phases,
        ["probe:", "coverage:", "random:", "capabilities:"],
        "{stderr}"
    );
    // The probe made two calls: a consenting valid accept (the tool acted),
    // then a decline.
    assert!(
        lines[1]
            .starts_with("elicit-check: progress: 2025-11-25 coverage: coverage 0 (2 calls done, "),
        "{stderr}"
    );
    args.retain(|word| *word != "--progress");
    let quiet = cli(&args);
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(!stderr.contains("progress:"), "{stderr}");
}

#[test]
fn the_reference_server_passes_every_property_and_json_is_one_valid_document() {
    let server = reference_server();
    let mut args = vec![
        "--tool",
        "calculate",
        "--acted",
        "/computed",
        "--cases",
        "40",
        "--seed",
        "7",
        "--json",
        "--",
    ];
    args.extend(server.iter().map(String::as_str));
    let document = cli_json(&args, 0, "the reference server");
    assert_valid_report_json(&document);
    assert_eq!(document["passed"], json!(true));
    assert_eq!(document["tool"], json!("calculate"));
    // The reference server is rmcp's, named by its own serverInfo: the SDK
    // is told by how rmcp writes its handshake in both eras.
    assert_eq!(document.pointer("/sdk/sdk"), Some(&json!("rmcp")));
    for era in document["eras"].as_array().expect("eras") {
        assert_eq!(era.pointer("/report/sdk/sdk"), Some(&json!("rmcp")));
    }
    // --protocol auto (the default): the reference server speaks both eras.
    assert_eq!(document["protocol"], json!("auto"));
    for protocol in ["2025-11-25", "2026-07-28"] {
        let report = era(&document, protocol);
        assert_eq!(report["protocol"], json!(protocol));
        assert_eq!(report["seed"], json!(7));
        assert_eq!(
            report["requested_schemas"],
            json!([{"type":"object","properties":{"units":{"type":"integer","minimum":1,"maximum":10},"unit_value":{"type":"integer","minimum":1,"maximum":100}},"required":["units","unit_value"]}])
        );
        for property in report["properties"].as_array().expect("properties") {
            if property["property"] == 8 && protocol == "2025-11-25" {
                // requestState exists in 2026-07-28 only.
                assert_eq!(property["verdict"], json!("untested"), "{property}");
                continue;
            }
            assert_eq!(
                property["verdict"],
                json!("holds"),
                "{protocol}: {property}"
            );
            assert!(property["cases"].as_u64().expect("cases") > 0, "{property}");
            if property["property"] != 8 {
                assert_eq!(property["warnings"], json!([]), "{property}");
            }
        }
    }
}

#[test]
fn careful_form_servers_pass_every_property() {
    for (form, tool) in FORMS {
        let report = check::check(
            Target::stdio(forms_server(form, false))
                .tool(tool)
                .acted_pointer("/acted")
                .cases(20)
                .seed(11),
        )
        .expect("the check runs");
        assert!(
            report.passed,
            "{form}: {}",
            elicit_check::report::check::table(&report)
        );
        let mut expected = vec![PropertyVerdict::Holds; 7];
        // requestState exists in 2026-07-28 only; the library's Target runs 2025-11-25.
        expected.push(PropertyVerdict::Untested);
        assert_eq!(verdicts(&report), expected, "{form}");
        let acts = report.property(3).expect("property 3");
        assert!(acts.warnings.is_empty(), "{form}: {:?}", acts.warnings);
    }
}

#[test]
fn naive_form_servers_fail_property_1_or_2_with_a_shrunk_answer_of_at_most_three_keys() {
    for (form, tool) in FORMS {
        let report = check::check(
            Target::stdio(forms_server(form, true))
                .tool(tool)
                .acted_pointer("/acted")
                .cases(20)
                .seed(11),
        )
        .expect("the check runs");
        assert!(!report.passed, "{form}");
        let failing: Vec<u8> = report
            .properties
            .iter()
            .filter(|p| p.verdict == PropertyVerdict::Fails)
            .map(|p| p.property)
            .collect();
        assert!(
            failing.iter().all(|p| [1, 2].contains(p)) && !failing.is_empty(),
            "{form}: fails {failing:?}"
        );
        for property in report.properties.iter().filter(|p| p.failure.is_some()) {
            let failure = property.failure.as_ref().expect("failure");
            assert_eq!(failure.answers.len(), 1, "{form}: one request");
            assert!(
                keys(&failure.answers[0]) <= 3,
                "{form}: {}",
                failure.answers[0]
            );
            assert!(!failure.shrink_stopped_early, "{form}");
            assert!(
                failure.reproduce.contains(" --answer "),
                "{}",
                failure.reproduce
            );
            assert!(!failure.wire.is_empty());
        }
    }
}

/// Shrinking that stops at its budget says so in the report, with the runs it
/// took; a failure shrunk to the end says only how many runs it took. Only a
/// random case is shrunk (a coverage case is minimal already), so the random
/// cases of the seed are run one at a time (`--case-index`, no coverage phase)
/// until one fails.
#[test]
fn a_shrink_stopped_at_its_budget_says_so_and_a_finished_one_does_not() {
    let target = |runs: usize, index: usize| {
        let mut target = Target::stdio(forms_server("email", true))
            .tool("subscribe")
            .acted_pointer("/acted")
            .seed(11)
            .max_shrink_runs(runs);
        target.case_index = Some(index);
        target
    };
    let failing_index = (0..20)
        .find(|&index| {
            let report = check::check(target(1, index)).expect("the check runs");
            report
                .properties
                .iter()
                .filter_map(|p| p.failure.as_ref())
                .any(|failure| failure.case_index == Some(index))
        })
        .expect("a random case of seed 11 fails against the naive server");
    let stopped = check::check(target(1, failing_index)).expect("the check runs");
    assert_eq!(
        stopped.coverage_cases, 0,
        "--case-index runs no coverage case"
    );
    let table = elicit_check::report::check::table(&stopped);
    let failures: Vec<&check::PropertyFailure> = stopped
        .properties
        .iter()
        .filter_map(|p| p.failure.as_ref())
        .filter(|failure| failure.case_index.is_some())
        .collect();
    assert!(!failures.is_empty(), "{table}");
    for failure in &failures {
        assert!(failure.shrink_stopped_early, "{table}");
        assert_eq!(failure.shrink_runs, 1, "{table}");
    }
    assert!(
        table.contains(" (shrinking stopped at its budget after 1 run: it may not be minimal)\n"),
        "{table}"
    );

    let finished = check::check(target(200, failing_index)).expect("the check runs");
    let table = elicit_check::report::check::table(&finished);
    assert!(!table.contains("shrinking stopped"), "{table}");
    for property in finished.properties.iter().filter(|p| p.failure.is_some()) {
        let failure = property.failure.as_ref().expect("failure");
        assert!(!failure.shrink_stopped_early, "{table}");
        // A case that cannot be simplified at all takes no run and gets no note.
        let runs = match failure.shrink_runs {
            0 => continue,
            1 => " (shrunk in 1 run)\n".to_owned(),
            runs => format!(" (shrunk in {runs} runs)\n"),
        };
        assert!(table.contains(&runs), "{runs:?} not in {table}");
    }
}

#[test]
fn a_naive_boolean_server_acts_on_yes_and_1_where_the_careful_one_does_not() {
    for (answer, reason) in [
        (
            json!({"action": "accept", "content": {"notify": "yes"}}),
            r#"acted on an accept whose content is invalid: /notify: "yes" is not of type "boolean""#,
        ),
        (
            json!({"action": "accept", "content": {"notify": 1}}),
            r#"acted on an accept whose content is invalid: /notify: 1 is not of type "boolean""#,
        ),
    ] {
        let mut target = Target::stdio(forms_server("boolean", true))
            .tool("archive")
            .acted_pointer("/acted");
        target.replay = vec![answer.clone()];
        let report = check::check(target.clone()).expect("the check runs");
        let failure = report
            .property(2)
            .and_then(|p| p.failure.as_ref())
            .expect("property 2 fails");
        assert_eq!(failure.reason, reason);
        assert_eq!(failure.answers, vec![answer.clone()]);
        target.command = forms_server("boolean", false);
        let report = check::check(target).expect("the check runs");
        assert!(
            report.passed,
            "{}",
            elicit_check::report::check::table(&report)
        );
    }
}

#[test]
fn acting_on_a_whole_float_is_a_warning_and_a_failure_under_strict() {
    let calculator = vec![
        crate::support::python3().to_owned(),
        "-S".to_owned(),
        fixture("fixtures/servers/calculator.py"),
        "--bug".to_owned(),
        "float-as-integer".to_owned(),
    ];
    let mut target = Target::stdio(calculator)
        .tool("calculate")
        .acted_pointer("/computed");
    target.replay = vec![json!({"action": "accept", "content": {"units": 3.0, "unit_value": 7}})];
    let report = check::check(target.clone()).expect("the check runs");
    assert!(report.passed);
    assert_eq!(
        report.property(2).expect("property 2").warnings,
        vec![
            r#"acted on whole float for integer `units`: 1 of 1, e.g. {"action":"accept","content":{"units":3.0,"unit_value":7}}: valid JSON Schema, refused by strict servers"#
        ]
    );
    let report = check::check(target.strict(true)).expect("the check runs");
    assert!(!report.passed);
    assert_eq!(
        report
            .property(2)
            .and_then(|p| p.failure.as_ref())
            .expect("fails")
            .reason,
        "acted on content a strict server refuses (--strict): whole float 3.0 for integer `units`"
    );
}

#[test]
fn bool_int_drift_and_stdout_noise_fail_properties_6_and_5_over_stdio() {
    for (bug, property, reason) in [
        (
            "computed-as-int",
            6,
            "the value at /computed is 1 (a number), not a boolean",
        ),
        (
            "stdout-noise",
            5,
            r#"is not a JSON-RPC message: "calculating...""#,
        ),
    ] {
        let mut target = Target::stdio([
            crate::support::python3().to_owned(),
            "-S".to_owned(),
            fixture("fixtures/servers/calculator.py"),
            "--bug".to_owned(),
            bug.to_owned(),
        ])
        .tool("calculate")
        .acted_pointer("/computed");
        target.replay = vec![json!({"action": "accept", "content": {"units": 3, "unit_value": 7}})];
        let report = check::check(target).expect("the check runs");
        let failing: Vec<u8> = report
            .properties
            .iter()
            .filter(|p| p.verdict == PropertyVerdict::Fails)
            .map(|p| p.property)
            .collect();
        assert_eq!(failing, vec![property], "{bug}");
        let failure = report
            .property(property)
            .and_then(|p| p.failure.as_ref())
            .expect("fails");
        assert!(
            failure.reason.ends_with(reason),
            "{bug}: {}",
            failure.reason
        );
    }
}

#[test]
fn a_tool_the_server_does_not_offer_exits_2_naming_the_tools_it_has() {
    let server = reference_server();
    let mut args = vec!["--tool", "book", "--acted", "/booked", "--"];
    args.extend(server.iter().map(String::as_str));
    let output = cli(&args);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(r#"the server offers no tool named "book"; it offers: calculate"#),
        "{stderr}"
    );
}

/// A tool call that never gets a reply is not "a tool that never elicits": the
/// message says the call got no reply (`CheckError::NoReply`, exit 2), never
/// `sent no form elicitation/create ... (its reply: {})`, and shows no stderr
/// banner over an empty stderr.
#[test]
fn a_tool_call_without_reply_exits_2_saying_so() {
    let server = crate::support::calculator(Some("hang-on-call"));
    let mut args = vec![
        "--tool",
        "calculate",
        "--acted",
        "/computed",
        "--call-timeout",
        "1",
        "--shutdown-grace",
        "1",
        "--",
    ];
    args.extend(server.iter().map(String::as_str));
    let output = cli(&args);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            r#"tools/call "calculate" asked for no form: no reply to tools/call within 1 s; nothing to check"#
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("sent no form elicitation/create to a client"),
        "{stderr}"
    );
    // The server wrote nothing on stderr: no empty stderr banner.
    assert!(!stderr.contains("its stderr (last lines)"), "{stderr}");
}

#[test]
fn a_server_that_does_not_start_exits_2() {
    let output = cli(&[
        "--tool",
        "x",
        "--acted-not-error",
        "--",
        "python3",
        "-c",
        "import sys; print('boom', file=sys.stderr)",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the server did not start: initialize failed"),
        "{stderr}"
    );
    assert!(stderr.contains("boom"), "its stderr is shown: {stderr}");
    let output = cli(&[
        "--tool",
        "x",
        "--acted-not-error",
        "--",
        "/nonexistent/server",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot start server"));
}

#[test]
fn junit_has_one_testcase_per_property_and_a_failure_where_one_fails() {
    let dir = Scratch::new("junit");
    let junit = dir.join("check.xml");
    let server = forms_server("enum", true);
    let mut args = vec![
        "--tool",
        "choose_size",
        "--acted",
        "/acted",
        "--cases",
        "20",
        "--seed",
        "3",
        "--junit",
        junit.to_str().expect("utf-8"),
        "--output",
        dir.path().to_str().expect("utf-8"),
        "--",
    ];
    args.extend(server.iter().map(String::as_str));
    let output = cli(&args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(table.contains("FAILED: property 2"), "{table}");
    assert!(table.contains("minimal answer: "), "{table}");
    let cases = parse_junit(&junit);
    // forms.py speaks 2025-11-25 only: one suite, one testcase per property.
    assert_eq!(cases.len(), 8);
    for (index, (name, failure)) in cases.iter().enumerate() {
        assert!(
            name.starts_with(&format!("property {}: ", index + 1)),
            "{name}"
        );
        assert_eq!(failure.is_some(), index == 1, "{name}: {failure:?}");
    }
    assert!(
        cases[1]
            .1
            .as_deref()
            .unwrap_or_default()
            .starts_with("acted on")
    );
    // The evidence folder: the report and one line per session.
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("check.json")).expect("check.json"))
            .expect("JSON");
    assert_valid_report_json(&report);
    let lines = std::fs::read_to_string(dir.join("cases.jsonl")).expect("cases.jsonl");
    // The probe's consenting accept (the naive server acts on it) and its
    // decline; 20 coverage cases for `size` (enum small/medium/large,
    // required): the base, 2 other values, 4 mutations (null, outside the
    // enum, another case, removed), 1 extra key, 7 action shapes, 5 near-miss
    // actions; 20 random cases (no shrink: coverage found property 2 first);
    // 2 capability sessions.
    assert_eq!(lines.lines().count(), 2 + 20 + 20 + 2, "{lines}");
}

/// (testcase name, failure message) of every `<testcase>` in a JUnit file.
fn parse_junit(path: &Path) -> Vec<(String, Option<String>)> {
    use quick_xml::events::Event;
    let text = std::fs::read_to_string(path).expect("the JUnit file is written");
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut cases = Vec::new();
    let attribute = |element: &quick_xml::events::BytesStart, key: &[u8]| {
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
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(element) | Event::Empty(element) => match element.name().as_ref() {
                b"testcase" => cases.push((attribute(&element, b"name").expect("name"), None)),
                b"failure" => {
                    let case: &mut (String, Option<String>) =
                        cases.last_mut().expect("inside a testcase");
                    case.1 = Some(attribute(&element, b"message").expect("message"));
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    cases
}

#[test]
fn a_config_file_drives_the_check_and_unknown_keys_are_errors() {
    let dir = Scratch::new("config");
    let config = dir.join("elicit-check.toml");
    let command = forms_server("multi", false);
    std::fs::write(
        &config,
        format!(
            "[[target]]\ncommand = {}\ntool = \"pick_toppings\"\nacted = \"/acted\"\ncases = 10\nseed = 4\n",
            serde_json::to_string(&command).expect("JSON is TOML here")
        ),
    )
    .expect("write config");
    let document = cli_json(
        &["--config", config.to_str().expect("utf-8"), "--json"],
        0,
        "the config's target",
    );
    let report = era(&document, "2025-11-25");
    assert_eq!(
        (
            report["tool"].clone(),
            report["seed"].clone(),
            report["cases"].clone()
        ),
        (json!("pick_toppings"), json!(4), json!(10))
    );
    std::fs::write(
        &config,
        "[[target]]\ntool = \"pick_toppings\"\nacted_txt = \"x\"\n",
    )
    .expect("write config");
    let output = cli(&["--config", config.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown field `acted_txt`"), "{stderr}");
}

#[test]
fn a_check_needs_a_way_to_read_acted() {
    let output = cli(&["--tool", "x", "--", "python3", "server.py"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains(
        "say how to read whether the server acted: --acted POINTER[=JSON], --acted-text REGEX, --acted-not-error or --acted-cmd CMD"
    ));
    let output = cli(&[
        "--tool",
        "x",
        "--acted",
        "/a",
        "--acted-not-error",
        "--",
        "python3",
        "server.py",
    ]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "clap refuses two acted rules"
    );
}

/// Installs `@modelcontextprotocol/server-everything` with the project's script
/// when it is missing; a failed install fails the test with the install log.
pub(super) fn server_everything() {
    let entry = fixture(
        "target/server-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    if Path::new(&entry).exists() {
        return;
    }
    let output = Command::new("sh")
        .arg(fixture("scripts/server-everything.sh"))
        .output()
        .expect("sh runs the install script");
    assert!(
        output.status.success() && Path::new(&entry).exists(),
        "scripts/server-everything.sh failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn server_everything_acts_on_invalid_accepts_and_elicits_from_a_url_only_client() {
    server_everything();
    let whole = cli_json(
        &[
            "--config",
            "fixtures/configs/server-everything.toml",
            "--json",
        ],
        1,
        "server-everything",
    );
    assert_valid_report_json(&whole);
    let document = era(&whole, "2025-11-25");
    let verdict = |n: usize| {
        document["properties"][n - 1]["verdict"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(
        (1..=6).map(verdict).collect::<Vec<_>>(),
        ["holds", "fails", "holds", "fails", "holds", "untested"],
        "{document}"
    );
    let invalid = document["properties"][1]["failure"]["reason"]
        .as_str()
        .unwrap_or_default();
    assert!(
        invalid.starts_with("acted on an accept whose content is invalid: /"),
        "{invalid}"
    );
    assert_eq!(
        document["properties"][3]["failure"]["reason"],
        json!(
            r#"sent a form elicitation/create (frame #7) to a client that declared no form elicitation (capabilities {"elicitation":{"url":{}}})"#
        )
    );
}

#[test]
fn each_request_of_a_multi_step_form_is_answered_from_its_own_schema() {
    let runtime = crate::support::runtime();
    for naive in [false, true] {
        let target = Target::stdio(forms_server("steps", naive))
            .tool("register")
            .acted_pointer("/acted")
            .cases(20)
            .seed(2);
        let mut records = Vec::new();
        let report = runtime
            .block_on(check::check_with_log(&target, &mut |record| {
                records.push(record)
            }))
            .expect("the check runs");
        assert_eq!(report.requested_schemas.len(), 2, "two steps probed");
        assert_eq!(
            report.requested_schemas[0]["properties"]["email"]["format"],
            json!("email")
        );
        assert_eq!(
            report.requested_schemas[1]["properties"]["notify"]["type"],
            json!("boolean")
        );
        let two_step: Vec<_> = records.iter().filter(|r| r.sent.len() == 2).collect();
        assert!(!two_step.is_empty(), "some calls reached the second step");
        for record in two_step {
            for (sent, schema) in record.sent.iter().zip(&report.requested_schemas) {
                assert_eq!(&sent.requested_schema, schema, "{}", record.case);
            }
            // A valid second answer names the second form's field only.
            let second = &record.sent[1];
            if second.class == elicit_check::oracle::property::Class::ValidAccept {
                let keys: Vec<&String> = second.answer["content"]
                    .as_object()
                    .expect("content")
                    .keys()
                    .collect();
                assert!(keys.iter().all(|key| *key == "notify"), "{}", second.answer);
            }
        }
        let failing: Vec<u8> = report
            .properties
            .iter()
            .filter(|p| p.verdict == PropertyVerdict::Fails)
            .map(|p| p.property)
            .collect();
        assert_eq!(
            failing,
            if naive { vec![2] } else { vec![] },
            "naive: {naive}"
        );
        if naive {
            let failure = report
                .property(2)
                .and_then(|p| p.failure.as_ref())
                .expect("fails");
            assert_eq!(
                failure.reproduce.matches(" --answer ").count(),
                failure.answers.len()
            );
        }
    }
}

#[test]
fn a_server_that_never_acts_fails_property_3_and_lists_the_valid_accepts_it_refused() {
    let mut command = forms_server("enum", false);
    command.push("--never-acts".to_owned());
    let report = check::check(
        Target::stdio(command)
            .tool("choose_size")
            .acted_pointer("/acted")
            .cases(10)
            .seed(11),
    )
    .expect("the check runs");
    let failing: Vec<u8> = report
        .properties
        .iter()
        .filter(|p| p.verdict == PropertyVerdict::Fails)
        .map(|p| p.property)
        .collect();
    assert_eq!(failing, vec![3]);
    let acts = report.property(3).expect("property 3");
    let valid_calls = acts.cases;
    assert!(
        valid_calls >= 2,
        "the probe and at least one generated valid accept"
    );
    let failure = acts.failure.as_ref().expect("fails");
    assert_eq!(
        failure.reason,
        format!(
            "acted on none of the {valid_calls} calls whose every answer was a valid accept (consenting ones included)"
        )
    );
    // Shown on the first consenting accept it refused, with what it answered;
    // no warning per refusal beside the failure.
    assert_eq!(
        failure.answers,
        vec![json!({"action": "accept", "content": {"size": "small"}})]
    );
    assert_eq!(
        failure.reply["result"]["structuredContent"],
        json!({"acted": false})
    );
    assert!(acts.warnings.is_empty(), "{:?}", acts.warnings);
}

/// A form that requires no field (`{"type": "object", "properties": {}}`):
/// an accept with no `content` answers it whole, as `{}` would, so a tool
/// that acts on it passes; `content: null` is not an object, so acting on it
/// fails property 2 saying so (MCP 2025-11-25, elicitation: an accept's
/// `content` is an object of the requested fields).
#[test]
fn an_empty_form_accepts_no_content_but_not_null_content() {
    let target = |naive| {
        Target::stdio(forms_server("empty", naive))
            .tool("acknowledge")
            .acted_pointer("/acted")
            .cases(10)
            .seed(11)
    };
    let careful = check::check(target(false)).expect("the check runs");
    assert!(careful.passed, "{}", report::check::table(&careful));
    assert_eq!(
        careful.property(2).expect("property 2").verdict,
        PropertyVerdict::Holds
    );

    let naive = check::check(target(true)).expect("the check runs");
    let failing: Vec<u8> = naive
        .properties
        .iter()
        .filter(|p| p.verdict == PropertyVerdict::Fails)
        .map(|p| p.property)
        .collect();
    assert_eq!(failing, vec![2], "{}", report::check::table(&naive));
    let failure = naive
        .property(2)
        .and_then(|p| p.failure.as_ref())
        .expect("property 2 fails");
    assert!(
        failure.reason.contains("content is null, not an object"),
        "{}",
        failure.reason
    );
    assert_eq!(
        failure.answers,
        vec![json!({"action": "accept", "content": null})]
    );
}

/// A `--junit` path that cannot be written is refused before the check runs
/// (a check may run for minutes; its report must not be lost to a typo), and
/// nothing is printed on stdout.
#[test]
fn an_unwritable_junit_path_is_refused_before_the_check_runs() {
    let server = forms_server("boolean", true);
    for (path, said) in [
        (
            "/no-such-folder-here/check.xml",
            "--junit /no-such-folder-here/check.xml: the folder /no-such-folder-here does not exist",
        ),
        ("fixtures", "--junit fixtures is a folder, not a file"),
    ] {
        let mut args = vec![
            "--tool", "archive", "--acted", "/acted", "--junit", path, "--",
        ];
        args.extend(server.iter().map(String::as_str));
        let output = cli(&args);
        assert_eq!(output.status.code(), Some(2), "{path}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(said), "{stderr}");
        assert!(!stderr.contains("checking tool"), "nothing ran: {stderr}");
        assert!(output.stdout.is_empty(), "{path}");
    }
}

/// The probe calls the tool with the next consenting candidate while it does
/// not act (one per enum value, then the required fields only), each its own
/// session, and stops at the first it acts on: a tool that acts only when
/// `size` is `"large"`, the enum's third value, is called with `"small"`,
/// `"medium"` and `"large"`, then the probe's decline; nothing after.
#[test]
fn the_probe_tries_each_consenting_candidate_until_the_tool_acts() {
    let dir = Scratch::new("probe-candidates");
    let mut server = forms_server("enum", false);
    server.extend(["--acts-on".to_owned(), "large".to_owned()]);
    let output_dir = dir.arg("evidence");
    let mut args = vec![
        "--tool",
        "choose_size",
        "--acted",
        "/acted",
        "--cases",
        "0",
        "--output",
        &output_dir,
        "--",
    ];
    args.extend(server.iter().map(String::as_str));
    let output = cli(&args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let lines =
        std::fs::read_to_string(dir.join("evidence").join("cases.jsonl")).expect("cases.jsonl");
    let probe: Vec<(String, Value, bool)> = lines
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("a JSON line"))
        .filter(|record| {
            record["case"]
                .as_str()
                .is_some_and(|case| case.starts_with("2025-11-25: probe: "))
        })
        .map(|record| {
            (
                record["case"].as_str().unwrap_or_default().to_owned(),
                record["sent"][0]["answer"].clone(),
                record["reading"]["acted"] == true,
            )
        })
        .collect();
    let accept = |size: &str| json!({"action": "accept", "content": {"size": size}});
    assert_eq!(
        probe,
        vec![
            (
                "2025-11-25: probe: a consenting valid accept".to_owned(),
                accept("small"),
                false
            ),
            (
                "2025-11-25: probe: consenting valid accept 2".to_owned(),
                accept("medium"),
                false
            ),
            (
                "2025-11-25: probe: consenting valid accept 3".to_owned(),
                accept("large"),
                true
            ),
            (
                "2025-11-25: probe: a decline".to_owned(),
                json!({"action": "decline"}),
                false
            ),
        ]
    );
}

/// A declared consent field must be one the tool's form asks for, with a
/// value it takes: a misspelt pointer (`/sise`) would otherwise declare
/// nothing, and property 7 would hold without a word. The check stops
/// (exit 2) after the probe's first call, naming the form's fields or the
/// values the field takes, and prints no property verdict.
#[test]
fn a_declared_consent_field_the_form_does_not_have_is_refused() {
    let server = forms_server("enum", true);
    for (consent, says) in [
        (
            "/sise=\"large\"",
            "--consent /sise=\"large\": no form the tool asked for has a field \"sise\"; its fields: size",
        ),
        (
            "/size=\"huge\"",
            "--consent /size=\"huge\": the field \"size\" takes one of \"small\", \"medium\", \"large\", never \"huge\"",
        ),
    ] {
        let mut args = vec![
            "--tool",
            "choose_size",
            "--acted",
            "/acted",
            "--consent",
            consent,
            "--",
        ];
        args.extend(server.iter().map(String::as_str));
        let output = cli(&args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stdout}{stderr}");
        assert!(
            stderr
                .lines()
                .any(|line| line == format!("elicit-check: {says}")),
            "{stderr}"
        );
        assert!(!stdout.contains("holds"), "{stdout}");
    }
}

/// A server that crashes in the call (`forms.py --dies`) says why on its
/// stderr: the table shows it under property 5's failure, after the wire.
#[test]
fn a_server_that_crashes_in_the_call_shows_its_stderr_under_property_5() {
    let mut server = forms_server("enum", false);
    server.push("--dies".to_owned());
    let mut args = vec![
        "--tool",
        "choose_size",
        "--acted",
        "/acted",
        "--cases",
        "1",
        "--seed",
        "1",
        "--protocol",
        "2025-11-25",
        "--fresh",
        "--",
    ];
    args.extend(server.iter().map(String::as_str));
    let output = cli(&args);
    assert_eq!(output.status.code(), Some(2));
    let table = String::from_utf8_lossy(&output.stdout);
    let p5 = table
        .split("\n5  ")
        .nth(1)
        .and_then(|rest| rest.split("\n6  ").next())
        .unwrap_or_default();
    assert!(
        p5.contains(
            "reason: no reply to tools/call: the server's stdout closed first (it exited or crashed in the call)"
        ) && p5.ends_with("     its stderr (last lines):\n       forms.py: crashed in the call"),
        "{table}"
    );
}

/// A tool that asks, then never answers its `tools/call` (`forms.py
/// --hang`), answers after the bound (`--reply-after 1.5`: the client had
/// cancelled the call), or exits in it (`--dies`), in session mode and with
/// `--fresh`.
/// Property 5 fails on the calls without reply, its reason saying what
/// happened (the bound ran out; the server's stdout closed, its stderr
/// shown); properties 1 and 3 count none of them (whether they acted is
/// unknown: no decline kept, no valid accept refused), and none is a planned
/// case that reached the form with an acted reading, so the era is
/// inconclusive (exit 2), its failures kept. After 3 planned cases in a row
/// that waited out `--call-timeout`, the era's other planned cases are not
/// run (a note says so); a server that dies costs no wait, and every planned
/// case runs.
#[test]
fn calls_without_reply_fail_property_5_and_test_nothing_else() {
    for way in ["--hang", "--reply-after", "--dies"] {
        let mut server = forms_server("enum", false);
        server.push(way.to_owned());
        if way == "--reply-after" {
            server.push("1.5".to_owned());
        }
        for mode in ["session mode", "--fresh"] {
            let mut args = vec![
                "--tool",
                "choose_size",
                "--acted",
                "/acted",
                "--cases",
                "20",
                "--seed",
                "1",
                "--call-timeout",
                "0.5",
                "--protocol",
                "2025-11-25",
                "--json",
            ];
            if mode == "--fresh" {
                args.push(mode);
            }
            let folder = tempfile::tempdir().expect("a temporary folder");
            let output = folder.path().to_str().expect("a UTF-8 path");
            args.extend(["--output", output, "--"]);
            args.extend(server.iter().map(String::as_str));
            let context = format!("{way}, {mode}");
            let document = cli_json(&args, 2, &context);
            let report = era(&document, "2025-11-25");
            let health = &report["health"];
            let planned = health["planned"].as_u64().expect("planned");
            assert!(
                planned > 20,
                "the coverage cases and 20 random ones: {planned}"
            );
            let (ran, reason, stderr, unrun, notes) = if way != "--dies" {
                (
                    3,
                    "no reply to tools/call within 0.5 s",
                    "",
                    format!("; the other {} planned cases were not run", planned - 3),
                    json!([format!(
                        "3 planned cases in a row got no reply to tools/call (property 5): the other {} planned cases were not run, each would wait out --call-timeout and read no act",
                        planned - 3
                    )]),
                )
            } else {
                (
                    planned,
                    "no reply to tools/call: the server's stdout closed first (it exited or crashed in the call)",
                    "forms.py: crashed in the call",
                    String::new(),
                    json!([]),
                )
            };
            assert_eq!(health["ran"], json!(ran), "{context}: {health}");
            assert_eq!(
                health["inconclusive"],
                json!(format!(
                    "0 of {planned} planned cases reached the form with an acted reading to trust{unrun}"
                )),
                "{context}"
            );
            assert_eq!(health["notes"], notes, "{context}");
            let p5 = &report["properties"][4];
            assert_eq!(
                (&p5["property"], &p5["verdict"], &p5["failure"]["reason"]),
                (&json!(5), &json!("fails"), &json!(reason)),
                "{context}"
            );
            assert_eq!(p5["failure"]["stderr"], json!(stderr), "{context}");
            for (at, number) in [(0, 1), (2, 3)] {
                let property = &report["properties"][at];
                assert_eq!(
                    (
                        &property["property"],
                        &property["verdict"],
                        &property["cases"]
                    ),
                    (&json!(number), &json!("untested"), &json!(0)),
                    "{context}: no call without reply counts for property {number}"
                );
            }
            // The evidence says the same of each call: the probe's calls
            // (its consenting answers, then its decline) break property 5,
            // as the planned cases do.
            let records =
                std::fs::read_to_string(folder.path().join("cases.jsonl")).expect("cases.jsonl");
            let probe: Vec<(Value, Value)> = records
                .lines()
                .map(|line| serde_json::from_str::<Value>(line).expect("a JSON line"))
                .filter(|record| {
                    record["case"]
                        .as_str()
                        .is_some_and(|case| case.starts_with("probe: "))
                })
                .map(|record| (record["case"].clone(), record["violations"].clone()))
                .collect();
            let broken = json!([format!("property 5: {reason}")]);
            assert_eq!(
                probe,
                [
                    "probe: a consenting valid accept",
                    "probe: consenting valid accept 2",
                    "probe: consenting valid accept 3",
                    "probe: a decline",
                ]
                .map(|case| (json!(case), broken.clone())),
                "{context}"
            );
        }
    }
}
