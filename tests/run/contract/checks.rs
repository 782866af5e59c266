//! Every contract check shown to reject:
//! each test takes the genuine evidence of one contract case against the reference
//! server, breaks exactly one thing in it, and asserts the check's message. Where
//! judging by meaning differs from exact judging, both are shown.

use elicit_check::case::Case;
use elicit_check::harness::Evidence;
use elicit_check::harness::proxy::Side;
use elicit_check::oracle::contract::{self, Judgement, Judging};
use serde_json::{Value, json};

use crate::support;

/// The named contract case, its hand-written expected outcome, and the genuine
/// evidence of one run against the reference server (which passes both ways).
fn genuine(name: &str) -> (Case, Value, Evidence) {
    let (case, expected) = support::contract_case(name);
    let evidence = support::run_on_reference(&case);
    for judging in [Judging::EXACT, Judging::BY_MEANING] {
        assert_eq!(
            contract::judge(&case, &expected, &evidence, judging),
            Judgement::default(),
            "the genuine evidence of {name} passes ({judging:?})"
        );
    }
    (case, expected, evidence)
}

fn exact(case: &Case, expected: &Value, evidence: &Evidence) -> Vec<String> {
    contract::check(case, expected, evidence)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn by_meaning(case: &Case, expected: &Value, evidence: &Evidence) -> Judgement {
    contract::judge(case, expected, evidence, Judging::BY_MEANING)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

/// The server's one frame whose method is `method`, to edit.
fn server_request<'a>(evidence: &'a mut Evidence, method: &str) -> &'a mut Value {
    let frame = evidence
        .wire
        .iter_mut()
        .find(|frame| frame.from == Side::Server && frame.message["method"] == method)
        .expect("the request is on the wire");
    &mut frame.message
}

/// Replaces the outcome with `outcome`, in `structuredContent` and in the text.
fn set_outcome(evidence: &mut Evidence, outcome: Value) {
    evidence.outcome = Some(outcome.clone());
    evidence.text_outcome = Some(outcome);
}

#[test]
fn a_server_that_negotiates_no_protocol_version_fails() {
    let (case, expected, mut evidence) = genuine("decline");
    evidence.protocol_version = None;
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&["no protocol version negotiated, expected \"2025-11-25\""])
    );
}

#[test]
fn a_server_that_negotiates_another_protocol_version_fails() {
    let (case, expected, mut evidence) = genuine("decline");
    evidence.protocol_version = Some("2025-06-18".into());
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        strings(&["negotiated protocol version \"2025-06-18\", expected \"2025-11-25\""])
    );
}

#[test]
fn a_server_that_exits_with_code_3_fails() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    evidence.exit_code = Some(3);
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&["exit code 3, expected 0"])
    );
}

#[test]
fn a_server_ended_by_a_signal_fails_without_an_exit_code() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    evidence.exit_code = None;
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&["no exit code: killed by a signal"])
    );
    evidence.forced_kill = true;
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&["the server did not exit after stdin closed and was killed"]),
        "a forced kill is the one primary reason"
    );
}

#[test]
fn a_server_stopped_by_the_harness_over_http_is_not_judged_by_its_exit() {
    // Streamable HTTP: the harness ends the session, then stops the server
    // (SIGTERM); a signal or a kill after that says nothing about the case.
    let (case, expected, mut evidence) = genuine("accept_valid");
    evidence.stopped_by_harness = true;
    evidence.exit_code = None;
    evidence.exit_signal = Some(15);
    assert_eq!(exact(&case, &expected, &evidence), Vec::<String>::new());
    evidence.forced_kill = true;
    assert_eq!(exact(&case, &expected, &evidence), Vec::<String>::new());
    assert!(by_meaning(&case, &expected, &evidence).failures.is_empty());
    // The same exits of a server the harness waited for fail.
    evidence.stopped_by_harness = false;
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&["the server did not exit after stdin closed and was killed"])
    );
}

#[test]
fn initialize_declaring_other_capabilities_fails() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    let initialize = evidence
        .wire
        .iter_mut()
        .find(|frame| frame.message["method"] == "initialize")
        .expect("initialize is on the wire");
    initialize.message["params"]["capabilities"] = json!({"elicitation": {"url": {}}});
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&[
            "initialize declared other capabilities: $.elicitation.form: missing (expected {})",
            "initialize declared other capabilities: $.elicitation.url: unexpected key (actual {})",
        ])
    );
}

#[test]
fn a_form_request_without_mode_passes() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    let request = server_request(&mut evidence, "elicitation/create");
    request["params"]
        .as_object_mut()
        .expect("params")
        .remove("mode");
    assert_eq!(exact(&case, &expected, &evidence), Vec::<String>::new());
    assert_eq!(
        by_meaning(&case, &expected, &evidence),
        Judgement::default()
    );
}

#[test]
fn a_request_in_url_mode_or_any_other_mode_fails() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    server_request(&mut evidence, "elicitation/create")["params"]["mode"] = json!("url");
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        strings(&["elicitation/create id 0: mode \"url\", expected \"form\" (or no mode)"])
    );
    server_request(&mut evidence, "elicitation/create")["params"]["mode"] = json!(null);
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&["elicitation/create id 0: mode null, expected \"form\" (or no mode)"])
    );
}

#[test]
fn a_schema_with_a_number_from_zero_fails_both_ways() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    let request = server_request(&mut evidence, "elicitation/create");
    request["params"]["requestedSchema"]["properties"]["units"] =
        json!({"type": "number", "minimum": 0, "maximum": 10});
    let failures = strings(&[
        "requestedSchema $.properties.units.type: \"number\" != \"integer\"",
        "requestedSchema $.properties.units.minimum: 0 != 1",
    ]);
    assert_eq!(exact(&case, &expected, &evidence), failures);
    assert_eq!(by_meaning(&case, &expected, &evidence).failures, failures);
}

#[test]
fn a_schema_missing_a_property_or_a_required_name_or_adding_one_fails_by_meaning() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    let schema =
        &mut server_request(&mut evidence, "elicitation/create")["params"]["requestedSchema"];
    schema["required"] = json!(["units"]);
    schema["properties"]["note"] = json!({"type": "string"});
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        strings(&[
            "requestedSchema $.properties.note: unexpected key (actual {\"type\":\"string\"})",
            "requestedSchema $.required: length 1 != 2",
            "requestedSchema $.required[0]: \"units\" != \"unit_value\"",
        ])
    );
}

#[test]
fn pydantic_annotations_pass_by_meaning_and_keys_outside_the_subset_are_warnings() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    // What pydantic's model_json_schema() gives for a strict model (the Python SDK peers).
    server_request(&mut evidence, "elicitation/create")["params"]["requestedSchema"] = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "additionalProperties": false,
        "properties": {
            "units": {"maximum": 10, "minimum": 1, "title": "Units", "type": "integer"},
            "unit_value": {"maximum": 100, "minimum": 1, "title": "Unit Value", "type": "integer", "multipleOf": 1}
        },
        "required": ["unit_value", "units"],
        "title": "Form",
        "type": "object"
    });
    assert_eq!(
        by_meaning(&case, &expected, &evidence),
        Judgement {
            failures: vec![],
            warnings: strings(&[
                "requestedSchema $.additionalProperties: outside the MCP restricted subset of JSON Schema (a client may ignore it)",
                "requestedSchema $.properties.unit_value.multipleOf: outside the MCP restricted subset of JSON Schema (a client may ignore it)",
            ]),
            notes: vec![],
        }
    );
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&[
            "requestedSchema $.properties.unit_value.multipleOf: unexpected key (actual 1)",
            "requestedSchema $.required[0]: \"unit_value\" != \"units\"",
            "requestedSchema $.required[1]: \"units\" != \"unit_value\"",
            "requestedSchema $[\"$schema\"]: unexpected key (actual \"https://json-schema.org/draft/2020-12/schema\")",
            "requestedSchema $.additionalProperties: unexpected key (actual false)",
        ]),
        "the reference server is held to the exact schema"
    );
}

#[test]
fn an_outcome_in_text_content_only_is_judged() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    evidence.outcome = None;
    assert_eq!(exact(&case, &expected, &evidence), Vec::<String>::new());
    evidence.text_outcome = Some(json!({"status": "calculated", "computed": 1, "value": 21}));
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        strings(&["outcome $.computed: integer != boolean"])
    );
}

#[test]
fn a_result_without_any_outcome_fails_with_one_clear_reason() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    evidence.outcome = None;
    evidence.text_outcome = Some(json!("calculated"));
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        strings(&[
            "no outcome: the calculate result has no structuredContent and no JSON object in content[0].text"
        ])
    );
    evidence.text_outcome = None;
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&[
            "no outcome: the calculate result has no structuredContent and no JSON object in content[0].text"
        ])
    );
}

#[test]
fn structured_and_text_outcomes_that_disagree_fail() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    evidence.text_outcome = Some(json!({"status": "calculated", "computed": true, "value": 22}));
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        strings(&["content[0].text disagrees with structuredContent: $.value: 22 != 21"])
    );
}

#[test]
fn error_paths_name_every_field_by_meaning_and_are_a_sequence_exactly() {
    let (case, _, mut evidence) = genuine("accept_valid");
    let expected = json!({"status": "invalid_content", "computed": false, "errors": [["units"], ["unit_value"]]});
    set_outcome(
        &mut evidence,
        json!({"status": "invalid_content", "computed": false, "errors": [["unit_value"], ["units"]]}),
    );
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        Vec::<String>::new()
    );
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&[
            "outcome $.errors[0][0]: \"unit_value\" != \"units\"",
            "outcome $.errors[1][0]: \"units\" != \"unit_value\"",
        ])
    );
    set_outcome(
        &mut evidence,
        json!({"status": "invalid_content", "computed": false, "errors": [["units"]]}),
    );
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        strings(&[
            "outcome $.errors: no location at or under [\"unit_value\"] (reported [[\"units\"]])"
        ]),
        "a missing path fails by meaning too"
    );
    // pydantic's locations: under the field, or from the ElicitResult; the extra
    // one is a note, not a failure.
    set_outcome(
        &mut evidence,
        json!({"status": "invalid_content", "computed": false,
               "errors": [["units", "int"], ["content", "unit_value"], ["extra"]]}),
    );
    let judged = by_meaning(&case, &expected, &evidence);
    assert_eq!(judged.failures, Vec::<String>::new());
    assert_eq!(
        judged.notes,
        strings(&[
            "errors also names [[\"extra\"]] (tolerated: the contract names [[\"units\"],[\"unit_value\"]])"
        ])
    );
}

#[test]
fn free_text_messages_are_judged_only_exactly_but_codes_always() {
    let (case, expected, mut evidence) = genuine("accept_no_content");
    set_outcome(
        &mut evidence,
        json!({"status": "invalid_response", "computed": false, "error": "Received an accepted elicitation with no content"}),
    );
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        Vec::<String>::new()
    );
    assert_eq!(
        exact(&case, &expected, &evidence),
        strings(&[
            "outcome $.error: \"Received an accepted elicitation with no content\" != \"accept response has no content\""
        ])
    );
    let (case, expected, mut evidence) = genuine("unsupported_unchecked_diagnostic");
    set_outcome(
        &mut evidence,
        json!({"status": "protocol_error", "computed": false, "code": -32603, "error": "its own words"}),
    );
    assert_eq!(
        by_meaning(&case, &expected, &evidence).failures,
        strings(&["outcome $.code: -32603 != -32602"])
    );
}

#[test]
fn one_elicitation_to_a_client_without_form_is_counted_in_the_singular() {
    let (case, expected, mut evidence) = genuine("unsupported_guarded");
    let (_, _, asked) = genuine("accept_valid");
    let mut elicitation = asked
        .wire
        .iter()
        .find(|frame| frame.from == Side::Server && frame.message["method"] == "elicitation/create")
        .expect("accept_valid elicits")
        .clone();
    // Between the tools/call and its completion, as a server that asks anyway sends it.
    let completion = evidence.wire.last().expect("the completion").seq;
    elicitation.seq = completion;
    evidence.wire.last_mut().expect("the completion").seq = completion + 1;
    let at = evidence.wire.len() - 1;
    evidence.wire.insert(at, elicitation);
    let failures = exact(&case, &expected, &evidence);
    assert!(
        failures.contains(&"1 elicitation/create request, expected 0".to_owned()),
        "{failures:?}"
    );
}

#[test]
fn a_reply_recorded_before_its_tools_call_fails_naming_both_frames() {
    let (case, expected, mut evidence) = genuine("unsupported_guarded");
    let call = evidence
        .wire
        .iter()
        .find(|frame| frame.from == Side::Client && frame.message["method"] == "tools/call")
        .expect("the call is on the wire")
        .clone();
    let reply = evidence
        .wire
        .iter_mut()
        .find(|frame| {
            frame.from == Side::Server
                && frame.message.get("method").is_none()
                && frame.message["id"] == call.message["id"]
        })
        .expect("the call's reply is on the wire");
    reply.seq = call.seq - 1;
    let message = format!(
        "tools/call id {} completed (#{}) before it was sent (#{})",
        call.message["id"],
        call.seq - 1,
        call.seq
    );
    assert_eq!(exact(&case, &expected, &evidence), vec![message.clone()]);
    assert_eq!(by_meaning(&case, &expected, &evidence).failures, [message]);
}

/// Moves the client's answer to accept_valid's `elicitation/create` to the
/// place `place` picks from (the request's seq, the last frame's seq), alone,
/// and asserts the one failure both judgings give: the answer is out of order.
fn assert_a_moved_answer_is_out_of_order(place: impl Fn(u64, u64) -> u64) {
    let (case, expected, mut evidence) = genuine("accept_valid");
    let request = evidence
        .wire
        .iter()
        .find(|frame| frame.from == Side::Server && frame.message["method"] == "elicitation/create")
        .expect("accept_valid elicits")
        .clone();
    let request_id = request.message["id"].clone();
    let moved_to = place(
        request.seq,
        evidence.wire.last().expect("the completion").seq,
    );
    let answer = evidence
        .wire
        .iter_mut()
        .find(|frame| {
            frame.from == Side::Client
                && frame.message.get("method").is_none()
                && frame.message["id"] == request_id
        })
        .expect("the client answered the elicitation");
    answer.seq = moved_to;
    let message =
        format!("reply to elicitation/create id {request_id} (#{moved_to}) is out of order");
    assert_eq!(exact(&case, &expected, &evidence), vec![message.clone()]);
    assert_eq!(by_meaning(&case, &expected, &evidence).failures, [message]);
}

#[test]
fn an_answer_recorded_after_the_calls_completion_is_out_of_order() {
    assert_a_moved_answer_is_out_of_order(|_, completion| completion + 1);
}

#[test]
fn an_answer_recorded_before_its_elicitation_request_is_out_of_order() {
    assert_a_moved_answer_is_out_of_order(|request, _| request - 1);
}
