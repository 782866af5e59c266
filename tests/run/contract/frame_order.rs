//! Contract checks on the order of the frames on the wire (a completion, an
//! elicitation or a reply recorded out of its place) and on a result whose text
//! is not JSON: checks no other test exercises, each one the only test that
//! tells a mutant of them apart (docs/src/dev/mutation-testing.md). Each test takes the genuine
//! evidence of one contract case over stdio and breaks exactly one thing in it.

use elicit_check::case::Case;
use elicit_check::harness::Evidence;
use elicit_check::harness::proxy::Side;
use elicit_check::oracle::contract;
use serde_json::Value;

use crate::support;

/// The named contract case, its hand-written expected outcome, and the evidence
/// of one run of it against the reference server.
fn genuine(name: &str) -> (Case, Value, Evidence) {
    let (case, expected) = support::contract_case(name);
    let evidence = support::run_on_reference(&case);
    assert_eq!(
        contract::check(&case, &expected, &evidence),
        Vec::<String>::new(),
        "the genuine evidence of {name} passes"
    );
    (case, expected, evidence)
}

#[test]
fn a_result_whose_text_is_not_json_fails_the_contract_check() {
    let (case, expected, mut evidence) = genuine("accept_valid");
    evidence.text_outcome = None;
    assert_eq!(
        contract::check(&case, &expected, &evidence),
        vec!["content[0] is not JSON text".to_owned()]
    );
}

/// The index in `evidence.wire` of the first frame from `from` that matches `pick`.
fn frame_index(evidence: &Evidence, from: Side, pick: impl Fn(&Value) -> bool) -> usize {
    evidence
        .wire
        .iter()
        .position(|frame| frame.from == from && pick(&frame.message))
        .expect("the frame is on the wire")
}

fn is_method(message: &Value, method: &str) -> bool {
    message.get("method").and_then(Value::as_str) == Some(method)
}

/// The positions on the wire of one elicitation exchange: the call, the
/// `elicitation/create`, the client's reply to it and the call's completion.
struct Exchange {
    call: usize,
    elicitation: usize,
    reply: usize,
    completion: usize,
}

fn exchange(evidence: &Evidence) -> Exchange {
    let response_to = |id: Value| {
        move |message: &Value| message.get("method").is_none() && message.get("id") == Some(&id)
    };
    let call = frame_index(evidence, Side::Client, |m| is_method(m, "tools/call"));
    let elicitation = frame_index(evidence, Side::Server, |m| {
        is_method(m, "elicitation/create")
    });
    let elicitation_id = evidence.wire[elicitation].message["id"].clone();
    let id = evidence.wire[call].message["id"].clone();
    Exchange {
        reply: frame_index(evidence, Side::Client, response_to(elicitation_id)),
        completion: frame_index(evidence, Side::Server, response_to(id)),
        call,
        elicitation,
    }
}

/// `accept_valid` with its four exchange frames renumbered to `seqs`
/// (call, elicitation/create, reply, completion), and the JSON-RPC id of the
/// elicitation.
fn renumbered(seqs: [u64; 4]) -> (Case, Value, Evidence, Value) {
    let (case, expected, mut evidence) = genuine("accept_valid");
    let at = exchange(&evidence);
    for (index, seq) in [at.call, at.elicitation, at.reply, at.completion]
        .into_iter()
        .zip(seqs)
    {
        evidence.wire[index].seq = seq;
    }
    let elicitation_id = evidence.wire[at.elicitation].message["id"].clone();
    (case, expected, evidence, elicitation_id)
}

#[test]
fn a_completion_recorded_before_its_call_fails_the_contract_check() {
    let (case, expected, mut evidence) = genuine("unsupported_guarded");
    let call = frame_index(&evidence, Side::Client, |m| is_method(m, "tools/call"));
    let id = evidence.wire[call].message["id"].clone();
    let completion = frame_index(&evidence, Side::Server, |m| {
        m.get("method").is_none() && m.get("id") == Some(&id)
    });
    evidence.wire[call].seq = 100;
    evidence.wire[completion].seq = 99;
    assert_eq!(
        contract::check(&case, &expected, &evidence),
        vec![format!(
            "tools/call id {id} completed (#99) before it was sent (#100)"
        )]
    );
}

#[test]
fn an_elicitation_sent_before_the_call_fails_the_contract_check() {
    let (case, expected, evidence, id) = renumbered([100, 90, 105, 110]);
    assert_eq!(
        contract::check(&case, &expected, &evidence),
        vec![format!(
            "elicitation/create id {id} (#90) is not between tools/call (#100) and its completion (#110)"
        )]
    );
}

#[test]
fn an_elicitation_answered_after_the_completion_fails_the_contract_check() {
    let (case, expected, evidence, id) = renumbered([100, 120, 125, 110]);
    assert_eq!(
        contract::check(&case, &expected, &evidence),
        vec![
            format!(
                "elicitation/create id {id} (#120) is not between tools/call (#100) and its completion (#110)"
            ),
            format!("reply to elicitation/create id {id} (#125) is out of order"),
        ]
    );
}

#[test]
fn a_reply_recorded_before_its_elicitation_fails_the_contract_check() {
    let (case, expected, evidence, id) = renumbered([100, 104, 102, 110]);
    assert_eq!(
        contract::check(&case, &expected, &evidence),
        vec![format!(
            "reply to elicitation/create id {id} (#102) is out of order"
        )]
    );
}
