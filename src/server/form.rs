//! The strict form rules: two required integer fields, their bounds, and error paths.
//!
//! Source: the `calculate` contract (docs/src/contract.md). The requested schema is
//! `{"type":"object","properties":{"units":{"type":"integer","minimum":1,"maximum":10},
//! "unit_value":{"type":"integer","minimum":1,"maximum":100}},"required":["units","unit_value"]}`.
//! The rules are stricter than JSON Schema on purpose:
//! - an integer is a JSON number written without fraction or exponent that fits `i64`
//!   (`3.0`, `3e0`, `-0`, `"3"`, `true`, `null`, arrays and objects are type errors);
//! - keys the schema does not name are rejected (the server fails closed).

use serde_json::{Map, Value};

/// A form field: its name and inclusive bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The property name in `requestedSchema`.
    pub name: &'static str,
    /// Inclusive lower bound (`minimum`).
    pub minimum: i64,
    /// Inclusive upper bound (`maximum`).
    pub maximum: i64,
}

/// `units`: an integer in 1..=10.
pub const UNITS: Field = Field {
    name: "units",
    minimum: 1,
    maximum: 10,
};

/// `unit_value`: an integer in 1..=100.
pub const UNIT_VALUE: Field = Field {
    name: "unit_value",
    minimum: 1,
    maximum: 100,
};

/// The fields in schema order; validation errors follow this order.
pub const FIELDS: [Field; 2] = [UNITS, UNIT_VALUE];

/// A JSON path into the content: a list of object keys; `[]` is the root.
pub type ErrorPath = Vec<String>;

/// A valid form: both fields present, integers, in range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Form {
    /// Number of units, 1..=10.
    pub units: i64,
    /// Value of one unit, 1..=100.
    pub unit_value: i64,
}

impl Form {
    /// `units × unit_value`, at most 1,000, so it never overflows.
    pub fn product(&self) -> i64 {
        self.units * self.unit_value
    }
}

/// Validates accepted `content` against the form.
///
/// # Errors
/// Every failing path, in this order: `[]` alone when `content` is not a JSON
/// object; otherwise the schema fields in schema order (missing, wrong type or out
/// of range), then each extra key in sorted order.
pub fn validate(content: &Value) -> Result<Form, Vec<ErrorPath>> {
    let Value::Object(object) = content else {
        return Err(vec![Vec::new()]);
    };
    let mut errors = Vec::new();
    let units = field_value(object, UNITS);
    let unit_value = field_value(object, UNIT_VALUE);
    for (field, value) in FIELDS.iter().zip([units, unit_value]) {
        if value.is_none() {
            errors.push(vec![field.name.to_owned()]);
        }
    }
    let mut extra: Vec<&String> = object
        .keys()
        .filter(|key| !FIELDS.iter().any(|field| field.name == key.as_str()))
        .collect();
    extra.sort();
    errors.extend(extra.into_iter().map(|key| vec![key.clone()]));
    match (units, unit_value) {
        (Some(units), Some(unit_value)) if errors.is_empty() => Ok(Form { units, unit_value }),
        _ => Err(errors),
    }
}

/// The field's value when present, a strict integer, and within bounds.
fn field_value(object: &Map<String, Value>, field: Field) -> Option<i64> {
    let value = strict_integer(object.get(field.name)?)?;
    (field.minimum..=field.maximum)
        .contains(&value)
        .then_some(value)
}

/// A JSON number written without fraction or exponent that fits `i64`.
///
/// serde_json parses `3.0`, `3e0`, `-0` and integers beyond `u64` as `f64`, so
/// `as_i64` is exactly "integer literal within `i64`".
fn strict_integer(value: &Value) -> Option<i64> {
    match value {
        Value::Number(number) => number.as_i64(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(list: &[&[&str]]) -> Vec<ErrorPath> {
        list.iter()
            .map(|path| path.iter().map(|key| (*key).to_owned()).collect())
            .collect()
    }

    fn parsed(text: &str) -> Value {
        serde_json::from_str(text).expect("test JSON")
    }

    #[test]
    fn a_valid_form_multiplies() {
        let form = validate(&json!({"units": 3, "unit_value": 7})).expect("valid");
        assert_eq!(
            form,
            Form {
                units: 3,
                unit_value: 7
            }
        );
        assert_eq!(form.product(), 21);
    }

    #[test]
    fn bounds_are_inclusive() {
        assert_eq!(
            validate(&json!({"units": 1, "unit_value": 1})).map(|f| f.product()),
            Ok(1)
        );
        assert_eq!(
            validate(&json!({"units": 10, "unit_value": 100})).map(|f| f.product()),
            Ok(1000)
        );
        assert_eq!(
            validate(&json!({"units": 0, "unit_value": 1})),
            Err(paths(&[&["units"]]))
        );
        assert_eq!(
            validate(&json!({"units": 11, "unit_value": 1})),
            Err(paths(&[&["units"]]))
        );
        assert_eq!(
            validate(&json!({"units": 1, "unit_value": 0})),
            Err(paths(&[&["unit_value"]]))
        );
        assert_eq!(
            validate(&json!({"units": 1, "unit_value": 101})),
            Err(paths(&[&["unit_value"]]))
        );
    }

    #[test]
    fn integers_written_as_floats_or_strings_are_type_errors() {
        for units in [
            "3.0", "3e0", "-0", "\"3\"", "true", "null", "[3]", "{}", "2.5",
        ] {
            let content = parsed(&format!("{{\"units\": {units}, \"unit_value\": 7}}"));
            assert_eq!(
                validate(&content),
                Err(paths(&[&["units"]])),
                "units = {units}"
            );
        }
    }

    #[test]
    fn numbers_beyond_i64_are_errors_not_panics() {
        for units in [
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
        ] {
            let content = parsed(&format!("{{\"units\": {units}, \"unit_value\": 7}}"));
            assert_eq!(
                validate(&content),
                Err(paths(&[&["units"]])),
                "units = {units}"
            );
        }
        let content = parsed("{\"units\": -9223372036854775808, \"unit_value\": 7}");
        assert_eq!(validate(&content), Err(paths(&[&["units"]])));
    }

    #[test]
    fn errors_come_in_schema_order_then_sorted_extra_keys() {
        let content = json!({"zeta": 1, "unit_value": "x", "Units": 3, "alpha": 2});
        assert_eq!(
            validate(&content),
            Err(paths(&[
                &["units"],
                &["unit_value"],
                &["Units"],
                &["alpha"],
                &["zeta"]
            ]))
        );
    }

    #[test]
    fn an_extra_key_fails_an_otherwise_valid_form() {
        let content = json!({"units": 3, "unit_value": 7, "note": "x"});
        assert_eq!(validate(&content), Err(paths(&[&["note"]])));
    }

    #[test]
    fn content_that_is_not_an_object_fails_at_the_root() {
        for content in [
            json!([]),
            json!("units"),
            json!(3),
            json!(null),
            json!(true),
        ] {
            assert_eq!(
                validate(&content),
                Err(vec![Vec::new()]),
                "content = {content}"
            );
        }
    }

    #[test]
    fn an_empty_object_misses_both_fields() {
        assert_eq!(
            validate(&json!({})),
            Err(paths(&[&["units"], &["unit_value"]]))
        );
    }
}
