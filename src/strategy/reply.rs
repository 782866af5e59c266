//! What the client answers to `elicitation/create`: accept, decline, cancel, malformed results and JSON-RPC errors, with their strategies.

use std::fmt;

use proptest::prelude::*;
use proptest::sample;
use proptest::{collection, option};
use serde_json::{Map, Value};

use super::expected::{MALFORMED, NO_CONTENT, invalid_response, outcome, raw_response};
use super::form::{
    Content, accept_content, empty_form, json_value, near_miss_form, object_text, valid_form,
};
use super::policy::Policy;
use crate::case::WireAnswer;

/// What the client deliberately answers to `elicitation/create`.
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
    /// A well-formed result (accept, decline or cancel) with members beyond
    /// `action` and `content`, appended in order: `_meta` (an object), `roots`, or
    /// unknown keys. MCP 2025-11-25 lets a result carry `_meta` and members the
    /// schema does not name, so they are ignored: the outcome is the inner reply's.
    WithExtraMembers(Box<Reply>, Vec<(String, Value)>),
}

impl Reply {
    /// The case's answer for this reply as it goes on the wire, numbers written
    /// as built (`-0`, `3e0`, digits beyond u64); `None` for [`Reply::NoAnswer`].
    pub fn wire_answer(&self) -> Option<WireAnswer> {
        let answer = match self {
            Reply::NoAnswer => return None,
            Reply::RpcError { .. } => WireAnswer::error_text(&self.text()?),
            _ => WireAnswer::result_text(&self.text()?),
        };
        Some(answer.expect("generated JSON text is valid"))
    }

    /// The exact JSON text of the response member: the `error` object of an
    /// [`Reply::RpcError`], else the `result`; `None` for [`Reply::NoAnswer`].
    pub fn text(&self) -> Option<String> {
        Some(match self {
            Reply::NoAnswer => return None,
            Reply::RpcError { code, message } => object_text(&[
                ("code", code.to_string()),
                ("message", Value::from(message.as_str()).to_string()),
            ]),
            Reply::Malformed(malformed) => malformed.to_text(),
            Reply::Accept(content) => elicit_result("accept", Some(content.to_text())),
            Reply::AcceptWithoutContent(absence) => elicit_result("accept", absence.to_text()),
            Reply::Decline(attached) => elicit_result("decline", attached.to_text()),
            Reply::Cancel(attached) => elicit_result("cancel", attached.to_text()),
            Reply::WithExtraMembers(reply, members) => {
                let inner = reply.text()?;
                let members: Vec<String> = members
                    .iter()
                    .map(|(key, value)| format!("{}:{value}", Value::from(key.as_str())))
                    .collect();
                // The inner text is an object `{...}`: the members go before its `}`.
                let body = &inner[1..inner.len() - 1];
                let separator = if body.is_empty() { "" } else { "," };
                format!("{{{body}{separator}{}}}", members.join(","))
            }
        })
    }

    /// The outcome of this reply when form is declared and the server asks under
    /// `policy` (contract rules 2, 4 and 5).
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
            Reply::WithExtraMembers(reply, _) => reply.expected(policy),
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
            Reply::WithExtraMembers(reply, members) => {
                write!(f, "{reply} with extra result members")?;
                for (index, (key, _)) in members.iter().enumerate() {
                    let separator = if index == 0 { " " } else { ", " };
                    write!(f, "{separator}{key:?}")?;
                }
                Ok(())
            }
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
    /// The `content` text written into the result, if any.
    pub fn to_text(self) -> Option<String> {
        match self {
            Absence::Absent => None,
            Absence::Null => Some("null".to_owned()),
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
    pub fn to_text(&self) -> Option<String> {
        match self {
            Attached::Absent => None,
            Attached::Null => Some("null".to_owned()),
            Attached::Content(content) => Some(content.to_text()),
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

/// A result that is not a valid `ElicitResult` (contract rule 4): the outcome is
/// `invalid_response` "malformed elicitation result" under every policy. These
/// results carry the keys `action` and `content` only.
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
    /// The exact JSON text of the `result` member written into the response.
    pub fn to_text(&self) -> String {
        let (action, content) = match self {
            Malformed::NotAnObject(value) => return value.to_string(),
            Malformed::UnknownAction { action, content } => {
                (Some(Value::from(action.as_str())), content)
            }
            Malformed::MissingAction { content } => (None, content),
            Malformed::NonStringAction { action, content } => (Some(action.clone()), content),
        };
        let mut members = Vec::new();
        if let Some(action) = action {
            members.push(("action", action.to_string()));
        }
        if let Some(content) = content {
            members.push(("content", content.to_text()));
        }
        object_text(&members)
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

/// The text of `{"action": action}` plus `"content"` (its exact text) when given.
fn elicit_result(action: &str, content: Option<String>) -> String {
    let mut members = vec![("action", Value::from(action).to_string())];
    if let Some(content) = content {
        members.push(("content", content));
    }
    object_text(&members)
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

/// Members a result may carry beyond `action` and `content` (MCP 2025-11-25:
/// `Result` has `_meta` and admits members the schema does not name): `_meta`
/// (always an object), `roots` (another result's member), unknown keys.
pub fn extra_result_member() -> impl Strategy<Value = (String, Value)> {
    prop_oneof![
        2 => collection::btree_map("[a-z]{1,4}", json_value(), 0..3)
            .prop_map(|entries| ("_meta".to_owned(), Value::Object(entries.into_iter().collect()))),
        2 => prop_oneof![
            Just(Value::Array(Vec::new())),
            Just(serde_json::json!([{"uri": "file:///tmp", "name": "tmp"}])),
        ]
        .prop_map(|roots| ("roots".to_owned(), roots)),
        2 => ("[a-z]{1,8}", json_value()),
    ]
    .prop_filter(
        "action and content are the result's own members",
        |(key, _)| key != "action" && key != "content",
    )
}

/// A well-formed result (accept, decline, cancel, accept without content) with
/// one to three extra members, distinct keys in generated order.
pub fn with_extra_members() -> impl Strategy<Value = Reply> {
    let result = prop_oneof![
        2 => accept_content().prop_map(Reply::Accept),
        1 => prop_oneof![Just(Absence::Absent), Just(Absence::Null)].prop_map(Reply::AcceptWithoutContent),
        1 => attached().prop_map(Reply::Decline),
        1 => attached().prop_map(Reply::Cancel),
    ];
    (result, collection::vec(extra_result_member(), 1..4))
        .prop_map(|(reply, entries)| {
            let mut members: Vec<(String, Value)> = Vec::new();
            for (key, value) in entries {
                if members.iter().all(|(seen, _)| *seen != key) {
                    members.push((key, value));
                }
            }
            Reply::WithExtraMembers(Box::new(reply), members)
        })
        .boxed()
}

/// Action strings one step from a spec action: another case or a space around
/// it (`ACCEPT`, `Accept`, ` accept`, `accept `, `Decline`, `CANCEL`, ` cancel`).
/// A server that lower-cases or trims before matching reads them as the spec
/// action; the spec's actions are case-sensitive.
pub const WRONG_CASE_ACTIONS: &[&str] = &[
    "ACCEPT", "Accept", " accept", "accept ", "Decline", "CANCEL", " cancel",
];

/// An answer one step from a valid accept, each finding a
/// classic server-side fault on its own: a valid form with a near-miss field
/// ([`near_miss_form`]) most often; a wrong-case action carrying a valid form; an
/// accept with content `{}`, `null`, none, `[]` or a valid form encoded twice
/// (a JSON string holding the object); a decline or cancel carrying a valid form.
pub fn near_miss() -> impl Strategy<Value = Reply> {
    let valid = || valid_form().prop_map(Content::Form);
    prop_oneof![
        6 => near_miss_form().prop_map(|form| Reply::Accept(Content::Form(form))),
        2 => (sample::select(WRONG_CASE_ACTIONS), valid()).prop_map(|(action, content)| {
            Reply::Malformed(Malformed::UnknownAction {
                action: action.to_owned(),
                content: Some(content),
            })
        }),
        3 => prop_oneof![
            2 => Just(Reply::Accept(Content::Form(empty_form()))),
            2 => Just(Reply::AcceptWithoutContent(Absence::Null)),
            1 => Just(Reply::AcceptWithoutContent(Absence::Absent)),
            1 => Just(Reply::Accept(Content::NotAnObject(Value::Array(Vec::new())))),
            1 => valid_form().prop_map(|form| Reply::Accept(Content::NotAnObject(Value::String(form.to_text())))),
        ],
        1 => prop_oneof![
            valid().prop_map(|content| Reply::Decline(Attached::Content(content))),
            valid().prop_map(|content| Reply::Cancel(Attached::Content(content))),
        ],
    ]
    .boxed()
}

/// The client's answer (an "action" in the wide sense): accept with content most
/// often, then decline, cancel, malformed results, no content, no answer, errors,
/// results with extra members.
pub fn reply() -> impl Strategy<Value = Reply> {
    prop_oneof![
        12 => accept_content().prop_map(Reply::Accept),
        1 => prop_oneof![Just(Absence::Absent), Just(Absence::Null)].prop_map(Reply::AcceptWithoutContent),
        2 => attached().prop_map(Reply::Decline),
        2 => attached().prop_map(Reply::Cancel),
        1 => Just(Reply::NoAnswer),
        1 => rpc_error(),
        3 => malformed().prop_map(Reply::Malformed),
        2 => with_extra_members(),
    ]
    .boxed()
}
