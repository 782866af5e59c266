//! Protocol 2026-07-28 over Streamable HTTP (basic/transports): each round is a
//! plain POST and its response, and every request names its method in
//! `Mcp-Method` (and a `tools/call` its tool in `Mcp-Name`, "Standard
//! Headers"). The reference server served by rmcp's Streamable HTTP service
//! (`elicit-check serve --port {port}`) passes every case of both eras and
//! holds every property of both; the Python SDK 2.x peer asking in multi
//! round-trip requests (`fixtures/peers/python_sdk2_mrtr.py --port {port}`,
//! the SDK's own `streamable-http`) is judged over HTTP as over stdio: the
//! correct variant holds every property, the naive one fails 2, 4 and 8.

use std::path::Path;

use serde_json::{Value, json};

use crate::peers::environments;
use crate::support::{OutputDir, elicit_check, reference_server};

const URL: &str = "http://127.0.0.1:{port}/mcp";
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `elicit-check serve --port {port}`.
fn served_reference() -> Vec<String> {
    let mut command = reference_server();
    command.extend(["--port".to_owned(), "{port}".to_owned()]);
    command
}

/// `--json` check of `tool` over `URL` with `--acted POINTER` on `command`:
/// exit code and report.
fn check(tool: &str, acted: &str, protocol: &str, command: &[String]) -> (Option<i32>, Value) {
    let mut args: Vec<String> = [
        "--url",
        URL,
        "--tool",
        tool,
        "--acted",
        acted,
        "--protocol",
        protocol,
        "--cases",
        "20",
        "--seed",
        "2",
        "--startup-timeout",
        "60",
        "--json",
        "--",
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend(command.iter().cloned());
    let output = elicit_check("check", &args);
    let document = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}",
            String::from_utf8_lossy(&output.stderr).into_owned()
        )
    });
    (output.status.code(), document)
}

/// The verdicts of properties 1 to 8 in era `protocol` of a `--json` report.
fn verdicts(document: &Value, protocol: &str) -> Vec<String> {
    let era = document["eras"]
        .as_array()
        .and_then(|eras| eras.iter().find(|era| era["protocol"] == protocol))
        .unwrap_or_else(|| panic!("era {protocol} in {document}"));
    era["report"]["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .map(|property| property["verdict"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn the_reference_server_over_http_passes_every_case_of_both_eras() {
    let output = OutputDir::new("http-2026-reference");
    let mut args: Vec<String> = [
        "--url",
        URL,
        "--protocol",
        "both",
        "--cases",
        "4",
        "--seed",
        "1",
        "--output",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(output.text());
    args.push("--".to_owned());
    args.extend(served_reference());
    let run = elicit_check("run", &args);
    let verdicts = output.json("results.json");
    let failed: Vec<&Value> = verdicts
        .as_array()
        .expect("an array")
        .iter()
        .filter(|verdict| verdict["passed"] != true)
        .collect();
    assert_eq!(run.status.code(), Some(0), "{failed:#?}");
    // 19 contract cases and 4 generated ones, each in both eras.
    assert_eq!(output.json("run.json")["cases"], 46);
    // A 2026-07-28 call and its retry each name their method and tool.
    let modern = verdicts
        .as_array()
        .expect("an array")
        .iter()
        .find(|verdict| verdict["case"] == "accept_valid@2026-07-28")
        .expect("the 2026-07-28 accept_valid case ran");
    let calls: Vec<&Value> = modern["evidence"]["http"]
        .as_array()
        .expect("HTTP steps")
        .iter()
        .filter(|step| step["carries"]["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 2, "the call and its retry");
    for call in calls {
        assert_eq!(call["headers"]["mcp-method"], "tools/call", "{call}");
        assert_eq!(call["headers"]["mcp-name"], "calculate", "{call}");
        assert_eq!(
            call["headers"]["mcp-protocol-version"], "2026-07-28",
            "{call}"
        );
    }
}

#[test]
fn the_reference_server_over_http_holds_every_property_of_both_eras() {
    let (code, document) = check("calculate", "/computed=true", "auto", &served_reference());
    assert_eq!(code, Some(0), "{document}");
    // Property 6 reads `computed`, which the acted rule compares to `true`:
    // no pointer of its own to type-check, so untested.
    let holds = |eight: &str| -> Vec<String> {
        [
            "holds", "holds", "holds", "holds", "holds", "untested", "holds", eight,
        ]
        .map(str::to_owned)
        .to_vec()
    };
    assert_eq!(verdicts(&document, "2025-11-25"), holds("untested"));
    assert_eq!(verdicts(&document, "2026-07-28"), holds("holds"));
}

#[test]
fn the_python_sdk2_multi_round_trip_peer_is_judged_over_http_as_over_stdio() {
    let peer = |variant: &str| {
        vec![
            environments()
                .join("python-sdk2/bin/python")
                .display()
                .to_string(),
            Path::new(ROOT)
                .join("fixtures/peers/python_sdk2_mrtr.py")
                .display()
                .to_string(),
            "--variant".to_owned(),
            variant.to_owned(),
            "--port".to_owned(),
            "{port}".to_owned(),
        ]
    };
    let (code, correct) = check("book", "/booked", "2026-07-28", &peer("correct"));
    assert_eq!(code, Some(0), "{correct}");
    assert_eq!(verdicts(&correct, "2026-07-28"), ["holds"; 8]);
    let (code, naive) = check("book", "/booked", "2026-07-28", &peer("naive"));
    assert_eq!(code, Some(1), "{naive}");
    assert_eq!(
        verdicts(&naive, "2026-07-28"),
        [
            "holds", "fails", "holds", "fails", "holds", "holds", "holds", "fails"
        ]
    );
    let era = &naive["eras"][0]["report"];
    assert_eq!(
        era["properties"][7]["failure"]["reason"],
        json!("acted on inputResponses with no requestState")
    );
}
