//! proptest strategies that build cases with the reason they were built (issue 3).
//!
//! This is the "by construction" oracle. A strategy first picks a [`Reason`]: which
//! capabilities the client declares, which policy the tool runs under and what the
//! client deliberately answers (a valid form, a form with a near-miss extra key, a
//! float where an integer belongs, a malformed result, ...). The [`Case`] is then
//! built from the reason ([`Reason::case`]) and the expected outcome is derived from
//! the reason alone ([`Reason::expected`]), never by reading the built JSON back and
//! never through `crate::oracle::model`: the two oracles share nothing but
//! `serde_json`, so a test that compares them checks one against the other.
//!
//! Strategies are written so that shrinking ends on small, readable answers: the
//! simplest alternative of every `prop_oneof!` comes first, numbers shrink towards
//! the schema's boundaries, key lists towards empty and names towards one letter.
//! The composite strategies are boxed: unboxed, their value trees are deep enough
//! to overflow a test thread's stack in debug builds.

use std::fmt;

use proptest::prelude::*;
use proptest::{collection, option, sample};
use serde_json::{Map, Number, Value};

use crate::case::{Answer, Case};

/// The `units` field's range (issue 2 contract table: required integer 1..=10).
const UNITS_MIN: i64 = 1;
/// See [`UNITS_MIN`].
const UNITS_MAX: i64 = 10;
/// The `unit_value` field's range (issue 2 contract table: required integer 1..=100).
const UNIT_VALUE_MIN: i64 = 1;
/// See [`UNIT_VALUE_MIN`].
const UNIT_VALUE_MAX: i64 = 100;

/// The code the harness client answers when form was not declared (issue 2, rule 2).
const REFUSAL_CODE: i64 = -32602;
/// The message sent with [`REFUSAL_CODE`] (issue 2, rule 2).
const REFUSAL_MESSAGE: &str = "elicitation mode not declared: form";
/// The `error` of an `invalid_response` for a result that is not an `ElicitResult`.
const MALFORMED: &str = "malformed elicitation result";
/// The `error` of an `invalid_response` for an accept without content.
const NO_CONTENT: &str = "accept response has no content";

/// A generated case with the reason it was built and the outcome that reason implies.
///
/// `case.name` is `"generated"` (the caller renames it); `expected` is an outcome
/// object of the issue 2 contract table, derived from `reason` alone (issue 3).
#[derive(Debug, Clone)]
pub struct GeneratedCase {
    /// The input sent to the server, built by [`Reason::case`].
    pub case: Case,
    /// Why the case was built.
    pub reason: Reason,
    /// The outcome the reason implies, built by [`Reason::expected`].
    pub expected: Value,
}

impl GeneratedCase {
    /// Builds the case and its expected outcome from `reason` (issue 3).
    pub fn from_reason(reason: Reason) -> Self {
        Self {
            case: reason.case(),
            expected: reason.expected(),
            reason,
        }
    }
}

/// The `policy` argument of `calculate` (issue 2 contract table, rule 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// `"validated"`: asks only when form is declared, validates accepted content.
    Validated,
    /// `"raw"`: asks only when form is declared, reports the answer as received.
    Raw,
    /// `"diagnostic_unchecked"`: always asks, reports the answer as received.
    DiagnosticUnchecked,
}

impl Policy {
    /// The string sent in the `tools/call` arguments.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Validated => "validated",
            Policy::Raw => "raw",
            Policy::DiagnosticUnchecked => "diagnostic_unchecked",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A policy that checks the client's capabilities before asking (issue 2, rule 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardedPolicy {
    /// `"validated"`.
    Validated,
    /// `"raw"`.
    Raw,
}

impl GuardedPolicy {
    /// The string sent in the `tools/call` arguments.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardedPolicy::Validated => "validated",
            GuardedPolicy::Raw => "raw",
        }
    }
}

/// Capabilities that declare form elicitation (issue 2, rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormCaps {
    /// `{"elicitation":{"form":{}}}`.
    Form,
    /// `{"elicitation":{}}`: the legacy object, form only.
    Legacy,
    /// `{"elicitation":{"form":{},"url":{}}}`.
    FormAndUrl,
}

impl FormCaps {
    /// The `capabilities` object declared at `initialize`.
    pub fn to_json(self) -> Value {
        let mut elicitation = Map::new();
        match self {
            FormCaps::Form => {
                elicitation.insert("form".to_owned(), Value::Object(Map::new()));
            }
            FormCaps::Legacy => {}
            FormCaps::FormAndUrl => {
                elicitation.insert("form".to_owned(), Value::Object(Map::new()));
                elicitation.insert("url".to_owned(), Value::Object(Map::new()));
            }
        }
        let mut capabilities = Map::new();
        capabilities.insert("elicitation".to_owned(), Value::Object(elicitation));
        Value::Object(capabilities)
    }
}

/// Capabilities that do not declare form elicitation (issue 2, rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoFormCaps {
    /// `{}`: no `elicitation` at all.
    Nothing,
    /// `{"elicitation":{"url":{}}}`: URL mode only.
    UrlOnly,
}

impl NoFormCaps {
    /// The `capabilities` object declared at `initialize`.
    pub fn to_json(self) -> Value {
        let mut capabilities = Map::new();
        if self == NoFormCaps::UrlOnly {
            let mut elicitation = Map::new();
            elicitation.insert("url".to_owned(), Value::Object(Map::new()));
            capabilities.insert("elicitation".to_owned(), Value::Object(elicitation));
        }
        Value::Object(capabilities)
    }
}

/// Why a case was built: capabilities, policy and the deliberate answer (issue 3).
///
/// Displays as a readable sentence, e.g. `policy validated, capabilities
/// {"elicitation":{"form":{}}}: accept of a valid form (units=3, unit_value=7) with
/// extra key "Units"`. [`Reason::expected`] derives the outcome from it alone.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// Form not declared and a guarded policy: the server must not ask, so the
    /// outcome is `unsupported` whatever the case's answer says (rules 1 and 3).
    NotDeclaredGuarded {
        /// The declared capabilities (no form).
        capabilities: NoFormCaps,
        /// `validated` or `raw`.
        policy: GuardedPolicy,
        /// The answer written into the case, never sent.
        ignored: Reply,
    },
    /// Form not declared under `diagnostic_unchecked`: the server asks anyway and
    /// the client refuses with `-32602` whatever the case's answer says (rules 2, 3, 4).
    NotDeclaredUnchecked {
        /// The declared capabilities (no form).
        capabilities: NoFormCaps,
        /// The answer written into the case, replaced by the client's refusal.
        ignored: Reply,
    },
    /// Form declared: the server asks (under every policy) and gets `reply` (rules 2 to 5).
    Declared {
        /// The declared capabilities (form).
        capabilities: FormCaps,
        /// The tool's policy.
        policy: Policy,
        /// What the client answers.
        reply: Reply,
    },
}

impl Reason {
    /// The policy string of the case.
    pub fn policy_str(&self) -> &'static str {
        match self {
            Reason::NotDeclaredGuarded { policy, .. } => policy.as_str(),
            Reason::NotDeclaredUnchecked { .. } => Policy::DiagnosticUnchecked.as_str(),
            Reason::Declared { policy, .. } => policy.as_str(),
        }
    }

    /// The `capabilities` object of the case.
    pub fn capabilities_json(&self) -> Value {
        match self {
            Reason::NotDeclaredGuarded { capabilities, .. }
            | Reason::NotDeclaredUnchecked { capabilities, .. } => capabilities.to_json(),
            Reason::Declared { capabilities, .. } => capabilities.to_json(),
        }
    }

    /// The case this reason describes, named `"generated"`.
    pub fn case(&self) -> Case {
        let reply = match self {
            Reason::NotDeclaredGuarded { ignored, .. }
            | Reason::NotDeclaredUnchecked { ignored, .. } => ignored,
            Reason::Declared { reply, .. } => reply,
        };
        Case {
            name: "generated".to_owned(),
            policy: self.policy_str().to_owned(),
            capabilities: self.capabilities_json(),
            answer: reply.answer(),
        }
    }

    /// The outcome this reason implies (issue 2 contract table), derived from the
    /// reason alone.
    pub fn expected(&self) -> Value {
        match self {
            // The server checks the capability first and sends nothing.
            Reason::NotDeclaredGuarded { .. } => outcome(
                "unsupported",
                false,
                vec![("requested", Value::Bool(false))],
            ),
            // The server asks anyway; a conformant client refuses.
            Reason::NotDeclaredUnchecked { .. } => outcome(
                "protocol_error",
                false,
                vec![
                    ("code", Value::from(REFUSAL_CODE)),
                    ("error", Value::from(REFUSAL_MESSAGE)),
                ],
            ),
            Reason::Declared { policy, reply, .. } => reply.expected(*policy),
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NotDeclaredGuarded {
                capabilities,
                policy,
                ignored,
            } => write!(
                f,
                "policy {}, capabilities {} (form not declared): the server must not ask \
                 (unsent answer: {ignored})",
                policy.as_str(),
                capabilities.to_json()
            ),
            Reason::NotDeclaredUnchecked {
                capabilities,
                ignored,
            } => write!(
                f,
                "policy diagnostic_unchecked, capabilities {} (form not declared): the \
                 server asks anyway and the client refuses with -32602 (ignored answer: \
                 {ignored})",
                capabilities.to_json()
            ),
            Reason::Declared {
                capabilities,
                policy,
                reply,
            } => write!(
                f,
                "policy {policy}, capabilities {}: {reply}",
                capabilities.to_json()
            ),
        }
    }
}

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
    /// The `content` value written into the result.
    pub fn to_json(&self) -> Value {
        match self {
            Content::Form(form) => form.to_json(),
            Content::NotAnObject(value) => value.clone(),
        }
    }

    /// The outcome of accepting this content under `validated` (issue 2, rule 5).
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
/// extra keys (issue 2, rule 5).
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
    /// The content object, keys in the order described by `extras_first`.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        if self.extras_first {
            self.insert_extras(&mut object);
        }
        if let Some(units) = self.units.to_json() {
            object.insert("units".to_owned(), units);
        }
        if let Some(unit_value) = self.unit_value.to_json() {
            object.insert("unit_value".to_owned(), unit_value);
        }
        if !self.extras_first {
            self.insert_extras(&mut object);
        }
        Value::Object(object)
    }

    /// Writes the extra keys into `object` in insertion order.
    fn insert_extras(&self, object: &mut Map<String, Value>) {
        for (key, value) in &self.extras {
            object.insert(key.clone(), value.clone());
        }
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

/// One schema field, as deliberately built (issue 2, rule 5).
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

    /// The JSON written for the field; `None` when missing.
    pub fn to_json(&self) -> Option<Value> {
        match self {
            Field::Valid(value) | Field::OutOfRange(value) => Some(Value::from(*value)),
            Field::Missing => None,
            Field::BeyondI64(value) => Some(Value::from(*value)),
            Field::Mistyped(mistyped) => Some(mistyped.to_json()),
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
    /// The JSON written for the field.
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

/// JSON text written by this module, parsed.
fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("generated JSON text is valid")
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

/// An outcome object: `status`, `computed`, then `rest` in order.
fn outcome(status: &str, computed: bool, rest: Vec<(&str, Value)>) -> Value {
    let mut object = Map::new();
    object.insert("status".to_owned(), Value::from(status));
    object.insert("computed".to_owned(), Value::Bool(computed));
    for (key, value) in rest {
        object.insert(key.to_owned(), value);
    }
    Value::Object(object)
}

/// `raw_response` with `action` and, when given, `content`.
fn raw_response(action: &str, content: Option<Value>) -> Value {
    let mut rest = vec![("action", Value::from(action))];
    if let Some(content) = content {
        rest.push(("content", content));
    }
    outcome("raw_response", false, rest)
}

/// `invalid_response` with `error`.
fn invalid_response(error: &str) -> Value {
    outcome(
        "invalid_response",
        false,
        vec![("error", Value::from(error))],
    )
}

/// `invalid_content` with the error paths.
fn invalid_content(errors: Vec<Vec<String>>) -> Value {
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

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

/// Any policy, `validated` weighted highest.
pub fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![
        6 => Just(Policy::Validated),
        2 => Just(Policy::Raw),
        2 => Just(Policy::DiagnosticUnchecked),
    ]
}

/// `validated` or `raw`, `validated` weighted higher.
pub fn guarded_policy() -> impl Strategy<Value = GuardedPolicy> {
    prop_oneof![
        2 => Just(GuardedPolicy::Validated),
        1 => Just(GuardedPolicy::Raw),
    ]
}

/// Capabilities declaring form: `{form}` most often, legacy `{}` and `{form,url}`.
pub fn form_capabilities() -> impl Strategy<Value = FormCaps> {
    prop_oneof![
        3 => Just(FormCaps::Form),
        1 => Just(FormCaps::Legacy),
        1 => Just(FormCaps::FormAndUrl),
    ]
}

/// Capabilities not declaring form: `{}` and `{"elicitation":{"url":{}}}`.
pub fn capabilities_without_form() -> impl Strategy<Value = NoFormCaps> {
    prop_oneof![Just(NoFormCaps::Nothing), Just(NoFormCaps::UrlOnly)]
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

/// An extra key (never `units` nor `unit_value`): short random names most often,
/// near misses, 300-character names and non-ASCII names.
pub fn extra_key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,8}",
        3 => sample::select(NEAR_MISS_KEYS).prop_map(str::to_owned),
        1 => "[a-z]{300}",
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

/// Content of an accept: valid forms, broken forms, `{}` and non-objects.
pub fn accept_content() -> impl Strategy<Value = Content> {
    prop_oneof![
        3 => valid_form().prop_map(Content::Form),
        6 => form().prop_map(Content::Form),
        1 => Just(Content::Form(empty_form())),
        1 => not_an_object().prop_map(Content::NotAnObject),
    ]
    .boxed()
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

/// A reason: form declared most often (every policy), else form not declared under
/// a guarded policy or under `diagnostic_unchecked`.
pub fn reason() -> impl Strategy<Value = Reason> {
    prop_oneof![
        8 => (form_capabilities(), policy(), reply()).prop_map(|(capabilities, policy, reply)| {
            Reason::Declared { capabilities, policy, reply }
        }),
        1 => (capabilities_without_form(), guarded_policy(), reply()).prop_map(
            |(capabilities, policy, ignored)| Reason::NotDeclaredGuarded { capabilities, policy, ignored },
        ),
        1 => (capabilities_without_form(), reply()).prop_map(|(capabilities, ignored)| {
            Reason::NotDeclaredUnchecked { capabilities, ignored }
        }),
    ]
    .boxed()
}

/// The full weighted mix of generated cases (issue 3).
pub fn generated_case() -> impl Strategy<Value = GeneratedCase> {
    reason().prop_map(GeneratedCase::from_reason)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::strategy::ValueTree;
    use proptest::test_runner::{FileFailurePersistence, TestError, TestRng, TestRunner};
    use serde_json::json;

    use super::*;
    use crate::oracle::model::expected_outcome;

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2_000,
            failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/proptest-regressions/strategy.txt"
            )))),
            ..ProptestConfig::default()
        })]

        /// The two oracles agree on every generated case (compared as JSON text,
        /// so `1` and `1.0` differ).
        #[test]
        fn construction_oracle_agrees_with_reference_model(generated in generated_case()) {
            let model = expected_outcome(&generated.case);
            prop_assert_eq!(
                generated.expected.to_string(),
                model.to_string(),
                "\nreason: {}\ncase: {}",
                generated.reason,
                serde_json::to_string(&generated.case).unwrap()
            );
        }
    }

    /// Samples `count` values of `generated_case()` with a fixed seed.
    fn sample_cases(count: usize) -> Vec<GeneratedCase> {
        let mut runner = TestRunner::deterministic();
        let strategy = generated_case();
        (0..count)
            .map(|_| strategy.new_tree(&mut runner).expect("tree").current())
            .collect()
    }

    #[test]
    fn generator_covers_every_capability_shape_and_policy() {
        let mut capabilities: BTreeMap<String, usize> = BTreeMap::new();
        let mut policies: BTreeMap<String, usize> = BTreeMap::new();
        let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
        for generated in sample_cases(2_000) {
            *capabilities
                .entry(generated.case.capabilities.to_string())
                .or_default() += 1;
            *policies.entry(generated.case.policy.clone()).or_default() += 1;
            let status = generated.expected["status"]
                .as_str()
                .expect("status")
                .to_owned();
            *statuses.entry(status).or_default() += 1;
        }
        for shape in [
            r#"{}"#,
            r#"{"elicitation":{}}"#,
            r#"{"elicitation":{"form":{}}}"#,
            r#"{"elicitation":{"url":{}}}"#,
            r#"{"elicitation":{"form":{},"url":{}}}"#,
        ] {
            assert!(
                capabilities.get(shape).copied().unwrap_or(0) > 0,
                "no {shape}: {capabilities:?}"
            );
        }
        assert_eq!(capabilities.len(), 5, "{capabilities:?}");
        for name in ["validated", "raw", "diagnostic_unchecked"] {
            assert!(
                policies.get(name).copied().unwrap_or(0) > 0,
                "no {name}: {policies:?}"
            );
        }
        assert_eq!(policies.len(), 3, "{policies:?}");
        assert!(policies["validated"] > policies["raw"], "{policies:?}");
        assert!(
            policies["validated"] > policies["diagnostic_unchecked"],
            "{policies:?}"
        );
        for status in [
            "unsupported",
            "protocol_error",
            "invalid_response",
            "raw_response",
            "declined",
            "cancelled",
            "invalid_content",
            "calculated",
        ] {
            assert!(
                statuses.get(status).copied().unwrap_or(0) > 0,
                "no {status}: {statuses:?}"
            );
        }
    }

    #[test]
    fn generator_covers_answer_kinds() {
        let reasons: Vec<String> = sample_cases(2_000)
            .iter()
            .map(|generated| generated.reason.to_string())
            .collect();
        for needle in [
            "accept of a valid form",
            "accept without content",
            "accept with content null",
            "non-object content",
            "an empty object",
            "(out of range)",
            "(u64 above i64::MAX)",
            "(digit string)",
            "(float without fraction)",
            "(exponent, an f64)",
            "(negative zero, an f64)",
            "(fraction)",
            "(boolean)",
            "(beyond u64, an f64)",
            "extra key",
            "unknown action",
            "non-string action",
            "a result that is not an object",
            "malformed result: an empty object {}",
            "no answer (the client replies cancel)",
            "JSON-RPC error",
            "decline with attached",
            "cancel with attached",
        ] {
            assert!(
                reasons.iter().any(|reason| reason.contains(needle)),
                "no reason contains {needle:?}"
            );
        }
    }

    #[test]
    fn extra_key_reason_explains_its_expectation() {
        let reason = Reason::Declared {
            capabilities: FormCaps::Form,
            policy: Policy::Validated,
            reply: Reply::Accept(Content::Form(Form {
                units: Field::Valid(3),
                unit_value: Field::Valid(7),
                extras: vec![("Units".to_owned(), json!(1))],
                extras_first: false,
            })),
        };
        assert_eq!(
            reason.to_string(),
            r#"policy validated, capabilities {"elicitation":{"form":{}}}: accept of a valid form (units=3, unit_value=7) with extra key "Units""#
        );
        let generated = GeneratedCase::from_reason(reason);
        assert_eq!(
            generated.expected,
            json!({"status": "invalid_content", "computed": false, "errors": [["Units"]]})
        );
        assert_eq!(
            serde_json::to_string(&generated.case).unwrap(),
            r#"{"name":"generated","policy":"validated","capabilities":{"elicitation":{"form":{}}},"answer":{"result":{"action":"accept","content":{"units":3,"unit_value":7,"Units":1}}}}"#
        );
    }

    #[test]
    fn extras_are_expected_sorted_whatever_their_order() {
        let form = Form {
            units: Field::Mistyped(Mistyped::NegativeZero),
            unit_value: Field::BeyondI64(u64::MAX),
            extras: vec![
                ("zeta".to_owned(), json!(1)),
                ("ünits".to_owned(), json!(2)),
                ("Units".to_owned(), json!(3)),
                (String::new(), json!(4)),
            ],
            extras_first: true,
        };
        assert_eq!(
            form.to_json().to_string(),
            r#"{"zeta":1,"ünits":2,"Units":3,"":4,"units":-0.0,"unit_value":18446744073709551615}"#
        );
        assert_eq!(
            form.validated(),
            json!({"status": "invalid_content", "computed": false,
                   "errors": [["units"], ["unit_value"], [""], ["Units"], ["zeta"], ["ünits"]]})
        );
    }

    #[test]
    fn mistyped_values_are_not_i64_integers() {
        for mistyped in [
            Mistyped::DigitString(3),
            Mistyped::WholeFloat(3),
            Mistyped::Exponent(3),
            Mistyped::NegativeZero,
            Mistyped::Fraction(2.5),
            Mistyped::Bool(true),
            Mistyped::Null,
            Mistyped::Array(vec![3]),
            Mistyped::Object(3),
            Mistyped::BeyondU64("18446744073709551616".to_owned()),
        ] {
            let value = mistyped.to_json();
            assert!(value.as_i64().is_none(), "{mistyped} is an i64: {value}");
        }
        assert!(Mistyped::NegativeZero.to_json().is_f64());
        assert!(Mistyped::Exponent(3).to_json().is_f64());
    }

    #[test]
    fn not_declared_reasons_ignore_the_answer() {
        let reply = Reply::Accept(Content::Form(Form {
            units: Field::Valid(3),
            unit_value: Field::Valid(7),
            extras: Vec::new(),
            extras_first: false,
        }));
        let guarded = GeneratedCase::from_reason(Reason::NotDeclaredGuarded {
            capabilities: NoFormCaps::UrlOnly,
            policy: GuardedPolicy::Raw,
            ignored: reply.clone(),
        });
        assert_eq!(
            guarded.case.capabilities,
            json!({"elicitation": {"url": {}}})
        );
        assert_eq!(guarded.case.policy, "raw");
        assert_eq!(
            guarded.expected,
            json!({"status": "unsupported", "computed": false, "requested": false})
        );
        let unchecked = GeneratedCase::from_reason(Reason::NotDeclaredUnchecked {
            capabilities: NoFormCaps::Nothing,
            ignored: reply,
        });
        assert_eq!(unchecked.case.capabilities, json!({}));
        assert_eq!(unchecked.case.policy, "diagnostic_unchecked");
        assert_eq!(
            unchecked.expected,
            json!({"status": "protocol_error", "computed": false, "code": -32602,
                   "error": "elicitation mode not declared: form"})
        );
    }

    /// Shrinking a deliberately failing property ends on a small, readable case.
    #[test]
    fn shrinking_ends_on_small_answers() {
        let config = ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::default()
        };
        let rng = TestRng::deterministic_rng(config.rng_algorithm);
        let mut runner = TestRunner::new_with_rng(config, rng);
        let result = runner.run(&generated_case(), |generated| {
            prop_assert_ne!(
                generated.expected["status"].as_str(),
                Some("invalid_content")
            );
            Ok(())
        });
        let Err(TestError::Fail(_, minimal)) = result else {
            panic!("the property should fail: {result:?}");
        };
        let answer = serde_json::to_string(&minimal.case.answer).unwrap();
        println!("minimal: {}\n{answer}", minimal.reason);
        assert!(answer.len() <= 80, "not small: {answer}");
    }
}
