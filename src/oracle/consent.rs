//! Consent fields: the boolean or enum field of a form whose one value the
//! tool acts on and whose other values it refuses (`confirm: true`,
//! `answer: "Yes"`), read from the calls whose every answer was a valid
//! accept (property 3 of `check`), or declared (`--consent POINTER=JSON`).
//!
//! A valid accept that withdraws consent (`{"confirm": false}`) is valid
//! content a correct server must refuse: refusing it is never a warning.
//! A field is a consent field when, over the valid calls that reached its
//! request, every call the tool acted on carried the field with one and the
//! same value, and some call it refused carried another value (or none).
//! Inferred from behaviour, never from a field's name: so a tool that acts on
//! both values has none, and the worst confirmation bug (the user said no,
//! the tool acted) shows only when the field is declared. A declared field
//! makes acting on any other value a failure of property 7; a field whose
//! name, title or description reads as consent ([`reads_as_consent`]) and
//! that the tool acted on at two values is a warning naming the option.

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
    /// The one value the tool acted on (declared: the one that consents).
    pub value: Value,
    /// Whether it was declared with `--consent` rather than inferred.
    pub declared: bool,
}

impl fmt::Display for ConsentField {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.request > 0 {
            write!(formatter, "request {}: ", self.request + 1)?;
        }
        if self.declared {
            write!(
                formatter,
                "/{} is the consent field declared with --consent: acts only when {}",
                self.name, self.value
            )
        } else {
            write!(
                formatter,
                "/{} is a consent field: acts only when {}",
                self.name, self.value
            )
        }
    }
}

/// A consent field declared with `--consent POINTER=JSON`: the property of
/// the form (`/confirm`, one level: MCP forms are flat) and the one value
/// that consents (`true`, `"Yes"`), compared by JSON value.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredConsent {
    /// The property name (the pointer without its `/`).
    pub name: String,
    /// The consenting value.
    pub value: Value,
}

impl DeclaredConsent {
    /// `(name, consenting value)`, as [`crate::schema::coverage::base_candidates_fixing`] takes it.
    pub fn pair(&self) -> (&str, &Value) {
        (&self.name, &self.value)
    }
}

impl fmt::Display for DeclaredConsent {
    /// As its option: `--consent /confirm=true`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "--consent /{}={}", self.name, self.value)
    }
}

impl DeclaredConsent {
    /// Parses `POINTER=JSON` (split at the first `=`): `/confirm=true`,
    /// `/choice="Yes"`.
    ///
    /// # Errors
    /// A message naming what is wrong: no `=`, a pointer that is not one
    /// property of the form (`/name`), or not JSON after `=`.
    pub fn parse(text: &str) -> Result<DeclaredConsent, String> {
        let Some((pointer, value)) = text.split_once('=') else {
            return Err(format!(
                "--consent {text:?}: give the field and the value that consents, e.g. /confirm=true or /choice=\"Yes\""
            ));
        };
        let name = pointer
            .strip_prefix('/')
            .filter(|name| !name.is_empty() && !name.contains('/'))
            .ok_or_else(|| {
                format!(
                    "--consent {text:?}: {pointer:?} is not a property of the form (a pointer to one property, e.g. /confirm: MCP forms are flat)"
                )
            })?;
        let value = serde_json::from_str(value).map_err(|error| {
            format!(
                "--consent {text:?}: {value:?} after `=` is not JSON ({error}); a string is quoted: {pointer}=\"Yes\""
            )
        })?;
        Ok(DeclaredConsent {
            name: name.replace("~1", "/").replace("~0", "~"),
            value,
        })
    }

    /// What `content`, answering the form `schema`, carries instead of the
    /// consenting value, when the form has the field and it does not consent:
    /// `` `confirm` is false, not true ``, `` `confirm` is missing ``; none
    /// when it consents or the form has no such field.
    pub fn withheld_by(&self, schema: &Value, content: &Value) -> Option<String> {
        schema.pointer("/properties")?.get(&self.name)?;
        match content.get(&self.name) {
            Some(value) if *value == self.value => None,
            Some(value) => Some(format!("`{}` is {value}, not {}", self.name, self.value)),
            None => Some(format!("`{}` is missing, not {}", self.name, self.value)),
        }
    }
}

/// Whether each field declared with `--consent` is one the tool's forms
/// (`forms`, one per request) ask for, with a consenting value the field can
/// take: `true` or `false` for a boolean, one of its values for an enum. A
/// misspelt pointer would otherwise declare nothing and property 7 would
/// hold without a word.
///
/// # Errors
/// The first declaration that names no field of any form (`--consent
/// /confrim=true: no form the tool asked for has a field "confrim"; its
/// fields: name, confirm`), or whose value the field cannot take.
pub fn check_declared(forms: &[Form], declared: &[DeclaredConsent]) -> Result<(), String> {
    let fields: Vec<_> = forms.iter().flat_map(|form| &form.fields).collect();
    for consent in declared {
        let Some(field) = fields.iter().find(|field| field.name == consent.name) else {
            let mut names: Vec<&str> = Vec::new();
            for field in &fields {
                if !names.contains(&field.name.as_str()) {
                    names.push(&field.name);
                }
            }
            let names = if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            };
            return Err(format!(
                "{consent}: no form the tool asked for has a field {:?}; its fields: {names}",
                consent.name
            ));
        };
        // The values the field takes, when it is not one of them.
        let refused = match &field.kind {
            Kind::Boolean => (!consent.value.is_boolean()).then(|| "true or false".to_owned()),
            Kind::Enum { values } => (!consent
                .value
                .as_str()
                .is_some_and(|value| values.iter().any(|known| known == value)))
            .then(|| {
                let values: Vec<String> = values
                    .iter()
                    .map(|value| Value::from(value.as_str()).to_string())
                    .collect();
                format!("one of {}", values.join(", "))
            }),
            _ => None,
        };
        if let Some(expected) = refused {
            return Err(format!(
                "{consent}: the field {:?} takes {expected}, never {}",
                consent.name, consent.value
            ));
        }
    }
    Ok(())
}

/// The declared consent fields, one per request whose form (`forms`, one per
/// request in order) has the field.
pub fn declared_fields(forms: &[Form], declared: &[DeclaredConsent]) -> Vec<ConsentField> {
    let mut found = Vec::new();
    for (request, form) in forms.iter().enumerate() {
        for consent in declared {
            if form.fields.iter().any(|field| field.name == consent.name) {
                found.push(ConsentField {
                    request,
                    name: consent.name.clone(),
                    value: consent.value.clone(),
                    declared: true,
                });
            }
        }
    }
    found
}

/// Whether a field reads as consent: its name, or its `title` or
/// `description` in `schema` (the form's `requestedSchema`), says confirm,
/// approve, consent, proceed, agree, authorize, or "are you sure".
pub fn reads_as_consent(schema: &Value, name: &str) -> bool {
    static WORDS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| {
        regex::Regex::new(r"(?i)confirm|approv|consent|proceed|agree|authori[sz]|are you sure")
            .expect("a valid pattern")
    });
    let property = schema.pointer("/properties").and_then(|p| p.get(name));
    let text = |key: &str| {
        property
            .and_then(|property| property.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    words.is_match(name) || words.is_match(text("title")) || words.is_match(text("description"))
}

/// The fields of `forms` (their schemas `schemas`, one per request) that
/// read as consent ([`reads_as_consent`]), are booleans or enums, are not
/// declared, and that the tool acted on at two values or more in `calls`:
/// each `(request, name, the values acted on)`.
pub fn undeclared_acted_both(
    forms: &[Form],
    schemas: &[Value],
    calls: &[ValidCall],
    declared: &[DeclaredConsent],
) -> Vec<(usize, String, Vec<Value>)> {
    let mut found = Vec::new();
    for (request, (form, schema)) in forms.iter().zip(schemas).enumerate() {
        for field in &form.fields {
            let kind = matches!(field.kind, Kind::Boolean | Kind::Enum { .. });
            if !kind
                || declared.iter().any(|consent| consent.name == field.name)
                || !reads_as_consent(schema, &field.name)
            {
                continue;
            }
            let mut values: Vec<Value> = Vec::new();
            for call in calls.iter().filter(|call| call.acted) {
                if let Some(value) = call
                    .contents
                    .get(request)
                    .and_then(|content| content.get(&field.name))
                    && !values.contains(value)
                {
                    values.push(value.clone());
                }
            }
            if values.len() > 1 {
                found.push((request, field.name.clone(), values));
            }
        }
    }
    found
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
                    declared: false,
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
                value: json!(true),
                declared: false,
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
                value: json!("Yes"),
                declared: false,
            }]
        );
        assert_eq!(
            fields[0].to_string(),
            "request 2: /answer is a consent field: acts only when \"Yes\""
        );
        assert_eq!(withheld(&fields, &calls[2]), None);
    }

    #[test]
    fn a_declared_consent_parses_as_pointer_equals_json_and_prints_as_its_option() {
        let yes = DeclaredConsent::parse("/choice=\"Yes\"").expect("parses");
        assert_eq!(
            yes,
            DeclaredConsent {
                name: "choice".into(),
                value: json!("Yes")
            }
        );
        assert_eq!(yes.to_string(), "--consent /choice=\"Yes\"");
        let escaped = DeclaredConsent::parse("/a~1b~0c=true").expect("parses");
        assert_eq!(escaped.name, "a/b~c");
        assert_eq!(
            DeclaredConsent::parse("/confirm").expect_err("no value"),
            "--consent \"/confirm\": give the field and the value that consents, e.g. /confirm=true or /choice=\"Yes\""
        );
        for pointer in ["confirm=true", "/=true", "/a/b=true"] {
            let error = DeclaredConsent::parse(pointer).expect_err("not one property");
            assert!(error.contains("is not a property of the form"), "{error}");
        }
        let error = DeclaredConsent::parse("/choice=Yes").expect_err("not JSON");
        assert!(error.contains("after `=` is not JSON"), "{error}");
    }

    #[test]
    fn a_declared_consent_must_name_a_field_of_a_form_and_a_value_it_takes() {
        let second = Form::read(&json!({
            "type": "object",
            "properties": {"go": {"type": "boolean"}}
        }));
        let forms = [form(), second];
        let declare = |text: &str| vec![DeclaredConsent::parse(text).expect("parses")];
        for text in [
            "/confirm=true",
            "/confirm=false",
            "/answer=\"No\"",
            "/go=true",
        ] {
            assert_eq!(check_declared(&forms, &declare(text)), Ok(()), "{text}");
        }
        // A field of any kind but boolean and enum: any value (the judge says
        // whether an answer carrying it is valid).
        assert_eq!(check_declared(&forms, &declare("/reason=\"ok\"")), Ok(()));
        assert_eq!(
            check_declared(&forms, &declare("/confrim=true")),
            Err("--consent /confrim=true: no form the tool asked for has a field \"confrim\"; its fields: confirm, notify, reason, answer, go".to_owned())
        );
        assert_eq!(
            check_declared(&[], &declare("/confirm=true")),
            Err("--consent /confirm=true: no form the tool asked for has a field \"confirm\"; its fields: none".to_owned())
        );
        assert_eq!(
            check_declared(&forms, &declare("/confirm=\"yes\"")),
            Err("--consent /confirm=\"yes\": the field \"confirm\" takes true or false, never \"yes\"".to_owned())
        );
        assert_eq!(
            check_declared(&forms, &declare("/answer=\"Maybe\"")),
            Err("--consent /answer=\"Maybe\": the field \"answer\" takes one of \"Yes\", \"No\", never \"Maybe\"".to_owned())
        );
        assert_eq!(
            check_declared(&forms, &declare("/answer=true")),
            Err("--consent /answer=true: the field \"answer\" takes one of \"Yes\", \"No\", never true".to_owned())
        );
        // The first bad one of several.
        let both = [declare("/go=true"), declare("/nope=1")].concat();
        assert!(check_declared(&forms, &both).is_err_and(|error| error.contains("\"nope\"")));
    }

    #[test]
    fn a_declared_consent_is_withheld_by_another_value_or_none_in_a_form_that_has_it() {
        let consent = DeclaredConsent::parse("/confirm=true").expect("parses");
        let schema = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}});
        assert_eq!(
            consent.withheld_by(&schema, &json!({"confirm": false})),
            Some("`confirm` is false, not true".into())
        );
        assert_eq!(
            consent.withheld_by(&schema, &json!({})),
            Some("`confirm` is missing, not true".into())
        );
        assert_eq!(
            consent.withheld_by(&schema, &json!({"confirm": true})),
            None
        );
        // `1` is not `true`: compared by JSON value.
        assert!(
            consent
                .withheld_by(&schema, &json!({"confirm": 1}))
                .is_some()
        );
        let without = json!({"type": "object", "properties": {"note": {"type": "string"}}});
        assert_eq!(consent.withheld_by(&without, &json!({})), None);
        assert_eq!(consent.withheld_by(&json!({}), &json!({})), None);
        // Declared fields: one per request whose form has the field.
        let fields = declared_fields(&[form(), Form::read(&without), form()], &[consent]);
        assert_eq!(
            fields.iter().map(|field| field.request).collect::<Vec<_>>(),
            vec![0, 2]
        );
        assert!(fields.iter().all(|field| field.declared));
        assert_eq!(
            fields[1].to_string(),
            "request 3: /confirm is the consent field declared with --consent: acts only when true"
        );
    }

    #[test]
    fn a_field_reads_as_consent_by_its_name_title_or_description() {
        let schema = json!({"type": "object", "properties": {
            "ok": {"type": "boolean", "title": "Are you sure?"},
            "go": {"type": "boolean", "description": "Authorise the payment"},
            "flag": {"type": "boolean", "title": "Notify me"},
            "approved": {"type": "boolean"}
        }});
        assert!(reads_as_consent(&schema, "ok"));
        assert!(reads_as_consent(&schema, "go"));
        assert!(reads_as_consent(&schema, "approved"));
        assert!(reads_as_consent(&schema, "user_agrees"));
        assert!(!reads_as_consent(&schema, "flag"));
        assert!(!reads_as_consent(&json!({}), "flag"));
    }

    #[test]
    fn a_field_that_reads_as_consent_and_was_acted_on_at_two_values_is_named_unless_declared() {
        let schema = json!({"type": "object", "properties": {
            "confirm": {"type": "boolean"},
            "notify": {"type": "boolean"},
            "reason": {"type": "string", "title": "why you confirm"}
        }});
        let calls = [
            call(
                json!({"confirm": true, "notify": true, "reason": "a"}),
                true,
            ),
            call(
                json!({"confirm": false, "notify": false, "reason": "b"}),
                true,
            ),
            call(json!({"confirm": true}), false),
        ];
        assert_eq!(
            undeclared_acted_both(&[form()], std::slice::from_ref(&schema), &calls, &[]),
            vec![(0, "confirm".to_owned(), vec![json!(true), json!(false)])]
        );
        let declared = DeclaredConsent::parse("/confirm=true").expect("parses");
        assert!(
            undeclared_acted_both(
                &[form()],
                std::slice::from_ref(&schema),
                &calls,
                &[declared]
            )
            .is_empty()
        );
        // Acted on at one value only: nothing to say.
        assert!(undeclared_acted_both(&[form()], &[schema], &calls[..1], &[]).is_empty());
    }
}
