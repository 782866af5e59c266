//! Answers go on the wire as generated: `-0`, `3e0` and an
//! integer beyond 64 bits reach the server byte for byte, and the wire log shows
//! them so.

use elicit_check::case::Case;
use elicit_check::harness::{self, Evidence, Limits};
use elicit_check::oracle::contract;
use elicit_check::strategy::{
    Content, Field, Form, FormCaps, GeneratedCase, Mistyped, Policy, Reason, Reply,
};
use elicit_check::transcript;
use serde_json::json;

use crate::support::{calculator, reference_server, runtime};

/// A generated validated accept of a form with these two fields, form declared.
fn generated(units: Field, unit_value: Field) -> GeneratedCase {
    GeneratedCase::from_reason(Reason::Declared {
        capabilities: FormCaps::Form,
        policy: Policy::Validated,
        reply: Reply::Accept(Content::Form(Form {
            units,
            unit_value,
            extras: Vec::new(),
            extras_first: false,
        })),
    })
}

fn run(server: &[String], case: &Case) -> Evidence {
    runtime()
        .block_on(harness::run_case(server, case, Limits::default(), None))
        .expect("the server starts")
}

/// The Python peer logging every elicitation reply it reads (`answer: LINE`).
fn logging_peer() -> Vec<String> {
    let mut command = calculator(None);
    command.push("--log-answers".to_owned());
    command
}

/// Asserts that `generated`'s result text is `result`, that the server read
/// exactly that text in its reply line, that the wire log (recorded frame and
/// transcript) shows it, and that the case passes on both servers.
fn assert_sent_as_written(generated: &GeneratedCase, result: &str) {
    let wire = generated.case.wire_answer().expect("an answer");
    assert_eq!(wire.text.get(), result);
    let line = format!("answer: {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{result}}}\n");
    let evidence = run(&logging_peer(), &generated.case);
    assert!(
        evidence.stderr.contains(&line),
        "the server did not read {line:?}: {:?}",
        evidence.stderr
    );
    for evidence in [evidence, run(&reference_server(), &generated.case)] {
        let failures = contract::check(&generated.case, &generated.expected, &evidence);
        assert!(failures.is_empty(), "{failures:#?}");
        let log = transcript::render(&evidence.wire);
        let reply = format!("client → server id 0 result (elicitation/create) {result}\n");
        assert!(log.contains(&reply), "{log}");
    }
}

#[test]
fn answers_reach_the_server_exactly_as_generated() {
    let generated = generated(
        Field::Mistyped(Mistyped::NegativeZero),
        Field::Mistyped(Mistyped::Exponent(3)),
    );
    assert_eq!(
        generated.expected,
        json!({"status": "invalid_content", "computed": false,
               "errors": [["units"], ["unit_value"]]})
    );
    assert_sent_as_written(
        &generated,
        r#"{"action":"accept","content":{"units":-0,"unit_value":3e0}}"#,
    );
}

#[test]
fn a_twenty_digit_integer_reaches_the_server_as_written() {
    let generated = generated(
        Field::Mistyped(Mistyped::BeyondU64("18446744073709551616".to_owned())),
        Field::Valid(7),
    );
    assert_eq!(
        generated.expected,
        json!({"status": "invalid_content", "computed": false, "errors": [["units"]]})
    );
    assert_sent_as_written(
        &generated,
        r#"{"action":"accept","content":{"units":18446744073709551616,"unit_value":7}}"#,
    );
}
