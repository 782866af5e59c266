//! The `requestedSchema` a server sends, read as the MCP subset.
//!
//! MCP 2025-11-25 (Elicitation, "Requested schema") allows a flat object of
//! primitive properties: string (`minLength`, `maxLength`, `format` email, uri,
//! date, date-time), number and integer (`minimum`, `maximum`), boolean,
//! single-select enums (`enum`, `oneOf` of `const`+`title`, legacy `enumNames`),
//! multi-select (`type: array` of enum items, `minItems`, `maxItems`), `default`s
//! and `required`. This model exists only to *generate* answers ([`answer`],
//! [`coverage`], the values of each format in [`formats`]);
//! whether an answer is valid is decided by the `jsonschema` crate ([`judge`]).

pub mod answer;
pub mod coverage;
pub mod formats;
pub mod judge;

use serde_json::{Map, Value};

/// One property of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name (a key of `properties`).
    pub name: String,
    /// What kind of value it takes.
    pub kind: Kind,
    /// Whether `required` names it.
    pub required: bool,
    /// Its `default`, as sent.
    pub default: Option<Value>,
}

/// The kinds of primitive the MCP subset allows.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `type: string`; lengths in characters; `format` as sent.
    String {
        /// `minLength`.
        min_length: Option<u64>,
        /// `maxLength`.
        max_length: Option<u64>,
        /// `format` (email, uri, date, date-time; others are kept and warned about).
        format: Option<String>,
    },
    /// `type: number` or `type: integer`.
    Number {
        /// `true` for `integer`.
        integer: bool,
        /// `minimum`.
        minimum: Option<f64>,
        /// `maximum`.
        maximum: Option<f64>,
    },
    /// `type: boolean`.
    Boolean,
    /// A single-select enum: the allowed string values.
    Enum {
        /// Values from `enum`, or the `const`s of `oneOf`/`anyOf`.
        values: Vec<String>,
    },
    /// A multi-select: `type: array` whose items are enum strings.
    MultiSelect {
        /// The allowed item values.
        values: Vec<String>,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
    },
    /// A property the subset does not describe (answered with a string, warned about).
    Other,
}

/// A `requestedSchema` read as the MCP subset.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    /// The properties, in the order sent.
    pub fields: Vec<Field>,
    /// Keywords or shapes outside the MCP subset, one message each, e.g.
    /// ``keyword `pattern` at /properties/code is outside the MCP subset``.
    pub outside_subset: Vec<String>,
}

/// Keywords a property may carry in the MCP subset (annotations included).
const PROPERTY_KEYWORDS: &[&str] = &[
    "type",
    "title",
    "description",
    "default",
    "minLength",
    "maxLength",
    "format",
    "minimum",
    "maximum",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "items",
    "minItems",
    "maxItems",
];

/// Keywords the top level of a `requestedSchema` may carry.
const TOP_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "$schema",
    "title",
    "description",
];

/// Formats the MCP subset names.
pub const MCP_FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

impl Form {
    /// Reads `schema` (the `requestedSchema` as sent). Never fails: what it cannot
    /// read is listed in [`Form::outside_subset`] and generated as well as it can.
    pub fn read(schema: &Value) -> Form {
        let mut outside = Vec::new();
        let empty = Map::new();
        let object = schema.as_object().unwrap_or(&empty);
        if !schema.is_object() {
            outside.push("the requestedSchema is not an object".to_owned());
        }
        for key in object.keys() {
            if !TOP_KEYWORDS.contains(&key.as_str()) {
                outside.push(format!(
                    "keyword `{key}` at the top of the requestedSchema is outside the MCP subset"
                ));
            }
        }
        if object.get("type").and_then(Value::as_str) != Some("object") {
            outside.push("the requestedSchema's `type` is not \"object\"".to_owned());
        }
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = object
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let fields = properties
            .iter()
            .map(|(name, property)| {
                let kind = read_kind(name, property, &mut outside);
                Field {
                    name: name.clone(),
                    kind,
                    required: required.contains(&name.as_str()),
                    default: property.get("default").cloned(),
                }
            })
            .collect();
        Form {
            fields,
            outside_subset: outside,
        }
    }
}

/// Reads one property's kind, noting what is outside the subset.
fn read_kind(name: &str, property: &Value, outside: &mut Vec<String>) -> Kind {
    let at = format!("/properties/{name}");
    let Some(object) = property.as_object() else {
        outside.push(format!("{at} is not an object"));
        return Kind::Other;
    };
    for key in object.keys() {
        if !PROPERTY_KEYWORDS.contains(&key.as_str()) {
            outside.push(format!("keyword `{key}` at {at} is outside the MCP subset"));
        }
    }
    let unsigned = |key: &str| object.get(key).and_then(Value::as_u64);
    let number = |key: &str| object.get(key).and_then(Value::as_f64);
    match object.get("type").and_then(Value::as_str) {
        Some("string") => {
            if let Some(values) = enum_values(object) {
                return Kind::Enum { values };
            }
            let format = object
                .get("format")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if let Some(format) = &format
                && !MCP_FORMATS.contains(&format.as_str())
            {
                outside.push(format!(
                    "format `{format}` at {at} is outside the MCP subset"
                ));
            }
            Kind::String {
                min_length: unsigned("minLength"),
                max_length: unsigned("maxLength"),
                format,
            }
        }
        Some(kind @ ("number" | "integer")) => Kind::Number {
            integer: kind == "integer",
            minimum: number("minimum"),
            maximum: number("maximum"),
        },
        Some("boolean") => Kind::Boolean,
        Some("array") => match object
            .get("items")
            .and_then(Value::as_object)
            .and_then(enum_values)
        {
            Some(values) => Kind::MultiSelect {
                values,
                min_items: unsigned("minItems"),
                max_items: unsigned("maxItems"),
            },
            None => {
                outside.push(format!("{at} is an array without enum items"));
                Kind::Other
            }
        },
        other => match enum_values(object) {
            Some(values) => Kind::Enum { values },
            None => {
                outside.push(match other {
                    Some(kind) => format!(
                        "type \"{kind}\" at {at} is outside the MCP subset (primitives only, no nesting)"
                    ),
                    None => format!("{at} has no `type`"),
                });
                Kind::Other
            }
        },
    }
}

/// The allowed string values of an enum: `enum`, or the `const`s of `oneOf`/`anyOf`.
fn enum_values(object: &Map<String, Value>) -> Option<Vec<String>> {
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        return Some(
            values
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        );
    }
    let options = object
        .get("oneOf")
        .or_else(|| object.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        options
            .iter()
            .filter_map(|option| option.get("const").and_then(Value::as_str))
            .map(str::to_owned)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_primitive_of_the_subset_is_read_with_its_bounds() {
        let form = Form::read(&json!({
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email", "maxLength": 40},
                "age": {"type": "integer", "minimum": 1, "maximum": 100, "default": 30},
                "ok": {"type": "boolean"},
                "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
                "tier": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 1}
            },
            "required": ["email"]
        }));
        assert!(form.outside_subset.is_empty(), "{:?}", form.outside_subset);
        assert_eq!(form.fields.len(), 6);
        assert!(form.fields[0].required && !form.fields[1].required);
        assert_eq!(form.fields[1].default, Some(json!(30)));
        assert_eq!(
            form.fields[0].kind,
            Kind::String {
                min_length: None,
                max_length: Some(40),
                format: Some("email".into())
            }
        );
        assert_eq!(
            form.fields[1].kind,
            Kind::Number {
                integer: true,
                minimum: Some(1.0),
                maximum: Some(100.0)
            }
        );
        assert_eq!(form.fields[2].kind, Kind::Boolean);
        assert_eq!(
            form.fields[3].kind,
            Kind::Enum {
                values: vec!["s".into(), "m".into()]
            }
        );
        assert_eq!(
            form.fields[4].kind,
            Kind::Enum {
                values: vec!["a".into(), "b".into()]
            }
        );
        assert_eq!(
            form.fields[5].kind,
            Kind::MultiSelect {
                values: vec!["x".into(), "y".into()],
                min_items: Some(1),
                max_items: None
            }
        );
    }

    #[test]
    fn keywords_outside_the_subset_are_named_with_their_place() {
        let form = Form::read(&json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "pattern": "^[A-Z]+$"},
                "address": {"type": "object"},
                "free": {}
            },
            "additionalProperties": false
        }));
        assert_eq!(
            form.outside_subset,
            vec![
                "keyword `additionalProperties` at the top of the requestedSchema is outside the MCP subset",
                "keyword `pattern` at /properties/code is outside the MCP subset",
                "type \"object\" at /properties/address is outside the MCP subset (primitives only, no nesting)",
                "/properties/free has no `type`",
            ]
        );
        assert_eq!(form.fields[1].kind, Kind::Other);
        assert!(matches!(form.fields[0].kind, Kind::String { .. }));
    }
}
