//! The unit tests of `check::eras`: era choices, and the judging of each era's
//! result on hand-made results.

use super::*;

#[test]
fn protocol_names_parse_and_print_back() {
    for text in ["auto", "both", "2025-11-25", "2026-07-28"] {
        let eras: Eras = text.parse().expect("an era choice");
        assert_eq!(eras.to_string(), text);
    }
    assert_eq!(Eras::default(), Eras::Auto);
    assert_eq!(
        "2024-11-05".parse::<Eras>(),
        Err("protocol \"2024-11-05\": expected auto, both, 2025-11-25 or 2026-07-28".to_owned())
    );
    assert_eq!(
        Eras::Auto.protocols(),
        vec![Protocol::V2025_11_25, Protocol::V2026_07_28]
    );
    assert_eq!(Eras::Both.protocols(), Eras::Auto.protocols());
    assert_eq!(
        Eras::One(Protocol::V2026_07_28).protocols(),
        vec![Protocol::V2026_07_28]
    );
}

#[test]
fn only_a_server_that_does_not_speak_or_ask_in_an_era_is_skipped_by_auto() {
    let not_spoken = [
        CheckError::DidNotStart {
            url: None,
            error: "server/discover failed".into(),
            stray: String::new(),
            stderr: String::new(),
        },
        CheckError::ToolNotFound {
            tool: "t".into(),
            tools: vec![],
        },
        CheckError::NoElicitation {
            tool: "t".into(),
            asked: "sent no form elicitation/create",
            reply: "{}".into(),
            hint: String::new(),
        },
        CheckError::NoReply {
            tool: "t".into(),
            failure: "closed".into(),
            stderr: String::new(),
        },
    ];
    assert!(not_spoken.iter().all(era_not_spoken));
    let configuration = [
        CheckError::Usage("no tool".into()),
        CheckError::BadSchema("bad".into()),
    ];
    assert!(!configuration.iter().any(era_not_spoken));
    assert_eq!(not_spoken_why(&not_spoken[0]), "server/discover failed");
    assert_eq!(
        not_spoken_why(&not_spoken[1]),
        "the server offers no tool named \"t\"; it offers: no tools"
    );
}

fn no_form(reply: &str) -> CheckError {
    CheckError::NoElicitation {
        tool: "purge".into(),
        asked: "returned no InputRequiredResult asking for a form",
        reply: reply.into(),
        hint: String::new(),
    }
}

#[test]
fn a_reply_names_elicitation_by_its_word_an_input_request_or_the_missing_capability_code() {
    for reply in [
        r#"{"error":{"code":-32600,"message":"Cannot send 'elicitation/create'"}}"#,
        r#"{"result":{"content":[{"type":"text","text":"client cannot ELICIT"}]}}"#,
        r#"{"error":{"code":-32603,"message":"expected an input_required result"}}"#,
        r#"{"error":{"code":-32603,"message":"InputRequired is not supported"}}"#,
        r#"{"error":{"code":-32021,"message":"missing capability","data":{}}}"#,
    ] {
        assert!(names_elicitation(reply), "{reply}");
    }
    for reply in [
        r#"{"result":{"content":[{"type":"text","text":"done"}]}}"#,
        r#"{"error":{"code":-32602,"message":"invalid params"}}"#,
        r#"{"error":{"code":-320210,"message":"x"}}"#,
    ] {
        assert!(!names_elicitation(reply), "{reply}");
    }
}

#[test]
fn a_tool_that_asks_for_nothing_cannot_be_confirmed_when_its_reply_names_elicitation_or_another_era_asks()
 {
    let named = no_form(r#"{"error":{"code":-32600,"message":"no elicitation here"}}"#);
    assert_eq!(
        cannot_confirm(Protocol::V2026_07_28, &named, None).as_deref(),
        Some(
            "the tool cannot be confirmed in 2026-07-28: tools/call \"purge\" returned no InputRequiredResult asking for a form to a client declaring form elicitation, and acted on nothing (its reply names elicitation); its reply: {\"error\":{\"code\":-32600,\"message\":\"no elicitation here\"}}"
        )
    );
    let plain = no_form(r#"{"result":{"content":[]}}"#);
    assert_eq!(cannot_confirm(Protocol::V2026_07_28, &plain, None), None);
    assert_eq!(
        cannot_confirm(Protocol::V2026_07_28, &plain, Some("2025-11-25")).as_deref(),
        Some(
            "the tool cannot be confirmed in 2026-07-28: tools/call \"purge\" returned no InputRequiredResult asking for a form to a client declaring form elicitation, and acted on nothing (in 2025-11-25 it asks for a form); its reply: {\"result\":{\"content\":[]}}"
        )
    );
    // Any other error is not this finding.
    let other = CheckError::Usage("no tool".into());
    assert_eq!(
        cannot_confirm(Protocol::V2026_07_28, &other, Some("2025-11-25")),
        None
    );
}

fn era(status: EraStatus, fails: bool, report: Option<CheckReport>) -> EraCheck {
    EraCheck {
        protocol: "2025-11-25",
        checked: status == EraStatus::Checked,
        status,
        why: "why\nmore".into(),
        fails,
        report,
    }
}

/// An era's report: passed or not, inconclusive or not.
fn judged(passed: bool, inconclusive: bool) -> Option<CheckReport> {
    let mut report = crate::report::check::baseline::tests::report(&[(
        "2025-11-25",
        crate::report::check::baseline::tests::ALL_HOLD,
    )])
    .eras
    .remove(0)
    .report?;
    report.passed = passed;
    report.health.inconclusive = inconclusive.then(|| "0 of 3 planned cases".to_owned());
    Some(report)
}

#[test]
fn the_outcome_is_the_worst_era_incomplete_over_inconclusive_over_failed_over_passed() {
    use EraStatus::{CannotConfirm, Checked, Incomplete, NotChecked};
    let outcome = |eras: Vec<EraCheck>| ErasReport::outcome_of(&eras);
    assert_eq!(outcome(vec![]), Outcome::Passed);
    assert_eq!(
        outcome(vec![era(Checked, false, judged(true, false))]),
        Outcome::Passed
    );
    assert_eq!(
        outcome(vec![
            era(Checked, false, judged(true, false)),
            era(NotChecked, false, None)
        ]),
        Outcome::Passed
    );
    assert_eq!(
        outcome(vec![
            era(Checked, false, judged(true, false)),
            era(CannotConfirm, false, None)
        ]),
        Outcome::Passed
    );
    assert_eq!(
        outcome(vec![
            era(Checked, false, judged(true, false)),
            era(CannotConfirm, true, None)
        ]),
        Outcome::Failed
    );
    assert_eq!(
        outcome(vec![era(Checked, false, judged(false, false))]),
        Outcome::Failed
    );
    assert_eq!(
        outcome(vec![
            era(Checked, false, judged(false, false)),
            era(Checked, false, judged(false, true))
        ]),
        Outcome::Inconclusive
    );
    assert_eq!(
        outcome(vec![
            era(Checked, false, judged(false, true)),
            era(Incomplete, false, None)
        ]),
        Outcome::Incomplete
    );
}

#[test]
fn an_unfinished_check_says_the_incomplete_era_first_then_the_inconclusive_one() {
    let report = |eras: Vec<EraCheck>| ErasReport {
        elicit_check_version: "0",
        server_command: Vec::new(),
        url: None,
        tool: "t".into(),
        protocol: "auto".into(),
        passed: false,
        outcome: ErasReport::outcome_of(&eras),
        sdk: SdkGuess::unknown("a report made by hand"),
        eras,
    };
    let mut incomplete = era(EraStatus::Incomplete, false, None);
    incomplete.protocol = "2026-07-28";
    let both = report(vec![
        era(EraStatus::Checked, false, judged(false, true)),
        incomplete,
    ]);
    assert_eq!(
        both.unfinished().as_deref(),
        Some(
            "the check could not be completed in protocol 2026-07-28: why (the report keeps every verdict reached)"
        )
    );
    let inconclusive = report(vec![era(EraStatus::Checked, false, judged(false, true))]);
    assert_eq!(
        inconclusive.unfinished().as_deref(),
        Some("the check is inconclusive in protocol 2025-11-25: 0 of 3 planned cases")
    );
    let failed = report(vec![
        era(EraStatus::Checked, false, judged(false, false)),
        era(EraStatus::CannotConfirm, true, None),
    ]);
    assert_eq!(failed.unfinished(), None);
    assert!(failed.era_fails());
    let warned = report(vec![era(EraStatus::CannotConfirm, false, None)]);
    assert!(!warned.era_fails());
}

#[test]
fn apply_names_the_best_sdk_of_the_eras_and_fills_every_failure() {
    use crate::fix::flaw::Flaw;
    use crate::fix::sdk::Sdk;
    use crate::report::check::baseline::tests::{P2_FAILS, report};
    use crate::verdict::check::outcome::PropertyFailure;
    let mut eras = report(&[("2025-11-25", P2_FAILS), ("2026-07-28", P2_FAILS)]);
    let named = SdkGuess {
        sdk: Some(Sdk::TypescriptV2),
        version: None,
        told_by: "it answers server/discover".to_owned(),
    };
    eras.eras[1].report.as_mut().unwrap().sdk = named.clone();
    for era in eras.eras.iter_mut().filter_map(|era| era.report.as_mut()) {
        era.properties[1].failure = Some(PropertyFailure {
            reason: "acted on an accept whose content is invalid: accept has no content".to_owned(),
            flaw: Flaw::ContentlessAccept,
            fix: String::new(),
            fix_url: String::new(),
            case_index: None,
            answers: Vec::new(),
            built_as: Vec::new(),
            shrink_runs: 0,
            shrink_stopped_early: false,
            earlier_calls: 0,
            wire: Vec::new(),
            stray_stdout: Vec::new(),
            reproduce: String::new(),
            reproduce_seed: None,
            reply: serde_json::Value::Null,
            stderr: String::new(),
        });
    }
    let guess = apply_remedies(eras.eras.iter_mut().filter_map(|era| era.report.as_mut()));
    assert_eq!(guess, named);
    // Eras that tell nothing keep what the first saw.
    let mut unknown = report(&[("2025-11-25", P2_FAILS), ("2026-07-28", P2_FAILS)]);
    let seen = SdkGuess::unknown("no SDK's marks; serverInfo {\"name\":\"x\"}");
    unknown.eras[0].report.as_mut().unwrap().sdk = seen.clone();
    assert_eq!(
        apply_remedies(
            unknown
                .eras
                .iter_mut()
                .filter_map(|era| era.report.as_mut())
        ),
        seen
    );
    assert_eq!(
        apply_remedies(Vec::new()),
        SdkGuess::unknown("no era was checked")
    );
    for era in eras.eras.iter().filter_map(|era| era.report.as_ref()) {
        assert_eq!(era.sdk, named);
        let failure = era.properties[1].failure.as_ref().unwrap();
        assert_eq!(
            failure.fix,
            remedy::fix(Flaw::ContentlessAccept, Some(Sdk::TypescriptV2))
        );
        assert_eq!(failure.fix_url, remedy::url(Flaw::ContentlessAccept));
    }
}

/// A passing 2025-11-25 report ([`judged`]) whose probe got the forms `asked`.
fn era_report(asked: &[serde_json::Value]) -> CheckReport {
    let mut report = judged(true, false).expect("a report");
    report.requested_schemas = asked.to_vec();
    report
}

fn tool_not_found() -> CheckError {
    CheckError::ToolNotFound {
        tool: "purge".into(),
        tools: vec!["other".into()],
    }
}

/// (protocol, status, fails, why) of each era.
fn shown(eras: &[EraCheck]) -> Vec<(&'static str, EraStatus, bool, String)> {
    eras.iter()
        .map(|era| (era.protocol, era.status, era.fails, era.why.clone()))
        .collect()
}

#[test]
fn an_era_without_a_form_where_the_other_asks_cannot_be_confirmed_and_one_that_asks_for_nothing_is_not_checked()
 {
    let plain = r#"{"result":{"content":[{"type":"text","text":"queued"}]}}"#;
    let form = serde_json::json!({"type": "object", "properties": {}});
    let asked_in_2025 = judge_eras(
        Eras::Auto,
        false,
        vec![
            (Protocol::V2025_11_25, Ok(era_report(&[form]))),
            (Protocol::V2026_07_28, Err(no_form(plain))),
        ],
    )
    .unwrap();
    assert_eq!(
        shown(&asked_in_2025),
        vec![
            (
                "2025-11-25",
                EraStatus::Checked,
                false,
                "the server answers in this era".to_owned()
            ),
            (
                "2026-07-28",
                EraStatus::CannotConfirm,
                false,
                format!(
                    "the tool cannot be confirmed in 2026-07-28: tools/call \"purge\" returned no InputRequiredResult asking for a form to a client declaring form elicitation, and acted on nothing (in 2025-11-25 it asks for a form); its reply: {plain}"
                )
            ),
        ]
    );
    // An era judged without a form (it acted without asking) asked for
    // nothing: the era with no form is simply not checked.
    let acted_unasked = judge_eras(
        Eras::Auto,
        false,
        vec![
            (Protocol::V2025_11_25, Ok(era_report(&[]))),
            (Protocol::V2026_07_28, Err(no_form(plain))),
        ],
    )
    .unwrap();
    assert_eq!(acted_unasked[1].status, EraStatus::NotChecked);
    assert!(!acted_unasked[1].fails);
    // Asked for by name, or under --strict, the finding fails.
    for (eras, strict) in [(Eras::Both, false), (Eras::Auto, true)] {
        let failing = judge_eras(
            eras,
            strict,
            vec![
                (
                    Protocol::V2025_11_25,
                    Ok(era_report(&[serde_json::json!({})])),
                ),
                (Protocol::V2026_07_28, Err(no_form(plain))),
            ],
        )
        .unwrap();
        assert_eq!(
            (failing[1].status, failing[1].fails),
            (EraStatus::CannotConfirm, true),
            "{eras} strict {strict}"
        );
        assert_eq!(failing[1].why, asked_in_2025[1].why);
    }
}

#[test]
fn a_tool_confirmed_in_no_era_fails_where_it_cannot_be_even_under_auto() {
    let named = r#"{"error":{"code":-32021,"message":"missing capability"}}"#;
    let eras = judge_eras(
        Eras::Auto,
        false,
        vec![
            (Protocol::V2025_11_25, Err(no_form(named))),
            (Protocol::V2026_07_28, Err(tool_not_found())),
        ],
    )
    .unwrap();
    assert_eq!(
        shown(&eras)
            .into_iter()
            .map(|(protocol, status, fails, _)| (protocol, status, fails))
            .collect::<Vec<_>>(),
        vec![
            ("2025-11-25", EraStatus::CannotConfirm, true),
            ("2026-07-28", EraStatus::NotChecked, false),
        ]
    );
    assert_eq!(
        eras[1].why,
        "the server offers no tool named \"purge\"; it offers: other"
    );
    assert_eq!(ErasReport::outcome_of(&eras), Outcome::Failed);
}

#[test]
fn when_no_era_is_checked_or_a_finding_the_first_eras_error_is_the_answer_named_by_its_era_under_both()
 {
    let neither = || {
        vec![
            (Protocol::V2025_11_25, Err(tool_not_found())),
            (
                Protocol::V2026_07_28,
                Err(no_form(r#"{"result":{"content":[]}}"#)),
            ),
        ]
    };
    let Err(CheckError::Era { protocol, source }) = judge_eras(Eras::Both, false, neither()) else {
        panic!("under both, the error names its era");
    };
    assert_eq!(protocol, "2025-11-25");
    assert!(matches!(*source, CheckError::ToolNotFound { .. }));
    assert!(matches!(
        judge_eras(Eras::Auto, false, neither()),
        Err(CheckError::ToolNotFound { .. })
    ));
    let one = judge_eras(
        Eras::One(Protocol::V2026_07_28),
        false,
        vec![(Protocol::V2026_07_28, Err(tool_not_found()))],
    );
    assert!(matches!(one, Err(CheckError::ToolNotFound { .. })));
}
