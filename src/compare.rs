//! Type-aware JSON comparison: `true` is not `1`, `21` is not `21.0`, as the
//! contract's outcomes are judged (docs/src/contract.md, "Statuses").
//!
//! [`compare`] walks an expected and an actual [`serde_json::Value`] side by side and
//! reports every difference with its JSON path, naming the kinds involved when the
//! values are of different JSON kinds (boolean vs integer, integer vs float, ...).

use std::fmt;

use serde_json::{Map, Number, Value};

/// The JSON kind of a value as the comparison sees it.
///
/// Numbers are split into [`Kind::Integer`] (representable as `i64` or `u64`) and
/// [`Kind::Float`] (stored as `f64`), so `21` and `21.0` are different kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number stored as `i64` or `u64`.
    Integer,
    /// A number stored as `f64`.
    Float,
    /// A JSON string.
    String,
    /// A JSON array.
    Array,
    /// A JSON object.
    Object,
}

impl Kind {
    /// Classifies `value`.
    #[must_use]
    pub fn of(value: &Value) -> Kind {
        match value {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Boolean,
            Value::Number(n) if n.is_i64() || n.is_u64() => Kind::Integer,
            Value::Number(_) => Kind::Float,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }

    /// The lowercase name used in mismatch details, e.g. `"boolean"` or `"float"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Integer => "integer",
            Kind::Float => "float",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }
}

/// One difference between expected and actual.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// JSON path of the difference, rooted at `$` (e.g. `$.errors[0]`, `$["a key"]`).
    pub path: String,
    /// Human-readable description, e.g. `integer != boolean` or `22 != 21`.
    pub detail: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.detail)
    }
}

/// Compares `expected` with `actual`; returns every mismatch in a deterministic order
/// (depth-first, object keys of expected in their iteration order then actual-only keys
/// sorted). Empty means equal.
#[must_use]
pub fn compare(expected: &Value, actual: &Value) -> Vec<Mismatch> {
    let mut out = Vec::new();
    compare_at("$", expected, actual, &mut out);
    out
}

/// Convenience: true when `compare` finds nothing.
#[must_use]
pub fn type_aware_eq(expected: &Value, actual: &Value) -> bool {
    compare(expected, actual).is_empty()
}

fn push(out: &mut Vec<Mismatch>, path: &str, detail: String) {
    out.push(Mismatch {
        path: path.to_owned(),
        detail,
    });
}

fn compare_at(path: &str, expected: &Value, actual: &Value, out: &mut Vec<Mismatch>) {
    if negative_zero_pair(expected, actual) || negative_zero_pair(actual, expected) {
        return;
    }
    let (ek, ak) = (Kind::of(expected), Kind::of(actual));
    if ek != ak {
        push(out, path, format!("{} != {}", ak.name(), ek.name()));
        return;
    }
    let equal = match (expected, actual) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(e), Value::Bool(a)) => e == a,
        (Value::Number(e), Value::Number(a)) => numbers_equal(ek, e, a),
        (Value::String(e), Value::String(a)) => e == a,
        (Value::Array(e), Value::Array(a)) => {
            compare_arrays(path, e, a, out);
            true
        }
        (Value::Object(e), Value::Object(a)) => {
            compare_objects(path, e, a, out);
            true
        }
        // Unreachable: equal kinds imply matching variants. Reported, never panics.
        _ => false,
    };
    if !equal {
        push(out, path, format!("{actual} != {expected}"));
    }
}

/// JSON text `-0` is one value read two ways: serde_json stores it as the float
/// `-0.0` (to keep the sign), most other parsers (Python's `json`, pydantic) as
/// the integer `0`. So a float negative zero and the integer `0` are equal here,
/// whichever side each is on: a correct Python SDK server that echoes a received
/// `-0` as `0` is not type drift (judging by meaning, `src/oracle/meaning.rs`).
fn negative_zero_pair(float: &Value, integer: &Value) -> bool {
    let is_negative_zero = float
        .as_number()
        .filter(|n| n.is_f64())
        .and_then(Number::as_f64)
        .is_some_and(|x| x == 0.0 && x.is_sign_negative());
    is_negative_zero && integer.as_number().and_then(Number::as_i64) == Some(0)
}

fn numbers_equal(kind: Kind, e: &Number, a: &Number) -> bool {
    if kind == Kind::Integer {
        // Both are `i64` or `u64`, so both convert; `i128` holds either range.
        matches!((as_i128(e), as_i128(a)), (Some(x), Some(y)) if x == y)
    } else {
        // Exact `==` on purpose: the oracle checks values, not approximations.
        matches!((e.as_f64(), a.as_f64()), (Some(x), Some(y)) if x == y)
    }
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn compare_arrays(path: &str, expected: &[Value], actual: &[Value], out: &mut Vec<Mismatch>) {
    if expected.len() != actual.len() {
        push(
            out,
            path,
            format!("length {} != {}", actual.len(), expected.len()),
        );
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        compare_at(&format!("{path}[{i}]"), e, a, out);
    }
}

fn compare_objects(
    path: &str,
    expected: &Map<String, Value>,
    actual: &Map<String, Value>,
    out: &mut Vec<Mismatch>,
) {
    for (key, e) in expected {
        let child = member_path(path, key);
        match actual.get(key) {
            Some(a) => compare_at(&child, e, a, out),
            None => push(out, &child, format!("missing (expected {e})")),
        }
    }
    let mut extra: Vec<(&String, &Value)> = actual
        .iter()
        .filter(|(k, _)| !expected.contains_key(k.as_str()))
        .collect();
    extra.sort_by(|x, y| x.0.cmp(y.0));
    for (key, a) in extra {
        push(
            out,
            &member_path(path, key),
            format!("unexpected key (actual {a})"),
        );
    }
}

/// The JSON path of member `key` under `path`: `$.units`, or `$["a key"]` when
/// the key is not an identifier.
#[must_use]
pub fn member_path(path: &str, key: &str) -> String {
    if is_identifier(key) {
        format!("{path}.{key}")
    } else {
        // `Value::String`'s Display writes the key with JSON string escaping.
        format!("{path}[{}]", Value::String(key.to_owned()))
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(path: &str, detail: &str) -> Mismatch {
        Mismatch {
            path: path.to_owned(),
            detail: detail.to_owned(),
        }
    }

    #[test]
    fn true_is_not_one() {
        assert_eq!(
            compare(&json!({"computed": true}), &json!({"computed": 1})),
            vec![m("$.computed", "integer != boolean")]
        );
    }

    #[test]
    fn false_is_not_zero() {
        assert_eq!(
            compare(&json!(false), &json!(0)),
            vec![m("$", "integer != boolean")]
        );
        assert_eq!(
            compare(&json!(0), &json!(false)),
            vec![m("$", "boolean != integer")]
        );
    }

    #[test]
    fn integer_is_not_float() {
        assert_eq!(
            compare(&json!(21), &json!(21.0)),
            vec![m("$", "float != integer")]
        );
        assert_eq!(
            compare(&json!({"value": 21.0}), &json!({"value": 21})),
            vec![m("$.value", "integer != float")]
        );
    }

    #[test]
    fn serde_json_eq_on_numbers_and_bools() {
        // serde_json's own `==` already distinguishes these (Number compares its
        // internal PosInt/NegInt/Float representation), but says nothing about why.
        assert_ne!(json!(21), json!(21.0));
        assert_ne!(json!(true), json!(1));
        assert_eq!(json!(21.0), json!(21.0));
        assert_eq!(Kind::of(&json!(21)), Kind::Integer);
        assert_eq!(Kind::of(&json!(21.0)), Kind::Float);
    }

    #[test]
    fn negative_zero_text_read_as_integer_zero_is_the_same_value() {
        // `-0` on the wire: serde_json reads the float -0.0, Python's json the integer 0.
        let serde_reading: Value = serde_json::from_str("-0").expect("JSON");
        assert!(serde_reading.is_f64());
        assert!(type_aware_eq(&serde_reading, &json!(0)));
        assert!(type_aware_eq(&json!(0), &serde_reading));
        assert!(compare(&json!({"units": -0.0}), &json!({"units": 0})).is_empty());
    }

    #[test]
    fn only_negative_zero_and_integer_zero_meet_across_kinds() {
        // Positive 0.0 stays a float: a server that writes `0.0` for `0` drifts.
        assert_eq!(
            compare(&json!(0.0), &json!(0)),
            vec![m("$", "integer != float")]
        );
        assert_eq!(
            compare(&json!(0), &json!(0.0)),
            vec![m("$", "float != integer")]
        );
        // Negative zero meets no other integer, nor a boolean, string or null.
        assert_eq!(
            compare(&json!(-0.0), &json!(1)),
            vec![m("$", "integer != float")]
        );
        assert_eq!(
            compare(&json!(-0.0), &json!(false)),
            vec![m("$", "boolean != float")]
        );
        assert_eq!(
            compare(&json!(-0.0), &json!("0")),
            vec![m("$", "string != float")]
        );
        assert_eq!(
            compare(&json!(-1.0), &json!(-1)),
            vec![m("$", "integer != float")]
        );
    }

    #[test]
    fn u64_and_i64_integers_are_equal() {
        let from_u64 = Value::from(21_u64);
        let from_i64 = Value::from(21_i64);
        assert!(type_aware_eq(&from_u64, &from_i64));
        assert!(type_aware_eq(&from_i64, &from_u64));
        assert!(type_aware_eq(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(type_aware_eq(&json!(-5), &json!(-5_i64)));
        assert_eq!(
            compare(&json!(u64::MAX), &json!(-1)),
            vec![m("$", "-1 != 18446744073709551615")]
        );
    }

    #[test]
    fn floats_compare_by_value() {
        assert!(type_aware_eq(&json!(1.5), &json!(1.5)));
        assert_eq!(
            compare(&json!(1.5), &json!(2.5)),
            vec![m("$", "2.5 != 1.5")]
        );
    }

    #[test]
    fn value_mismatch_reports_actual_then_expected() {
        let found = compare(&json!({"value": 21}), &json!({"value": 22}));
        assert_eq!(found, vec![m("$.value", "22 != 21")]);
        assert_eq!(found[0].to_string(), "$.value: 22 != 21");
        assert_eq!(
            compare(&json!("a\"b"), &json!("c")),
            vec![m("$", "\"c\" != \"a\\\"b\"")]
        );
    }

    #[test]
    fn missing_key() {
        assert_eq!(
            compare(&json!({"a": 1, "b": [true]}), &json!({"a": 1})),
            vec![m("$.b", "missing (expected [true])")]
        );
    }

    #[test]
    fn extra_keys_are_sorted_after_expected_keys() {
        assert_eq!(
            compare(
                &json!({"z": 1}),
                &json!({"z": 2, "y": {"k": null}, "b": "s"})
            ),
            vec![
                m("$.z", "2 != 1"),
                m("$.b", "unexpected key (actual \"s\")"),
                m("$.y", "unexpected key (actual {\"k\":null})"),
            ]
        );
    }

    #[test]
    fn array_length_and_common_prefix() {
        assert_eq!(
            compare(&json!([1, 2, 3]), &json!([1, 5])),
            vec![m("$", "length 2 != 3"), m("$[1]", "5 != 2")]
        );
    }

    #[test]
    fn nested_path() {
        assert_eq!(
            compare(
                &json!({"errors": [["x", 1], []]}),
                &json!({"errors": [[true, 1], []]})
            ),
            vec![m("$.errors[0][0]", "boolean != string")]
        );
    }

    #[test]
    fn non_identifier_keys_are_quoted() {
        assert_eq!(
            compare(&json!({"a key": 1}), &json!({"a key": 2})),
            vec![m("$[\"a key\"]", "2 != 1")]
        );
        assert_eq!(
            compare(
                &json!({"q\"x": {"1st": 0, "_ok9": 0}}),
                &json!({"q\"x": {}})
            ),
            vec![
                m("$[\"q\\\"x\"][\"1st\"]", "missing (expected 0)"),
                m("$[\"q\\\"x\"]._ok9", "missing (expected 0)"),
            ]
        );
        assert_eq!(
            compare(&json!({}), &json!({"": 1})),
            vec![m("$[\"\"]", "unexpected key (actual 1)")]
        );
    }

    #[test]
    fn null_only_equals_null() {
        assert!(type_aware_eq(&json!(null), &json!(null)));
        assert_eq!(
            compare(&json!(null), &json!(false)),
            vec![m("$", "boolean != null")]
        );
        assert_eq!(
            compare(&json!(false), &json!(null)),
            vec![m("$", "null != boolean")]
        );
    }

    #[test]
    fn key_order_does_not_matter() {
        let expected = json!({
            "action": "accept",
            "content": {"name": "Ada", "age": 36, "tags": ["a", {"x": 1.5, "y": null}]},
            "ok": true
        });
        let actual = json!({
            "ok": true,
            "content": {"tags": ["a", {"y": null, "x": 1.5}], "age": 36, "name": "Ada"},
            "action": "accept"
        });
        assert!(type_aware_eq(&expected, &actual));
        assert_eq!(compare(&expected, &actual), Vec::<Mismatch>::new());
    }

    #[test]
    fn kind_names() {
        assert_eq!(Kind::of(&json!("s")).name(), "string");
        assert_eq!(Kind::of(&json!([])).name(), "array");
        assert_eq!(Kind::of(&json!({})).name(), "object");
        assert_eq!(Kind::of(&json!(null)).name(), "null");
        assert_eq!(Kind::of(&json!(true)).name(), "boolean");
    }

    #[test]
    fn type_aware_eq_is_false_as_soon_as_anything_differs() {
        assert!(!type_aware_eq(&json!(true), &json!(1)));
        assert!(!type_aware_eq(&json!(21), &json!(21.0)));
        assert!(!type_aware_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    }

    #[test]
    fn a_negative_integer_is_not_a_negative_float() {
        assert_eq!(Kind::of(&json!(-1)), Kind::Integer);
        assert_eq!(
            compare(&json!(-1), &json!(-1.0)),
            vec![m("$", "float != integer")]
        );
    }
}
