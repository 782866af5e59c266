//! Consent fields: the boolean or enum field of a form whose one value the
//! tool acts on and whose other values it refuses (`confirm: true`,
//! `answer: "Yes"`), read from the calls whose every answer was a valid
//! accept (property 3 of `check`).
//!
//! A valid accept that withdraws consent (`{"confirm": false}`) is valid
//! content a correct server must refuse: refusing it is never a warning.
//! A field is a consent field when, over the valid calls that reached its
//! request, every call the tool acted on carried the field with one and the
//! same value, and some call it refused carried another value (or none).
//! Inferred from behaviour, never from a field's name.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::schema::{Form, Kind};

/// A field the tool acts on only at one value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsentField {
    /// The request it belongs to, from 0 (a multi-step form has several).
    pub request: usize,
    /// The property name.
    pub name: String,
    /// The one value the tool acted on.
    pub value: Value,
}

impl fmt::Display for ConsentField {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.request > 0 {
            write!(formatter, "request {}: ", self.request + 1)?;
        }
        write!(
            formatter,
            "/{} is a consent field: acts only when {}",
            self.name, self.value
        )
    }
}

/// One call whose every answer was a valid accept: each request's `content`
/// in order, and whether the tool acted.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidCall {
    /// The accepted `content` of each request the call answered.
    pub contents: Vec<Value>,
    /// Whether the call counts as acted.
    pub acted: bool,
}

/// The consent fields of `forms` (one per request, in order) shown by `calls`.
pub fn consent_fields(forms: &[Form], calls: &[ValidCall]) -> Vec<ConsentField> {
    let mut found = Vec::new();
    for (request, form) in forms.iter().enumerate() {
        for field in &form.fields {
            if !matches!(field.kind, Kind::Boolean | Kind::Enum { .. }) {
                continue;
            }
            let value_in = |call: &ValidCall| {
                call.contents
                    .get(request)
                    .map(|content| content.get(&field.name).cloned())
            };
            let mut acted_values = calls.iter().filter(|call| call.acted).filter_map(value_in);
            let Some(Some(value)) = acted_values.next() else {
                continue;
            };
            if !acted_values.all(|other| other.as_ref() == Some(&value)) {
                continue;
            }
            let refused_otherwise = calls
                .iter()
                .filter(|call| !call.acted)
                .filter_map(value_in)
                .any(|other| other.as_ref() != Some(&value));
            if refused_otherwise {
                found.push(ConsentField {
                    request,
                    name: field.name.clone(),
                    value,
                });
            }
        }
    }
    found
}

/// The consent field `call` withholds (carries another value, or none), if any:
/// the reason a refusal of it is correct.
pub fn withheld<'a>(fields: &'a [ConsentField], call: &ValidCall) -> Option<&'a ConsentField> {
    fields.iter().find(|field| {
        call.contents
            .get(field.request)
            .is_some_and(|content| content.get(&field.name) != Some(&field.value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> Form {
        Form::read(&json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean"},
                "notify": {"type": "boolean"},
                "reason": {"type": "string"},
                "answer": {"type": "string", "enum": ["Yes", "No"]}
            }
        }))
    }

    fn call(content: Value, acted: bool) -> ValidCall {
        ValidCall {
            contents: vec![content],
            acted,
        }
    }

    #[test]
    fn a_boolean_acted_on_only_when_true_is_a_consent_field() {
        let calls = [
            call(
                json!({"confirm": true, "notify": true, "reason": "a"}),
                true,
            ),
            call(
                json!({"confirm": true, "notify": false, "reason": "b"}),
                true,
            ),
            call(
                json!({"confirm": false, "notify": true, "reason": "a"}),
                false,
            ),
        ];
        let fields = consent_fields(&[form()], &calls);
        assert_eq!(
            fields,
            vec![ConsentField {
                request: 0,
                name: "confirm".into(),
                value: json!(true)
            }]
        );
        assert_eq!(
            fields[0].to_string(),
            "/confirm is a consent field: acts only when true"
        );
        assert_eq!(withheld(&fields, &calls[2]), Some(&fields[0]));
        assert_eq!(withheld(&fields, &calls[0]), None);
        // A refusal of a consenting call is not explained.
        let consenting_refused = call(json!({"confirm": true}), false);
        assert_eq!(withheld(&fields, &consenting_refused), None);
        let missing = call(json!({"reason": "x"}), false);
        assert_eq!(withheld(&fields, &missing), Some(&fields[0]));
    }

    #[test]
    fn no_consent_field_without_a_refusal_at_another_value_or_with_two_acted_values() {
        // Acted on both values of `notify`: not a consent field.
        let both = [
            call(json!({"notify": true}), true),
            call(json!({"notify": false}), true),
            call(json!({"notify": false}), false),
        ];
        assert!(consent_fields(&[form()], &both).is_empty());
        // Only ever true, never refused otherwise: nothing shows it.
        let never_refused = [
            call(json!({"confirm": true}), true),
            call(json!({"confirm": true}), false),
        ];
        assert!(consent_fields(&[form()], &never_refused).is_empty());
        // Absent in an acted call: not a consent field.
        let absent = [
            call(json!({"reason": "x"}), true),
            call(json!({"confirm": true}), true),
            call(json!({"confirm": false}), false),
        ];
        assert!(consent_fields(&[form()], &absent).is_empty());
        // A string field is never one.
        let strings = [
            call(json!({"reason": "go"}), true),
            call(json!({"reason": "stop"}), false),
        ];
        assert!(consent_fields(&[form()], &strings).is_empty());
        // Nothing acted: nothing to infer.
        assert!(consent_fields(&[form()], &[call(json!({"confirm": false}), false)]).is_empty());
    }

    #[test]
    fn an_enum_answer_and_a_later_request_are_read_too() {
        let calls = [
            ValidCall {
                contents: vec![json!({}), json!({"answer": "Yes"})],
                acted: true,
            },
            ValidCall {
                contents: vec![json!({}), json!({"answer": "No"})],
                acted: false,
            },
            // Did not reach the second request: says nothing about it.
            ValidCall {
                contents: vec![json!({})],
                acted: false,
            },
        ];
        let fields = consent_fields(&[form(), form()], &calls);
        assert_eq!(
            fields,
            vec![ConsentField {
                request: 1,
                name: "answer".into(),
                value: json!("Yes")
            }]
        );
        assert_eq!(
            fields[0].to_string(),
            "request 2: /answer is a consent field: acts only when \"Yes\""
        );
        assert_eq!(withheld(&fields, &calls[2]), None);
    }
}
