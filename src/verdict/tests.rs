//! Unit tests of `verdict`.

//! Each verdict's rule fed bad evidence built by hand; the misbehaving
//! servers of `tests/run/fault_verdicts.rs` show the same verdicts end to end.

use serde_json::json;

use super::*;
use crate::case::{Answer, Case};
use crate::compare::Mismatch;
use crate::evidence::Handshake;
use crate::harness::evidence::RMCP_VERSION;
use crate::harness::proxy::StrayLine;

/// The evidence of a clean session of `accept_valid` that computed 21.
fn clean(answer: Value) -> Evidence {
    let input = Case {
        name: "c".into(),
        policy: "validated".into(),
        capabilities: json!({"elicitation": {"form": {}}}),
        answer: Some(Answer::Result(answer)),
        answer_text: None,
    };
    let frame = |seq, from, message| Frame {
        seq,
        from,
        message,
        text: None,
    };
    Evidence {
        case: "c".into(),
        input,
        elicit_check_version: "0",
        rmcp_version: RMCP_VERSION,
        server_command: vec!["server".into()],
        pid: Some(1),
        protocol_version: Some("2025-11-25".into()),
        wire: vec![
            frame(0, Side::Client, json!({"id": 0, "method": "tools/call"})),
            frame(
                1,
                Side::Server,
                json!({"id": 0, "method": "elicitation/create", "params": {}}),
            ),
            frame(2, Side::Client, json!({"id": 0, "result": {}})),
            frame(3, Side::Server, json!({"id": 0, "result": {}})),
        ],
        timeline: Vec::new(),
        callbacks: 1,
        stray_stdout: Vec::new(),
        stray_stdout_not_kept: 0,
        stderr: String::new(),
        exit_code: Some(0),
        exit_signal: None,
        forced_kill: false,
        shutdown_grace_secs: 5.0,
        group_left_running: false,
        outcome: Some(json!({"status": "calculated", "computed": true, "value": 21})),
        text_outcome: None,
        error: None,
        started: true,
        rpc_error: None,
        url: None,
        http: Vec::new(),
        stopped_by_harness: false,
    }
}

/// A difference at `path` (`$.value`) said as `detail` (`22 != 21`).
fn mismatch(path: &str, detail: &str) -> Mismatch {
    Mismatch {
        path: path.to_owned(),
        detail: detail.to_owned(),
    }
}

/// A failure that names no verdict of its own (a `requestedSchema` key).
fn schema_failure() -> Failure {
    Failure::Wire(WireFailure::Schema(mismatch("$.x", "unexpected key")))
}

/// A hostile-client check tagged `verdict`.
fn hostile(verdict: Primary, evidence: &str) -> Failure {
    Failure::Hostile(Finding::new(verdict, evidence))
}

fn failing(evidence: &Evidence, expected: Value) -> Finding {
    classify(evidence, &expected, &[schema_failure()])
}

const CALCULATED: fn() -> Value = || json!({"status": "calculated", "computed": true, "value": 21});

#[test]
fn a_hung_call_says_when_its_elicitation_was_answered_with_no_object() {
    let hung = |result: Value| {
        let mut evidence = clean(json!({"action": "accept"}));
        evidence.wire.truncate(3);
        evidence.wire[2].message["result"] = result;
        evidence.outcome = None;
        evidence.error = Some(HarnessFailure::CallTimedOut {
            within: Duration::from_secs(10),
        });
        failing(&evidence, CALCULATED())
    };
    assert_eq!(
        hung(json!(173)),
        Finding::new(
            Primary::Hung,
            "no reply to tools/call within 10 s after a result that is not an object (173) \
             answered its elicitation/create"
        )
    );
    assert_eq!(
        hung(json!([])).evidence,
        "no reply to tools/call within 10 s after a result that is not an object ([]) \
         answered its elicitation/create"
    );
    // An object result, however malformed, is no such answer.
    assert_eq!(
        hung(json!({"action": "x"})).evidence,
        "no reply to tools/call within 10 s"
    );
    // Only the reply to the server's elicitation/create: a client request
    // under the same id, or a reply from the server, is not it.
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.wire.truncate(2);
    evidence.wire.push(Frame {
        seq: 2,
        from: Side::Client,
        message: json!({"id": 0, "method": "ping", "result": 5}),
        text: None,
    });
    evidence.wire.push(Frame {
        seq: 3,
        from: Side::Server,
        message: json!({"id": 0, "result": 5}),
        text: None,
    });
    evidence.outcome = None;
    evidence.error = Some(HarnessFailure::CallTimedOut {
        within: Duration::from_secs(10),
    });
    assert_eq!(
        failing(&evidence, CALCULATED()).evidence,
        "no reply to tools/call within 10 s"
    );
    // A reply under another id is not it either.
    evidence.wire[2] = Frame {
        seq: 2,
        from: Side::Client,
        message: json!({"id": 7, "result": 5}),
        text: None,
    };
    assert_eq!(
        failing(&evidence, CALCULATED()).evidence,
        "no reply to tools/call within 10 s"
    );
    // Nor is a reply to a request that is no elicitation/create.
    evidence.wire[1].message["method"] = json!("sampling/createMessage");
    evidence.wire[2].message["id"] = json!(0);
    assert_eq!(
        failing(&evidence, CALCULATED()).evidence,
        "no reply to tools/call within 10 s"
    );
}

#[test]
fn no_failure_is_passed_whatever_the_evidence() {
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.exit_code = Some(3);
    assert_eq!(
        classify(&evidence, &CALCULATED(), &[]).verdict,
        Primary::Passed
    );
}

#[test]
fn a_non_zero_exit_after_a_good_result_is_crashed_after_the_call() {
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.exit_code = Some(3);
    assert_eq!(
        failing(&evidence, CALCULATED()),
        Finding::new(Primary::Crashed, "exit code 3 after the call")
    );
    evidence.exit_code = None;
    assert_eq!(
        failing(&evidence, CALCULATED()).evidence,
        "no exit code: ended by a signal after the call"
    );
    evidence.exit_signal = Some(11);
    assert_eq!(
        failing(&evidence, CALCULATED()),
        Finding::new(
            Primary::Crashed,
            "killed by signal 11 (SIGSEGV) after the call"
        )
    );
    evidence.exit_signal = None;
    evidence.exit_code = Some(0);
    assert_eq!(
        failing(&evidence, CALCULATED()).verdict,
        Primary::ContractFailure
    );
}

#[test]
fn over_http_the_servers_exit_after_the_harness_stopped_it_is_no_verdict() {
    // Streamable HTTP: the harness stops the server (SIGTERM) after the session.
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.stopped_by_harness = true;
    evidence.exit_code = None;
    evidence.exit_signal = Some(15);
    assert_eq!(
        failing(&evidence, CALCULATED()).verdict,
        Primary::ContractFailure
    );
    evidence.forced_kill = true;
    assert_eq!(
        failing(&evidence, CALCULATED()).verdict,
        Primary::ContractFailure
    );
    // A call the transport failed is crashed, in the transport's words.
    evidence.outcome = None;
    evidence.error = Some(HarnessFailure::CallFailed {
        error: "connection closed".into(),
        http: "; HTTP: POST /mcp got no response".into(),
    });
    assert_eq!(
        failing(&evidence, CALCULATED()),
        Finding::new(
            Primary::Crashed,
            "tools/call failed: connection closed; HTTP: POST /mcp got no response"
        )
    );
    // A server that never answered at the URL did not start, and no exit is named.
    evidence.wire.clear();
    evidence.started = false;
    evidence.error = Some(HarnessFailure::HandshakeFailed {
        request: Handshake::Initialize,
        error: "connection closed".into(),
        http: "; HTTP: POST /mcp got no response: connection refused".into(),
    });
    assert_eq!(
        failing(&evidence, CALCULATED()),
        Finding::new(
            Primary::DidNotStart,
            "initialize failed: connection closed; HTTP: POST /mcp got no response: connection refused"
        )
    );
}

#[test]
fn a_transport_closed_without_result_is_crashed_even_with_exit_code_0() {
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.outcome = None;
    evidence.error = Some(HarnessFailure::CallFailed {
        error: "connection closed".into(),
        http: String::new(),
    });
    assert_eq!(
        failing(&evidence, CALCULATED()),
        Finding::new(
            Primary::Crashed,
            "exit code 0 before replying to tools/call"
        )
    );
    // An outcome in content[0].text alone is a result too: not a crash.
    evidence.text_outcome = Some(json!({"status": "calculated", "computed": true, "value": 21}));
    assert_ne!(failing(&evidence, CALCULATED()).verdict, Primary::Crashed);
    evidence.text_outcome = None;
    // A JSON-RPC error reply is an answer, not a crash.
    evidence.rpc_error = Some(json!({"code": -32021}));
    assert_ne!(failing(&evidence, CALCULATED()).verdict, Primary::Crashed);
}

#[test]
fn a_call_result_without_an_outcome_and_no_transport_error_is_wrong_outcome() {
    // The server answered tools/call and exited 0; the result just holds no
    // outcome. Not a crash: nothing failed on the transport.
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.outcome = None;
    let failures = vec![Failure::Outcome(OutcomeFailure::NoOutcome)];
    assert_eq!(
        classify(&evidence, &CALCULATED(), &failures),
        Finding::new(
            Primary::WrongOutcome,
            "no outcome: the calculate result has no structuredContent and no JSON object in content[0].text"
        )
    );
    evidence.error = Some(HarnessFailure::ToolError);
    assert_eq!(
        classify(&evidence, &CALCULATED(), &failures).verdict,
        Primary::WrongOutcome
    );
}

/// The evidence line of a case that computed 21 on `answer` where the
/// contract expected `expected`.
fn computed_on(answer: Value, expected: Value) -> Finding {
    failing(&clean(answer), expected)
}

#[test]
fn computing_on_content_the_contract_refuses_names_the_rule_it_breaks() {
    let refused =
        |errors: Value| json!({"status": "invalid_content", "computed": false, "errors": errors});
    // Out of range, and a whole float JSON Schema would call an integer: the
    // same rule, which is true of both.
    for units in [json!(11), json!(3.0)] {
        assert_eq!(
            computed_on(
                json!({"action": "accept", "content": {"units": units, "unit_value": 7}}),
                refused(json!([["units"]]))
            ),
            Finding::new(
                Primary::ComputedOnInvalid,
                "computed on an accept the contract refuses (value 21): units must be an integer \
                 from 1 to 10, written without fraction or exponent; expected status \"invalid_content\""
            )
        );
    }
    // A key the requestedSchema does not name (JSON Schema allows it).
    assert_eq!(
        computed_on(
            json!({"action": "accept", "content": {"units": 3, "unit_value": 7, "note": "x"}}),
            refused(json!([["note"]]))
        )
        .evidence,
        "computed on an accept the contract refuses (value 21): \"note\" is not a field of \
         the requestedSchema (the contract refuses keys it does not name); expected status \
         \"invalid_content\""
    );
    // A missing field, a bad one beside it, an extra key: three rules, no "more".
    assert_eq!(
        computed_on(
            json!({"action": "accept", "content": {"unit_value": "7", "x": 1}}),
            refused(json!([["units"], ["unit_value"], ["x"]]))
        )
        .evidence,
        "computed on an accept the contract refuses (value 21): units is required; \
         unit_value must be an integer from 1 to 100, written without fraction or exponent; \
         \"x\" is not a field of the requestedSchema (the contract refuses keys it does not \
         name); expected status \"invalid_content\""
    );
    assert_eq!(
        computed_on(
            json!({"action": "accept", "content": {"a": 1, "b": 1, "c": 1, "d": 1}}),
            refused(json!([["units"], ["unit_value"], ["a"], ["b"]]))
        )
        .evidence,
        "computed on an accept the contract refuses (value 21): units is required; \
         unit_value is required; \"a\" is not a field of the requestedSchema (the contract \
         refuses keys it does not name); and 1 more failing path; expected status \
         \"invalid_content\""
    );
    // Content that is not an object, a path the contract never gives, no path.
    assert_eq!(
        computed_on(
            json!({"action": "accept", "content": [3, 7]}),
            refused(json!([[]]))
        )
        .evidence,
        "computed on an accept the contract refuses (value 21): content must be a JSON \
         object; expected status \"invalid_content\""
    );
    assert_eq!(
        computed_on(
            json!({"action": "accept", "content": {}}),
            refused(json!([["a", 0]]))
        )
        .evidence,
        "computed on an accept the contract refuses (value 21): content at [\"a\",0] breaks \
         the form rules; expected status \"invalid_content\""
    );
    assert_eq!(
        computed_on(
            json!({"action": "accept", "content": {}}),
            refused(json!([]))
        )
        .evidence,
        "computed on an accept the contract refuses (value 21): its content breaks the form \
         rules; expected status \"invalid_content\""
    );
}

#[test]
fn computing_on_an_accept_that_is_no_valid_answer_or_under_a_raw_policy_says_why() {
    let no_content = json!({"status": "invalid_response", "computed": false,
        "error": "accept response has no content"});
    assert_eq!(
        computed_on(json!({"action": "accept"}), no_content),
        Finding::new(
            Primary::ComputedOnInvalid,
            "computed on an accept the contract refuses (value 21): accept response has no \
             content; expected status \"invalid_response\""
        )
    );
    assert_eq!(
        computed_on(
            json!({"action": "accept", "_meta": 1}),
            json!({"status": "invalid_response", "computed": false})
        )
        .evidence,
        "computed on an accept the contract refuses (value 21): it is no valid elicitation \
         result; expected status \"invalid_response\""
    );
    let mut raw = clean(json!({"action": "accept", "content": {"units": 3}}));
    raw.input.policy = "raw".into();
    let echoed = json!({"status": "raw_response", "computed": false, "action": "accept"});
    assert_eq!(
        failing(&raw, echoed.clone()),
        Finding::new(
            Primary::ComputedOnInvalid,
            "computed on an accept under policy \"raw\", which never computes (value 21); \
             expected status \"raw_response\""
        )
    );
    assert_eq!(
        computed_on(json!({"action": "accept", "content": {"units": 3}}), echoed).evidence,
        "computed on an accept where the contract computes nothing (value 21); expected \
         status \"raw_response\""
    );
}

#[test]
fn computing_on_an_action_outside_the_spec_is_computed_without_an_accepted_answer() {
    let evidence = clean(json!({"action": "reject", "content": {"units": 3}}));
    let malformed = json!({"status": "invalid_response", "computed": false});
    assert_eq!(
        failing(&evidence, malformed),
        Finding::new(
            Primary::ComputedOnRefusal,
            "computed without an accepted answer (value 21); expected status \"invalid_response\""
        )
    );
}

#[test]
fn computing_on_an_error_reply_is_computed_on_refusal() {
    let mut evidence = clean(json!({}));
    evidence.input.answer = Some(Answer::Error(json!({"code": -1})));
    let declined = json!({"status": "protocol_error", "computed": false});
    assert_eq!(
        failing(&evidence, declined),
        Finding::new(
            Primary::ComputedOnRefusal,
            "computed without an accepted answer (value 21); expected status \"protocol_error\""
        )
    );
    evidence.input.answer = Some(Answer::Result(json!({"action": "cancel"})));
    let cancelled = json!({"computed": false});
    assert_eq!(
        failing(&evidence, cancelled).evidence,
        "computed on a cancel (value 21); expected no computation"
    );
}

#[test]
fn computed_true_where_true_is_expected_is_not_computed_on_anything() {
    let evidence = clean(json!({"action": "decline"}));
    assert_eq!(
        failing(&evidence, CALCULATED()).verdict,
        Primary::ContractFailure
    );
    let mut evidence = clean(json!({"action": "decline"}));
    evidence.outcome = Some(json!({"status": "declined", "computed": false}));
    assert_eq!(
        failing(&evidence, json!({"computed": false})).verdict,
        Primary::ContractFailure
    );
}

#[test]
fn a_float_or_string_for_an_integer_is_type_drift_and_another_number_is_not() {
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.outcome = Some(json!({"status": "calculated", "computed": true, "value": 21.0}));
    assert_eq!(
        failing(&evidence, CALCULATED()),
        Finding::new(
            Primary::TypeDrift,
            "$.value is 21.0 (a number with a fraction part), expected 21 (an integer)"
        )
    );
    evidence.outcome = Some(json!({"status": "calculated", "computed": true, "value": "21"}));
    assert_eq!(
        failing(&evidence, CALCULATED()).evidence,
        "$.value is \"21\" (a string), expected 21 (an integer)"
    );
    evidence.outcome = Some(json!({"status": "calculated", "computed": true, "value": 22}));
    let finding = classify(
        &evidence,
        &CALCULATED(),
        &[Failure::Outcome(OutcomeFailure::Mismatch(mismatch(
            "$.value", "22 != 21",
        )))],
    );
    assert_eq!(
        finding,
        Finding::new(Primary::WrongOutcome, "outcome $.value: 22 != 21")
    );
}

#[test]
fn a_boolean_for_the_integer_one_is_type_drift_and_for_another_integer_is_not() {
    // units 1 × unit_value 1 = 1: a server that returns `true` drifts bool/int.
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.outcome = Some(json!({"status": "calculated", "computed": true, "value": true}));
    let one = json!({"status": "calculated", "computed": true, "value": 1});
    assert_eq!(
        failing(&evidence, one),
        Finding::new(
            Primary::TypeDrift,
            "$.value is true (a boolean), expected 1 (an integer)"
        )
    );
    assert_eq!(
        failing(&evidence, CALCULATED()).verdict,
        Primary::ContractFailure
    );
}

#[test]
fn the_text_outcome_is_judged_when_there_is_no_structured_content() {
    let mut evidence = clean(json!({"action": "decline"}));
    evidence.outcome = None;
    evidence.text_outcome = Some(json!({"computed": true, "value": 21}));
    assert_eq!(
        failing(&evidence, json!({"status": "declined", "computed": false})).verdict,
        Primary::ComputedOnRefusal
    );
    evidence.text_outcome = Some(json!("not an object"));
    assert_eq!(
        failing(&evidence, json!({"computed": false})).verdict,
        Primary::ContractFailure
    );
}

#[test]
fn an_elicitation_in_a_mode_the_client_did_not_declare_is_named() {
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.input.capabilities = json!({});
    assert_eq!(
        failing(&evidence, CALCULATED()).evidence,
        "elicitation/create id 0 asks for mode \"form\", but the client declared no elicitation capability"
    );
    evidence.input.capabilities = json!({"elicitation": {}});
    assert_eq!(
        failing(&evidence, CALCULATED()).verdict,
        Primary::ContractFailure
    );
}

#[test]
fn declared_modes_follow_the_spec() {
    assert_eq!(declared_modes(&json!({"elicitation": {}})), ["form"]);
    assert_eq!(
        declared_modes(&json!({"elicitation": {"url": {}}})),
        ["url"]
    );
    assert_eq!(
        declared_modes(&json!({"elicitation": {"url": {}, "form": {}}})),
        ["form", "url"]
    );
    assert!(declared_modes(&json!({"elicitation": true})).is_empty());
    assert!(declared_modes(&json!({})).is_empty());
}

#[test]
fn a_reply_id_of_a_request_is_right_and_any_other_is_wrong() {
    let evidence = clean(json!({"action": "accept"}));
    assert_eq!(wrong_reply_id(&evidence.wire), None);
    let mut wire = evidence.wire.clone();
    wire[3].message["id"] = json!("0");
    assert_eq!(
        wrong_reply_id(&wire),
        Some(Finding::new(
            Primary::WrongReplyId,
            "a reply (#3) under id \"0\", which no request of the client carries (the pending request was tools/call id 0)"
        ))
    );
    wire[3].message["id"] = Value::Null;
    assert_eq!(
        wrong_reply_id(&wire),
        None,
        "id null is a parse-error reply"
    );
}

#[test]
fn oracle_disagreement_and_missing_outcome_have_their_own_names() {
    let evidence = clean(json!({"action": "accept"}));
    let disagree = vec![
        schema_failure(),
        Failure::Generated(GeneratedFailure::OraclesDisagree(mismatch("$.x", "1 != 2"))),
    ];
    assert_eq!(
        classify(&evidence, &CALCULATED(), &disagree),
        Finding::new(
            Primary::OraclesDisagree,
            "the oracles disagree (model vs reason): $.x: 1 != 2"
        )
    );
    // The reason under a failed generated case names no verdict.
    let reason = vec![Failure::Generated(GeneratedFailure::Reason("r".into()))];
    assert_eq!(
        classify(&evidence, &CALCULATED(), &reason),
        Finding::new(Primary::ContractFailure, "reason: r")
    );
    let missing = vec![
        schema_failure(),
        Failure::Outcome(OutcomeFailure::NoOutcome),
    ];
    assert_eq!(
        classify(&evidence, &CALCULATED(), &missing).verdict,
        Primary::WrongOutcome
    );
    // Judging by meaning: an expected errors location not named.
    let unnamed = vec![
        schema_failure(),
        Failure::Outcome(OutcomeFailure::Unnamed {
            location: json!(["units"]),
            reported: json!([]),
        }),
    ];
    assert_eq!(
        classify(&evidence, &CALCULATED(), &unnamed),
        Finding::new(
            Primary::WrongOutcome,
            "outcome $.errors: no location at or under [\"units\"] (reported [])"
        )
    );
    // Other outcome failures are the contract's, not a wrong outcome.
    for other in [
        OutcomeFailure::NoStructuredContent,
        OutcomeFailure::NotJsonText,
        OutcomeFailure::TextDisagrees(mismatch("$.value", "22 != 21")),
    ] {
        assert_eq!(
            classify(&evidence, &CALCULATED(), &[Failure::Outcome(other)]).verdict,
            Primary::ContractFailure
        );
    }
}

/// The checks name the first five stray lines and count the rest, kept or
/// only counted (oracle/contract.rs, both eras); no stray line, no failure.
#[test]
fn five_stray_lines_are_named_and_the_rest_counted() {
    let mut evidence = clean(json!({"action": "accept"}));
    let mut failures = Vec::new();
    crate::oracle::contract::stray_line_failures(&evidence, &mut failures);
    assert_eq!(failures, Vec::<Failure>::new());
    evidence.stray_stdout = (0..7)
        .map(|seq| StrayLine {
            seq,
            line: format!("line {seq}"),
            bytes: 6,
        })
        .collect();
    for (not_kept, last) in [
        (0, "and 2 more non-JSON-RPC lines on stdout"),
        (3, "and 5 more non-JSON-RPC lines on stdout"),
    ] {
        evidence.stray_stdout_not_kept = not_kept;
        let mut failures = Vec::new();
        crate::oracle::contract::stray_line_failures(&evidence, &mut failures);
        assert_eq!(failures.len(), 6);
        assert_eq!(failures[4], "non-JSON-RPC line on stdout (#4): \"line 4\"");
        assert_eq!(failures[5], last);
    }
    // Five kept and none counted: five named, no count line.
    evidence.stray_stdout.truncate(5);
    evidence.stray_stdout_not_kept = 0;
    let mut failures = Vec::new();
    crate::oracle::contract::stray_line_failures(&evidence, &mut failures);
    assert_eq!(failures.len(), 5);
    // One only counted: "1 more" (singular).
    evidence.stray_stdout_not_kept = 1;
    let mut failures = Vec::new();
    crate::oracle::contract::stray_line_failures(&evidence, &mut failures);
    assert_eq!(failures[5], "and 1 more non-JSON-RPC line on stdout");
}

#[test]
fn a_stray_line_names_its_line_before_and_after_the_start() {
    let mut evidence = clean(json!({"action": "accept"}));
    evidence.stray_stdout = vec![StrayLine {
        seq: 4,
        line: "hi".into(),
        bytes: 2,
    }];
    let expected = Finding::new(
        Primary::StdoutNotJsonRpc,
        "stdout line #4 is not a JSON-RPC message: \"hi\"",
    );
    assert_eq!(failing(&evidence, CALCULATED()), expected);
    evidence.started = false;
    assert_eq!(failing(&evidence, CALCULATED()), expected);
}

#[test]
fn names_are_stable_distinct_and_serialized_as_written() {
    let names: Vec<&str> = Primary::ALL.iter().map(|verdict| verdict.name()).collect();
    assert_eq!(
        names,
        [
            "passed",
            "did_not_start",
            "no_initialize_reply",
            "stdout_not_json_rpc",
            "wrong_reply_id",
            "http_error_status",
            "http_not_json",
            "stream_ended_without_result",
            "hung",
            "crashed",
            "re_asked",
            "undeclared_mode",
            "elicited_before_initialized",
            "no_error_reply",
            "computed_on_refusal",
            "computed_on_invalid",
            "type_drift",
            "elicited_on_foreign_stream",
            "ignored_stdin_close",
            "dropped_request",
            "wrong_outcome",
            "oracles_disagree",
            "contract_failure",
            "interrupted"
        ]
    );
    for verdict in Primary::ALL {
        assert_eq!(json!(verdict), json!(verdict.name()));
        assert_eq!(verdict.to_string(), verdict.name());
    }
}

#[test]
fn consequences_of_a_broken_session_are_left_out_and_news_is_kept() {
    let id = || json!(2);
    let failures: Vec<Failure> = vec![
        Failure::Harness(HarnessFailure::CallTimedOut {
            within: Duration::from_secs(1),
        }),
        Failure::Outcome(OutcomeFailure::NoOutcome),
        Failure::Process(ProcessFailure::Version {
            negotiated: None,
            expected: "2025-11-25",
        }),
        Failure::Wire(WireFailure::Calls(0)),
        Failure::Wire(WireFailure::CallReplies { id: id(), count: 0 }),
        Failure::Process(ProcessFailure::ExitCode(3)),
        Failure::Process(ProcessFailure::Signalled),
        Failure::Process(ProcessFailure::NotExited),
        Failure::Wire(WireFailure::Elicitations { count: 0, want: 1 }),
        hostile(
            Primary::Hung,
            "no reply: stdout closed before the awaited frame (after 1 frame)",
        ),
        hostile(
            Primary::Crashed,
            "killed by signal 9 (SIGKILL), expected exit code 0",
        ),
        hostile(
            Primary::IgnoredStdinClose,
            "no exit after stdin closed: killed after the shutdown grace",
        ),
        schema_failure(),
        // Another version than the era's is news: the server answered.
        Failure::Process(ProcessFailure::Version {
            negotiated: Some("2024-11-05".into()),
            expected: "2025-11-25",
        }),
        // Asking where the contract asks nothing is news.
        Failure::Wire(WireFailure::Elicitations { count: 1, want: 0 }),
        // Two replies to one call is news even when the session then hung.
        hostile(
            Primary::ContractFailure,
            "tools/call id 1: 2 replies, expected exactly 1",
        ),
    ];
    let news = [
        "requestedSchema $.x: unexpected key",
        "negotiated protocol version \"2024-11-05\", expected \"2025-11-25\"",
        "1 elicitation/create request, expected 0",
        "tools/call id 1: 2 replies, expected exactly 1",
    ];
    let evidence = clean(json!({"action": "accept"}));
    let hung = Finding::new(Primary::Hung, "no reply to tools/call within 1 s");
    assert_eq!(secondary(&hung, &evidence, &failures), news);
    let crashed = Finding::new(Primary::Crashed, "exit code 3 after the call");
    assert_eq!(secondary(&crashed, &evidence, &failures), news);
    // A finding that leaves the session whole keeps every failure but the one
    // it restates.
    let wrong = Finding::new(
        Primary::WrongOutcome,
        "no outcome: the calculate result has no structuredContent and no JSON object in content[0].text",
    );
    let kept = secondary(&wrong, &evidence, &failures);
    assert_eq!(kept.len(), failures.len() - 1);
    assert!(!kept.contains(&&failures[1]));
    let killed = Finding::new(Primary::IgnoredStdinClose, "x");
    let kept = secondary(&killed, &evidence, &failures);
    assert_eq!(kept.len(), failures.len() - 1);
    assert!(!kept.contains(&&Failure::Process(ProcessFailure::NotExited)));
    let asked = Finding::new(Primary::ReAsked, "x");
    let twice = vec![
        Failure::Wire(WireFailure::Elicitations { count: 2, want: 1 }),
        schema_failure(),
    ];
    assert_eq!(
        secondary(&asked, &evidence, &twice),
        ["requestedSchema $.x: unexpected key"]
    );
    let stray = Finding::new(
        Primary::StdoutNotJsonRpc,
        "stdout line #1 is not a JSON-RPC message: \"hello\"",
    );
    let mut noisy_evidence = evidence.clone();
    noisy_evidence.stray_stdout = vec![
        StrayLine {
            seq: 1,
            line: "hello".into(),
            bytes: 5,
        },
        StrayLine {
            seq: 5,
            line: "bye".into(),
            bytes: 3,
        },
    ];
    let lines: Vec<Failure> = noisy_evidence
        .stray_stdout
        .iter()
        .map(|stray| {
            Failure::Process(ProcessFailure::StrayLine {
                seq: stray.seq,
                line: stray.line.clone(),
            })
        })
        .collect();
    assert_eq!(
        secondary(&stray, &noisy_evidence, &lines),
        ["non-JSON-RPC line on stdout (#5): \"bye\""]
    );
    // Noise before `initialize` was answered: the session never started, so
    // the missing outcome and call counts are consequences; news stays.
    let mut noisy = lines.clone();
    noisy.extend(failures.iter().cloned());
    noisy_evidence.started = false;
    let mut expected = vec!["non-JSON-RPC line on stdout (#5): \"bye\""];
    expected.extend(news);
    assert_eq!(secondary(&stray, &noisy_evidence, &noisy), expected);
    noisy_evidence.started = true;
    assert_eq!(
        secondary(&stray, &noisy_evidence, &noisy).len(),
        noisy.len() - 1
    );
}

#[test]
fn exits_and_bounds_are_said_in_the_protocols_words() {
    let mut evidence = clean(json!({}));
    evidence.forced_kill = true;
    evidence.shutdown_grace_secs = 0.5;
    assert_eq!(describe_exit(&evidence), "no exit code: killed after 0.5 s");
    // The harness's own kill after the grace is said so, whatever the signal.
    evidence.exit_signal = Some(9);
    assert_eq!(describe_exit(&evidence), "no exit code: killed after 0.5 s");
    evidence.forced_kill = false;
    evidence.exit_code = None;
    assert_eq!(describe_exit(&evidence), "killed by signal 9 (SIGKILL)");
    assert_eq!(
        no_reply("tools/call", Duration::from_secs(2), ""),
        "no reply to tools/call within 2 s"
    );
    assert!(Primary::Hung.session_broke() && !Primary::TypeDrift.session_broke());
}

/// One evidence of the reword corpus: a clean session bent by `bend`, judged
/// by the contract's oracle (as `run` judges it), with `extra` failures added
/// (as a generated case or the hostile oracle adds them).
struct Bent {
    evidence: Evidence,
    failures: Vec<Failure>,
    verdict: Primary,
}

fn bent(bend: impl FnOnce(&mut Evidence), extra: Vec<Failure>, verdict: Primary) -> Bent {
    let mut evidence = clean(json!({"action": "accept", "content": {"units": 3, "unit_value": 7}}));
    bend(&mut evidence);
    let expected = CALCULATED();
    let case = evidence.input.clone();
    let mut failures = crate::oracle::contract::check(&case, &expected, &evidence);
    failures.extend(extra);
    Bent {
        evidence,
        failures,
        verdict,
    }
}

/// The faults of `tests/run/fault_verdicts.rs` and more, bent by hand: each
/// with the primary verdict its failures and evidence show.
fn reword_corpus() -> Vec<Bent> {
    let hung = |evidence: &mut Evidence| {
        evidence.wire.truncate(3);
        evidence.outcome = None;
        evidence.error = Some(HarnessFailure::CallTimedOut {
            within: Duration::from_secs(10),
        });
    };
    // A session whose handshake ended in `failure`: nothing after it.
    let unstarted = |evidence: &mut Evidence, failure: HarnessFailure| {
        evidence.wire.clear();
        evidence.outcome = None;
        evidence.started = false;
        evidence.protocol_version = None;
        evidence.error = Some(failure);
    };
    vec![
        bent(|_| {}, Vec::new(), Primary::ContractFailure),
        bent(
            |evidence| {
                evidence.outcome =
                    Some(json!({"status": "calculated", "computed": true, "value": 22}))
            },
            Vec::new(),
            Primary::WrongOutcome,
        ),
        bent(
            |evidence| evidence.outcome = None,
            Vec::new(),
            Primary::WrongOutcome,
        ),
        bent(hung, Vec::new(), Primary::Hung),
        bent(
            |evidence| {
                hung(evidence);
                evidence.error = Some(HarnessFailure::CallFailed {
                    error: "connection closed".into(),
                    http: String::new(),
                });
                evidence.exit_code = Some(3);
            },
            Vec::new(),
            Primary::Crashed,
        ),
        bent(
            |evidence| evidence.exit_code = Some(3),
            Vec::new(),
            Primary::Crashed,
        ),
        bent(
            |evidence| {
                unstarted(
                    evidence,
                    HarnessFailure::HandshakeFailed {
                        request: Handshake::Initialize,
                        error: "connection closed".into(),
                        http: String::new(),
                    },
                )
            },
            Vec::new(),
            Primary::DidNotStart,
        ),
        bent(
            |evidence| {
                unstarted(
                    evidence,
                    HarnessFailure::HandshakeTimedOut {
                        request: Handshake::Discover,
                        within: Duration::from_secs(10),
                        http: String::new(),
                    },
                )
            },
            Vec::new(),
            Primary::NoInitializeReply,
        ),
        bent(
            |evidence| {
                evidence.stray_stdout = (1..8)
                    .map(|seq| StrayLine {
                        seq,
                        line: format!("line {seq}"),
                        bytes: 6,
                    })
                    .collect();
            },
            Vec::new(),
            Primary::StdoutNotJsonRpc,
        ),
        bent(
            |evidence| {
                evidence.forced_kill = true;
                evidence.exit_code = None;
            },
            Vec::new(),
            Primary::IgnoredStdinClose,
        ),
        bent(
            |evidence| {
                let again = evidence.wire[1].clone();
                evidence.wire.insert(2, again);
            },
            Vec::new(),
            Primary::ReAsked,
        ),
        bent(
            |_| {},
            vec![
                Failure::Generated(GeneratedFailure::OraclesDisagree(mismatch(
                    "$.value", "1 != 2",
                ))),
                Failure::Generated(GeneratedFailure::Reason("a valid accept".into())),
            ],
            Primary::OraclesDisagree,
        ),
        bent(
            hung,
            vec![hostile(
                Primary::Hung,
                "no reply: waited 10 s for tools/call id 2",
            )],
            Primary::Hung,
        ),
    ]
}

/// No failure is classified by its wording: with every message written
/// backwards, each case of the corpus keeps its primary verdict and the same
/// failures under it.
#[test]
fn rewording_every_failure_changes_no_verdict() {
    use crate::oracle::failure::reword;
    let corpus = reword_corpus();
    let verdicts: Vec<Primary> = corpus.iter().map(|bent| bent.verdict).collect();
    assert!(verdicts.len() >= 12 && corpus.iter().all(|bent| !bent.failures.is_empty()));
    for bent in &corpus {
        let judge = || {
            let finding = classify(&bent.evidence, &CALCULATED(), &bent.failures);
            let kept = secondary(&finding, &bent.evidence, &bent.failures);
            (
                finding.verdict,
                kept.into_iter().cloned().collect::<Vec<Failure>>(),
            )
        };
        let (verdict, kept) = judge();
        assert_eq!(verdict, bent.verdict, "{:?}", bent.failures);
        let (reworded, kept_reworded) = reword::reworded(judge);
        assert_eq!(reworded, verdict, "reworded: {:?}", bent.failures);
        assert_eq!(kept_reworded, kept, "reworded: {:?}", bent.failures);
        // The rewording did change every message.
        let plain = bent.failures[0].to_string();
        assert_ne!(reword::reworded(|| bent.failures[0].to_string()), plain);
    }
}

/// The Streamable HTTP transport's faults (`crate::oracle::http`): one that
/// broke the call is its cause, named before `hung` and `crashed`, and the
/// session's consequences are not repeated under it; an elicitation on a
/// foreign stream, which breaks nothing, is named after a hung call and after
/// what the server did with the answer (computing on a decline), before a
/// plain contract failure.
#[test]
fn an_http_fault_is_named_by_what_it_broke() {
    use crate::oracle::http::HttpFailure;
    let status = Failure::Http(HttpFailure::ErrorStatus {
        exchange: 5,
        request: "POST /mcp (tools/call id 2, exchange 5)".into(),
        status: 500,
        body: String::new(),
    });
    let mut broken = clean(json!({"action": "accept"}));
    broken.wire.truncate(1);
    broken.outcome = None;
    broken.text_outcome = None;
    broken.error = Some(HarnessFailure::CallFailed {
        error: "Transport closed".into(),
        http: String::new(),
    });
    let failures = [
        Failure::Harness(HarnessFailure::CallFailed {
            error: "Transport closed".into(),
            http: String::new(),
        }),
        OutcomeFailure::NoOutcome.into(),
        status.clone(),
    ];
    let finding = classify(&broken, &CALCULATED(), &failures);
    assert_eq!(
        finding,
        Finding::new(
            Primary::HttpErrorStatus,
            "POST /mcp (tools/call id 2, exchange 5) got status 500"
        )
    );
    assert_eq!(
        secondary(&finding, &broken, &failures),
        Vec::<&Failure>::new()
    );
    for (failure, verdict) in [
        (
            HttpFailure::NotJson {
                exchange: 5,
                request: "r".into(),
                status: 200,
                content_type: "text/plain".into(),
                body: "{}".into(),
            },
            Primary::HttpNotJson,
        ),
        (
            HttpFailure::StreamEnded {
                exchange: 5,
                request: "r".into(),
                how: "end of stream".into(),
            },
            Primary::StreamEndedWithoutResult,
        ),
    ] {
        let failures = [Failure::Http(failure)];
        assert_eq!(classify(&broken, &CALCULATED(), &failures).verdict, verdict);
    }

    let foreign = Failure::Http(HttpFailure::ForeignStream {
        elicitation: "elicitation/create id 0".into(),
        exchange: 1,
        request: "POST /mcp (initialize id 0, exchange 1)".into(),
        call: None,
    });
    // A right outcome: the stream is the fault, with its evidence.
    let right = clean(json!({"action": "accept"}));
    let failures = [foreign.clone(), schema_failure()];
    let finding = classify(&right, &CALCULATED(), &failures);
    assert_eq!(finding.verdict, Primary::ElicitedOnForeignStream);
    assert_eq!(finding.evidence, foreign.to_string());
    // A decline the server computed on: that is named first.
    let mut computed = clean(json!({"action": "decline"}));
    computed.outcome = Some(CALCULATED());
    let declined = json!({"status": "declined", "computed": false});
    let finding = classify(&computed, &declined, &failures);
    assert_eq!(finding.verdict, Primary::ComputedOnRefusal);
    // A call that never finished is hung, whatever stream asked.
    let mut hung = clean(json!({"action": "accept"}));
    hung.outcome = None;
    hung.error = Some(HarnessFailure::CallTimedOut {
        within: Duration::from_secs(10),
    });
    let finding = classify(&hung, &CALCULATED(), &[foreign]);
    assert_eq!(finding.verdict, Primary::Hung);
}
