//! The `content` of an answer: forms built field by field (valid, missing, out of range, mistyped) with extra keys, and non-object content, with their strategies.

use std::fmt;

use proptest::prelude::*;
use proptest::{collection, sample};
use serde_json::{Map, Number, Value};

use super::expected::{invalid_content, outcome};

/// The `units` field's range (the contract table: required integer 1..=10).
const UNITS_MIN: i64 = 1;
/// See [`UNITS_MIN`].
const UNITS_MAX: i64 = 10;
/// The `unit_value` field's range (the contract table: required integer 1..=100).
const UNIT_VALUE_MIN: i64 = 1;
/// See [`UNIT_VALUE_MIN`].
const UNIT_VALUE_MAX: i64 = 100;

/// Content of an accept (or attached to a decline or cancel), never `null`.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// A JSON object built from the two fields and extra keys.
    Form(Form),
    /// Content that is not an object (array, string, number, boolean; never null):
    /// one error at the root path `[]` under `validated`.
    NotAnObject(Value),
}

impl Content {
    /// The `content` value written into the result, parsed.
    pub fn to_json(&self) -> Value {
        match self {
            Content::Form(form) => form.to_json(),
            Content::NotAnObject(value) => value.clone(),
        }
    }

    /// The exact JSON text of the `content` written into the result (`-0`, `3e0`
    /// and digits beyond u64 as written).
    pub fn to_text(&self) -> String {
        match self {
            Content::Form(form) => form.to_text(),
            Content::NotAnObject(value) => value.to_string(),
        }
    }

    /// The outcome of accepting this content under `validated` (contract rule 5).
    pub fn validated(&self) -> Value {
        match self {
            Content::Form(form) => form.validated(),
            Content::NotAnObject(_) => invalid_content(vec![vec![]]),
        }
    }
}

impl fmt::Display for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Content::Form(form) => form.fmt(f),
            Content::NotAnObject(value) => write!(f, "non-object content {value}"),
        }
    }
}

/// A form object: the two schema fields, each deliberately valid or broken, and
/// extra keys (contract rule 5).
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    /// The `units` field (schema 1..=10).
    pub units: Field,
    /// The `unit_value` field (schema 1..=100).
    pub unit_value: Field,
    /// Extra keys in insertion order: unique, never `units` nor `unit_value`.
    pub extras: Vec<(String, Value)>,
    /// Whether the extra keys are written before the fields (key order in the JSON).
    pub extras_first: bool,
}

impl Form {
    /// The content object parsed, keys in the order described by `extras_first`.
    pub fn to_json(&self) -> Value {
        parse(&self.to_text())
    }

    /// The content object's exact JSON text, keys in the order described by
    /// `extras_first`, each field written as built (`-0`, `3e0` kept).
    pub fn to_text(&self) -> String {
        let extras = self
            .extras
            .iter()
            .map(|(key, value)| (key.as_str(), value.to_string()));
        let fields = [("units", &self.units), ("unit_value", &self.unit_value)]
            .into_iter()
            .filter_map(|(name, field)| field.to_text().map(|text| (name, text)));
        let members: Vec<(&str, String)> = if self.extras_first {
            extras.chain(fields).collect()
        } else {
            fields.chain(extras).collect()
        };
        object_text(&members)
    }

    /// The outcome of accepting this form under `validated`: one error per broken
    /// field in schema order, then one per extra key in sorted order; else the product.
    pub fn validated(&self) -> Value {
        let mut errors: Vec<Vec<String>> = Vec::new();
        if self.units.valid().is_none() {
            errors.push(vec!["units".to_owned()]);
        }
        if self.unit_value.valid().is_none() {
            errors.push(vec!["unit_value".to_owned()]);
        }
        let mut extra_keys: Vec<String> = self.extras.iter().map(|(key, _)| key.clone()).collect();
        extra_keys.sort();
        errors.extend(extra_keys.into_iter().map(|key| vec![key]));
        match (self.units.valid(), self.unit_value.valid()) {
            (Some(units), Some(unit_value)) if errors.is_empty() => outcome(
                "calculated",
                true,
                vec![("value", Value::from(units * unit_value))],
            ),
            _ => invalid_content(errors),
        }
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.units, &self.unit_value) {
            (Field::Missing, Field::Missing) if self.extras.is_empty() => {
                return f.write_str("an empty object");
            }
            (Field::Missing, Field::Missing) => f.write_str("an object without the fields")?,
            (Field::Valid(units), Field::Valid(unit_value)) => {
                write!(f, "a valid form (units={units}, unit_value={unit_value})")?;
            }
            (units, unit_value) => {
                write!(
                    f,
                    "a form with {}, {}",
                    units.describe("units"),
                    unit_value.describe("unit_value")
                )?;
            }
        }
        match self.extras.as_slice() {
            [] => Ok(()),
            [(key, _)] => write!(f, " with extra key {key:?}"),
            extras => {
                f.write_str(" with extra keys")?;
                for (index, (key, _)) in extras.iter().enumerate() {
                    let separator = if index == 0 { " " } else { ", " };
                    write!(f, "{separator}{key:?}")?;
                }
                Ok(())
            }
        }
    }
}

/// One schema field, as deliberately built (contract rule 5).
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    /// An integer inside the field's range.
    Valid(i64),
    /// The key is absent.
    Missing,
    /// An i64 outside the field's range.
    OutOfRange(i64),
    /// A u64 above `i64::MAX`: an integer, but out of range.
    BeyondI64(u64),
    /// A value that is not a JSON integer.
    Mistyped(Mistyped),
}

impl Field {
    /// The field's value when it is valid by construction.
    pub fn valid(&self) -> Option<i64> {
        match self {
            Field::Valid(value) => Some(*value),
            _ => None,
        }
    }

    /// The JSON written for the field, parsed; `None` when missing.
    pub fn to_json(&self) -> Option<Value> {
        self.to_text().map(|text| parse(&text))
    }

    /// The exact JSON text written for the field; `None` when missing.
    pub fn to_text(&self) -> Option<String> {
        match self {
            Field::Valid(value) | Field::OutOfRange(value) => Some(value.to_string()),
            Field::Missing => None,
            Field::BeyondI64(value) => Some(value.to_string()),
            Field::Mistyped(mistyped) => Some(mistyped.to_text()),
        }
    }

    /// `name=value` with what is wrong with it, e.g. `units=11 (out of range)`.
    pub fn describe(&self, name: &str) -> String {
        match self {
            Field::Valid(value) => format!("{name}={value}"),
            Field::Missing => format!("{name} missing"),
            Field::OutOfRange(value) => format!("{name}={value} (out of range)"),
            Field::BeyondI64(value) => format!("{name}={value} (u64 above i64::MAX)"),
            Field::Mistyped(mistyped) => format!("{name}={mistyped}"),
        }
    }
}

/// A value that is not a JSON integer fitting i64, though it may look like one.
#[derive(Debug, Clone, PartialEq)]
pub enum Mistyped {
    /// The digits of an in-range integer as a string: `"3"`.
    DigitString(i64),
    /// An in-range integer as a float: `3.0` (`Number::from_f64`).
    WholeFloat(i64),
    /// An in-range integer written with an exponent: `3e0` (parsed: an f64).
    Exponent(i64),
    /// `-0`, which serde_json parses as the f64 `-0.0`.
    NegativeZero,
    /// A number with a fraction: `2.5`.
    Fraction(f64),
    /// `true` or `false`.
    Bool(bool),
    /// `null` (present, not missing).
    Null,
    /// An array of integers: `[3]`.
    Array(Vec<i64>),
    /// An object wrapping an integer: `{"value":3}`.
    Object(i64),
    /// Integer digits beyond `u64::MAX` (parsed: an f64), e.g. `18446744073709551616`.
    BeyondU64(String),
}

impl Mistyped {
    /// The exact JSON text written for the field: `-0`, `3e0` and digits beyond
    /// u64 as written (parsing would turn them into `-0.0`, `3.0`, `1.8…e+19`).
    pub fn to_text(&self) -> String {
        match self {
            Mistyped::Exponent(value) => format!("{value}e0"),
            Mistyped::NegativeZero => "-0".to_owned(),
            Mistyped::BeyondU64(digits) => digits.clone(),
            other => other.to_json().to_string(),
        }
    }

    /// The JSON written for the field, parsed.
    pub fn to_json(&self) -> Value {
        match self {
            Mistyped::DigitString(value) => Value::String(value.to_string()),
            Mistyped::WholeFloat(value) => float(*value as f64),
            Mistyped::Exponent(value) => parse(&format!("{value}e0")),
            Mistyped::NegativeZero => parse("-0"),
            Mistyped::Fraction(value) => float(*value),
            Mistyped::Bool(value) => Value::Bool(*value),
            Mistyped::Null => Value::Null,
            Mistyped::Array(values) => {
                Value::Array(values.iter().copied().map(Value::from).collect())
            }
            Mistyped::Object(value) => {
                let mut object = Map::new();
                object.insert("value".to_owned(), Value::from(*value));
                Value::Object(object)
            }
            Mistyped::BeyondU64(digits) => parse(digits),
        }
    }
}

impl fmt::Display for Mistyped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            Mistyped::DigitString(_) => "digit string",
            Mistyped::WholeFloat(_) => "float without fraction",
            Mistyped::Exponent(value) => return write!(f, "{value}e0 (exponent, an f64)"),
            Mistyped::NegativeZero => return f.write_str("-0 (negative zero, an f64)"),
            Mistyped::Fraction(_) => "fraction",
            Mistyped::Bool(_) => "boolean",
            Mistyped::Null => "null",
            Mistyped::Array(_) => "array",
            Mistyped::Object(_) => "object",
            Mistyped::BeyondU64(digits) => return write!(f, "{digits} (beyond u64, an f64)"),
        };
        write!(f, "{} ({what})", self.to_json())
    }
}

/// A finite f64 as a JSON number.
fn float(value: f64) -> Value {
    Value::Number(Number::from_f64(value).expect("generated floats are finite"))
}

/// A JSON object's text from its members' keys and exact value texts, in order.
pub(crate) fn object_text(members: &[(&str, String)]) -> String {
    let members: Vec<String> = members
        .iter()
        .map(|(key, text)| format!("{}:{text}", Value::from(*key)))
        .collect();
    format!("{{{}}}", members.join(","))
}

/// JSON text written by this module, parsed.
pub(crate) fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("generated JSON text is valid")
}

/// An integer in `min..=max`, the two boundaries weighted up.
pub fn in_range(min: i64, max: i64) -> impl Strategy<Value = i64> {
    prop_oneof![
        3 => min..=max,
        1 => Just(min),
        1 => Just(max),
    ]
}

/// An i64 outside `min..=max`: just below and above, `-1`, the i64 extremes, and
/// distances up to 1,000 past either boundary (shrinking towards the boundary).
pub fn out_of_range(min: i64, max: i64) -> impl Strategy<Value = i64> {
    prop_oneof![
        2 => Just(min - 1),
        2 => Just(max + 1),
        1 => Just(-1),
        1 => Just(i64::MIN),
        1 => Just(i64::MAX),
        1 => (1i64..=1000).prop_map(move |distance| min - distance),
        1 => (1i64..=1000).prop_map(move |distance| max + distance),
    ]
    .boxed()
}

/// A u64 above `i64::MAX`, the two extremes weighted up.
pub fn beyond_i64() -> impl Strategy<Value = u64> {
    let first = i64::MAX as u64 + 1;
    prop_oneof![
        1 => Just(first),
        1 => Just(u64::MAX),
        1 => first..=u64::MAX,
    ]
}

/// Integer digits that do not fit u64 (so serde_json parses them as f64).
pub fn beyond_u64_digits() -> impl Strategy<Value = String> {
    prop_oneof![Just("18446744073709551616".to_owned()), "[1-9][0-9]{20,24}",]
}

/// A value that is not a JSON integer, built from values of `min..=max` where a
/// number is involved (so the type is the only thing wrong).
pub fn mistyped(min: i64, max: i64) -> impl Strategy<Value = Mistyped> {
    prop_oneof![
        in_range(min, max).prop_map(Mistyped::DigitString),
        in_range(min, max).prop_map(Mistyped::WholeFloat),
        in_range(min, max).prop_map(Mistyped::Exponent),
        Just(Mistyped::NegativeZero),
        (0..=max).prop_map(|whole| Mistyped::Fraction(whole as f64 + 0.5)),
        any::<bool>().prop_map(Mistyped::Bool),
        Just(Mistyped::Null),
        collection::vec(in_range(min, max), 0..3).prop_map(Mistyped::Array),
        in_range(min, max).prop_map(Mistyped::Object),
        beyond_u64_digits().prop_map(Mistyped::BeyondU64),
    ]
    .boxed()
}

/// A near miss of a field of range `min..=max`: a value one
/// step from a valid one that a careless server takes for it. One past either
/// bound (`0`, `11`, `101`) and `-1`; `true` (read as 1, in range); and an
/// in-range number written as a digit string, a whole float, an exponent; and
/// `-0`. `true` and the digit string are weighted up: each is the only value
/// that finds its fault (`bool-as-integer`, `string-as-integer`).
pub fn near_miss_field(min: i64, max: i64) -> impl Strategy<Value = Field> {
    prop_oneof![
        1 => Just(Field::OutOfRange(min - 1)),
        1 => Just(Field::OutOfRange(max + 1)),
        1 => Just(Field::OutOfRange(-1)),
        2 => Just(Field::Mistyped(Mistyped::Bool(true))),
        2 => in_range(min, max).prop_map(|value| Field::Mistyped(Mistyped::DigitString(value))),
        1 => in_range(min, max).prop_map(|value| Field::Mistyped(Mistyped::WholeFloat(value))),
        1 => in_range(min, max).prop_map(|value| Field::Mistyped(Mistyped::Exponent(value))),
        1 => Just(Field::Mistyped(Mistyped::NegativeZero)),
    ]
    .boxed()
}

/// A valid form with a near miss ([`near_miss_field`]) in `units`, in
/// `unit_value` or in both, and no extra key.
pub fn near_miss_form() -> impl Strategy<Value = Form> {
    let valid_units = || in_range(UNITS_MIN, UNITS_MAX).prop_map(Field::Valid);
    let valid_unit_value = || in_range(UNIT_VALUE_MIN, UNIT_VALUE_MAX).prop_map(Field::Valid);
    let near_units = || near_miss_field(UNITS_MIN, UNITS_MAX);
    let near_unit_value = || near_miss_field(UNIT_VALUE_MIN, UNIT_VALUE_MAX);
    prop_oneof![
        (near_units(), valid_unit_value().boxed()),
        (valid_units().boxed(), near_unit_value()),
        (near_units(), near_unit_value()),
    ]
    .prop_map(|(units, unit_value)| Form {
        units,
        unit_value,
        extras: Vec::new(),
        extras_first: false,
    })
    .boxed()
}

/// One schema field of range `min..=max`: mostly valid, else missing, out of range,
/// above i64 or mistyped.
pub fn field(min: i64, max: i64) -> impl Strategy<Value = Field> {
    prop_oneof![
        8 => in_range(min, max).prop_map(Field::Valid),
        1 => Just(Field::Missing),
        1 => out_of_range(min, max).prop_map(Field::OutOfRange),
        1 => beyond_i64().prop_map(Field::BeyondI64),
        2 => mistyped(min, max).prop_map(Field::Mistyped),
    ]
    .boxed()
}

/// Near misses of the schema's field names (all of them extra keys).
pub const NEAR_MISS_KEYS: &[&str] = &[
    "Units",
    "units ",
    " units",
    "UNITS",
    "unit",
    "unit-value",
    "unitValue",
    "UNIT_VALUE",
    "unit_value ",
    "unit_values",
    "",
    "units\u{200b}",
];

/// Non-ASCII extra keys, some looking like the schema's names.
pub const NON_ASCII_KEYS: &[&str] = &["ünits", "ｕnits", "unit_valuе", "値", "émoji🙂"];

/// A 300-character key: one letter repeated, so it shrinks in a handful of steps
/// (to `a` × 300, then to a shorter alternative of [`extra_key`]) where 300
/// independent letters would take hundreds of steps and outlast the shrink
/// budget, leaving a 300-character key reported as "minimal".
pub fn long_key() -> impl Strategy<Value = String> {
    (b'a'..=b'z').prop_map(|letter| char::from(letter).to_string().repeat(300))
}

/// An extra key (never `units` nor `unit_value`): short random names most often,
/// near misses, 300-character names and non-ASCII names.
pub fn extra_key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,8}",
        3 => sample::select(NEAR_MISS_KEYS).prop_map(str::to_owned),
        1 => long_key(),
        1 => sample::select(NON_ASCII_KEYS).prop_map(str::to_owned),
        1 => "\\PC{1,6}",
    ]
    .prop_filter("a schema field is not an extra key", |key| {
        key != "units" && key != "unit_value"
    })
    .boxed()
}

/// A small JSON leaf: null, boolean, small integer, short string, fraction.
pub fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..=200).prop_map(Value::from),
        "[a-z0-9]{0,6}".prop_map(Value::String),
        (0i64..100).prop_map(|whole| float(whole as f64 + 0.25)),
    ]
}

/// Any small JSON value: leaves, and arrays and objects of them (two levels at most).
pub fn json_value() -> impl Strategy<Value = Value> {
    json_leaf()
        .prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                collection::btree_map("[a-z]{1,4}", inner, 0..3)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
        .boxed()
}

/// Extra keys with their values, in insertion order: none most often, else up to
/// three distinct keys (duplicates generated are dropped, first one kept).
pub fn extra_keys() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop_oneof![
        3 => Just(Vec::new()),
        2 => collection::vec((extra_key(), json_value()), 1..4).prop_map(|entries| {
            let mut unique: Vec<(String, Value)> = Vec::new();
            for (key, value) in entries {
                if unique.iter().all(|(seen, _)| *seen != key) {
                    unique.push((key, value));
                }
            }
            unique
        }),
    ]
    .boxed()
}

prop_compose! {
    /// A valid form: both fields in range, no extra key.
    pub fn valid_form()(
        units in in_range(UNITS_MIN, UNITS_MAX),
        unit_value in in_range(UNIT_VALUE_MIN, UNIT_VALUE_MAX),
    ) -> Form {
        Form { units: Field::Valid(units), unit_value: Field::Valid(unit_value), extras: Vec::new(), extras_first: false }
    }
}

prop_compose! {
    /// Any form: each field valid or broken, with or without extra keys, extras
    /// written before or after the fields.
    pub fn form()(
        units in field(UNITS_MIN, UNITS_MAX),
        unit_value in field(UNIT_VALUE_MIN, UNIT_VALUE_MAX),
        extras in extra_keys(),
        extras_first in any::<bool>(),
    ) -> Form {
        Form { units, unit_value, extras, extras_first }
    }
}

/// The empty object `{}`.
pub fn empty_form() -> Form {
    Form {
        units: Field::Missing,
        unit_value: Field::Missing,
        extras: Vec::new(),
        extras_first: false,
    }
}

/// Content that is neither an object nor null: arrays, strings, numbers, booleans.
pub fn not_an_object() -> impl Strategy<Value = Value> {
    prop_oneof![
        collection::vec(json_leaf(), 0..3).prop_map(Value::Array),
        "[a-z0-9]{0,6}".prop_map(Value::String),
        (-5i64..=200).prop_map(Value::from),
        any::<bool>().prop_map(Value::Bool),
    ]
}

/// Content of an accept: valid forms, broken forms, `{}` and non-objects. Valid
/// forms are weighted so that, with the near misses of [`crate::strategy::near_miss`]
/// taking about a fifth of the cases, about one case in eleven is still a valid
/// accept under `validated` (as many as before they were added).
pub fn accept_content() -> impl Strategy<Value = Content> {
    prop_oneof![
        6 => valid_form().prop_map(Content::Form),
        6 => form().prop_map(Content::Form),
        1 => Just(Content::Form(empty_form())),
        1 => not_an_object().prop_map(Content::NotAnObject),
    ]
    .boxed()
}
