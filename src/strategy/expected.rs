//! The outcome objects a generated case's reason implies (the contract table).
//!
//! Built by hand here, never through the server core nor `crate::oracle::model`.

use serde_json::{Map, Value};

/// The code the harness client answers when form was not declared (contract rule 2).
pub(crate) const REFUSAL_CODE: i64 = -32602;
/// The message sent with [`REFUSAL_CODE`] (contract rule 2).
pub(crate) const REFUSAL_MESSAGE: &str = "elicitation mode not declared: form";
/// The `error` of an `invalid_response` for a result that is not an `ElicitResult`.
pub(crate) const MALFORMED: &str = "malformed elicitation result";
/// The `error` of an `invalid_response` for an accept without content.
pub(crate) const NO_CONTENT: &str = "accept response has no content";

/// An outcome object: `status`, `computed`, then `rest` in order.
pub(crate) fn outcome(status: &str, computed: bool, rest: Vec<(&str, Value)>) -> Value {
    let mut object = Map::new();
    object.insert("status".to_owned(), Value::from(status));
    object.insert("computed".to_owned(), Value::Bool(computed));
    for (key, value) in rest {
        object.insert(key.to_owned(), value);
    }
    Value::Object(object)
}

/// `raw_response` with `action` and, when given, `content`.
pub(crate) fn raw_response(action: &str, content: Option<Value>) -> Value {
    let mut rest = vec![("action", Value::from(action))];
    if let Some(content) = content {
        rest.push(("content", content));
    }
    outcome("raw_response", false, rest)
}

/// `invalid_response` with `error`.
pub(crate) fn invalid_response(error: &str) -> Value {
    outcome(
        "invalid_response",
        false,
        vec![("error", Value::from(error))],
    )
}

/// `invalid_content` with the error paths.
pub(crate) fn invalid_content(errors: Vec<Vec<String>>) -> Value {
    let errors = errors
        .into_iter()
        .map(|path| Value::Array(path.into_iter().map(Value::String).collect()))
        .collect();
    outcome(
        "invalid_content",
        false,
        vec![("errors", Value::Array(errors))],
    )
}
