//! The coverage phase of `check`: answers enumerated once from the
//! `requestedSchema`, in a fixed order that no seed changes (the shape of
//! schemathesis's coverage phase), before any random answer is drawn.
//!
//! Everything starts from a **base**: a small valid accept that consents (every
//! boolean `true`, the first enum value, the lowest value in range, the
//! shortest string its bounds allow). The probe tries the candidates of
//! [`base_candidates`] in order and keeps the first one the tool acts on, so a
//! mutation of the base that the server still acts on is caught whatever else
//! the server refuses. [`coverage_answers`] then lists, in this order:
//!
//! 1. the base itself (a valid accept);
//! 2. the valid accepts that withdraw consent one field at a time (a boolean
//!    `false`, each other enum value, an optional field left out);
//! 3. the valid accepts that consent with one formatted string in another
//!    shape its RFC allows ([`super::formats::shapes`]: a `date-time` with an
//!    offset, with a fraction, in lower case, on a leap day, ...), each that
//!    fits the field's length bounds;
//! 4. every one-step mutation of the base ([`super::answer::mutations`]: each
//!    bound crossed, each format broken by each lenient reading of
//!    [`super::formats::malformed`], each lenient spelling, `null`, a required
//!    field removed, ...): each is its own minimal example;
//! 5. the lenient variants (an extra key, a whole float for an integer);
//! 6. every action × content shape: accept without content, with `null`, with
//!    `{}`; decline and cancel without and with the base as content; the
//!    near-miss actions with the base as content.

use serde_json::{Map, Value, json};

use super::answer::{Built, GeneratedAnswer, lenient_variants, mutations};
use super::{Field, Form, Kind, formats};

/// Most base candidates the probe tries (one per enum value, then one with the
/// required fields only).
pub const MAX_CANDIDATES: usize = 4;

/// The `built_as` of the base valid accept, of every valid accept that
/// withdraws consent and of every one in another shape starts with this.
pub const VALID: &str = "accept: valid content";

/// The consenting value of `field` in candidate `index`: booleans `true`, enum
/// value `index` (wrapping), the lowest in-range number closest to 1, the
/// shortest string its length allows (a fixed example for a format).
pub fn consenting_value(field: &Field, index: usize) -> Value {
    match &field.kind {
        Kind::String {
            min_length,
            max_length,
            format,
        } => match format.as_deref().and_then(formats::example) {
            Some(example) => json!(example),
            None => {
                let length = min_length
                    .unwrap_or(1)
                    .max(1)
                    .min(max_length.unwrap_or(u64::MAX));
                json!("a".repeat(length as usize))
            }
        },
        Kind::Number {
            integer,
            minimum,
            maximum,
        } => {
            let mut value = 1.0_f64;
            if let Some(high) = maximum {
                value = value.min(if *integer { high.floor() } else { *high });
            }
            if let Some(low) = minimum {
                value = value.max(if *integer { low.ceil() } else { *low });
            }
            if *integer || value.fract() == 0.0 {
                json!(value as i64)
            } else {
                serde_json::Number::from_f64(value).map_or(json!(1), Value::Number)
            }
        }
        Kind::Boolean => json!(true),
        Kind::Enum { values } if !values.is_empty() => json!(values[index % values.len()]),
        Kind::MultiSelect {
            values,
            min_items,
            max_items,
        } => {
            let count = min_items
                .unwrap_or(1)
                .max(1)
                .min(max_items.unwrap_or(u64::MAX)) as usize;
            json!(values.iter().take(count).collect::<Vec<_>>())
        }
        Kind::Enum { .. } | Kind::Other => json!("x"),
    }
}

/// The base candidates of `form`, consenting ones first and without
/// duplicates: every field at its consenting value with enum value 0, 1, ...
/// (as many as the longest enum has, at most [`MAX_CANDIDATES`] - 1), then the
/// required fields only.
pub fn base_candidates(form: &Form) -> Vec<Map<String, Value>> {
    let longest_enum = form
        .fields
        .iter()
        .map(|field| match &field.kind {
            Kind::Enum { values } => values.len(),
            _ => 1,
        })
        .max()
        .unwrap_or(1)
        .clamp(1, MAX_CANDIDATES - 1);
    let mut candidates: Vec<Map<String, Value>> = Vec::new();
    let whole = (0..longest_enum).map(|index| {
        form.fields
            .iter()
            .map(|field| (field.name.clone(), consenting_value(field, index)))
            .collect::<Map<String, Value>>()
    });
    let required = form
        .fields
        .iter()
        .filter(|field| field.required)
        .map(|field| (field.name.clone(), consenting_value(field, 0)))
        .collect();
    for candidate in whole.chain(std::iter::once(required)) {
        if !candidates.contains(&candidate) {
            candidates.push(candidate);
        }
    }
    candidates
}

/// [`base_candidates`] with each field named in `fixed` (name, value) at
/// that value in every candidate: a consent field the user declared
/// (`check --consent /NAME=JSON`) consents only at its declared value.
pub fn base_candidates_fixing<'a>(
    form: &Form,
    fixed: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> Vec<Map<String, Value>> {
    let fixed: Vec<(&str, &Value)> = fixed.into_iter().collect();
    let mut candidates = base_candidates(form);
    for candidate in &mut candidates {
        for &(name, value) in &fixed {
            if form.fields.iter().any(|field| field.name == name) {
                candidate.insert(name.to_owned(), value.clone());
            }
        }
    }
    candidates
}

/// `{"action":"accept","content":CONTENT}`.
pub fn accept(content: &Map<String, Value>) -> Value {
    json!({"action": "accept", "content": content})
}

/// The coverage answers for one request whose schema reads as `form`, built
/// from `base` (see the module docs for the order). Each answer's `built_as`
/// names what it is, e.g. ``accept: 15 above maximum 14 for `nights` ``.
pub fn coverage_answers(form: &Form, base: &Map<String, Value>) -> Vec<GeneratedAnswer> {
    let mut answers = vec![GeneratedAnswer {
        answer: accept(base),
        built_as: VALID.to_owned(),
        built: Built::Valid,
    }];
    let mut content_answer = |built_as: String, built: Built, content: &Map<String, Value>| {
        answers.push(GeneratedAnswer {
            answer: accept(content),
            built_as,
            built,
        });
    };
    for (how, content) in withdrawals(form, base)
        .into_iter()
        .chain(other_shapes(form, base))
    {
        content_answer(format!("{VALID}, {how}"), Built::Valid, &content);
    }
    for (mutation, content) in mutations(form, base) {
        content_answer(format!("accept: {mutation}"), Built::Mutated, &content);
    }
    for (how, content) in lenient_variants(form, base) {
        content_answer(format!("accept: {how}"), Built::Lenient, &content);
    }
    let shapes = [
        (
            json!({"action": "accept"}),
            "accept without content",
            Built::ContentShape,
        ),
        (
            json!({"action": "accept", "content": null}),
            "accept with content null",
            Built::ContentShape,
        ),
        (
            json!({"action": "accept", "content": {}}),
            "accept with empty content {}",
            Built::ContentShape,
        ),
        (json!({"action": "decline"}), "decline", Built::Refusal),
        (json!({"action": "cancel"}), "cancel", Built::Refusal),
        (
            json!({"action": "decline", "content": base}),
            "decline with content",
            Built::Refusal,
        ),
        (
            json!({"action": "cancel", "content": base}),
            "cancel with content",
            Built::Refusal,
        ),
    ];
    for (answer, built_as, built) in shapes {
        answers.push(GeneratedAnswer {
            answer,
            built_as: built_as.to_owned(),
            built,
        });
    }
    for action in ["Accept", "ACCEPT", "reject", ""] {
        answers.push(GeneratedAnswer {
            answer: json!({"action": action, "content": base}),
            built_as: format!("near-miss action {action:?} with valid content"),
            built: Built::NearMissAction,
        });
    }
    answers.push(GeneratedAnswer {
        answer: json!({"content": base}),
        built_as: "no action, valid content".to_owned(),
        built: Built::NearMissAction,
    });
    answers
}

/// How many of `answers` were built on each field of `form`, in the form's
/// order, e.g. `("nights", 10)`: the answers whose description names the
/// field in backticks (the report's "which classes each field had").
pub fn field_counts(form: &Form, answers: &[GeneratedAnswer]) -> Vec<(String, usize)> {
    form.fields
        .iter()
        .map(|field| {
            let named = format!("`{}`", field.name);
            let count = answers
                .iter()
                .filter(|answer| answer.built_as.contains(&named))
                .count();
            (field.name.clone(), count)
        })
        .collect()
}

/// The valid variants of `base` that withdraw consent one field at a time:
/// a `true` boolean set `false`, each other value of an enum, an optional
/// field left out.
fn withdrawals(form: &Form, base: &Map<String, Value>) -> Vec<(String, Map<String, Value>)> {
    let mut out = Vec::new();
    for field in &form.fields {
        let name = &field.name;
        let mut with = |how: String, value: Option<Value>| {
            let mut changed = base.clone();
            match value {
                Some(value) => changed.insert(name.clone(), value),
                None => changed.remove(name),
            };
            if changed != *base {
                out.push((how, changed));
            }
        };
        match &field.kind {
            Kind::Boolean => with(format!("`{name}` false"), Some(json!(false))),
            Kind::Enum { values } => {
                for value in values {
                    if base.get(name) != Some(&json!(value)) {
                        with(format!("`{name}` {value:?}"), Some(json!(value)));
                    }
                }
            }
            _ => {}
        }
        if !field.required && base.contains_key(name) {
            with(format!("`{name}` left out"), None);
        }
    }
    out
}

/// The valid variants of `base` that still consent, with one formatted string
/// in another shape ([`formats::shapes`]), e.g. ``(`arrival` with an offset
/// "2030-01-15T10:00:00+02:00", ..)``: only for a field the base has, and only
/// the shapes within the field's `minLength` and `maxLength`.
fn other_shapes(form: &Form, base: &Map<String, Value>) -> Vec<(String, Map<String, Value>)> {
    let mut out = Vec::new();
    for field in form
        .fields
        .iter()
        .filter(|field| base.contains_key(&field.name))
    {
        let Kind::String {
            min_length,
            max_length,
            format: Some(format),
        } = &field.kind
        else {
            continue;
        };
        for shape in formats::shapes(format) {
            let length = shape.value.chars().count() as u64;
            if min_length.is_some_and(|min| length < min)
                || max_length.is_some_and(|max| length > max)
            {
                continue;
            }
            let mut changed = base.clone();
            changed.insert(field.name.clone(), json!(shape.value));
            out.push((
                format!("`{}` {} {:?}", field.name, shape.how, shape.value),
                changed,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::judge::Judge;

    fn booking() -> Value {
        json!({
            "type": "object",
            "properties": {
                "nights": {"type": "integer", "minimum": 1, "maximum": 14},
                "room": {"type": "string", "enum": ["single", "double", "suite"]},
                "arrival": {"type": "string", "format": "date"},
                "breakfast": {"type": "boolean"},
                "reason": {"type": "string", "minLength": 5, "maxLength": 200},
                "amount": {"type": "number", "minimum": 0.01, "maximum": 500},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 1}
            },
            "required": ["nights", "room", "arrival", "reason"]
        })
    }

    #[test]
    fn a_fixed_field_takes_its_value_in_every_candidate_and_an_unknown_name_is_ignored() {
        let form = Form::read(&booking());
        let room = json!("suite");
        let other = json!(true);
        let fixed = base_candidates_fixing(&form, [("room", &room), ("confirm", &other)]);
        let plain = base_candidates(&form);
        assert_eq!(fixed.len(), plain.len());
        for (fixed, plain) in fixed.iter().zip(&plain) {
            let mut expected = plain.clone();
            expected.insert("room".into(), json!("suite"));
            assert_eq!(fixed, &expected);
        }
    }

    #[test]
    fn the_first_candidate_consents_with_the_smallest_values_in_range() {
        let form = Form::read(&booking());
        let candidates = base_candidates(&form);
        assert_eq!(
            Value::Object(candidates[0].clone()),
            json!({"nights": 1, "room": "single", "arrival": "2030-01-15", "breakfast": true,
                   "reason": "aaaaa", "amount": 1, "tags": ["a"]})
        );
        // One whole candidate per enum value (3), then the required fields only.
        assert_eq!(candidates.len(), 4);
        assert_eq!(candidates[1]["room"], json!("double"));
        assert_eq!(candidates[2]["room"], json!("suite"));
        assert_eq!(
            Value::Object(candidates[3].clone()),
            json!({"nights": 1, "room": "single", "arrival": "2030-01-15", "reason": "aaaaa"})
        );
        let judge = Judge::new(&booking()).expect("compiles");
        for candidate in &candidates {
            assert!(
                judge.is_valid(&Value::Object(candidate.clone())),
                "{candidate:?}"
            );
        }
    }

    #[test]
    fn numbers_are_clamped_into_their_bounds() {
        let field = |schema: Value| {
            let form = Form::read(&json!({"type": "object", "properties": {"n": schema}}));
            consenting_value(&form.fields[0], 0)
        };
        assert_eq!(field(json!({"type": "integer", "minimum": 5})), json!(5));
        assert_eq!(field(json!({"type": "integer", "maximum": -3})), json!(-3));
        assert_eq!(field(json!({"type": "integer", "minimum": 0.5})), json!(1));
        assert_eq!(field(json!({"type": "number", "minimum": 2.5})), json!(2.5));
        assert_eq!(
            field(json!({"type": "number", "maximum": 0.25})),
            json!(0.25)
        );
        assert_eq!(field(json!({"type": "number"})), json!(1));
        assert_eq!(field(json!({"type": "string", "maxLength": 0})), json!(""));
        assert_eq!(
            field(json!({"type": "array", "items": {"enum": ["x", "y", "z"]}, "minItems": 2})),
            json!(["x", "y"])
        );
    }

    #[test]
    fn coverage_is_the_same_for_every_call_and_each_answer_is_what_it_says() {
        let schema = booking();
        let form = Form::read(&schema);
        let base = base_candidates(&form).remove(0);
        let answers = coverage_answers(&form, &base);
        assert_eq!(answers, coverage_answers(&form, &base));
        let judge = Judge::new(&schema).expect("compiles");
        let built: Vec<&str> = answers.iter().map(|a| a.built_as.as_str()).collect();
        assert_eq!(built[0], VALID);
        for wanted in [
            "accept: valid content, `breakfast` false",
            "accept: valid content, `room` \"double\"",
            "accept: valid content, `breakfast` left out",
            "accept: 15 above maximum 14 for `nights`",
            "accept: 0 below minimum 1 for `nights`",
            "accept: \"12\" for integer `nights`",
            "accept: \"NaN\" for number `amount`",
            "accept: 500.5 above maximum 500 for `amount`",
            "accept: -0.49 below minimum 0.01 for `amount`",
            "accept: null for `room`",
            "accept: valid content, `arrival` on a leap day \"2028-02-29\"",
            "accept: a date-time \"2030-01-15T10:00:00Z\" for date `arrival`",
            "accept: February 30 \"2030-02-30\" for date `arrival`",
            "accept: a day-first date \"15.01.2030\" for date `arrival`",
            "accept: \"yes\" for boolean `breakfast`",
            "accept: `reason` one character shorter than minLength 5",
            "accept: required field `arrival` removed",
            "accept: extra key `note`",
            "accept: whole float 1.0 for integer `nights`",
            "accept without content",
            "accept with empty content {}",
            "decline with content",
            "cancel",
            "near-miss action \"Accept\" with valid content",
            "no action, valid content",
        ] {
            assert!(built.contains(&wanted), "{wanted} missing from {built:#?}");
        }
        for answer in &answers {
            let content = answer.answer.get("content").cloned().unwrap_or(Value::Null);
            let valid = judge.is_valid(&content);
            let has_content = answer.answer.get("content").is_some();
            let expect_valid = match answer.built {
                Built::Valid | Built::Lenient | Built::NearMissAction => true,
                Built::Refusal => has_content,
                Built::Mutated | Built::ContentShape | Built::Given => false,
            };
            let expect_invalid = matches!(answer.built, Built::Mutated | Built::ContentShape);
            if expect_valid {
                assert!(valid, "{}: {}", answer.built_as, answer.answer);
            }
            if expect_invalid {
                assert!(
                    !valid,
                    "{}: {} stayed valid",
                    answer.built_as, answer.answer
                );
            }
        }
    }

    #[test]
    fn withdrawals_change_one_field_and_never_repeat_the_base() {
        let form = Form::read(&json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean"},
                "answer": {"type": "string", "enum": ["Yes", "No"]}
            },
            "required": ["confirm", "answer"]
        }));
        let base = base_candidates(&form).remove(0);
        assert_eq!(
            Value::Object(base.clone()),
            json!({"confirm": true, "answer": "Yes"})
        );
        let changed: Vec<(String, Value)> = withdrawals(&form, &base)
            .into_iter()
            .map(|(how, content)| (how, Value::Object(content)))
            .collect();
        assert_eq!(
            changed,
            vec![
                (
                    "`confirm` false".to_owned(),
                    json!({"confirm": false, "answer": "Yes"})
                ),
                (
                    "`answer` \"No\"".to_owned(),
                    json!({"confirm": true, "answer": "No"})
                ),
            ]
        );
    }

    #[test]
    fn another_shape_replaces_one_formatted_value_of_the_base_within_its_length_bounds() {
        let form = |arrival: Value| {
            Form::read(&json!({
                "type": "object",
                "properties": {
                    "arrival": arrival,
                    "email": {"type": "string", "format": "email"},
                    "note": {"type": "string"},
                    "confirm": {"type": "boolean"}
                },
                "required": ["arrival", "confirm"]
            }))
        };
        let shapes = |arrival: Value, base: Value| -> Vec<(String, Value)> {
            let Value::Object(base) = base else {
                unreachable!("an object")
            };
            other_shapes(&form(arrival), &base)
                .into_iter()
                .map(|(how, content)| (how, Value::Object(content)))
                .collect()
        };
        let base = json!({"arrival": "2030-01-15", "email": "user@example.com",
                          "note": "a", "confirm": true});
        let leap = (
            "`arrival` on a leap day \"2028-02-29\"".to_owned(),
            json!({"arrival": "2028-02-29", "email": "user@example.com",
                   "note": "a", "confirm": true}),
        );
        let tagged = (
            "`email` with a dotted local part, a tag and a subdomain \"first.last+tag@mail.example.org\""
                .to_owned(),
            json!({"arrival": "2030-01-15", "email": "first.last+tag@mail.example.org",
                   "note": "a", "confirm": true}),
        );
        let date = |bounds: Value| {
            let mut schema = json!({"type": "string", "format": "date"});
            for (key, value) in bounds.as_object().expect("bounds") {
                schema[key] = value.clone();
            }
            schema
        };
        // No bounds, and bounds the 10 characters of the leap day just meet.
        for bounds in [
            json!({}),
            json!({"minLength": 10}),
            json!({"maxLength": 10}),
            json!({"minLength": 10, "maxLength": 10}),
        ] {
            assert_eq!(
                shapes(date(bounds.clone()), base.clone()),
                vec![leap.clone(), tagged.clone()],
                "{bounds}"
            );
        }
        // One character too few or too many allowed: no leap day.
        for bounds in [json!({"minLength": 11}), json!({"maxLength": 9})] {
            assert_eq!(
                shapes(date(bounds.clone()), base.clone()),
                vec![tagged.clone()],
                "{bounds}"
            );
        }
        // A field the base left out gets no shape.
        assert_eq!(
            shapes(
                date(json!({})),
                json!({"arrival": "2030-01-15", "confirm": true})
            ),
            vec![(
                leap.0.clone(),
                json!({"arrival": "2028-02-29", "confirm": true})
            )]
        );
        // In the coverage answers: after the withdrawals, before the mutations.
        let form = form(date(json!({})));
        let Value::Object(base) = base else {
            unreachable!("an object")
        };
        let built: Vec<String> = coverage_answers(&form, &base)
            .into_iter()
            .map(|answer| answer.built_as)
            .collect();
        let at = |wanted: &str| {
            built
                .iter()
                .position(|built| built == wanted)
                .unwrap_or_else(|| panic!("{wanted} missing from {built:#?}"))
        };
        let withdrawn = at("accept: valid content, `confirm` false");
        let leap_day = at("accept: valid content, `arrival` on a leap day \"2028-02-29\"");
        let first_mutation = at("accept: null for `arrival`");
        assert!(
            withdrawn < leap_day && leap_day < first_mutation,
            "{built:#?}"
        );
    }
}
