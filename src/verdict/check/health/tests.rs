//! The unit tests of the era's health (`super`).

use serde_json::json;

use super::*;

fn seen(label: &str, planned: bool, reached_form: bool, acted: bool, reply: &str) -> Seen {
    Seen {
        label: label.to_owned(),
        planned,
        base: false,
        reached_form,
        read: true,
        acted,
        reply: reply.to_owned(),
    }
}

/// The health of `seen` with `planned` cases planned, `--setup` given
/// or not, nothing else to say.
fn assess(seen: &[Seen], planned: usize, setup: bool) -> Health {
    Health::assess(Observed {
        seen,
        planned,
        never_reached_tool: Vec::new(),
        acted_before_call: Vec::new(),
        endings: (Endings::default(), Vec::new()),
        setup,
    })
}

/// The health of no call, with these endings and notes.
fn endings_only(endings: (Endings, Vec<String>)) -> Health {
    Health::assess(Observed {
        seen: &[],
        planned: 0,
        never_reached_tool: Vec::new(),
        acted_before_call: Vec::new(),
        endings,
        setup: false,
    })
}

/// A run that asked for `forms` forms.
fn run(forms: usize) -> CaseRun {
    CaseRun {
        sent: Vec::new(),
        reading: crate::oracle::property::Reading::plain(false),
        reply: json!({}),
        wire: Vec::new(),
        http: Vec::new(),
        stray: Vec::new(),
        forced_kill: false,
        call_failure: None,
        capabilities: json!({}),
        stderr: String::new(),
        forms,
        acted_before: false,
        served_before: 0,
    }
}

#[test]
fn ten_planned_cases_in_a_row_short_of_the_form_stop_the_era_and_one_that_reaches_it_resets_the_count()
 {
    assert_eq!(UNREACHED_IN_A_ROW, 10);
    let mut unreached = Unreached::default();
    for _ in 0..UNREACHED_IN_A_ROW - 1 {
        unreached.push(&run(0));
        assert!(!unreached.stops());
    }
    unreached.push(&run(1));
    assert!(!unreached.stops());
    for _ in 0..UNREACHED_IN_A_ROW - 1 {
        unreached.push(&run(0));
    }
    assert!(!unreached.stops());
    unreached.push(&run(0));
    assert!(unreached.stops());
}

/// A run that reached the form and called the tool, with `reply`
/// (`{}`: none).
fn called(reply: Value) -> CaseRun {
    use crate::evidence::wire::{Side, frame};
    let mut called = run(1);
    called.wire = vec![frame(
        0,
        Side::Client,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}),
    )];
    called.reply = reply;
    called
}

#[test]
fn three_planned_calls_in_a_row_without_reply_stop_the_era_with_a_note() {
    assert_eq!(UNANSWERED_IN_A_ROW, 3);
    let mut unanswered = called(json!({}));
    unanswered.call_failure = Some(HarnessFailure::CallTimedOut {
        within: std::time::Duration::from_secs(10),
    });
    let mut unreached = Unreached::default();
    unreached.push(&unanswered);
    unreached.push(&unanswered);
    assert!(!unreached.stops());
    assert_eq!(unreached.note(5), None);
    // A reply, a result or a JSON-RPC error, resets the count; so does a
    // call whose server never reached the tool (no tools/call sent), and one
    // whose server died in it (no wait: the tool may die on some answers
    // only).
    let mut died = called(json!({}));
    died.call_failure = Some(HarnessFailure::NoReply {
        http: String::new(),
    });
    for reset in [
        called(json!({"result": {"content": []}})),
        called(json!({"error": {"code": -32603, "message": "boom"}})),
        run(1),
        died,
    ] {
        unreached.push(&reset);
        unreached.push(&unanswered);
        unreached.push(&unanswered);
        assert!(!unreached.stops(), "{:?}", reset.call_failure);
    }
    unreached.push(&unanswered);
    assert!(unreached.stops());
    assert_eq!(
        unreached.note(7).as_deref(),
        Some(
            "3 planned cases in a row got no reply to tools/call (property 5): the other 7 planned cases were not run, each would wait out --call-timeout and read no act"
        )
    );
    // Nothing left to run: nothing to note.
    assert_eq!(unreached.note(0), None);
}

#[test]
fn a_reply_in_brief_is_the_error_message_the_text_the_structured_content_or_why_none_came() {
    assert_eq!(
        in_brief(
            &json!({"error": {"code": -32603, "message": "boom"}}),
            None,
            true
        ),
        "boom"
    );
    assert_eq!(
        in_brief(
            &json!({"result": {"content": [{"type": "text", "text": "gone"}], "isError": true}}),
            None,
            true
        ),
        "gone"
    );
    assert_eq!(
        in_brief(
            &json!({"result": {"content": [], "structuredContent": {"ok": false}}}),
            None,
            true
        ),
        "{\"ok\":false}"
    );
    assert_eq!(
        in_brief(&json!({"result": {"content": []}}), None, true),
        "{\"content\":[]}"
    );
    assert_eq!(
        in_brief(
            &json!({"result": {"content": [{"type": "text", "text": "{\n  \"ok\": false\n}"}]}}),
            None,
            true
        ),
        "{\"ok\":false}"
    );
    assert_eq!(
        in_brief(
            &json!({"result": {"content": [{"type": "text", "text": "not\n  found"}]}}),
            None,
            true
        ),
        "not found"
    );
    assert_eq!(
        in_brief(
            &json!({}),
            Some(&HarnessFailure::CallTimedOut {
                within: std::time::Duration::from_secs(10)
            }),
            true
        ),
        "no reply to tools/call within 10 s"
    );
    assert_eq!(
        in_brief(&json!({}), None, true),
        "no reply to tools/call: the server never answered"
    );
    let long = "x".repeat(200);
    let cut = in_brief(&json!({"error": {"message": long}}), None, true);
    assert_eq!(cut.chars().count(), QUOTED_REPLY_CHARS + 1);
    assert!(cut.ends_with('…'));
    let exact = "y".repeat(QUOTED_REPLY_CHARS);
    assert_eq!(
        in_brief(&json!({"error": {"message": exact}}), None, true),
        exact
    );
}

#[test]
fn most_planned_cases_short_of_the_form_make_the_era_inconclusive_naming_the_repeated_reply() {
    let calls = vec![
        seen(
            "probe: a consenting valid accept",
            false,
            true,
            true,
            "deleted",
        ),
        seen("probe: a decline", false, false, false, "gone"),
        seen("coverage 0", true, false, false, "gone"),
        seen("coverage 1", true, false, false, "busy"),
        seen("coverage 2", true, false, false, "gone"),
    ];
    let health = assess(&calls, 12, false);
    assert_eq!(health.planned, 12);
    assert_eq!(health.ran, 3);
    assert_eq!(health.reached_form, 0);
    assert_eq!(
        health.repeated_reply,
        Some(RepeatedReply {
            reply: "gone".to_owned(),
            times: 3,
            after: "probe: a consenting valid accept".to_owned(),
            after_acted: true,
        })
    );
    assert_eq!(
        health.inconclusive.as_deref(),
        Some(
            "0 of 12 planned cases reached the form: after probe: a consenting valid accept, which acted, the tool answered \"gone\" without asking, 3 times (its state changed; reset it before each case with --setup CMD); the other 9 planned cases were not run"
        )
    );
    // With --setup given, the advice says it did not restore the state.
    let with_setup = assess(&calls, 3, true);
    assert_eq!(
        with_setup.inconclusive.as_deref(),
        Some(
            "0 of 3 planned cases reached the form: after probe: a consenting valid accept, which acted, the tool answered \"gone\" without asking, 3 times (its state changed; --setup did not restore it)"
        )
    );
}

#[test]
fn half_of_the_planned_cases_reaching_the_form_is_conclusive_and_fewer_is_not() {
    let reach = |reached: usize, of: usize| {
        let calls: Vec<Seen> = (0..of)
            .map(|index| seen(&format!("case {index}"), true, index < reached, false, "r"))
            .collect();
        assess(&calls, of, false)
    };
    assert!(reach(2, 4).inconclusive.is_none());
    assert!(reach(1, 4).inconclusive.is_some());
    assert!(reach(3, 5).inconclusive.is_none());
    assert!(reach(2, 5).inconclusive.is_some());
    // Nothing planned (the tool asked nothing): nothing to be short of.
    assert!(reach(0, 0).inconclusive.is_none());
    // Every case reached the form: no reply to name.
    assert_eq!(reach(4, 4).repeated_reply, None);
}

#[test]
fn the_repeated_reply_is_the_most_frequent_after_the_last_call_that_reached_the_form() {
    let calls = vec![
        seen("probe", false, true, true, "ok"),
        seen("coverage 0", true, true, false, "refused"),
        seen("coverage 1", true, false, false, "a"),
        seen("coverage 2", true, true, false, "refused"),
        seen("coverage 3", true, false, false, "b"),
        seen("coverage 4", true, false, false, "b"),
    ];
    assert_eq!(
        repeated_reply(&calls),
        Some(RepeatedReply {
            reply: "b".to_owned(),
            times: 2,
            after: "coverage 0".to_owned(),
            after_acted: false,
        })
    );
    // On a tie the first met stays.
    let tie = vec![
        seen("probe", false, true, false, "ok"),
        seen("coverage 0", true, false, false, "a"),
        seen("coverage 1", true, false, false, "b"),
    ];
    assert_eq!(
        repeated_reply(&tie).map(|reply| reply.reply),
        Some("a".into())
    );
    // No call reached the form before the first that did not: nothing to name.
    let none_before = vec![seen("probe", false, false, false, "a")];
    assert_eq!(repeated_reply(&none_before), None);
}

#[test]
fn sessions_the_check_ended_itself_are_counted_and_said_in_a_note() {
    let stopped = Endings {
        ignored_stdin_close: 2,
        stopped_by_check: 5,
    };
    let health = endings_only((stopped, vec!["first".into()]));
    assert_eq!(health.ignored_stdin_close, 2);
    assert_eq!(health.stopped_by_check, 5);
    assert_eq!(
        health.notes,
        vec![
            "first".to_owned(),
            "the server did not exit after its stdin closed in 2 sessions (property 5 fails on it): elicit-check ended the 5 later sessions after them itself".to_owned(),
        ]
    );
    let waited = Endings {
        ignored_stdin_close: 1,
        stopped_by_check: 0,
    };
    let health = endings_only((waited, Vec::new()));
    assert!(health.notes.is_empty());
}

#[test]
fn planned_cases_are_counted_per_property_aimed_at() {
    let mut aimed = Aimed::default();
    aimed.add(Some(Property::NoActOnRefusal), true);
    aimed.add(Some(Property::NoActOnRefusal), false);
    aimed.add(Some(Property::ActsOnValid), true);
    aimed.add(None, true);
    assert_eq!(
        aimed.of(Property::NoActOnRefusal),
        Some(PlannedCases {
            cases: 2,
            judged: 1
        })
    );
    assert_eq!(
        aimed.of(Property::ActsOnValid),
        Some(PlannedCases {
            cases: 1,
            judged: 1
        })
    );
    assert_eq!(aimed.of(Property::NoActOnInvalid), None);
}

#[test]
fn the_base_refused_after_the_probe_acted_on_it_makes_the_era_inconclusive() {
    let mut base = seen(
        "coverage 0",
        true,
        true,
        false,
        "q3.txt is not in the inbox",
    );
    base.base = true;
    let calls = vec![
        seen(
            "probe: a consenting valid accept",
            false,
            true,
            true,
            "archived",
        ),
        base.clone(),
        seen(
            "coverage 1",
            true,
            true,
            false,
            "q3.txt is not in the inbox",
        ),
    ];
    let health = assess(&calls, 2, false);
    assert_eq!(
        health.base_refused.as_deref(),
        Some("coverage 0: \"q3.txt is not in the inbox\"")
    );
    assert_eq!(
        health.inconclusive.as_deref(),
        Some(
            "2 of 2 planned cases reached the form; the tool acted on its consenting answer in the probe, then refused the same answer in coverage 0: \"q3.txt is not in the inbox\" (its state changed; reset it before each case with --setup CMD)"
        )
    );
    // The base acted as in the probe: nothing to say.
    base.acted = true;
    let calls = vec![base.clone(), seen("coverage 1", true, true, false, "no")];
    let health = assess(&calls, 2, false);
    assert_eq!(health.base_refused, None);
    assert_eq!(health.inconclusive, None);
    // A base whose reading cannot be trusted, or that never reached the form, shows nothing.
    base.acted = false;
    base.read = false;
    assert_eq!(
        assess(std::slice::from_ref(&base), 1, false).base_refused,
        None
    );
    base.read = true;
    base.reached_form = false;
    assert_eq!(assess(&[base.clone()], 1, false).base_refused, None);
    // Only a planned case sends the base again; nothing planned, nothing to say.
    base.reached_form = true;
    base.planned = false;
    let health = assess(&[base], 0, false);
    assert_eq!((health.base_refused, health.inconclusive), (None, None));
}

#[test]
fn calls_acted_cmd_already_read_as_acted_test_nothing_and_are_named() {
    let mut unread = seen("coverage 0", true, true, true, "done");
    unread.read = false;
    let calls = vec![
        unread.clone(),
        unread,
        seen("coverage 2", true, true, false, "no"),
    ];
    let health = Health::assess(Observed {
        seen: &calls,
        planned: 3,
        never_reached_tool: Vec::new(),
        acted_before_call: vec!["coverage 0".into(), "coverage 1".into()],
        endings: (Endings::default(), Vec::new()),
        setup: true,
    });
    assert_eq!(health.reached_form, 1);
    assert_eq!(
        health.inconclusive.as_deref(),
        Some(
            "1 of 3 planned cases reached the form with an acted reading to trust; before 2 calls --acted-cmd already said the tool had acted (reset what it reads before each case with --setup)"
        )
    );
    // Acted before a call: one more in a row for the stop.
    let mut unreached = Unreached::default();
    let mut before = run(1);
    before.acted_before = true;
    unreached.push(&before);
    assert_eq!(unreached.in_a_row, 1);
    // Read from the run: a call that reached the form after --acted-cmd
    // said acted tests nothing; the same call read cleanly does, reply or
    // not (--acted-cmd reads the world after it).
    let label = "coverage 0";
    let command = ActedRule::Command("test -e done".into());
    assert!(!Seen::of(label, (true, false), &before, &command).tested());
    assert!(Seen::of(label, (true, false), &run(1), &command).tested());
    assert!(!Seen::of(label, (true, false), &run(0), &command).tested());
    // Read from the reply: a call without reply tested nothing.
    let pointer = ActedRule::Pointer("/acted".into());
    assert!(!Seen::of(label, (true, false), &run(1), &pointer).tested());
    let mut replied = run(1);
    replied.reply = json!({"result": {"structuredContent": {"acted": false}}});
    assert!(Seen::of(label, (true, false), &replied, &pointer).tested());
}
