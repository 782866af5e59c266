//! Unit tests of `oracle::property`.

use super::*;
use serde_json::json;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "age": {"type": "integer", "minimum": 1, "maximum": 100},
            "email": {"type": "string", "format": "email"}
        },
        "required": ["age"]
    })
}

fn class_of(answer: Value) -> Class {
    let schema = schema();
    classify(
        &Form::read(&schema),
        &Judge::new(&schema).expect("compiles"),
        &answer,
    )
}

/// A form that requires no field: an accept without content submits it
/// whole (judged as `{}`); `content: null` is no object and stays invalid.
#[test]
fn an_accept_without_content_to_a_form_that_requires_nothing_is_valid() {
    let classify_in = |schema: Value, answer: Value| {
        classify(
            &Form::read(&schema),
            &Judge::new(&schema).expect("compiles"),
            &answer,
        )
    };
    let empty = json!({"type": "object", "properties": {}});
    assert_eq!(
        classify_in(empty.clone(), json!({"action": "accept"})),
        Class::ValidAccept
    );
    assert_eq!(
        classify_in(empty.clone(), json!({"action": "accept", "content": null})),
        Class::InvalidAccept(vec!["content is null, not an object".into()])
    );
    assert_eq!(
        classify_in(empty, json!({"action": "accept", "content": []})),
        Class::InvalidAccept(vec![r#"/: [] is not of type "object""#.into()])
    );
    let optional = json!({"type": "object", "properties": {"note": {"type": "string"}}});
    assert_eq!(
        classify_in(optional, json!({"action": "accept"})),
        Class::ValidAccept
    );
    // Something required: no content is missing it.
    assert_eq!(
        class_of(json!({"action": "accept"})),
        Class::InvalidAccept(vec!["accept has no content".into()])
    );
}

#[test]
fn answers_are_classified_by_action_then_by_the_judge() {
    assert_eq!(
        class_of(json!({"action": "accept", "content": {"age": 3}})),
        Class::ValidAccept
    );
    assert_eq!(
        class_of(json!({"action": "decline", "content": {"age": 3}})),
        Class::Refusal("decline".into())
    );
    assert_eq!(
        class_of(json!({"action": "cancel"})),
        Class::Refusal("cancel".into())
    );
    assert_eq!(
        class_of(json!({"action": "accept"})),
        Class::InvalidAccept(vec!["accept has no content".into()])
    );
    assert_eq!(
        class_of(json!({"action": "accept", "content": null})),
        Class::InvalidAccept(vec!["content is null, not an object".into()])
    );
    assert_eq!(
        class_of(json!({"action": "accept", "content": {"age": 500}})),
        Class::InvalidAccept(vec!["/age: 500 is greater than the maximum of 100".into()])
    );
    assert_eq!(
        class_of(json!({"action": "accept", "content": {"age": 3, "email": "nope"}})),
        Class::InvalidAccept(vec![r#"/email: "nope" is not a "email""#.into()])
    );
    assert_eq!(
        class_of(json!({"action": "Accept", "content": {"age": 3}})),
        Class::NearMiss(r#"action "Accept" is not accept, decline or cancel"#.into())
    );
    assert_eq!(
        class_of(json!({"content": {"age": 3}})),
        Class::NearMiss("no action".into())
    );
}

#[test]
fn extra_keys_and_whole_floats_are_lenient_not_invalid() {
    assert_eq!(
        class_of(json!({"action": "accept", "content": {"age": 3.0}})),
        Class::LenientAccept(vec!["whole float 3.0 for integer `age`".into()])
    );
    assert_eq!(
        class_of(json!({"action": "accept", "content": {"age": 3, "note": "x"}})),
        Class::LenientAccept(vec!["extra key `note` the schema does not name".into()])
    );
    assert_eq!(
        class_of(json!({"action": "accept", "content": {"age": 3, "email": "a@b.org"}})),
        Class::ValidAccept
    );
}

fn result(structured: Value) -> Value {
    json!({"content": [{"type": "text", "text": structured.to_string()}], "structuredContent": structured})
}

#[test]
fn the_acted_pointer_must_hold_a_boolean() {
    let rule = ActedRule::Pointer("/booked".into());
    let read = |value: Value| read_acted(&rule, Some(&value), None);
    assert_eq!(read(result(json!({"booked": true}))), Reading::plain(true));
    assert_eq!(
        read(result(json!({"booked": false}))),
        Reading::plain(false)
    );
    assert_eq!(
        read(result(json!({"booked": 1}))),
        Reading {
            acted: true,
            drift: Some("the value at /booked is 1 (a number), not a boolean".into()),
            unreadable: None,
        }
    );
    assert_eq!(
        read(result(json!({"booked": 0}))),
        Reading {
            acted: false,
            drift: Some("the value at /booked is 0 (a number), not a boolean".into()),
            unreadable: None,
        }
    );
    assert_eq!(
        read(result(json!({"booked": "true"}))),
        Reading {
            acted: true,
            drift: Some(r#"the value at /booked is "true" (a string), not a boolean"#.into()),
            unreadable: None,
        }
    );
    assert_eq!(
        read(result(json!({"other": true}))),
        Reading {
            acted: false,
            drift: Some("no value at /booked in structuredContent or the text content".into()),
            unreadable: Some("no value at /booked in structuredContent or the text content".into()),
        }
    );
    // Text content only (no structuredContent), as the Python SDK answers a dict.
    assert_eq!(
        read(json!({"content": [{"type": "text", "text": "{\"booked\": true}"}]})),
        Reading::plain(true)
    );
    // An isError result or a JSON-RPC error never acts and is not drift.
    assert_eq!(
        read(json!({"content": [{"type": "text", "text": "bad"}], "isError": true})),
        Reading::plain(false)
    );
    assert_eq!(
        read_acted(&rule, None, Some(&json!({"code": -32602, "message": "x"}))),
        Reading::plain(false)
    );
}

#[test]
fn acted_text_reads_error_results_unless_acted_not_error_is_beside_it() {
    let text = |not_error| ActedRule::Text {
        regex: Regex::new("provided|now executing").expect("regex"),
        not_error,
    };
    let provided = json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "User provided it"}]});
    let declined = json!({"content": [{"type": "text", "text": "User declined"}]});
    assert!(read_acted(&text(false), Some(&provided), None).acted);
    assert!(!read_acted(&text(false), Some(&declined), None).acted);
    // A tool that acted and then failed: its isError text still says so.
    let failed = json!({"content": [{"type": "text", "text": "confirmed, now executing: no database"}], "isError": true});
    assert!(read_acted(&text(false), Some(&failed), None).acted);
    assert!(!read_acted(&text(true), Some(&failed), None).acted);
    assert!(read_acted(&text(true), Some(&provided), None).acted);
    assert!(read_acted(&ActedRule::NotError, Some(&declined), None).acted);
    assert!(!read_acted(&ActedRule::NotError, Some(&failed), None).acted);
    assert!(
        !read_acted(
            &ActedRule::NotError,
            Some(&declined),
            Some(&json!({"code": 1}))
        )
        .acted
    );
    assert!(!read_acted(&text(false), Some(&provided), Some(&json!({"code": 1}))).acted);
    assert!(!read_acted(&ActedRule::Command("true".into()), Some(&provided), None).acted);
}

#[test]
fn acted_equals_compares_the_value_at_the_pointer_by_json_value() {
    let rule = ActedRule::parse_pointer("/dry_run=false").expect("parses");
    let read = |value: Value| read_acted(&rule, Some(&value), None);
    assert!(read(result(json!({"dry_run": false}))).acted);
    assert_eq!(
        read(result(json!({"dry_run": true}))),
        Reading::plain(false)
    );
    // `0` is not `false`: no loose reading.
    assert_eq!(read(result(json!({"dry_run": 0}))), Reading::plain(false));
    assert_eq!(
        read(result(json!({"other": 1}))),
        Reading {
            acted: false,
            drift: None,
            unreadable: Some(
                "no value at /dry_run in structuredContent or the text content".into()
            ),
        }
    );
    assert_eq!(
        read(json!({"content": [{"type": "text", "text": "failed"}], "isError": true})),
        Reading::plain(false)
    );
    let status = ActedRule::parse_pointer("/status=\"booked\"").expect("parses");
    assert!(read_acted(&status, Some(&result(json!({"status": "booked"}))), None).acted);
    assert!(!read_acted(&status, Some(&result(json!({"status": "held"}))), None).acted);
    assert_eq!(
        ActedRule::parse_pointer("/a=1=2").map(|rule| rule.to_string()),
        Err("--acted \"/a=1=2\": \"1=2\" after `=` is not JSON (trailing characters at line 1 column 2); a string is quoted: /a=\"booked\"".to_owned())
    );
    assert!(
        ActedRule::parse_pointer("booked")
            .expect_err("no slash")
            .contains("is not a JSON pointer")
    );
    for empty in ["", "=true"] {
        assert_eq!(
            ActedRule::parse_pointer(empty).map(|rule| rule.to_string()),
            Err(format!(
                "--acted {empty:?}: the empty pointer names the whole result, not the value that says the tool acted; give its pointer, e.g. /booked or /status=\"booked\""
            ))
        );
    }
    assert!(matches!(
        ActedRule::parse_pointer("/booked"),
        Ok(ActedRule::Pointer(pointer)) if pointer == "/booked"
    ));
}

use crate::evidence::wire::frame;

/// A clean session: initialize #0 and its result #1, tools/call #3,
/// elicitation/create #4, its answer #5, the reply #6.
fn clean_wire() -> Vec<Frame> {
    vec![
        frame(
            0,
            Side::Client,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
        ),
        frame(
            1,
            Side::Server,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}}),
        ),
        frame(
            3,
            Side::Client,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book"}}),
        ),
        frame(
            4,
            Side::Server,
            json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "m", "requestedSchema": schema()}}),
        ),
        frame(
            5,
            Side::Client,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {"age": 3}}}),
        ),
        frame(
            6,
            Side::Server,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
        ),
    ]
}

fn sent(class: Class) -> SentAnswer {
    SentAnswer {
        requested_schema: schema(),
        answer: json!({}),
        class,
        built_as: String::new(),
    }
}

fn judge_call(
    sent: &[SentAnswer],
    acted: bool,
    wire: &[Frame],
    capabilities: &Value,
    strict: bool,
) -> Vec<(Property, String)> {
    let reading = Reading::plain(acted);
    violations(&Observation {
        sent,
        reading: &reading,
        capabilities,
        wire,
        stray: &[],
        http: &[],
        forced_kill: false,
        grace: std::time::Duration::from_secs(5),
        call_failure: None,
        strict,
        allow_unasked: false,
        protocol: Protocol::V2025_11_25,
        consent: &[],
    })
}

#[test]
fn acting_after_a_refusal_breaks_property_1_only() {
    let form = json!({"elicitation": {"form": {}}});
    let refusal = [
        sent(Class::ValidAccept),
        sent(Class::Refusal("cancel".into())),
    ];
    assert_eq!(
        judge_call(&refusal, true, &clean_wire(), &form, false),
        vec![(
            Property::NoActOnRefusal,
            "acted although the answer was cancel".to_owned()
        )]
    );
    assert!(judge_call(&refusal, false, &clean_wire(), &form, false).is_empty());
}

#[test]
fn acting_on_invalid_or_near_miss_answers_breaks_property_2() {
    let form = json!({"elicitation": {"form": {}}});
    let invalid = [
        sent(Class::ValidAccept),
        sent(Class::InvalidAccept(vec!["/age: x".into(), "/b: y".into()])),
    ];
    assert_eq!(
        judge_call(&invalid, true, &clean_wire(), &form, false),
        vec![(
            Property::NoActOnInvalid,
            "acted on an accept whose content is invalid: /age: x; /b: y".to_owned()
        )]
    );
    assert!(judge_call(&invalid, false, &clean_wire(), &form, false).is_empty());
    let near = [sent(Class::NearMiss("no action".into()))];
    assert_eq!(
        judge_call(&near, true, &clean_wire(), &form, false),
        vec![(
            Property::NoActOnInvalid,
            "acted on an answer that is not an ElicitResult: no action".to_owned()
        )]
    );
    let valid = [sent(Class::ValidAccept)];
    assert!(judge_call(&valid, true, &clean_wire(), &form, false).is_empty());
}

#[test]
fn lenient_accepts_acted_on_fail_only_under_strict() {
    let form = json!({"elicitation": {"form": {}}});
    let lenient = [sent(Class::LenientAccept(vec![
        "whole float 3.0 for integer `age`".into(),
    ]))];
    assert!(judge_call(&lenient, true, &clean_wire(), &form, false).is_empty());
    assert_eq!(
        judge_call(&lenient, true, &clean_wire(), &form, true),
        vec![(Property::NoActOnInvalid, "acted on content a strict server refuses (--strict): whole float 3.0 for integer `age`".to_owned())]
    );
    assert!(judge_call(&lenient, false, &clean_wire(), &form, true).is_empty());
}

/// A 2026-07-28 call: the first `tools/call` (#1) answered with an input
/// request (#2), retried (#3) and answered (#4).
fn rounds_wire(request: Value) -> Vec<Frame> {
    vec![
        frame(
            1,
            Side::Client,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book"}}),
        ),
        frame(
            2,
            Side::Server,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
                "inputRequests": {"booking": request}, "requestState": "s"}}),
        ),
        frame(
            3,
            Side::Client,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "book"}}),
        ),
        frame(
            4,
            Side::Server,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}}),
        ),
    ]
}

#[test]
fn a_2026_input_request_for_a_form_counts_for_property_4_and_the_last_call_for_property_5() {
    let form = json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": schema()}});
    let url =
        json!({"method": "elicitation/create", "params": {"mode": "url", "url": "https://x"}});
    let wire = rounds_wire(form.clone());
    assert!(asks_a_form(&wire[1]));
    assert!(!asks_a_form(&wire[0]), "a client frame");
    assert!(!asks_a_form(&rounds_wire(url.clone())[1]));
    let mut explicit = form.clone();
    explicit["params"]["mode"] = json!("form");
    assert!(asks_a_form(&rounds_wire(explicit)[1]));
    let sampling = json!({"method": "sampling/createMessage", "params": {}});
    assert!(!asks_a_form(&rounds_wire(sampling)[1]));
    assert_eq!(
        judge_call(&[], false, &wire, &json!({}), false),
        vec![(
            Property::CapabilityRespected,
            "returned an InputRequiredResult asking for a form (inputRequests.booking, frame #2) to a client that declared no form elicitation (capabilities {})".to_owned()
        )]
    );
    assert!(
        judge_call(
            &[],
            false,
            &rounds_wire(url),
            &json!({"elicitation": {"url": {}}}),
            false
        )
        .is_empty()
    );
    let form_client = json!({"elicitation": {"form": {}}});
    assert!(judge_call(&[], false, &wire, &form_client, false).is_empty());
    // The retry (#3) has no reply: property 5 reads the last call.
    assert_eq!(
        judge_call(&[], false, &wire[..3], &form_client, false),
        vec![(
            Property::CleanWire,
            "no reply to tools/call: the server never answered".to_owned()
        )]
    );
}

#[test]
fn a_form_request_to_a_client_without_form_breaks_property_4() {
    for capabilities in [json!({}), json!({"elicitation": {"url": {}}})] {
        assert_eq!(
            judge_call(&[], false, &clean_wire(), &capabilities, false),
            vec![(
                Property::CapabilityRespected,
                format!(
                    "sent a form elicitation/create (frame #4) to a client that declared no form elicitation (capabilities {capabilities})"
                )
            )]
        );
    }
    // `{}` counts as form; a URL-mode request is not a form request.
    assert!(
        judge_call(
            &[],
            false,
            &clean_wire(),
            &json!({"elicitation": {}}),
            false
        )
        .is_empty()
    );
    let mut url = clean_wire();
    url[3].message["params"]["mode"] = json!("url");
    assert!(
        judge_call(
            &[],
            false,
            &url,
            &json!({"elicitation": {"url": {}}}),
            false
        )
        .is_empty()
    );
    url[3].message["params"]["mode"] = json!("form");
    assert_eq!(judge_call(&[], false, &url, &json!({}), false).len(), 1);
}

/// Over Streamable HTTP, property 5 holds the session to the transport's rules
/// too: a clean wire whose `elicitation/create` came on the `initialize`
/// POST's stream breaks it, with the exchange named; the same steps with the
/// elicitation on the call's stream do not.
#[test]
fn the_http_steps_break_property_5_on_an_elicitation_on_a_foreign_stream() {
    use crate::evidence::http::{Carried, HttpRecord, HttpStep};
    use std::collections::BTreeMap;
    let form = json!({"elicitation": {"form": {}}});
    let reading = Reading::plain(false);
    let wire = clean_wire();
    let steps = |elicited_on: u32| -> Vec<HttpRecord> {
        let post = |message: Value| HttpStep::Request {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: BTreeMap::new(),
            carries: Carried::of(&message),
        };
        let stream = HttpStep::Response {
            status: 200,
            headers: BTreeMap::from([("content-type".into(), "text/event-stream".into())]),
        };
        let event = |message: Value| HttpStep::Event {
            id: None,
            event: None,
            data_bytes: 10,
            carries: Carried::of(&message),
        };
        [
            (1, post(json!({"id": 0, "method": "initialize"}))),
            (1, stream.clone()),
            (2, post(json!({"id": 1, "method": "tools/call"}))),
            (2, stream),
            (
                elicited_on,
                event(json!({"id": 0, "method": "elicitation/create"})),
            ),
            (2, event(json!({"id": 1, "result": {}}))),
        ]
        .into_iter()
        .enumerate()
        .map(|(seq, (exchange, step))| HttpRecord {
            seq: seq as u64,
            exchange,
            step,
        })
        .collect()
    };
    let observe = |http: &[HttpRecord]| {
        violations(&Observation {
            sent: &[],
            reading: &reading,
            capabilities: &form,
            wire: &wire,
            stray: &[],
            http,
            forced_kill: false,
            grace: std::time::Duration::from_secs(5),
            call_failure: None,
            strict: false,
            allow_unasked: false,
            protocol: Protocol::V2025_11_25,
            consent: &[],
        })
    };
    assert!(observe(&steps(2)).is_empty());
    assert_eq!(
        observe(&steps(1)),
        [(
            Property::CleanWire,
            "HTTP: elicitation/create id 0 came on the event stream of POST /mcp (initialize id 0, exchange 1), not on that of POST /mcp (tools/call id 1, exchange 2) or the standalone GET stream".to_owned()
        )]
    );
}

#[test]
fn the_wire_breaks_property_5_on_stray_lines_late_elicitations_no_reply_and_no_exit() {
    let form = json!({"elicitation": {"form": {}}});
    let reading = Reading::plain(false);
    let wire = clean_wire();
    let observe = |wire: &[Frame],
                   stray: &[StrayLine],
                   forced_kill: bool,
                   call_failure: Option<&HarnessFailure>| {
        violations(&Observation {
            sent: &[],
            reading: &reading,
            capabilities: &form,
            wire,
            stray,
            http: &[],
            forced_kill,
            grace: std::time::Duration::from_secs(5),
            call_failure,
            strict: false,
            allow_unasked: false,
            protocol: Protocol::V2025_11_25,
            consent: &[],
        })
    };
    assert!(observe(&wire, &[], false, None).is_empty());
    let stray = [StrayLine {
        seq: 7,
        line: "calculating...".into(),
        bytes: 14,
    }];
    assert_eq!(
        observe(&wire, &stray, false, None),
        vec![(
            Property::CleanWire,
            r#"stdout line #7 is not a JSON-RPC message: "calculating...""#.to_owned()
        )]
    );
    let mut late = wire.clone();
    late.push(frame(
        8,
        Side::Server,
        json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {}}),
    ));
    assert_eq!(
        observe(&late, &[], false, None),
        vec![(
            Property::CleanWire,
            "elicitation/create (frame #8) outside its tools/call (frames #3 to #6)".to_owned()
        )]
    );
    let mut early = wire.clone();
    early.insert(
        0,
        frame(
            2,
            Side::Server,
            json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": {}}),
        ),
    );
    assert_eq!(
        observe(&early, &[], false, None),
        vec![(
            Property::CleanWire,
            "elicitation/create (frame #2) outside its tools/call (frames #3 to #6)".to_owned()
        )]
    );
    let timed_out = HarnessFailure::CallTimedOut {
        within: std::time::Duration::from_secs(10),
    };
    assert_eq!(
        observe(&wire[..3], &[], false, Some(&timed_out)),
        vec![(
            Property::CleanWire,
            "no reply to tools/call within 10 s".to_owned()
        )]
    );
    // Over stdio, a call that ended with no reply frame: its stdout closed.
    let closed = HarnessFailure::NoReply {
        http: String::new(),
    };
    assert_eq!(
        observe(&wire[..3], &[], false, Some(&closed)),
        vec![(
            Property::CleanWire,
            "no reply to tools/call: the server's stdout closed first (it exited or crashed in the call)"
                .to_owned()
        )]
    );
    let refused = HarnessFailure::HandshakeFailed {
        request: crate::evidence::Handshake::Initialize,
        error: "connection closed".to_owned(),
        http: String::new(),
    };
    assert_eq!(
        observe(&[], &[], false, Some(&refused)),
        vec![(
            Property::CleanWire,
            "the tool was not called: initialize failed: connection closed".to_owned()
        )]
    );
    assert_eq!(
        observe(&wire, &[], true, None),
        vec![(
            Property::CleanWire,
            "did not exit within 5 s after its stdin closed (killed)".to_owned()
        )]
    );
}

#[test]
fn a_non_boolean_acted_value_breaks_property_6() {
    let form = json!({"elicitation": {"form": {}}});
    let reading = Reading {
        acted: true,
        drift: Some("the value at /x is 1 (a number), not a boolean".into()),
        unreadable: None,
    };
    let found = violations(&Observation {
        sent: &[sent(Class::ValidAccept)],
        reading: &reading,
        capabilities: &form,
        wire: &clean_wire(),
        stray: &[],
        http: &[],
        forced_kill: false,
        grace: std::time::Duration::from_secs(5),
        call_failure: None,
        strict: false,
        allow_unasked: false,
        protocol: Protocol::V2025_11_25,
        consent: &[],
    });
    assert_eq!(
        found,
        vec![(
            Property::ActedIsBoolean,
            "the value at /x is 1 (a number), not a boolean".to_owned()
        )]
    );
}

#[test]
fn a_server_asking_again_has_not_acted_under_any_rule() {
    let asking = json!({
        "resultType": "input_required",
        "inputRequests": {"form": {"method": "elicitation/create"}},
        "requestState": "s",
        "structuredContent": {"x": true},
        "content": [{"type": "text", "text": "{\"x\": true} ok"}]
    });
    let rules = [
        ActedRule::Pointer("/x".into()),
        ActedRule::Equals("/x".into(), json!(true)),
        ActedRule::Text {
            regex: Regex::new("ok").expect("regex"),
            not_error: false,
        },
        ActedRule::NotError,
    ];
    for rule in &rules {
        assert_eq!(
            read_acted(rule, Some(&asking), None),
            Reading::plain(false),
            "{rule}"
        );
        let mut complete = asking.clone();
        complete["resultType"] = json!("complete");
        assert!(read_acted(rule, Some(&complete), None).acted, "{rule}");
    }
}

#[test]
fn acted_rules_print_as_their_options() {
    assert_eq!(ActedRule::Pointer("/x".into()).to_string(), "--acted /x");
    let text = |not_error| ActedRule::Text {
        regex: Regex::new("ok.*").expect("regex"),
        not_error,
    };
    assert_eq!(text(false).to_string(), "--acted-text ok.*");
    assert_eq!(
        text(true).words(),
        ["--acted-text", "ok.*", "--acted-not-error"]
    );
    assert_eq!(
        ActedRule::Equals("/dry_run".into(), json!(false)).words(),
        ["--acted", "/dry_run=false"]
    );
    assert_eq!(
        ActedRule::Command("test ! -e v".into()).to_string(),
        "--acted-cmd test ! -e v"
    );
    assert_eq!(ActedRule::NotError.to_string(), "--acted-not-error");
}

#[test]
fn a_loose_reader_takes_non_booleans_as_many_languages_do() {
    let rule = ActedRule::Pointer("/a".into());
    let acted = |value: Value| {
        read_acted(
            &rule,
            Some(&json!({"structuredContent": {"a": value}})),
            None,
        )
        .acted
    };
    for (value, loose) in [
        (json!(1), true),
        (json!(2.5), true),
        (json!(0), false),
        (json!("true"), true),
        (json!("yes"), true),
        (json!("1"), true),
        (json!("no"), false),
        (json!([]), false),
        (json!([0]), true),
        (json!({}), true),
        (json!(null), false),
    ] {
        assert_eq!(acted(value.clone()), loose, "{value}");
    }
    let kinds: Vec<&str> = [
        json!(null),
        json!(true),
        json!(1),
        json!("s"),
        json!([]),
        json!({}),
    ]
    .iter()
    .map(json_kind)
    .collect();
    assert_eq!(
        kinds,
        [
            "null",
            "a boolean",
            "a number",
            "a string",
            "an array",
            "an object"
        ]
    );
}

#[test]
fn text_content_is_every_text_block_joined() {
    let result = json!({"content": [
        {"type": "text", "text": "one"},
        {"type": "image", "data": "AA==", "mimeType": "image/png"},
        {"type": "text", "text": "two"}
    ]});
    assert_eq!(text_of(&result), "one\ntwo");
    assert_eq!(text_of(&json!({})), "");
}

#[test]
fn acting_with_no_answer_possible_breaks_property_7_unless_fail_open_is_declared() {
    let none = json!({});
    let form = json!({"elicitation": {"form": {}}});
    // The call and its reply, no elicitation/create between them.
    let mut wire = clean_wire();
    wire.drain(3..5);
    let judge_in = |sent: &[SentAnswer],
                    acted: bool,
                    allow_unasked: bool,
                    capabilities: &Value,
                    protocol: Protocol| {
        violations(&Observation {
            sent,
            reading: &Reading::plain(acted),
            capabilities,
            wire: &wire,
            stray: &[],
            http: &[],
            forced_kill: false,
            grace: std::time::Duration::from_secs(5),
            call_failure: None,
            strict: false,
            allow_unasked,
            protocol,
            consent: &[],
        })
    };
    let judge = |sent: &[SentAnswer], acted: bool, allow_unasked: bool| {
        judge_in(sent, acted, allow_unasked, &none, Protocol::V2025_11_25)
    };
    assert_eq!(
        judge(&[], true, false),
        vec![(
            Property::NoActWithoutAnswer,
            "acted without asking: no elicitation/create in the call (client capabilities {})"
                .to_owned()
        )]
    );
    assert_eq!(
        judge(&[sent(Class::Error), sent(Class::Error)], true, false),
        vec![(
            Property::NoActWithoutAnswer,
            "acted although the client could answer no request (each got a JSON-RPC error; capabilities {})"
                .to_owned()
        )]
    );
    assert_eq!(
        judge(
            &[sent(Class::Unanswered(
                "a retry with no inputResponses".into()
            ))],
            true,
            false
        ),
        vec![(
            Property::NoActWithoutAnswer,
            "acted although its input request was never answered: a retry with no inputResponses"
                .to_owned()
        )]
    );
    // On 2026-07-28 the reasons speak of input requests.
    assert_eq!(
        judge_in(&[], true, false, &none, Protocol::V2026_07_28),
        vec![(
            Property::NoActWithoutAnswer,
            "acted without asking: no InputRequiredResult asking for a form before it (client capabilities {})"
                .to_owned()
        )]
    );
    assert_eq!(
        judge_in(
            &[sent(Class::Error)],
            true,
            false,
            &none,
            Protocol::V2026_07_28
        ),
        vec![(
            Property::NoActWithoutAnswer,
            "acted although the client could answer none of its input requests (capabilities {})"
                .to_owned()
        )]
    );
    assert!(judge(&[], false, false).is_empty());
    // --allow-unasked: a client that cannot answer a form only.
    assert!(judge(&[], true, true).is_empty());
    assert_eq!(
        judge_in(&[], true, true, &form, Protocol::V2025_11_25),
        vec![(
            Property::NoActWithoutAnswer,
            "acted without asking: no elicitation/create in the call (client capabilities {\"elicitation\":{\"form\":{}}})"
                .to_owned()
        )]
    );
    assert_eq!(
        judge_in(
            &[sent(Class::Unanswered("no inputResponses".into()))],
            true,
            true,
            &form,
            Protocol::V2026_07_28
        )
        .len(),
        1
    );
    // An answer came: another property judges it, not this one.
    assert!(judge(&[sent(Class::Error), sent(Class::ValidAccept)], true, false).is_empty());
    assert!(unanswered(&[]));
    assert!(unanswered(&[sent(Class::Error)]));
    assert!(unanswered(&[sent(Class::Unanswered(
        "no inputResponses".into()
    ))]));
    assert!(!unanswered(&[
        sent(Class::Unanswered("no inputResponses".into())),
        sent(Class::ValidAccept)
    ]));
    assert!(!unanswered(&[sent(Class::Refusal("cancel".into()))]));
    // A URL step completed before a form whose answer never came: unanswered;
    // a call that asked for a URL step only is not.
    let never_came = sent(Class::Unanswered("no inputResponses".into()));
    assert!(unanswered(&[sent(Class::UrlCompleted), never_came.clone()]));
    assert!(!unanswered(&[sent(Class::UrlCompleted)]));
    assert!(!unanswered(&[
        sent(Class::UrlCompleted),
        sent(Class::ValidAccept)
    ]));
}

#[test]
fn properties_are_numbered_one_to_eight_in_order() {
    let numbers: Vec<u8> = Property::ALL.iter().map(|p| p.number()).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7, 8]);
    let statements: Vec<&str> = Property::ALL.iter().map(|p| p.statement()).collect();
    assert_eq!(
        statements,
        [
            "never acts when an answer was decline or cancel",
            "never acts on an accept whose content is invalid",
            "acts on valid accepts",
            "sends no form elicitation/create without the form capability",
            "stdout is JSON-RPC only, elicitation/create inside the call, exits on stdin close",
            "the acted value is a JSON boolean",
            "never acts without a valid consenting answer",
            "never acts on a requestState it did not issue for this call (2026-07-28)",
        ]
    );
    assert_eq!(Property::CleanWire.to_string(), "property 5");
}

/// `answer` to the form `schema`, of class `class`.
fn answered(schema: Value, answer: Value, class: Class) -> SentAnswer {
    SentAnswer {
        requested_schema: schema,
        answer,
        class,
        built_as: String::new(),
    }
}

#[test]
fn a_re_ask_supersedes_the_earlier_answer_to_the_same_form() {
    let first = json!({"title": "first"});
    let second = json!({"title": "second"});
    let invalid = answered(
        first.clone(),
        json!({"action": "accept", "content": {"age": "x"}}),
        Class::InvalidAccept(vec!["/age: x".into()]),
    );
    let valid = answered(first.clone(), json!({}), Class::ValidAccept);
    let other = answered(second, json!({}), Class::ValidAccept);
    let url = answered(
        Value::Null,
        json!({"action": "accept"}),
        Class::UrlCompleted,
    );
    // Asked again: the last answer to each form counts, in the order of their last.
    let sent = [invalid.clone(), url.clone(), valid.clone(), other.clone()];
    assert_eq!(judged(&sent), vec![&valid, &other]);
    assert_eq!(superseded(&sent), 1);
    // No re-ask: the invalid answer counts.
    let once = [invalid.clone(), other.clone()];
    assert_eq!(judged(&once), vec![&invalid, &other]);
    assert_eq!(superseded(&once), 0);
    // An answer with no schema (a JSON-RPC error to a URL request) is never superseded.
    let error = answered(Value::Null, json!({"code": -32602}), Class::Error);
    let errors = [error.clone(), error.clone()];
    assert_eq!(judged(&errors), vec![&error, &error]);
    assert_eq!(superseded(&errors), 0);
    assert_eq!(superseded(&[url]), 0);
    // A decline, or a valid accept, stands whatever is asked after it.
    let decline = answered(
        first.clone(),
        json!({"action": "decline"}),
        Class::Refusal("decline".into()),
    );
    let near = answered(
        first.clone(),
        json!({"action": "Accept"}),
        Class::NearMiss("x".into()),
    );
    let standing = [decline.clone(), valid.clone()];
    assert_eq!(judged(&standing), vec![&decline, &valid]);
    assert_eq!(judged(&[valid.clone(), valid.clone()]).len(), 2);
    assert_eq!(judged(&[near, valid.clone()]), vec![&valid]);
    // A lenient accept the server asked again about (a strict server refused
    // its extra key) is superseded too; not asked again, it counts.
    let lenient = answered(
        first.clone(),
        json!({"action": "accept", "content": {"age": 3, "note": "x"}}),
        Class::LenientAccept(vec!["extra key `note`".into()]),
    );
    assert_eq!(judged(&[lenient.clone(), valid.clone()]), vec![&valid]);
    assert_eq!(
        judged(&[lenient.clone(), other.clone()]),
        vec![&lenient, &other]
    );
    // Acting after the re-asked valid answer is correct; after the first, property 2.
    let acted = |sent: &[SentAnswer]| judge_call(sent, true, &clean_wire(), &json!({}), false);
    assert!(
        acted(&[invalid.clone(), valid.clone()])
            .iter()
            .all(|(property, _)| *property != Property::NoActOnInvalid)
    );
    assert!(
        acted(&[valid, invalid])
            .iter()
            .any(|(property, _)| *property == Property::NoActOnInvalid)
    );
}

#[test]
fn acting_on_a_valid_accept_that_withholds_a_declared_consent_breaks_property_7() {
    let form = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}, "note": {"type": "string"}}});
    let declared = [DeclaredConsent {
        name: "confirm".into(),
        value: json!(true),
    }];
    let judge = |answer: Value, class: Class, acted: bool| {
        let sent = [answered(form.clone(), answer, class)];
        violations(&Observation {
            sent: &sent,
            reading: &Reading::plain(acted),
            capabilities: &json!({"elicitation": {"form": {}}}),
            wire: &clean_wire(),
            stray: &[],
            http: &[],
            forced_kill: false,
            grace: std::time::Duration::from_secs(5),
            call_failure: None,
            strict: false,
            allow_unasked: true,
            protocol: Protocol::V2025_11_25,
            consent: &declared,
        })
    };
    let no = json!({"action": "accept", "content": {"confirm": false}});
    assert_eq!(
        judge(no.clone(), Class::ValidAccept, true),
        vec![(
            Property::NoActWithoutAnswer,
            "acted on a valid accept that did not consent: `confirm` is false, not true (--consent /confirm=true)".to_owned()
        )]
    );
    let missing = json!({"action": "accept", "content": {"note": "x"}});
    assert_eq!(
        judge(missing.clone(), Class::LenientAccept(vec!["x".into()]), true),
        vec![(
            Property::NoActWithoutAnswer,
            "acted on a valid accept that did not consent: `confirm` is missing, not true (--consent /confirm=true)".to_owned()
        )]
    );
    // Refusing it is right; consenting is fine; an invalid or refused answer
    // is another property's.
    assert!(judge(no.clone(), Class::ValidAccept, false).is_empty());
    let yes = json!({"action": "accept", "content": {"confirm": true}});
    assert!(judge(yes, Class::ValidAccept, true).is_empty());
    assert_eq!(
        judge(no.clone(), Class::InvalidAccept(vec!["x".into()]), true)[0].0,
        Property::NoActOnInvalid
    );
    assert_eq!(
        judge(no, Class::Refusal("decline".into()), true)[0].0,
        Property::NoActOnRefusal
    );
    // A form without the declared field is not concerned.
    let other = json!({"type": "object", "properties": {"note": {"type": "string"}}});
    let sent = [answered(
        other,
        json!({"action": "accept", "content": {"note": "x"}}),
        Class::ValidAccept,
    )];
    assert_eq!(withheld_consent(&judged(&sent), &declared), None);
}

#[test]
fn an_act_alone_breaks_properties_1_2_7_and_8_and_no_other() {
    let broken: Vec<u8> = Property::ALL
        .into_iter()
        .filter(|property| property.broken_by_an_act())
        .map(Property::number)
        .collect();
    assert_eq!(broken, vec![1, 2, 7, 8]);
}

#[test]
fn only_a_field_of_the_calls_own_reply_is_read_as_that_calls_act_alone() {
    let field = ActedRule::Pointer("/booked".into());
    let value = ActedRule::Equals("/status".into(), json!("booked"));
    let text = ActedRule::Text {
        regex: regex::Regex::new("booked").expect("a regex"),
        not_error: false,
    };
    let command = ActedRule::Command("test -e booked".into());
    assert!(field.reads_a_reply_field());
    assert!(value.reads_a_reply_field());
    assert!(!text.reads_a_reply_field());
    assert!(!ActedRule::NotError.reads_a_reply_field());
    assert!(!command.reads_a_reply_field());
}
