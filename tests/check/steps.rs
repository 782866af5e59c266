//! `check` on tools that ask more than once in one call (docs/src/check.md,
//! "URL steps" and "A form asked again"), on two TypeScript SDK v2 peers
//! (`@modelcontextprotocol/server` 2.4.0, each header lists its variants):
//!
//! - `fixtures/peers/typescript-v2/steps.mjs`, tool `deploy`: a URL-mode
//!   sign-in, then a form `{environment, confirm}`. `check` answers the URL
//!   request as completed and reaches the form, so the correct server passes
//!   with property 3 holding; `--variant ignores-decline` (reads the form's
//!   content whatever the action) fails property 1 and no other;
//!   `--variant deploys-unanswered` (a 2026-07-28 retry at the form's step
//!   with no answer under its key deploys) fails property 7: the retry forms
//!   of properties 7 and 8 answer the sign-in and fault the form's retry;
//! - `fixtures/peers/typescript-v2/reask.mjs`, tool `book_stay`: a form
//!   `{nights, confirm}` asked again (at most 3 asks) after an invalid or
//!   incomplete accept. Each call is judged on the last answer to the form,
//!   so the correct server passes; `--variant acts-on-invalid` (asks again
//!   only for a missing field, coerces the rest and acts) fails property 2
//!   and no other.
//!
//! Both peers speak both eras (2026-07-28 natively, 2025-11-25 through the
//! SDK's legacy shim), and every verdict is asserted in each.

use elicit_check::check::{PropertyVerdict, Target};
use elicit_check::harness::era::Protocol;
use elicit_check::report;

use super::gate::{environments, gate, passes_with_no_refusal_warning};

/// `node target/peers/node-v2/SCRIPT --variant VARIANT`.
fn peer(script: &str, variant: &str) -> Vec<String> {
    vec![
        "node".to_owned(),
        environments()
            .join("node-v2")
            .join(script)
            .display()
            .to_string(),
        "--variant".to_owned(),
        variant.to_owned(),
    ]
}

fn deploy(variant: &str, protocol: Protocol) -> Target {
    Target::stdio(peer("steps.mjs", variant))
        .tool("deploy")
        .acted_pointer("/deployed")
        .protocol(protocol)
        .cases(20)
}

fn book_stay(variant: &str, protocol: Protocol) -> Target {
    Target::stdio(peer("reask.mjs", variant))
        .tool("book_stay")
        .acted_pointer("/booked")
        .protocol(protocol)
        .cases(20)
}

#[test]
fn a_url_sign_in_before_the_form_is_completed_and_the_correct_tool_passes() {
    for protocol in Protocol::ALL {
        let report = gate(deploy("correct", protocol), 1);
        let what = format!("steps.mjs correct, {}", protocol.as_str());
        passes_with_no_refusal_warning(&report, &what);
        let table = report::check::table(&report);
        // The URL request is no step: the one form is.
        assert_eq!(report.requested_schemas.len(), 1, "{what}: {table}");
        assert_eq!(
            report.requested_schemas[0]["required"],
            serde_json::json!(["environment", "confirm"]),
            "{what}: {table}"
        );
        // Every planned case got past the sign-in to the form.
        assert_eq!(
            report.health.reached_form, report.health.planned,
            "{what}: {table}"
        );
        let acts = report.property(3).expect("property 3");
        assert_eq!(acts.verdict, PropertyVerdict::Holds, "{what}: {table}");
        assert!(acts.cases > 0, "{what}: {table}");
        assert!(
            report
                .consent_fields
                .iter()
                .any(|field| field.starts_with("/confirm is a consent field")),
            "{what}: {:?}\n{table}",
            report.consent_fields
        );
    }
}

#[test]
fn a_two_step_tool_that_reads_the_form_content_whatever_the_action_fails_property_1_only() {
    for protocol in Protocol::ALL {
        let report = gate(deploy("ignores-decline", protocol), 2);
        let table = report::check::table(&report);
        assert_eq!(
            crate::support::failing(&report),
            vec![1],
            "{}: {table}",
            protocol.as_str()
        );
        let failure = report
            .property(1)
            .and_then(|property| property.failure.as_ref())
            .expect("property 1's failure");
        // The minimal case completes the sign-in, then declines or cancels
        // the form with consenting content.
        assert_eq!(failure.answers.len(), 2, "{table}");
        assert_eq!(failure.answers[0], serde_json::json!({"action": "accept"}));
        assert_ne!(failure.answers[1]["action"], "accept", "{table}");
    }
}

/// Property 7's retry forms (no `inputResponses`, answers under keys never
/// asked) fault the retry that answers the form, not the sign-in before it:
/// a tool that deploys on a form retry without its answer fails property 7
/// with that reason, and nothing else.
#[test]
fn a_two_step_tool_that_deploys_on_a_form_retry_without_its_answer_fails_property_7() {
    let report = gate(deploy("deploys-unanswered", Protocol::V2026_07_28), 1);
    let table = report::check::table(&report);
    assert_eq!(crate::support::failing(&report), vec![7], "{table}");
    let failure = report
        .property(7)
        .and_then(|property| property.failure.as_ref())
        .expect("property 7's failure");
    assert!(
        failure.reason.contains("no inputResponses") || failure.reason.contains("never asked"),
        "{}\n{table}",
        failure.reason
    );
}

#[test]
fn a_form_asked_again_after_an_unusable_accept_is_judged_on_the_last_answer() {
    for protocol in Protocol::ALL {
        let report = gate(book_stay("correct", protocol), 3);
        let what = format!("reask.mjs correct, {}", protocol.as_str());
        passes_with_no_refusal_warning(&report, &what);
        let table = report::check::table(&report);
        assert_eq!(
            report.property(2).expect("property 2").verdict,
            PropertyVerdict::Holds,
            "{what}: {table}"
        );
        // The extra key it refused and asked again about is no P2 warning.
        let lenient = &report.property(2).expect("property 2").warnings;
        assert!(
            !lenient.iter().any(|warning| warning.contains("extra key")),
            "{what}: {lenient:?}"
        );
        assert!(
            report
                .health
                .notes
                .iter()
                .any(|note| note.starts_with("the tool asked a form again after an answer in ")),
            "{what}: {:?}\n{table}",
            report.health.notes
        );
    }
}

#[test]
fn a_tool_that_asks_again_only_for_a_missing_field_and_coerces_the_rest_fails_property_2() {
    for (index, protocol) in Protocol::ALL.into_iter().enumerate() {
        let report = gate(book_stay("acts-on-invalid", protocol), 1 + index as u64);
        assert_eq!(
            crate::support::failing(&report),
            vec![2],
            "{}: {}",
            protocol.as_str(),
            report::check::table(&report)
        );
    }
}
