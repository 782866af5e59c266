//! The contract on protocol 2026-07-28 over real stdio: the
//! 19 contract cases with the 2026-07-28 table applied to their hand-written
//! outcomes, the era-specific cases with theirs (`expected/mrtr_results.json`),
//! and proof that the era's checks reject bad evidence.

use elicit_check::harness::mrtr::{self, Retry};
use elicit_check::harness::{Evidence, Limits};
use elicit_check::oracle::era;
use serde_json::{Value, json};

use crate::support;

/// Runs `case` on 2026-07-28 against `elicit-check serve` (with `ttl`, when given).
fn run_mrtr(case: &elicit_check::case::Case, retry: Retry, ttl: Option<u64>) -> Evidence {
    let mut command = support::reference_server();
    if let Some(ttl) = ttl {
        command.extend(["--request-state-ttl".to_owned(), ttl.to_string()]);
    }
    support::runtime()
        .block_on(mrtr::run_case(&command, case, Limits::default(), retry))
        .expect("the reference server starts")
}

/// The 2026-07-28 checks' failures, as the messages a user reads.
fn era_failures(
    case: &elicit_check::case::Case,
    expected: &Value,
    evidence: &Evidence,
    spec_client: bool,
) -> Vec<String> {
    era::check(case, expected, evidence, spec_client)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn assert_passes(name: &str, failures: &[String], evidence: &Evidence) {
    assert!(
        failures.is_empty(),
        "case {name} failed on 2026-07-28:\n  {}\nwire: {}",
        failures.join("\n  "),
        serde_json::to_string_pretty(&evidence.wire).unwrap_or_default()
    );
}

/// One contract case on 2026-07-28: the table's expected result and the era's wire.
fn contract_case(name: &str) {
    let (case, legacy) = support::contract_case(name);
    let expected = era::expected(&case, &legacy);
    let evidence = run_mrtr(&case, Retry::Echo, None);
    assert_passes(
        name,
        &era_failures(&case, &expected, &evidence, true),
        &evidence,
    );
    assert_eq!(evidence.protocol_version.as_deref(), Some("2026-07-28"));
    let server_requests = evidence
        .wire
        .iter()
        .filter(|frame| frame.message.get("method").is_some() && frame.message.get("id").is_some())
        .filter(|frame| frame.from == elicit_check::harness::proxy::Side::Server)
        .count();
    assert_eq!(server_requests, 0, "{name}: no server→client request");
}

macro_rules! mrtr_cases {
    ($($name:ident),* $(,)?) => {
        mod contract_cases {
            $(
                #[test]
                fn $name() {
                    super::contract_case(stringify!($name));
                }
            )*
        }
    };
}

crate::with_contract_cases!(mrtr_cases);

#[test]
fn the_2026_07_28_table_is_applied_to_the_hand_written_outcomes() {
    let legacy = elicit_check::case::contract_expected();
    let expected: Vec<(String, Value)> = elicit_check::case::contract_cases()
        .iter()
        .map(|case| (case.name.clone(), era::expected(case, &legacy[&case.name])))
        .filter(|(name, expected)| *expected != legacy[name])
        .collect();
    // Only the three cases without form support differ; each becomes -32021.
    assert_eq!(
        expected,
        vec![
            (
                "unsupported_guarded".to_owned(),
                json!({"jsonrpc_error": {"code": -32021}})
            ),
            (
                "unsupported_unchecked_diagnostic".to_owned(),
                json!({"jsonrpc_error": {"code": -32021}})
            ),
            (
                "url_only_guarded".to_owned(),
                json!({"jsonrpc_error": {"code": -32021}})
            ),
        ]
    );
}

/// One era-specific case from `fixtures/mrtr_cases.json`.
fn era_case(name: &str) -> Evidence {
    let fixture = mrtr::mrtr_cases()
        .into_iter()
        .find(|fixture| fixture.case.name == name)
        .unwrap_or_else(|| panic!("no case {name} in fixtures/mrtr_cases.json"));
    let expected = mrtr::mrtr_expected()
        .get(name)
        .cloned()
        .unwrap_or_else(|| panic!("no expected result for {name}"));
    let evidence = run_mrtr(&fixture.case, fixture.retry, fixture.request_state_ttl);
    let spec_client = fixture.retry == Retry::Echo && fixture.request_state_ttl.is_none();
    assert_passes(
        name,
        &era_failures(&fixture.case, &expected, &evidence, spec_client),
        &evidence,
    );
    evidence
}

/// The `tools/call` requests of a wire, and whether each carried `inputResponses`.
fn calls(evidence: &Evidence) -> Vec<bool> {
    evidence
        .wire
        .iter()
        .filter(|frame| frame.message.get("method") == Some(&json!("tools/call")))
        .map(|frame| frame.message.pointer("/params/inputResponses").is_some())
        .collect()
}

#[test]
fn missing_capability_is_refused_with_32021_before_anything_is_asked() {
    let evidence = era_case("mrtr_missing_capability");
    assert_eq!(calls(&evidence), vec![false]);
    assert_eq!(
        evidence.rpc_error.expect("refused")["data"],
        json!({"requiredCapabilities": {"elicitation": {"form": {}}}})
    );
    assert_eq!(evidence.callbacks, 0);
}

#[test]
fn a_tampered_state_ends_in_32602_and_nothing_is_computed() {
    let evidence = era_case("mrtr_tampered_state");
    assert_eq!(calls(&evidence), vec![false, true]);
    assert!(evidence.outcome.is_none());
}

#[test]
fn a_foreign_state_ends_in_32602_and_nothing_is_computed() {
    let evidence = era_case("mrtr_foreign_state");
    // One call to mint the foreign state, the call itself, its retry.
    assert_eq!(calls(&evidence), vec![false, false, true]);
    assert!(evidence.outcome.is_none());
}

#[test]
fn an_expired_state_ends_in_32602_and_nothing_is_computed() {
    let evidence = era_case("mrtr_expired_state");
    assert_eq!(calls(&evidence), vec![false, true]);
    assert!(evidence.outcome.is_none());
}

#[test]
fn a_retry_without_state_ends_in_32602_and_nothing_is_computed() {
    let evidence = era_case("mrtr_missing_state");
    assert_eq!(calls(&evidence), vec![false, true]);
    assert!(evidence.outcome.is_none());
}

#[test]
fn a_missing_input_response_is_asked_again_then_decided() {
    let evidence = era_case("mrtr_missing_input_response");
    assert_eq!(calls(&evidence), vec![false, true, true]);
    let input_required = evidence
        .wire
        .iter()
        .filter(|frame| {
            frame.message.pointer("/result/resultType") == Some(&json!("input_required"))
        })
        .count();
    assert_eq!(input_required, 2);
}

#[test]
fn a_client_that_never_answers_is_refused_after_three_rounds() {
    let evidence = era_case("mrtr_too_many_rounds");
    assert_eq!(calls(&evidence), vec![false, true, true, true]);
    assert!(evidence.outcome.is_none());
}

#[test]
fn the_era_fixtures_parse_and_every_case_has_an_expected_result() {
    let names: Vec<String> = mrtr::mrtr_cases()
        .into_iter()
        .map(|fixture| fixture.case.name)
        .collect();
    let expected = mrtr::mrtr_expected();
    assert_eq!(names.len(), 7);
    for name in &names {
        assert!(expected.contains_key(name), "{name} has an expected result");
    }
    assert_eq!(expected.len(), names.len());
}

// ---- the era's checks reject bad evidence ----

fn accept_valid() -> (elicit_check::case::Case, Value, Evidence) {
    let (case, legacy) = support::contract_case("accept_valid");
    let evidence = run_mrtr(&case, Retry::Echo, None);
    (case, legacy, evidence)
}

fn first_failure(case: &elicit_check::case::Case, expected: &Value, evidence: &Evidence) -> String {
    era_failures(case, expected, evidence, true)
        .into_iter()
        .next()
        .unwrap_or_else(|| "no failure".to_owned())
}

#[test]
fn the_era_checks_reject_a_changed_outcome_a_server_request_and_a_lost_echo() {
    let (case, expected, evidence) = accept_valid();
    assert!(era_failures(&case, &expected, &evidence, true).is_empty());

    let mut computed_as_int = evidence.clone();
    computed_as_int.outcome = Some(json!({"status": "calculated", "computed": 1, "value": 21}));
    assert_eq!(
        first_failure(&case, &expected, &computed_as_int),
        "outcome $.computed: integer != boolean"
    );

    let mut requests = evidence.clone();
    let mut elicitation = requests.wire[5].clone();
    elicitation.message =
        json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {}});
    elicitation.seq = 99;
    requests.wire.push(elicitation);
    assert_eq!(
        first_failure(&case, &expected, &requests),
        "server sent request elicitation/create id 0 (#99): 2026-07-28 servers must not send requests"
    );

    let mut lost_echo = evidence.clone();
    let retry = lost_echo
        .wire
        .iter_mut()
        .rfind(|frame| frame.message.get("method") == Some(&json!("tools/call")))
        .expect("the retry");
    retry.message["params"]["requestState"] = json!("rs1.other");
    assert_eq!(
        first_failure(&case, &expected, &lost_echo),
        "the retry does not echo requestState byte for byte"
    );

    let mut changed_answer = evidence.clone();
    let ids: Vec<usize> = changed_answer
        .wire
        .iter()
        .enumerate()
        .filter(|(_, frame)| frame.message.get("method") == Some(&json!("tools/call")))
        .map(|(index, _)| index)
        .collect();
    changed_answer.wire[ids[1]].message["params"]["inputResponses"]["form"] =
        json!({"action": "decline"});
    assert_eq!(
        first_failure(&case, &expected, &changed_answer),
        "retry inputResponses[\"form\"] $.action: \"decline\" != \"accept\""
    );

    let mut old_protocol = evidence.clone();
    old_protocol.protocol_version = Some("2025-11-25".into());
    assert_eq!(
        first_failure(&case, &expected, &old_protocol),
        "negotiated protocol version \"2025-11-25\", expected \"2026-07-28\""
    );
    let mut no_protocol = evidence.clone();
    no_protocol.protocol_version = None;
    assert_eq!(
        first_failure(&case, &expected, &no_protocol),
        "no protocol version negotiated, expected \"2026-07-28\""
    );
    let mut signalled = evidence.clone();
    signalled.exit_code = None;
    assert_eq!(
        first_failure(&case, &expected, &signalled),
        "no exit code: killed by a signal"
    );
    let mut killed = evidence.clone();
    killed.forced_kill = true;
    assert_eq!(
        first_failure(&case, &expected, &killed),
        "the server did not exit after stdin closed and was killed"
    );
    // Over Streamable HTTP the harness stops the server after the session: its
    // exit, a signal or a kill, says nothing about the case.
    for mut stopped in [signalled, killed] {
        stopped.stopped_by_harness = true;
        assert_eq!(first_failure(&case, &expected, &stopped), "no failure");
    }
}

#[test]
fn a_call_never_retried_is_one_tools_call_request_in_the_singular() {
    let (case, expected, evidence) = accept_valid();
    let mut once = evidence.clone();
    let retry = once
        .wire
        .iter()
        .rfind(|frame| frame.message.get("method") == Some(&json!("tools/call")))
        .expect("the retry")
        .message["id"]
        .clone();
    // The retry and its reply gone: one call answered input_required, no retry.
    once.wire
        .retain(|frame| frame.message.get("id") != Some(&retry));
    let failures = era_failures(&case, &expected, &once, true);
    assert!(
        failures.contains(
            &"1 tools/call request, expected 2 (call → input_required → retry → result)".to_owned()
        ),
        "{failures:?}"
    );
}

#[test]
fn the_era_checks_reject_a_missing_capability_answered_any_other_way() {
    let (case, legacy) = support::contract_case("unsupported_guarded");
    let expected = era::expected(&case, &legacy);
    let evidence = run_mrtr(&case, Retry::Echo, None);
    assert!(era_failures(&case, &expected, &evidence, true).is_empty());

    let mut as_2025 = evidence.clone();
    as_2025.rpc_error = None;
    as_2025.outcome = Some(legacy.clone());
    as_2025.text_outcome = Some(legacy.clone());
    assert_eq!(
        first_failure(&case, &expected, &as_2025),
        "expected JSON-RPC error -32021, got the tool result {\"status\":\"unsupported\",\"computed\":false,\"requested\":false}"
    );

    let mut wrong_code = evidence.clone();
    wrong_code.rpc_error = Some(json!({"code": -32602, "message": "x"}));
    assert_eq!(
        first_failure(&case, &expected, &wrong_code),
        "JSON-RPC error code -32602, expected -32021"
    );

    let mut unnamed = evidence.clone();
    unnamed.rpc_error =
        Some(json!({"code": -32021, "message": "x", "data": {"requiredCapabilities": {}}}));
    assert_eq!(
        first_failure(&case, &expected, &unnamed),
        "JSON-RPC error -32021 does not name elicitation in data.requiredCapabilities: data {\"requiredCapabilities\":{}}"
    );

    let mut asked = evidence.clone();
    let response = asked
        .wire
        .iter_mut()
        .rfind(|frame| frame.message.get("error").is_some())
        .expect("the refusal");
    response.message = json!({"jsonrpc": "2.0", "id": response.message["id"], "result": {"resultType": "input_required", "inputRequests": {"form": {}}, "requestState": "s"}});
    let failures = era_failures(&case, &expected, &asked, true);
    assert!(
        failures.iter().any(|failure| failure
            .starts_with("inputRequests sent to a client that declared no form elicitation")),
        "{failures:?}"
    );
}

#[test]
fn both_eras_are_compared_by_the_table_and_a_difference_is_named() {
    let (case, _) = support::contract_case("decline_with_spurious_data");
    let legacy = support::run_on_reference(&case);
    let modern = run_mrtr(&case, Retry::Echo, None);
    assert_eq!(era::eras_differ(&case, &legacy, &modern), None);

    let mut computes = modern.clone();
    computes.outcome = Some(json!({"status": "calculated", "computed": true, "value": 21}));
    assert_eq!(
        era::eras_differ(&case, &legacy, &computes)
            .map(|failure| failure.to_string())
            .as_deref(),
        Some(
            "the eras differ: 2025-11-25 gave {\"status\":\"declined\",\"computed\":false}, 2026-07-28 gave {\"status\":\"calculated\",\"computed\":true,\"value\":21}"
        )
    );

    let (unsupported, _) = support::contract_case("unsupported_guarded");
    let legacy = support::run_on_reference(&unsupported);
    let modern = run_mrtr(&unsupported, Retry::Echo, None);
    assert_eq!(era::eras_differ(&unsupported, &legacy, &modern), None);
    let mut as_2025 = modern.clone();
    as_2025.rpc_error = None;
    as_2025.outcome = legacy.outcome.clone();
    assert_eq!(
        era::eras_differ(&unsupported, &legacy, &as_2025)
            .map(|failure| failure.to_string())
            .as_deref(),
        Some(
            "the eras differ: 2025-11-25 gave {\"status\":\"unsupported\",\"computed\":false,\"requested\":false}, 2026-07-28 gave {\"status\":\"unsupported\",\"computed\":false,\"requested\":false}"
        )
    );
}

#[test]
fn the_era_checks_reject_a_text_outcome_that_disagrees_and_a_process_that_misbehaves() {
    let (case, expected, evidence) = accept_valid();

    let mut other_text = evidence.clone();
    other_text.text_outcome = Some(json!({"status": "calculated", "computed": true, "value": 22}));
    assert_eq!(
        first_failure(&case, &expected, &other_text),
        "content[0].text disagrees with structuredContent: $.value: 22 != 21"
    );

    let mut no_text = evidence.clone();
    no_text.text_outcome = None;
    assert_eq!(
        first_failure(&case, &expected, &no_text),
        "content[0] is not JSON text"
    );

    let mut crashed = evidence.clone();
    crashed.exit_code = Some(3);
    assert_eq!(
        first_failure(&case, &expected, &crashed),
        "exit code 3, expected 0"
    );

    let mut killed = evidence.clone();
    killed.forced_kill = true;
    assert_eq!(
        first_failure(&case, &expected, &killed),
        "the server did not exit after stdin closed and was killed"
    );

    let mut noisy = evidence.clone();
    noisy
        .stray_stdout
        .push(elicit_check::harness::proxy::StrayLine {
            seq: 42,
            line: "hello".into(),
            bytes: 5,
        });
    assert_eq!(
        first_failure(&case, &expected, &noisy),
        "non-JSON-RPC line on stdout (#42): \"hello\""
    );

    let mut undeclared = evidence.clone();
    undeclared.wire[4].message["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({});
    assert_eq!(
        first_failure(&case, &expected, &undeclared),
        "tools/call (#4) declared capabilities {}, expected {\"elicitation\":{\"form\":{}}}"
    );

    let mut reused_id = evidence.clone();
    reused_id.wire[6].message["id"] = json!(2);
    reused_id.wire[7].message["id"] = json!(2);
    let failures = era_failures(&case, &expected, &reused_id, true);
    assert!(
        failures.contains(&"2 responses to tools/call id 2, expected exactly 1".to_owned()),
        "{failures:?}"
    );
}

#[test]
fn the_era_checks_reject_a_call_answered_before_it_was_sent() {
    let (case, expected, evidence) = accept_valid();
    let mut reordered = evidence.clone();
    reordered.wire[7].seq = 1;
    let failures = era_failures(&case, &expected, &reordered, true);
    assert_eq!(
        failures,
        ["tools/call id 3 answered (#1) before it was sent (#6)"]
    );
}

#[test]
fn a_json_rpc_error_answer_has_no_channel_on_2026_07_28_and_reads_as_malformed() {
    let case = elicit_check::case::Case {
        name: "error_answer".into(),
        policy: "validated".into(),
        capabilities: json!({"elicitation": {"form": {}}}),
        answer: Some(elicit_check::case::Answer::Error(
            json!({"code": -32603, "message": "boom"}),
        )),
        answer_text: None,
    };
    let legacy =
        json!({"status": "protocol_error", "computed": false, "code": -32603, "error": "boom"});
    assert_eq!(
        era::expected(&case, &legacy),
        json!({"status": "invalid_response", "computed": false, "error": "malformed elicitation result"})
    );
    assert_eq!(
        era::expected_input_response(&case),
        json!({"code": -32603, "message": "boom"})
    );
    let evidence = run_mrtr(&case, Retry::Echo, None);
    assert!(era_failures(&case, &era::expected(&case, &legacy), &evidence, true).is_empty());
}
