//! What the client answers to `elicitation/create`: accept, decline, cancel, malformed results and JSON-RPC errors, with their strategies.

use std::fmt;

use proptest::option;
use proptest::prelude::*;
use proptest::sample;
use serde_json::{Map, Value};

use super::expected::{MALFORMED, NO_CONTENT, invalid_response, outcome, raw_response};
use super::form::{Content, accept_content, valid_form};
use super::reason::Policy;
use crate::case::Answer;

/// What the client deliberately answers to `elicitation/create` (issue 3).
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// No answer in the case: the client itself replies `{"action":"cancel"}`.
    NoAnswer,
    /// A JSON-RPC error object `{"code": code, "message": message}`.
    RpcError {
        /// The error code.
        code: i32,
        /// The error message.
        message: String,
    },
    /// A result that is not a valid `ElicitResult`.
    Malformed(Malformed),
    /// `{"action":"accept","content": content}`.
    Accept(Content),
    /// `{"action":"accept"}` or `{"action":"accept","content":null}`.
    AcceptWithoutContent(Absence),
    /// `{"action":"decline"}`, with content attached or not.
    Decline(Attached),
    /// `{"action":"cancel"}`, with content attached or not.
    Cancel(Attached),
}

impl Reply {
    /// The case's `answer` for this reply.
    pub fn answer(&self) -> Option<Answer> {
        match self {
            Reply::NoAnswer => None,
            Reply::RpcError { code, message } => {
                let mut error = Map::new();
                error.insert("code".to_owned(), Value::from(*code));
                error.insert("message".to_owned(), Value::from(message.as_str()));
                Some(Answer::Error(Value::Object(error)))
            }
            Reply::Malformed(malformed) => Some(Answer::Result(malformed.to_json())),
            Reply::Accept(content) => Some(Answer::Result(elicit_result(
                "accept",
                Some(content.to_json()),
            ))),
            Reply::AcceptWithoutContent(absence) => {
                Some(Answer::Result(elicit_result("accept", absence.to_json())))
            }
            Reply::Decline(attached) => {
                Some(Answer::Result(elicit_result("decline", attached.to_json())))
            }
            Reply::Cancel(attached) => {
                Some(Answer::Result(elicit_result("cancel", attached.to_json())))
            }
        }
    }

    /// The outcome of this reply when form is declared and the server asks under
    /// `policy` (issue 2, rules 2, 4 and 5).
    pub fn expected(&self, policy: Policy) -> Value {
        let raw = policy != Policy::Validated;
        match self {
            Reply::NoAnswer if raw => raw_response("cancel", None),
            Reply::NoAnswer => outcome("cancelled", false, vec![]),
            Reply::RpcError { code, message } => outcome(
                "protocol_error",
                false,
                vec![
                    ("code", Value::from(*code)),
                    ("error", Value::from(message.as_str())),
                ],
            ),
            Reply::Malformed(_) => invalid_response(MALFORMED),
            Reply::Accept(content) if raw => raw_response("accept", Some(content.to_json())),
            Reply::Accept(content) => content.validated(),
            Reply::AcceptWithoutContent(_) if raw => raw_response("accept", None),
            Reply::AcceptWithoutContent(_) => invalid_response(NO_CONTENT),
            Reply::Decline(attached) if raw => raw_response("decline", attached.content()),
            Reply::Decline(_) => outcome("declined", false, vec![]),
            Reply::Cancel(attached) if raw => raw_response("cancel", attached.content()),
            Reply::Cancel(_) => outcome("cancelled", false, vec![]),
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::NoAnswer => f.write_str("no answer (the client replies cancel)"),
            Reply::RpcError { code, message } => {
                write!(f, "JSON-RPC error {code} {message:?}")
            }
            Reply::Malformed(malformed) => write!(f, "malformed result: {malformed}"),
            Reply::Accept(content) => write!(f, "accept of {content}"),
            Reply::AcceptWithoutContent(Absence::Absent) => f.write_str("accept without content"),
            Reply::AcceptWithoutContent(Absence::Null) => f.write_str("accept with content null"),
            Reply::Decline(attached) => write!(f, "decline{attached}"),
            Reply::Cancel(attached) => write!(f, "cancel{attached}"),
        }
    }
}

/// How `content` is left out of a result: absent, or `null` (which counts as absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absence {
    /// No `content` key.
    Absent,
    /// `"content": null`.
    Null,
}

impl Absence {
    /// The `content` value written into the result, if any.
    pub fn to_json(self) -> Option<Value> {
        match self {
            Absence::Absent => None,
            Absence::Null => Some(Value::Null),
        }
    }
}

/// Content attached to a decline or cancel (never read under `validated`).
#[derive(Debug, Clone, PartialEq)]
pub enum Attached {
    /// No `content` key.
    Absent,
    /// `"content": null`.
    Null,
    /// `"content": ...` (a valid form or garbage, never `null`).
    Content(Content),
}

impl Attached {
    /// The `content` value written into the result, if any.
    pub fn to_json(&self) -> Option<Value> {
        match self {
            Attached::Absent => None,
            Attached::Null => Some(Value::Null),
            Attached::Content(content) => Some(content.to_json()),
        }
    }

    /// The content a raw policy reports: none when absent or `null`.
    pub fn content(&self) -> Option<Value> {
        match self {
            Attached::Absent | Attached::Null => None,
            Attached::Content(content) => Some(content.to_json()),
        }
    }
}

impl fmt::Display for Attached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attached::Absent => Ok(()),
            Attached::Null => f.write_str(" with content null"),
            Attached::Content(content) => write!(f, " with attached {content}"),
        }
    }
}

/// A result that is not a valid `ElicitResult` (issue 2, rule 4): the outcome is
/// `invalid_response` "malformed elicitation result" under every policy. Results
/// only ever carry the keys `action` and `content`.
#[derive(Debug, Clone, PartialEq)]
pub enum Malformed {
    /// `action` is a string other than `accept`, `decline`, `cancel` (case-sensitive).
    UnknownAction {
        /// The action string.
        action: String,
        /// Optional content.
        content: Option<Content>,
    },
    /// No `action` key (`{}` when there is no content either).
    MissingAction {
        /// Optional content.
        content: Option<Content>,
    },
    /// `action` is not a string (number, boolean, null, array, object).
    NonStringAction {
        /// The action value.
        action: Value,
        /// Optional content.
        content: Option<Content>,
    },
    /// The result is not an object (array, string, number).
    NotAnObject(Value),
}

impl Malformed {
    /// The `result` member written into the response.
    pub fn to_json(&self) -> Value {
        let (action, content) = match self {
            Malformed::NotAnObject(value) => return value.clone(),
            Malformed::UnknownAction { action, content } => {
                (Some(Value::from(action.as_str())), content)
            }
            Malformed::MissingAction { content } => (None, content),
            Malformed::NonStringAction { action, content } => (Some(action.clone()), content),
        };
        let mut result = Map::new();
        if let Some(action) = action {
            result.insert("action".to_owned(), action);
        }
        if let Some(content) = content {
            result.insert("content".to_owned(), content.to_json());
        }
        Value::Object(result)
    }
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let content = match self {
            Malformed::NotAnObject(value) => {
                return write!(f, "a result that is not an object {value}");
            }
            Malformed::UnknownAction { action, content } => {
                write!(f, "unknown action {action:?}")?;
                content
            }
            Malformed::MissingAction { content: None } => return f.write_str("an empty object {}"),
            Malformed::MissingAction { content } => {
                f.write_str("no action")?;
                content
            }
            Malformed::NonStringAction { action, content } => {
                write!(f, "non-string action {action}")?;
                content
            }
        };
        match content {
            Some(content) => write!(f, " with content {content}"),
            None => Ok(()),
        }
    }
}

/// `{"action": action}` plus `"content"` when given.
fn elicit_result(action: &str, content: Option<Value>) -> Value {
    let mut result = Map::new();
    result.insert("action".to_owned(), Value::from(action));
    if let Some(content) = content {
        result.insert("content".to_owned(), content);
    }
    Value::Object(result)
}

/// Content attached to a decline or cancel: none, null, a valid form or garbage.
pub fn attached() -> impl Strategy<Value = Attached> {
    prop_oneof![
        3 => Just(Attached::Absent),
        1 => Just(Attached::Null),
        2 => valid_form().prop_map(|form| Attached::Content(Content::Form(form))),
        2 => accept_content().prop_map(Attached::Content),
    ]
    .boxed()
}

/// Action strings that are not `accept`, `decline` nor `cancel`.
pub fn unknown_action() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => sample::select(&["reject", "Accept", "ACCEPT", "", "Decline", "CANCEL", "accept ", " cancel", "accepted"][..])
            .prop_map(str::to_owned),
        1 => "[a-z]{1,8}",
    ]
    .prop_filter("a valid action is not unknown", |action| {
        !matches!(action.as_str(), "accept" | "decline" | "cancel")
    })
}

/// `action` values that are not strings: number, boolean, null, array, object.
pub fn non_string_action() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i64..10).prop_map(Value::from),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        Just(Value::Array(vec![Value::from("accept")])),
        Just(Value::Array(Vec::new())),
        Just(Value::Object(Map::new())),
    ]
}

/// Results that are not objects: arrays, strings, numbers.
pub fn result_not_an_object() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Array(Vec::new())),
        Just(Value::Array(vec![Value::from("accept")])),
        prop_oneof![Just("accept".to_owned()), "[a-z]{0,6}"].prop_map(Value::String),
        (-5i64..=200).prop_map(Value::from),
    ]
}

/// Malformed results: unknown or non-string action, missing action (`{}`
/// included), not an object.
pub fn malformed() -> impl Strategy<Value = Malformed> {
    prop_oneof![
        3 => (unknown_action(), option::of(accept_content()))
            .prop_map(|(action, content)| Malformed::UnknownAction { action, content }),
        2 => option::of(accept_content()).prop_map(|content| Malformed::MissingAction { content }),
        2 => (non_string_action(), option::of(accept_content()))
            .prop_map(|(action, content)| Malformed::NonStringAction { action, content }),
        2 => result_not_an_object().prop_map(Malformed::NotAnObject),
    ]
    .boxed()
}

/// JSON-RPC error codes: the usual ones weighted up, then any i32.
pub fn error_code() -> impl Strategy<Value = i32> {
    prop_oneof![
        2 => Just(-32603),
        2 => Just(-32602),
        1 => Just(-1),
        1 => Just(0),
        2 => any::<i32>(),
    ]
}

prop_compose! {
    /// A JSON-RPC error answer with a short message.
    pub fn rpc_error()(code in error_code(), message in "[a-z ]{0,16}") -> Reply {
        Reply::RpcError { code, message }
    }
}

/// The client's answer (an "action" in the wide sense): accept with content most
/// often, then decline, cancel, malformed results, no content, no answer, errors.
pub fn reply() -> impl Strategy<Value = Reply> {
    prop_oneof![
        10 => accept_content().prop_map(Reply::Accept),
        1 => prop_oneof![Just(Absence::Absent), Just(Absence::Null)].prop_map(Reply::AcceptWithoutContent),
        2 => attached().prop_map(Reply::Decline),
        2 => attached().prop_map(Reply::Cancel),
        1 => Just(Reply::NoAnswer),
        1 => rpc_error(),
        3 => malformed().prop_map(Reply::Malformed),
    ]
    .boxed()
}
