//! The `jsonschema` judge of `elicit-check check` agrees with a hand-written table
//! of (schema, content, valid?) rows covering every primitive of the MCP subset
//! and the integer/float and bool/int corners.
//!
//! Each row's verdict is written from JSON Schema 2020-12 with format assertion
//! on, never from the judge's output: JSON Schema counts `3.0` as an integer and
//! allows keys the schema does not name (those are the checker's *warnings*).

use elicit_check::schema::judge::Judge;
use serde_json::{Value, json};

/// A one-field object schema `{"type":"object","properties":{"f": property},"required":["f"]}`.
fn field(property: Value) -> Value {
    json!({"type": "object", "properties": {"f": property}, "required": ["f"]})
}

#[test]
fn the_judge_agrees_with_the_hand_written_table() {
    let string = field(json!({"type": "string", "minLength": 2, "maxLength": 4}));
    let email = field(json!({"type": "string", "format": "email"}));
    let uri = field(json!({"type": "string", "format": "uri"}));
    let date = field(json!({"type": "string", "format": "date"}));
    let date_time = field(json!({"type": "string", "format": "date-time"}));
    let integer = field(json!({"type": "integer", "minimum": 1, "maximum": 100}));
    let number = field(json!({"type": "number", "minimum": 0, "maximum": 1000}));
    let boolean = field(json!({"type": "boolean"}));
    let single = field(json!({"type": "string", "enum": ["small", "large"]}));
    let titled = field(
        json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}),
    );
    let legacy =
        field(json!({"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]}));
    let multi = field(
        json!({"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}, "minItems": 1, "maxItems": 2}),
    );
    let optional = json!({"type": "object", "properties": {"f": {"type": "string"}}});

    let rows: Vec<(&Value, Value, bool)> = vec![
        // strings and lengths (characters, not bytes)
        (&string, json!({"f": "ab"}), true),
        (&string, json!({"f": "abcd"}), true),
        (&string, json!({"f": "a"}), false),
        (&string, json!({"f": "abcde"}), false),
        (&string, json!({"f": "éééé"}), true),
        (&string, json!({"f": 12}), false),
        (&string, json!({}), false),
        // formats, asserted
        (&email, json!({"f": "ada@example.com"}), true),
        (&email, json!({"f": "not-an-email"}), false),
        (&uri, json!({"f": "https://example.com/x"}), true),
        (&uri, json!({"f": "not a uri"}), false),
        (&date, json!({"f": "2024-02-29"}), true),
        (&date, json!({"f": "2024-13-45"}), false),
        (&date_time, json!({"f": "2024-02-29T12:30:00Z"}), true),
        (&date_time, json!({"f": "yesterday at noon"}), false),
        // integers: 3.0 is an integer in JSON Schema; strings, booleans, fractions are not
        (&integer, json!({"f": 1}), true),
        (&integer, json!({"f": 100}), true),
        (&integer, json!({"f": 0}), false),
        (&integer, json!({"f": 101}), false),
        (&integer, json!({"f": 3.0}), true),
        (&integer, json!({"f": 3.5}), false),
        (&integer, json!({"f": "3"}), false),
        (&integer, json!({"f": true}), false),
        (&integer, json!({"f": 500}), false),
        // numbers
        (&number, json!({"f": 2.5}), true),
        (&number, json!({"f": 0}), true),
        (&number, json!({"f": 1000}), true),
        (&number, json!({"f": 1000.5}), false),
        (&number, json!({"f": -1}), false),
        (&number, json!({"f": "12"}), false),
        (&number, json!({"f": "NaN"}), false),
        // booleans: no 1/0, no strings
        (&boolean, json!({"f": true}), true),
        (&boolean, json!({"f": false}), true),
        (&boolean, json!({"f": 1}), false),
        (&boolean, json!({"f": 0}), false),
        (&boolean, json!({"f": "true"}), false),
        (&boolean, json!({"f": "yes"}), false),
        // single-select enums, all three spellings; case matters
        (&single, json!({"f": "small"}), true),
        (&single, json!({"f": "SMALL"}), false),
        (&single, json!({"f": "medium"}), false),
        (&titled, json!({"f": "a"}), true),
        (&titled, json!({"f": "A"}), false),
        (&legacy, json!({"f": "p2"}), true),
        (&legacy, json!({"f": "Dogs"}), false),
        // multi-select
        (&multi, json!({"f": ["x"]}), true),
        (&multi, json!({"f": ["x", "z"]}), true),
        (&multi, json!({"f": []}), false),
        (&multi, json!({"f": ["x", "y", "z"]}), false),
        (&multi, json!({"f": ["w"]}), false),
        (&multi, json!({"f": "x"}), false),
        // the object itself: extra keys are allowed, optional fields may be absent
        (&optional, json!({}), true),
        (&optional, json!({"f": "x", "note": "extra"}), true),
        (&optional, json!([]), false),
        (&optional, json!(null), false),
    ];
    assert!(rows.len() >= 30);
    let mut disagreements = Vec::new();
    for (schema, content, valid) in &rows {
        let judge = Judge::new(schema).expect("every schema of the table compiles");
        let errors = judge.errors(content);
        if errors.is_empty() != *valid || judge.is_valid(content) != *valid {
            disagreements.push(format!(
                "{content} against {schema}: table says valid={valid}, judge says {errors:?}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

#[test]
fn a_schema_without_dollar_schema_is_read_as_2020_12_with_formats_asserted() {
    // Under 2020-12 `format` is only an annotation unless asserted: the judge asserts it.
    let judge = Judge::new(&field(json!({"type": "string", "format": "email"}))).expect("compiles");
    assert_eq!(
        judge.errors(&json!({"f": "nope"})),
        vec![r#"/f: "nope" is not a "email""#]
    );
    // An explicit draft-07 `$schema` (as rmcp's from_type writes) is honoured and asserts too.
    let mut draft7 = field(json!({"type": "string", "format": "email"}));
    draft7["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    assert!(
        !Judge::new(&draft7)
            .expect("compiles")
            .is_valid(&json!({"f": "nope"}))
    );
}

#[test]
fn a_schema_that_is_not_json_schema_is_refused_with_the_reason() {
    let error = Judge::new(&json!({"type": "object", "properties": {"f": {"type": "strin"}}}))
        .expect_err("an unknown type");
    assert!(
        error.starts_with("the requestedSchema is not a valid JSON Schema: "),
        "{error}"
    );
}
