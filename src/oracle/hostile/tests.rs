//! Unit tests of `oracle::hostile`.

use serde_json::json;

use super::*;
use std::time::Duration;

use crate::evidence::exit::Exit;
use crate::evidence::wire::{Recording, StrayLine};

use crate::evidence::wire::frame;

fn played(wire: Vec<Frame>) -> Played {
    Played {
        recording: Recording {
            wire,
            ..Recording::default()
        },
        exit: Exit {
            code: Some(0),
            forced_kill: false,
            stderr: String::new(),
            group_left_running: false,
        },
        signal: None,
        timeouts: Vec::new(),
        pid: None,
    }
}

fn result(id: u64, outcome: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"result":{"structuredContent":outcome}})
}

#[test]
fn an_elicitation_before_initialized_fails_and_one_after_it_passes() {
    let elicit = json!({"jsonrpc":"2.0","id":0,"method":"elicitation/create"});
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    let calculated = result(2, json!({"status":"calculated","computed":true,"value":21}));
    let initialize = json!({"jsonrpc":"2.0","id":0,"method":"initialize"});
    let early = played(vec![
        frame(0, Side::Client, initialize.clone()),
        frame(3, Side::Server, elicit.clone()),
        frame(4, Side::Client, initialized.clone()),
        frame(9, Side::Server, calculated.clone()),
    ]);
    let failures = judge(HostileCase::CallBeforeInitialized, &early, true);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].to_string().starts_with("elicitation/create (frame #3) sent before the client's notifications/initialized (frame #4)"));
    let refused = result(1, json!({"status":"unsupported","computed":false}));
    let mut late = played(vec![
        frame(0, Side::Client, initialize),
        frame(2, Side::Server, refused),
        frame(4, Side::Client, initialized),
        frame(5, Side::Server, elicit),
        frame(9, Side::Server, calculated),
    ]);
    assert_eq!(
        judge(HostileCase::CallBeforeInitialized, &late, true),
        Vec::<String>::new()
    );
    late.recording.wire[1] = frame(
        2,
        Side::Server,
        result(1, json!({"status":"calculated","computed":true,"value":21})),
    );
    assert_eq!(
        judge(HostileCase::CallBeforeInitialized, &late, true),
        vec![
            r#"tools/call id 1 (sent before notifications/initialized) computed: {"status":"calculated","computed":true,"value":21}"#
        ]
    );
}

#[test]
fn computing_from_a_mistyped_reply_fails_with_the_outcome() {
    let computed = played(vec![frame(
        8,
        Side::Server,
        result(1, json!({"status":"calculated","computed":true,"value":21})),
    )]);
    assert_eq!(
        judge(HostileCase::ReplyIdMistyped, &computed, true),
        vec![
            r#"tools/call id 1 after an accept under the request's id in another JSON type ("0" for 0): outcome {"status":"calculated","computed":true,"value":21}, expected status "declined", computed false"#
        ]
    );
    let declined = played(vec![frame(
        8,
        Side::Server,
        result(1, json!({"status":"declined","computed":false})),
    )]);
    assert!(judge(HostileCase::ReplyIdUnknown, &declined, true).is_empty());
}

/// JSON-RPC 2.0: one Response per Request. Answered twice under its own id
/// (decline, then accept), a request is answered by the first reply: the
/// call declines, and gets one result.
#[test]
fn an_elicitation_answered_twice_counts_the_first_answer_and_one_result() {
    let declined = frame(
        8,
        Side::Server,
        result(1, json!({"status":"declined","computed":false})),
    );
    let ping = frame(
        10,
        Side::Server,
        json!({"jsonrpc":"2.0","id":42,"result":{}}),
    );
    let good = played(vec![declined.clone(), ping.clone()]);
    assert!(judge(HostileCase::ReplyTwice, &good, true).is_empty());
    let second_taken = played(vec![
        frame(8, Side::Server, calculated(1, 21)),
        ping.clone(),
    ]);
    assert_eq!(
        findings(HostileCase::ReplyTwice, &second_taken, false),
        [Finding::new(
            Primary::ComputedOnRefusal,
            r#"tools/call id 1 after a decline, then an accept under the same id: outcome {"status":"calculated","computed":true,"value":21}, expected status "declined", computed false"#
        )]
    );
    let answered_twice = played(vec![
        declined,
        frame(9, Side::Server, calculated(1, 21)),
        ping,
    ]);
    assert_eq!(
        findings(HostileCase::ReplyTwice, &answered_twice, false),
        [Finding::new(
            Primary::ContractFailure,
            "tools/call id 1: 2 replies, expected exactly 1"
        )]
    );
    // No reply at all is the missing reply, said once.
    assert_eq!(
        verdicts(HostileCase::ReplyTwice, &played(Vec::new()), false),
        [Primary::Hung]
    );
}

#[test]
fn a_parse_error_must_carry_id_null_and_code_minus_32700() {
    let calculated = frame(
        9,
        Side::Server,
        result(1, json!({"status":"calculated","computed":true,"value":21})),
    );
    let no_method = frame(
        6,
        Side::Server,
        json!({"jsonrpc":"2.0","id":41,"error":{"code":-32600}}),
    );
    let good = played(vec![
        frame(
            5,
            Side::Server,
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700}}),
        ),
        no_method.clone(),
        calculated.clone(),
    ]);
    assert!(judge(HostileCase::NotJsonAndNoMethod, &good, true).is_empty());
    let wrong_code = played(vec![
        frame(
            5,
            Side::Server,
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32600}}),
        ),
        frame(
            6,
            Side::Server,
            json!({"jsonrpc":"2.0","error":{"code":-32600}}),
        ),
        calculated,
    ]);
    assert_eq!(
        judge(HostileCase::NotJsonAndNoMethod, &wrong_code, true),
        vec![
            "no JSON-RPC error -32700 with id null in reply to the line that is not JSON",
            "no JSON-RPC error -32600 with id 41 in reply to the request object with id 41 and no method",
        ]
    );
}

#[test]
fn a_misspelt_action_must_give_invalid_response_with_the_contract_message() {
    let lenient = played(vec![frame(
        8,
        Side::Server,
        result(1, json!({"status":"calculated","computed":true,"value":21})),
    )]);
    assert_eq!(
        judge(HostileCase::ActionUpperCase, &lenient, false),
        vec![
            r#"tools/call id 1 after an answer with action "ACCEPT", which is no spec action: outcome {"status":"calculated","computed":true,"value":21}, expected status "invalid_response", computed false"#
        ]
    );
    let other_words = played(vec![frame(
        8,
        Side::Server,
        result(
            1,
            json!({"status":"invalid_response","computed":false,"error":"bad"}),
        ),
    )]);
    assert!(judge(HostileCase::ActionEmpty, &other_words, false).is_empty());
    assert_eq!(
        judge(HostileCase::ActionEmpty, &other_words, true),
        vec![r#"tools/call id 1: error "bad", expected "malformed elicitation result""#]
    );
}

#[test]
fn a_timed_out_call_needs_its_cancel_one_reply_and_a_working_next_call() {
    let elicit = frame(
        3,
        Side::Server,
        json!({"jsonrpc":"2.0","id":0,"method":"elicitation/create"}),
    );
    let cancel = frame(
        4,
        Side::Server,
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}),
    );
    let timed_out = frame(
        5,
        Side::Server,
        result(1, json!({"status":"timed_out","computed":false})),
    );
    let next = frame(
        9,
        Side::Server,
        result(2, json!({"status":"calculated","computed":true,"value":21})),
    );
    let good = played(vec![
        elicit.clone(),
        cancel.clone(),
        timed_out.clone(),
        next.clone(),
    ]);
    assert!(judge(HostileCase::LateAnswerAfterTimeout, &good, true).is_empty());
    // The cancelled request is the elicitation/create, not the first server
    // frame: a reply under id 7 before it changes nothing.
    let earlier_reply = frame(2, Side::Server, json!({"jsonrpc":"2.0","id":7,"result":{}}));
    let after_a_reply = played(vec![
        earlier_reply,
        elicit.clone(),
        cancel.clone(),
        timed_out.clone(),
        next.clone(),
    ]);
    assert!(judge(HostileCase::LateAnswerAfterTimeout, &after_a_reply, true).is_empty());
    let mut other_cancel = cancel.clone();
    other_cancel.message["params"]["requestId"] = json!("0");
    let second_reply = frame(
        7,
        Side::Server,
        result(1, json!({"status":"calculated","computed":true,"value":21})),
    );
    // A notification that is no cancel but names the request is not its cancel.
    let progress = frame(
        6,
        Side::Server,
        json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":0}}),
    );
    let bad = played(vec![
        elicit,
        other_cancel,
        timed_out,
        progress,
        second_reply,
        next,
    ]);
    assert_eq!(
        judge(HostileCase::LateAnswerAfterTimeout, &bad, true),
        vec![
            "no notifications/cancelled with requestId 0 for the elicitation/create that timed out",
            "tools/call id 1: 2 replies, expected exactly 1",
        ]
    );
    // With nothing asked, a frame without a requestId is no cancel either.
    let log = frame(
        2,
        Side::Server,
        json!({"jsonrpc":"2.0","method":"notifications/message"}),
    );
    let never_asked = played(vec![log, cancel]);
    assert_eq!(
        judge(HostileCase::LateAnswerAfterTimeout, &never_asked, true)[1],
        "no notifications/cancelled with requestId (none asked) for the elicitation/create that timed out"
    );
}

#[test]
fn a_bad_answer_must_compute_nothing_and_leave_the_next_call_working() {
    let next = frame(
        9,
        Side::Server,
        result(2, json!({"status":"calculated","computed":true,"value":21})),
    );
    let computed = frame(
        5,
        Side::Server,
        result(1, json!({"status":"calculated","computed":true,"value":21})),
    );
    let bad = played(vec![computed, next.clone()]);
    assert_eq!(
        judge(HostileCase::DuplicateKeys, &bad, true),
        vec![
            r#"tools/call id 1 after an accept naming units twice: outcome {"status":"calculated","computed":true,"value":21}, expected status "invalid_response", computed false"#
        ]
    );
    assert_eq!(
        judge(HostileCase::HugeExponent, &bad, true),
        vec![
            r#"tools/call id 1 after an accept with units 1e400: outcome {"status":"calculated","computed":true,"value":21}, expected status "invalid_response", computed false"#
        ]
    );
    let invalid = frame(
        5,
        Side::Server,
        result(
            1,
            json!({"status":"invalid_content","computed":false,"errors":[["units"]]}),
        ),
    );
    assert!(
        judge(
            HostileCase::OversizedAnswer,
            &played(vec![invalid.clone(), next]),
            true
        )
        .is_empty()
    );
    assert_eq!(
        judge(HostileCase::DeepAnswer, &played(vec![invalid]), true),
        vec![
            r#"tools/call id 1 after an accept nested 10,000 levels deep: outcome {"status":"invalid_content","computed":false,"errors":[["units"]]}, expected status "invalid_response", computed false"#,
            "tools/call id 2 after the next call: no reply, expected status \"calculated\"",
        ]
    );
}

#[test]
fn by_meaning_an_unreadable_number_or_depth_may_also_be_invalid_content() {
    let invalid = frame(
        5,
        Side::Server,
        result(
            1,
            json!({"status":"invalid_content","computed":false,"errors":[["units"]]}),
        ),
    );
    let next = frame(9, Side::Server, calculated(2, 21));
    let answered = played(vec![invalid, next]);
    for case in [HostileCase::HugeExponent, HostileCase::DeepAnswer] {
        assert!(judge(case, &answered, false).is_empty(), "{case:?}");
        assert_eq!(judge(case, &answered, true).len(), 1, "{case:?}");
    }
    // Not for duplicate keys, whose content is readable; nor for a wrong status.
    assert_eq!(
        verdicts(HostileCase::DuplicateKeys, &answered, false),
        [Primary::WrongOutcome]
    );
    let mut declined = answered.clone();
    declined.recording.wire[0].message = result(1, json!({"status":"declined","computed":false}));
    assert_eq!(
        verdicts(HostileCase::HugeExponent, &declined, false),
        [Primary::WrongOutcome]
    );
}

#[test]
fn stdin_close_cases_judge_the_reply_and_the_exit() {
    let mut computed = played(vec![frame(
        8,
        Side::Server,
        result(1, json!({"status":"calculated","computed":true,"value":21})),
    )]);
    assert_eq!(
        judge(HostileCase::EofWhileElicitationPending, &computed, true).len(),
        1
    );
    computed.recording.wire.clear();
    assert!(judge(HostileCase::EofWhileElicitationPending, &computed, true).is_empty());
    assert_eq!(
        judge(HostileCase::EofRightAfterRequest, &computed, true),
        vec![
            "tools/list id 1: no result before exit; a request read before stdin closed must be answered"
        ]
    );
    let mut killed = played(vec![frame(
        3,
        Side::Server,
        json!({"jsonrpc":"2.0","id":1,"result":{"tools":[]}}),
    )]);
    assert!(judge(HostileCase::EofRightAfterRequest, &killed, true).is_empty());
    killed.exit.forced_kill = true;
    assert_eq!(
        judge(HostileCase::EofRightAfterRequest, &killed, true),
        vec!["no exit after stdin closed: killed after the shutdown grace"]
    );
    killed.exit.forced_kill = false;
    killed
        .recording
        .stray_stdout
        .push(crate::harness::proxy::StrayLine {
            seq: 4,
            line: "hello".into(),
            bytes: 5,
        });
    assert_eq!(
        judge(HostileCase::EofRightAfterRequest, &killed, true),
        vec![r#"stdout line #4 is not JSON-RPC: "hello""#]
    );
    killed.recording.stray_stdout.clear();
    killed.exit.code = Some(1);
    killed.timeouts.push(Wait::Elapsed {
        within: Duration::from_secs(10),
        frames: 2,
    });
    assert_eq!(
        judge(HostileCase::EofRightAfterRequest, &killed, true),
        vec![
            "no reply: no awaited frame within 10s (after 2 frames)",
            "exit code 1, expected 0"
        ]
    );
}

/// The verdict of each finding of `case` on `played`, in order.
fn verdicts(case: HostileCase, played: &Played, exact: bool) -> Vec<Primary> {
    findings(case, played, exact)
        .into_iter()
        .map(|found| found.verdict)
        .collect()
}

fn calculated(id: u64, value: i64) -> Value {
    result(
        id,
        json!({"status":"calculated","computed":true,"value":value}),
    )
}

#[test]
fn each_failed_check_carries_the_verdict_it_shows() {
    use Primary::*;
    let elicit = json!({"jsonrpc":"2.0","id":0,"method":"elicitation/create"});
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    // Before initialized: the early elicitation, call 1 computed, no call 2.
    let early = played(vec![
        frame(3, Side::Server, elicit),
        frame(4, Side::Client, initialized),
        frame(5, Side::Server, calculated(1, 21)),
    ]);
    assert_eq!(
        verdicts(HostileCase::CallBeforeInitialized, &early, false),
        [ElicitedBeforeInitialized, ComputedOnRefusal, Hung]
    );
    // Call 2 refused with a JSON-RPC error: a wrong outcome, not a hang.
    let refused = played(vec![frame(
        5,
        Side::Server,
        json!({"jsonrpc":"2.0","id":2,"error":{"code":-32600}}),
    )]);
    assert_eq!(
        findings(HostileCase::CallBeforeInitialized, &refused, false),
        [Finding::new(
            WrongOutcome,
            r#"tools/call id 2 after the call after notifications/initialized: reply {"jsonrpc":"2.0","id":2,"error":{"code":-32600}}, expected status "calculated""#
        )]
    );
    let computed = played(vec![frame(5, Side::Server, calculated(1, 21))]);
    assert_eq!(
        verdicts(HostileCase::ReplyIdMistyped, &computed, false),
        [ComputedOnRefusal]
    );
    assert_eq!(
        verdicts(HostileCase::ActionReject, &computed, false),
        [ComputedOnInvalid]
    );
    assert_eq!(
        verdicts(HostileCase::HugeExponent, &computed, false),
        [ComputedOnInvalid, Hung]
    );
    assert_eq!(
        verdicts(HostileCase::EofWhileElicitationPending, &computed, false),
        [ComputedOnRefusal]
    );
    assert_eq!(
        verdicts(HostileCase::LateAnswerAfterTimeout, &computed, false),
        [ComputedOnRefusal, ContractFailure, Hung]
    );
    // A wrong status without computing, and a next call with another value,
    // are wrong outcomes.
    let wrong = played(vec![
        frame(
            5,
            Side::Server,
            result(1, json!({"status":"cancelled","computed":false})),
        ),
        frame(9, Side::Server, calculated(2, 20)),
    ]);
    assert_eq!(
        verdicts(HostileCase::ReplyIdUnknown, &wrong, false),
        [WrongOutcome]
    );
    assert_eq!(
        verdicts(HostileCase::DuplicateKeys, &wrong, false),
        [WrongOutcome, WrongOutcome]
    );
    let mut nothing = played(Vec::new());
    assert_eq!(
        verdicts(HostileCase::NotJsonAndNoMethod, &nothing, false),
        [NoErrorReply, NoErrorReply, Hung]
    );
    assert_eq!(
        verdicts(HostileCase::InvalidUtf8, &nothing, false),
        [NoErrorReply, Hung]
    );
    assert_eq!(
        findings(HostileCase::EofRightAfterRequest, &nothing, false),
        [Finding::new(
            DroppedRequest,
            "tools/list id 1: no result before exit; a request read before stdin closed must be answered"
        )]
    );
    nothing.timeouts.push(Wait::Elapsed {
        within: Duration::from_secs(1),
        frames: 1,
    });
    nothing.exit.forced_kill = true;
    nothing.recording.stray_stdout.push(StrayLine {
        seq: 2,
        line: "hi".into(),
        bytes: 2,
    });
    assert_eq!(
        verdicts(HostileCase::EofWhileElicitationPending, &nothing, false),
        [Hung, IgnoredStdinClose, StdoutNotJsonRpc]
    );
    nothing.exit.forced_kill = false;
    nothing.exit.code = None;
    assert_eq!(
        findings(HostileCase::EofWhileElicitationPending, &nothing, false)[1],
        Finding::new(Crashed, "ended by a signal, expected exit code 0")
    );
    nothing.signal = Some(9);
    assert_eq!(
        findings(HostileCase::EofWhileElicitationPending, &nothing, false)[1],
        Finding::new(
            Crashed,
            "killed by signal 9 (SIGKILL), expected exit code 0"
        )
    );
}

/// `played` with a result to `initialize` first: the session started.
fn started_with(mut wire: Vec<Frame>) -> Played {
    wire.insert(
        0,
        frame(1, Side::Server, json!({"jsonrpc":"2.0","id":0,"result":{}})),
    );
    played(wire)
}

#[test]
fn the_primary_verdict_is_the_start_then_stray_stdout_then_the_cases_own_check() {
    let none = played(Vec::new());
    assert_eq!(
        primary(&none, &[]),
        Finding::new(Primary::Passed, "every check held")
    );
    let hung = Finding::new(Primary::Hung, "no reply: x");
    let own = Finding::new(Primary::NoErrorReply, "no -32700");
    let stray = Finding::new(Primary::StdoutNotJsonRpc, "stray");
    let killed = Finding::new(Primary::IgnoredStdinClose, "killed");
    let crashed = Finding::new(Primary::Crashed, "exit code 1, expected 0");
    // Not started: an initialize error reply is no result either.
    let mut refused = played(vec![frame(
        1,
        Side::Server,
        json!({"jsonrpc":"2.0","id":0,"error":{"code":-1}}),
    )]);
    assert!(!started(&refused));
    assert_eq!(
        primary(&refused, std::slice::from_ref(&own)),
        Finding::new(
            Primary::NoInitializeReply,
            "no reply to initialize within the startup bound"
        )
    );
    assert_eq!(primary(&refused, &[own.clone(), stray.clone()]), stray);
    refused.timeouts.push(Wait::StdoutClosed { frames: 1 });
    refused.exit.code = Some(3);
    assert_eq!(
        primary(&refused, std::slice::from_ref(&own)),
        Finding::new(
            Primary::DidNotStart,
            "stdout closed before a reply to initialize (exit code 3)"
        )
    );
    let mut up = started_with(Vec::new());
    assert!(started(&up));
    assert_eq!(
        primary(&up, &[hung.clone(), own.clone(), stray.clone()]),
        stray
    );
    assert_eq!(
        primary(
            &up,
            &[hung.clone(), killed.clone(), crashed.clone(), own.clone()]
        ),
        own
    );
    assert_eq!(primary(&up, &[killed.clone(), hung.clone()]), hung);
    assert_eq!(primary(&up, &[killed.clone(), crashed.clone()]), killed);
    assert_eq!(primary(&up, std::slice::from_ref(&crashed)), crashed);
    // A missing reply after stdout closed on its own is a crash.
    up.timeouts.push(Wait::StdoutClosed { frames: 1 });
    up.exit.code = Some(1);
    assert_eq!(
        primary(&up, &[hung.clone(), crashed.clone()]),
        Finding::new(
            Primary::Crashed,
            "exit code 1 before its last reply (no reply: x)"
        )
    );
    up.exit.code = None;
    assert_eq!(
        primary(&up, std::slice::from_ref(&hung)).evidence,
        "no exit code: ended by a signal before its last reply (no reply: x)"
    );
    up.exit.forced_kill = true;
    assert_eq!(primary(&up, &[hung.clone(), killed.clone()]), hung);
    up.timeouts = vec![Wait::Elapsed {
        within: Duration::from_secs(1),
        frames: 1,
    }];
    up.exit.forced_kill = false;
    assert_eq!(primary(&up, std::slice::from_ref(&hung)), hung);
}

#[test]
fn exits_are_said_in_the_protocols_words() {
    let mut ended = played(Vec::new());
    assert_eq!(describe_exit(&ended), "exit code 0");
    ended.exit.code = None;
    assert_eq!(describe_exit(&ended), "no exit code: ended by a signal");
    ended.signal = Some(6);
    assert_eq!(describe_exit(&ended), "killed by signal 6 (SIGABRT)");
    ended.exit.forced_kill = true;
    assert_eq!(
        describe_exit(&ended),
        "no exit code: killed after the shutdown grace"
    );
}

#[test]
fn every_case_says_what_it_expects() {
    assert_eq!(
        expected(HostileCase::ActionEmpty),
        "invalid_response, nothing computed"
    );
    assert_eq!(
        expected(HostileCase::OversizedAnswer),
        "invalid_content, nothing computed; the next call calculated 21"
    );
    let texts: std::collections::BTreeSet<&str> = HostileCase::ALL
        .iter()
        .map(|case| expected(*case))
        .collect();
    assert_eq!(texts.len(), 10, "{texts:?}");
    assert!(expected(HostileCase::LateAnswerAfterTimeout).starts_with("timed_out"));
}
