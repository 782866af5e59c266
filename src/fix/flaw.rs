//! Why a property failed, in the terms of the server's code: the *flaw* a
//! failure shows (lax type coercion, a decline acted on, a form sent to a
//! client that cannot answer it, ...). Each flaw has one remedy per SDK
//! ([`super::remedy`]) and a page in the guide (`docs/src/fixes/`).
//!
//! A flaw is read from the failing call's evidence, never from a reason's
//! wording: the property broken, the class the judge gave each answer
//! ([`Class`]), the `requestedSchema` each answered, and the capabilities the
//! client declared.

use serde::Serialize;
use serde_json::Value;

use crate::harness::client::declares_form;
use crate::oracle::property::{Class, Property, SentAnswer, judged};

/// The flaw behind a failed property, one per failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flaw {
    /// Property 2: content of the wrong JSON type was taken as the type
    /// asked (`"yes"` or `1` for a boolean, `"3"` or `3.5` for an integer,
    /// `"12"` for a number): a lax validator, or content read unvalidated.
    LaxCoercion,
    /// Property 2: content of the right types that breaks a rule of the
    /// schema (`minimum`/`maximum`, `minLength`/`maxLength`, `format`, `enum`,
    /// a `required` field missing) was acted on: the schema's rules are sent
    /// but not checked.
    UncheckedConstraints,
    /// Property 2: an `accept` without content, or with `content` that is
    /// not an object (`null`), acted on a form that requires fields.
    ContentlessAccept,
    /// Property 1 (and property 2's near misses): the tool acted on an answer
    /// whose action was not `accept`, mostly a `decline` or `cancel` that
    /// carried content.
    ActsOnRefusal,
    /// Property 7 with a consent field: a valid accept that withheld consent
    /// (`confirm: false`) was acted on: only the action was checked.
    ConsentIgnored,
    /// Property 4: a form was sent to a client that declared no form
    /// elicitation (none at all, or URL only).
    CapabilityNotChecked,
    /// Property 7: a client that could not answer a form (none declared, or
    /// every request refused with a JSON-RPC error) got the action anyway.
    FailOpen,
    /// Property 7: a client that could answer a form was never asked (or, in
    /// 2026-07-28, a retry without the answer acted instead of asking again).
    ActsWithoutAsking,
    /// Property 8, and property 7's answer from another session: the tool
    /// acted on input not bound to its call (a `requestState` it did not
    /// issue for this call, an answer POSTed under another session).
    UnboundState,
    /// Property 3: the tool refused valid consenting accepts.
    RefusesValid,
    /// Property 5: the stdio or Streamable HTTP transport's rules.
    TransportRule,
    /// Property 6: the acted value is not a JSON boolean.
    ActedNotBoolean,
}

impl Flaw {
    /// Every flaw, in the order the guide lists them.
    pub const ALL: [Flaw; 12] = [
        Flaw::LaxCoercion,
        Flaw::UncheckedConstraints,
        Flaw::ContentlessAccept,
        Flaw::ActsOnRefusal,
        Flaw::ConsentIgnored,
        Flaw::CapabilityNotChecked,
        Flaw::FailOpen,
        Flaw::ActsWithoutAsking,
        Flaw::UnboundState,
        Flaw::RefusesValid,
        Flaw::TransportRule,
        Flaw::ActedNotBoolean,
    ];

    /// Its name in reports and the file name of its guide page
    /// (`docs/src/fixes/<slug>.md`), e.g. `lax-coercion`.
    pub fn slug(self) -> &'static str {
        match self {
            Flaw::LaxCoercion => "lax-coercion",
            Flaw::UncheckedConstraints => "unchecked-constraints",
            Flaw::ContentlessAccept => "contentless-accept",
            Flaw::ActsOnRefusal => "acts-on-refusal",
            Flaw::ConsentIgnored => "consent-ignored",
            Flaw::CapabilityNotChecked => "capability-not-checked",
            Flaw::FailOpen => "fail-open",
            Flaw::ActsWithoutAsking => "acts-without-asking",
            Flaw::UnboundState => "unbound-state",
            Flaw::RefusesValid => "refuses-valid",
            Flaw::TransportRule => "transport-rule",
            Flaw::ActedNotBoolean => "acted-not-boolean",
        }
    }

    /// The properties whose failures may show it, e.g. property 2 for
    /// [`Flaw::ActsOnRefusal`]'s near misses as well as property 1.
    pub fn properties(self) -> &'static [Property] {
        match self {
            Flaw::LaxCoercion | Flaw::UncheckedConstraints | Flaw::ContentlessAccept => {
                &[Property::NoActOnInvalid]
            }
            Flaw::ActsOnRefusal => &[Property::NoActOnRefusal, Property::NoActOnInvalid],
            Flaw::ConsentIgnored | Flaw::FailOpen | Flaw::ActsWithoutAsking => {
                &[Property::NoActWithoutAnswer]
            }
            Flaw::CapabilityNotChecked => &[Property::CapabilityRespected],
            Flaw::UnboundState => &[Property::StateVerified, Property::NoActWithoutAnswer],
            Flaw::RefusesValid => &[Property::ActsOnValid],
            Flaw::TransportRule => &[Property::CleanWire],
            Flaw::ActedNotBoolean => &[Property::ActedIsBoolean],
        }
    }

    /// The flaw of a failure of `property` on a call that sent `sent` with
    /// the client capabilities `capabilities` (as declared, e.g.
    /// `{"elicitation":{"url":{}}}`).
    pub fn of(property: Property, sent: &[SentAnswer], capabilities: &Value) -> Flaw {
        match property {
            Property::NoActOnRefusal => Flaw::ActsOnRefusal,
            Property::NoActOnInvalid => invalid_flaw(sent),
            Property::ActsOnValid => Flaw::RefusesValid,
            Property::CapabilityRespected => Flaw::CapabilityNotChecked,
            Property::CleanWire => Flaw::TransportRule,
            Property::ActedIsBoolean => Flaw::ActedNotBoolean,
            Property::NoActWithoutAnswer => unanswered_flaw(sent, capabilities),
            Property::StateVerified => Flaw::UnboundState,
        }
    }
}

/// Property 2's flaw: the first judged answer that is not a valid accept
/// says which (a near miss is an action not checked; no content; a JSON type
/// taken for another; else a rule of the schema).
fn invalid_flaw(sent: &[SentAnswer]) -> Flaw {
    for answer in judged(sent) {
        match &answer.class {
            Class::NearMiss(_) => return Flaw::ActsOnRefusal,
            Class::InvalidAccept(_) | Class::LenientAccept(_) => {
                return match answer.answer.get("content") {
                    Some(Value::Object(content)) => {
                        if drifts(&answer.requested_schema, content) {
                            Flaw::LaxCoercion
                        } else {
                            Flaw::UncheckedConstraints
                        }
                    }
                    _ => Flaw::ContentlessAccept,
                };
            }
            _ => {}
        }
    }
    Flaw::UncheckedConstraints
}

/// Whether a field of `content` has another JSON type than the one its
/// property in `schema` declares (`"true"` for a boolean, `3.0` or `"3"`
/// for an integer, a number for a string, ...). Fields the schema does not
/// declare, or declares without a `type`, never drift.
pub fn drifts(schema: &Value, content: &serde_json::Map<String, Value>) -> bool {
    content.iter().any(|(name, value)| {
        let declared = schema
            .pointer(&format!("/properties/{}", pointer_token(name)))
            .and_then(|property| property.get("type"))
            .and_then(Value::as_str);
        match declared {
            Some("boolean") => !value.is_boolean(),
            Some("integer") => !(value.is_i64() || value.is_u64()),
            Some("number") => !value.is_number(),
            Some("string") => !value.is_string(),
            Some("array") => !value.is_array(),
            _ => false,
        }
    })
}

/// A key as a JSON Pointer reference token (RFC 6901: `~` as `~0`, `/` as `~1`).
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Property 7's flaw: a valid accept acted on despite its consent field; an
/// answer from another session (its own said decline); a retry without its
/// answer, or a form-capable client never asked; or a client that could not
/// answer (fail-open).
fn unanswered_flaw(sent: &[SentAnswer], capabilities: &Value) -> Flaw {
    let judged = judged(sent);
    if judged
        .iter()
        .any(|answer| matches!(answer.class, Class::ValidAccept | Class::LenientAccept(_)))
    {
        return Flaw::ConsentIgnored;
    }
    if judged
        .iter()
        .any(|answer| matches!(answer.class, Class::Refusal(_)))
    {
        return Flaw::UnboundState;
    }
    let retry_without_answer = sent
        .iter()
        .any(|answer| matches!(answer.class, Class::Unanswered(_)));
    if retry_without_answer || declares_form(capabilities) {
        Flaw::ActsWithoutAsking
    } else {
        Flaw::FailOpen
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const FORM: &str = r#"{"type":"object","properties":{"confirm":{"type":"boolean"},"count":{"type":"integer","minimum":1,"maximum":10},"note":{"type":"string"},"price":{"type":"number"},"tags":{"type":"array"}},"required":["confirm","count"]}"#;

    fn answer(class: Class, answer: Value) -> SentAnswer {
        SentAnswer {
            requested_schema: serde_json::from_str(FORM).unwrap(),
            answer,
            class,
            built_as: String::new(),
        }
    }

    fn invalid(content: Value) -> SentAnswer {
        answer(
            Class::InvalidAccept(vec!["by hand".to_owned()]),
            json!({"action": "accept", "content": content}),
        )
    }

    fn form_client() -> Value {
        json!({"elicitation": {"form": {}}})
    }

    #[test]
    fn each_wrong_json_type_is_lax_coercion() {
        for content in [
            json!({"confirm": "true", "count": 3}),
            json!({"confirm": 1, "count": 3}),
            json!({"confirm": true, "count": "3"}),
            json!({"confirm": true, "count": 3.0}),
            json!({"confirm": true, "count": 3.5}),
            json!({"confirm": true, "count": true}),
            json!({"confirm": true, "count": 3, "note": 7}),
            json!({"confirm": true, "count": 3, "price": "12"}),
            json!({"confirm": true, "count": 3, "tags": "a"}),
        ] {
            assert_eq!(
                Flaw::of(
                    Property::NoActOnInvalid,
                    &[invalid(content.clone())],
                    &form_client()
                ),
                Flaw::LaxCoercion,
                "{content}"
            );
        }
    }

    #[test]
    fn right_types_breaking_a_rule_are_unchecked_constraints() {
        for content in [
            json!({"confirm": true, "count": 11}),
            json!({"confirm": true, "count": 0}),
            json!({"confirm": true}),
            json!({"confirm": true, "count": 3, "price": 1.5, "note": ""}),
            json!({"confirm": true, "count": 3, "unknown": "x"}),
        ] {
            assert_eq!(
                Flaw::of(
                    Property::NoActOnInvalid,
                    &[invalid(content.clone())],
                    &form_client()
                ),
                Flaw::UncheckedConstraints,
                "{content}"
            );
        }
    }

    #[test]
    fn no_content_null_content_or_an_array_is_a_contentless_accept() {
        for sent in [
            answer(
                Class::InvalidAccept(vec!["accept has no content".to_owned()]),
                json!({"action": "accept"}),
            ),
            invalid(Value::Null),
            invalid(json!([true, 3])),
        ] {
            assert_eq!(
                Flaw::of(Property::NoActOnInvalid, &[sent], &form_client()),
                Flaw::ContentlessAccept
            );
        }
    }

    #[test]
    fn a_near_miss_action_is_acting_on_what_is_not_an_accept() {
        let near = answer(
            Class::NearMiss("action \"reject\"".to_owned()),
            json!({"action": "reject", "content": {"confirm": true, "count": 3}}),
        );
        assert_eq!(
            Flaw::of(Property::NoActOnInvalid, &[near], &form_client()),
            Flaw::ActsOnRefusal
        );
    }

    #[test]
    fn a_lenient_accept_under_strict_is_read_by_its_types() {
        let whole_float = answer(
            Class::LenientAccept(vec!["whole float 3.0 for integer `count`".to_owned()]),
            json!({"action": "accept", "content": {"confirm": true, "count": 3.0}}),
        );
        let extra_key = answer(
            Class::LenientAccept(vec!["extra key `note2`".to_owned()]),
            json!({"action": "accept", "content": {"confirm": true, "count": 3, "note2": "x"}}),
        );
        assert_eq!(
            Flaw::of(Property::NoActOnInvalid, &[whole_float], &form_client()),
            Flaw::LaxCoercion
        );
        assert_eq!(
            Flaw::of(Property::NoActOnInvalid, &[extra_key], &form_client()),
            Flaw::UncheckedConstraints
        );
    }

    #[test]
    fn a_superseded_answer_gives_way_to_the_judged_one() {
        // The lax answer was asked again; the bounds break of the later one
        // is what the tool acted on.
        let sent = [
            invalid(json!({"confirm": "yes", "count": 3})),
            invalid(json!({"confirm": true, "count": 11})),
        ];
        assert_eq!(
            Flaw::of(Property::NoActOnInvalid, &sent, &form_client()),
            Flaw::UncheckedConstraints
        );
    }

    #[test]
    fn property_7_tells_consent_other_sessions_retries_and_clients_apart() {
        let valid = answer(
            Class::ValidAccept,
            json!({"action": "accept", "content": {"confirm": false, "count": 3}}),
        );
        let decline = answer(
            Class::Refusal("decline".to_owned()),
            json!({"action": "decline"}),
        );
        let missing = answer(
            Class::Unanswered("no inputResponses".to_owned()),
            Value::Null,
        );
        let error = answer(Class::Error, json!({"code": -32602}));
        let seven = Property::NoActWithoutAnswer;
        assert_eq!(
            Flaw::of(seven, &[valid], &form_client()),
            Flaw::ConsentIgnored
        );
        assert_eq!(
            Flaw::of(seven, &[decline], &form_client()),
            Flaw::UnboundState
        );
        assert_eq!(
            Flaw::of(seven, &[missing], &form_client()),
            Flaw::ActsWithoutAsking
        );
        assert_eq!(
            Flaw::of(seven, &[], &json!({"elicitation": {}})),
            Flaw::ActsWithoutAsking
        );
        assert_eq!(Flaw::of(seven, &[], &json!({})), Flaw::FailOpen);
        assert_eq!(
            Flaw::of(seven, &[], &json!({"elicitation": {"url": {}}})),
            Flaw::FailOpen
        );
        assert_eq!(Flaw::of(seven, &[error], &json!({})), Flaw::FailOpen);
    }

    #[test]
    fn the_other_properties_have_one_flaw_each() {
        let none: &[SentAnswer] = &[];
        let client = form_client();
        let expected = [
            (Property::NoActOnRefusal, Flaw::ActsOnRefusal),
            (Property::ActsOnValid, Flaw::RefusesValid),
            (Property::CapabilityRespected, Flaw::CapabilityNotChecked),
            (Property::CleanWire, Flaw::TransportRule),
            (Property::ActedIsBoolean, Flaw::ActedNotBoolean),
            (Property::StateVerified, Flaw::UnboundState),
        ];
        for (property, flaw) in expected {
            assert_eq!(Flaw::of(property, none, &client), flaw, "{property}");
        }
    }

    #[test]
    fn each_flaw_names_the_properties_that_show_it() {
        let shown = [
            (Property::NoActOnRefusal, Flaw::ActsOnRefusal),
            (Property::NoActOnInvalid, Flaw::ActsOnRefusal),
            (Property::NoActOnInvalid, Flaw::LaxCoercion),
            (Property::NoActOnInvalid, Flaw::UncheckedConstraints),
            (Property::NoActOnInvalid, Flaw::ContentlessAccept),
            (Property::ActsOnValid, Flaw::RefusesValid),
            (Property::CapabilityRespected, Flaw::CapabilityNotChecked),
            (Property::CleanWire, Flaw::TransportRule),
            (Property::ActedIsBoolean, Flaw::ActedNotBoolean),
            (Property::NoActWithoutAnswer, Flaw::ConsentIgnored),
            (Property::NoActWithoutAnswer, Flaw::FailOpen),
            (Property::NoActWithoutAnswer, Flaw::ActsWithoutAsking),
            (Property::NoActWithoutAnswer, Flaw::UnboundState),
            (Property::StateVerified, Flaw::UnboundState),
        ];
        for flaw in Flaw::ALL {
            let expected: Vec<Property> = shown
                .iter()
                .filter(|(_, shows)| *shows == flaw)
                .map(|(property, _)| *property)
                .collect();
            let mut named = flaw.properties().to_vec();
            named.sort();
            assert_eq!(named, expected, "{flaw:?}");
        }
    }

    #[test]
    fn a_key_with_a_slash_is_found_under_its_escaped_pointer() {
        let schema =
            json!({"properties": {"a/b": {"type": "integer"}, "c~d": {"type": "boolean"}}});
        let content = |value: Value| value.as_object().unwrap().clone();
        assert!(drifts(&schema, &content(json!({"a/b": "1"}))));
        assert!(drifts(&schema, &content(json!({"c~d": 0}))));
        assert!(!drifts(&schema, &content(json!({"a/b": 1, "c~d": false}))));
    }

    #[test]
    fn every_json_integer_is_an_integer_however_it_is_held() {
        // serde_json holds 3 as both i64 and u64, -3 as i64 only, and a
        // value above i64::MAX as u64 only: each is an integer.
        let schema = json!({"properties": {"count": {"type": "integer"}}});
        let content = |value: Value| json!({"count": value}).as_object().unwrap().clone();
        for integer in [json!(3), json!(-3), json!(u64::MAX), json!(i64::MIN)] {
            assert!(!drifts(&schema, &content(integer.clone())), "{integer}");
        }
        assert!(drifts(&schema, &content(json!(3.0))));
    }

    #[test]
    fn every_slug_is_distinct_and_kebab_case() {
        let slugs: Vec<&str> = Flaw::ALL.iter().map(|flaw| flaw.slug()).collect();
        let mut unique = slugs.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), slugs.len());
        for (flaw, slug) in Flaw::ALL.iter().zip(&slugs) {
            assert_eq!(
                serde_json::to_value(flaw).unwrap(),
                json!(slug),
                "serialized as its slug"
            );
        }
    }
}
