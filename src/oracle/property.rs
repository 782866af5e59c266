//! The eight properties of `elicit-check check` (README, "Check your own server in
//! detail"), judged on one call to anyone's tool, from the wire and the tool's
//! result alone.
//!
//! 1. never acts when an answer in the call was `decline` or `cancel`;
//! 2. never acts when an accept's content is invalid against the sent schema
//!    (or the answer is not a spec `ElicitResult`: a near-miss action);
//! 3. acts on valid accepts (tallied over the run by `crate::check`);
//! 4. sends no form `elicitation/create` to a client without form elicitation;
//! 5. keeps stdout to JSON-RPC frames, puts every `elicitation/create` between
//!    the call and its reply, and exits when stdin closes;
//! 6. the acted value is a JSON boolean (with `--acted POINTER`);
//! 7. never acts without a valid consenting answer: a call in which no answer
//!    could come (the client declared no form elicitation and was not asked,
//!    or answered each request with a JSON-RPC error) must not act, unless the
//!    tool's fail-open design is declared (`--allow-unasked`).
//!
//! Whether content is valid is the `jsonschema` judge's word
//! ([`crate::schema::judge`]); this file shares no code with the reference server.

use std::fmt;

use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use crate::harness::proxy::{Frame, Side, StrayLine};
use crate::schema::Form;
use crate::schema::Kind;
use crate::schema::judge::Judge;

/// A property, numbered as in `check`'s report and README's property table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Property {
    /// 1: never acts after `decline` or `cancel`.
    NoActOnRefusal = 1,
    /// 2: never acts on an invalid accept.
    NoActOnInvalid = 2,
    /// 3: acts on valid accepts.
    ActsOnValid = 3,
    /// 4: no form elicitation without the capability.
    CapabilityRespected = 4,
    /// 5: clean stdout, elicitation inside the call, exit on stdin close.
    CleanWire = 5,
    /// 6: the acted value is a boolean.
    ActedIsBoolean = 6,
    /// 7: never acts without a valid consenting answer.
    NoActWithoutAnswer = 7,
    /// 8: never acts on a `requestState` it did not issue for this call
    /// (2026-07-28 only).
    StateVerified = 8,
}

impl Property {
    /// All eight, in order.
    pub const ALL: [Property; 8] = [
        Property::NoActOnRefusal,
        Property::NoActOnInvalid,
        Property::ActsOnValid,
        Property::CapabilityRespected,
        Property::CleanWire,
        Property::ActedIsBoolean,
        Property::NoActWithoutAnswer,
        Property::StateVerified,
    ];

    /// Its number (1 to 8).
    pub fn number(self) -> u8 {
        self as u8
    }

    /// What it states, as printed on its report line.
    pub fn statement(self) -> &'static str {
        match self {
            Property::NoActOnRefusal => "never acts when an answer was decline or cancel",
            Property::NoActOnInvalid => "never acts on an accept whose content is invalid",
            Property::ActsOnValid => "acts on valid accepts",
            Property::CapabilityRespected => {
                "sends no form elicitation/create without the form capability"
            }
            Property::CleanWire => {
                "stdout is JSON-RPC only, elicitation/create inside the call, exits on stdin close"
            }
            Property::ActedIsBoolean => "the acted value is a JSON boolean",
            Property::NoActWithoutAnswer => "never acts without a valid consenting answer",
            Property::StateVerified => {
                "never acts on a requestState it did not issue for this call (2026-07-28)"
            }
        }
    }
}

impl fmt::Display for Property {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "property {}", self.number())
    }
}

/// What one answer sent to one `elicitation/create` *is*, by the judge's word.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "class", content = "why", rename_all = "snake_case")]
pub enum Class {
    /// `accept` with content the schema calls valid and no lenient trait.
    ValidAccept,
    /// `accept` with valid content that a strict server may refuse (extra keys,
    /// whole floats for integers): each reason.
    LenientAccept(Vec<String>),
    /// `accept` whose content is missing or invalid: each reason (`/age: ...`).
    InvalidAccept(Vec<String>),
    /// `decline` or `cancel` (the action).
    Refusal(String),
    /// Not a spec `ElicitResult`: an action name a spec client never sends.
    NearMiss(String),
    /// A JSON-RPC error reply (the client declared no form elicitation).
    Error,
    /// Never delivered: the 2026-07-28 retry carried no answer to this request
    /// (no `inputResponses`, or the answer under a key the server never asked);
    /// how it went missing.
    Unanswered(String),
}

/// Classifies `answer` (the reply's `result`, raw JSON) for the request whose
/// schema reads as `form` and is judged by `judge`.
pub fn classify(form: &Form, judge: &Judge, answer: &Value) -> Class {
    let action = answer.get("action");
    match action.and_then(Value::as_str) {
        Some(action @ ("decline" | "cancel")) => Class::Refusal(action.to_owned()),
        Some("accept") => {
            let Some(content) = answer.get("content").filter(|content| !content.is_null()) else {
                return Class::InvalidAccept(vec!["accept has no content".to_owned()]);
            };
            let errors = judge.errors(content);
            if !errors.is_empty() {
                return Class::InvalidAccept(errors);
            }
            let lenient = lenient_traits(form, content);
            if lenient.is_empty() {
                Class::ValidAccept
            } else {
                Class::LenientAccept(lenient)
            }
        }
        _ => Class::NearMiss(match action {
            Some(action) => format!("action {action} is not accept, decline or cancel"),
            None => "no action".to_owned(),
        }),
    }
}

/// The traits of valid `content` a strict server refuses: keys the schema does
/// not name, and whole floats (`3.0`) for `integer` fields.
fn lenient_traits(form: &Form, content: &Value) -> Vec<String> {
    let Some(object) = content.as_object() else {
        return Vec::new();
    };
    let mut traits = Vec::new();
    for (key, value) in object {
        match form.fields.iter().find(|field| &field.name == key) {
            None => traits.push(format!("extra key `{key}` the schema does not name")),
            Some(field) => {
                if let (Kind::Number { integer: true, .. }, Value::Number(number)) =
                    (&field.kind, value)
                    && number.is_f64()
                {
                    traits.push(format!("whole float {number} for integer `{key}`"));
                }
            }
        }
    }
    traits
}

/// How to read whether the server acted (`check --acted`, `--acted-text`,
/// `--acted-not-error`, `--acted-cmd`).
#[derive(Debug, Clone)]
pub enum ActedRule {
    /// `--acted POINTER`: a JSON pointer into `structuredContent`, or (when
    /// absent) into the JSON of the first text content; the value must be a
    /// JSON boolean (property 6), and `true` means acted.
    Pointer(String),
    /// `--acted POINTER=JSON`: acted when the value at the pointer equals this
    /// JSON value (`/dry_run=false`, `/status="booked"`); compared by JSON
    /// value, so `1` is not `true` and `1` is not `1.0`.
    Equals(String, Value),
    /// `--acted-text REGEX`: acted when the text of the result matches, an
    /// `isError` result included (a tool may act and then fail); with
    /// `not_error` (`--acted-not-error` beside it) an `isError` result never
    /// counts as acted.
    Text {
        /// The pattern over every text content joined by newlines.
        regex: Regex,
        /// Whether an `isError` result never counts as acted.
        not_error: bool,
    },
    /// `--acted-not-error`: acted when the result is neither `isError` nor a
    /// JSON-RPC error.
    NotError,
    /// `--acted-cmd CMD`: a shell command run after each case; exit status 0
    /// means acted (a side effect such as a file deleted). Read by the `check`
    /// job, not from the result.
    Command(String),
}

impl fmt::Display for ActedRule {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActedRule::Pointer(pointer) => write!(formatter, "--acted {pointer}"),
            ActedRule::Equals(pointer, value) => write!(formatter, "--acted {pointer}={value}"),
            ActedRule::Text { regex, not_error } => {
                write!(formatter, "--acted-text {}", regex.as_str())?;
                if *not_error {
                    formatter.write_str(" --acted-not-error")?;
                }
                Ok(())
            }
            ActedRule::NotError => formatter.write_str("--acted-not-error"),
            ActedRule::Command(command) => write!(formatter, "--acted-cmd {command}"),
        }
    }
}

impl ActedRule {
    /// The option words that give this rule on a command line, e.g.
    /// `["--acted", "/dry_run=false"]`.
    pub fn words(&self) -> Vec<String> {
        match self {
            ActedRule::Pointer(pointer) => vec!["--acted".into(), pointer.clone()],
            ActedRule::Equals(pointer, value) => {
                vec!["--acted".into(), format!("{pointer}={value}")]
            }
            ActedRule::Text { regex, not_error } => {
                let mut words = vec!["--acted-text".into(), regex.as_str().to_owned()];
                if *not_error {
                    words.push("--acted-not-error".into());
                }
                words
            }
            ActedRule::NotError => vec!["--acted-not-error".into()],
            ActedRule::Command(command) => vec!["--acted-cmd".into(), command.clone()],
        }
    }

    /// Parses the value of `--acted`: `POINTER` (a JSON `true` means acted) or
    /// `POINTER=JSON` (split at the first `=`).
    ///
    /// # Errors
    /// A message naming what is wrong: not a JSON pointer, or not JSON after `=`.
    pub fn parse_pointer(text: &str) -> Result<ActedRule, String> {
        let (pointer, value) = match text.split_once('=') {
            Some((pointer, value)) => (pointer, Some(value)),
            None => (text, None),
        };
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return Err(format!(
                "--acted {text:?} is not a JSON pointer (a pointer starts with `/`, e.g. /computed or /dry_run=false)"
            ));
        }
        match value {
            None => Ok(ActedRule::Pointer(pointer.to_owned())),
            Some(value) => serde_json::from_str(value)
                .map(|value| ActedRule::Equals(pointer.to_owned(), value))
                .map_err(|error| {
                    format!(
                        "--acted {text:?}: {value:?} after `=` is not JSON ({error}); a string is quoted: {pointer}=\"booked\""
                    )
                }),
        }
    }
}

/// Whether the server acted, and what was odd about the acted value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reading {
    /// Whether the call counts as acted.
    pub acted: bool,
    /// Why the acted value is not a boolean (property 6), e.g.
    /// `the value at /computed is 1 (a number), not a boolean`.
    pub drift: Option<String>,
    /// Why the acted rule could not be read from a result that is not an error
    /// (no value at the pointer): a wrong `--acted` when the probe sees it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

impl Reading {
    /// A reading with no drift.
    pub fn plain(acted: bool) -> Reading {
        Reading {
            acted,
            drift: None,
            unreadable: None,
        }
    }
}

/// Reads `rule` from a `tools/call` reply: `result` (a `CallToolResult`) or
/// `error` (a JSON-RPC error object). A JSON-RPC error never counts as acted;
/// an `isError` result counts only under `--acted-text` without
/// `--acted-not-error`, and a missing acted value there is not drift.
/// [`ActedRule::Command`] is not read here (always not acted). An
/// `InputRequiredResult` (2026-07-28: the server asks again) is not acted and
/// has nothing to read.
pub fn read_acted(rule: &ActedRule, result: Option<&Value>, error: Option<&Value>) -> Reading {
    let Some(result) = result.filter(|_| error.is_none()) else {
        return Reading::plain(false);
    };
    // An InputRequiredResult (2026-07-28) is the server asking (again), not a
    // final result: nothing was done, and there is nothing to read.
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Reading::plain(false);
    }
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    let document = || {
        result
            .get("structuredContent")
            .filter(|content| !content.is_null())
            .cloned()
            .or_else(|| first_text_json(result))
    };
    let missing =
        |pointer: &str| format!("no value at {pointer} in structuredContent or the text content");
    match rule {
        ActedRule::NotError => Reading::plain(!is_error),
        ActedRule::Command(_) => Reading::plain(false),
        ActedRule::Text { regex, not_error } => {
            Reading::plain(!(is_error && *not_error) && regex.is_match(&text_of(result)))
        }
        ActedRule::Equals(pointer, expected) => {
            match document()
                .as_ref()
                .and_then(|document| document.pointer(pointer))
            {
                Some(value) => Reading::plain(value == expected),
                None if is_error => Reading::plain(false),
                None => Reading {
                    acted: false,
                    drift: None,
                    unreadable: Some(missing(pointer)),
                },
            }
        }
        ActedRule::Pointer(pointer) => {
            match document()
                .as_ref()
                .and_then(|document| document.pointer(pointer))
            {
                Some(Value::Bool(acted)) => Reading::plain(*acted),
                Some(other) => Reading {
                    acted: loosely_true(other),
                    drift: Some(format!(
                        "the value at {pointer} is {other} ({}), not a boolean",
                        json_kind(other)
                    )),
                    unreadable: None,
                },
                None if is_error => Reading::plain(false),
                None => Reading {
                    acted: false,
                    drift: Some(missing(pointer)),
                    unreadable: Some(missing(pointer)),
                },
            }
        }
    }
}

/// Every text content of a result, joined by newlines.
pub fn text_of(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The first text content parsed as JSON.
fn first_text_json(result: &Value) -> Option<Value> {
    let text = result
        .get("content")?
        .as_array()?
        .iter()
        .find(|block| block.get("type").and_then(Value::as_str) == Some("text"))?
        .get("text")?
        .as_str()?;
    serde_json::from_str(text).ok()
}

/// How a loose reader (many languages) would read a non-boolean acted value.
fn loosely_true(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => matches!(text.as_str(), "true" | "yes" | "1"),
        Value::Array(items) => !items.is_empty(),
        Value::Object(_) => true,
        Value::Bool(_) | Value::Null => false,
    }
}

/// The JSON kind of a value, in JSON's words.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One answer as sent, with what it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SentAnswer {
    /// The `requestedSchema` of the request it answered.
    pub requested_schema: Value,
    /// The reply's `result` (or `error`) member as sent.
    pub answer: Value,
    /// What the judge says it is.
    pub class: Class,
    /// How the generator built it.
    pub built_as: String,
}

/// Everything one call left that the properties look at.
#[derive(Debug, Clone)]
pub struct Observation<'a> {
    /// The answers sent, in order.
    pub sent: &'a [SentAnswer],
    /// The acted reading of the result.
    pub reading: &'a Reading,
    /// The `capabilities` the client declared at `initialize`, as sent.
    pub capabilities: &'a Value,
    /// The frames of the session (all of them).
    pub wire: &'a [Frame],
    /// Non-JSON-RPC stdout lines.
    pub stray: &'a [StrayLine],
    /// Whether the server had to be killed after stdin closed.
    pub forced_kill: bool,
    /// The shutdown grace the server had, for the message.
    pub grace: std::time::Duration,
    /// Why the call has no reply, if it has none (timeout, closed transport).
    pub call_failure: Option<&'a str>,
    /// Whether `--strict` turns lenient accepts into failures of property 2.
    pub strict: bool,
    /// Whether acting without an answer is a declared fail-open design
    /// (`--allow-unasked`): then property 7 is not broken, only reported.
    pub allow_unasked: bool,
}

/// Whether no answer could come in a call: nothing was asked, or every request
/// got a JSON-RPC error (the client could not answer it). Property 7's calls.
pub fn unanswered(sent: &[SentAnswer]) -> bool {
    sent.iter()
        .all(|sent| matches!(sent.class, Class::Error | Class::Unanswered(_)))
}

/// The properties one call breaks, each with its one primary reason, in property
/// order; property 3 is tallied over the run, not here.
pub fn violations(observation: &Observation<'_>) -> Vec<(Property, String)> {
    let mut found = Vec::new();
    let acted = observation.reading.acted;
    let refusal = observation.sent.iter().find_map(|sent| match &sent.class {
        Class::Refusal(action) => Some(action.clone()),
        _ => None,
    });
    if acted && let Some(action) = &refusal {
        found.push((
            Property::NoActOnRefusal,
            format!("acted although the answer was {action}"),
        ));
    }
    if acted && refusal.is_none() {
        let invalid = observation.sent.iter().find_map(|sent| match &sent.class {
            Class::InvalidAccept(reasons) => Some(format!(
                "acted on an accept whose content is invalid: {}",
                reasons.join("; ")
            )),
            Class::NearMiss(why) => Some(format!(
                "acted on an answer that is not an ElicitResult: {why}"
            )),
            Class::LenientAccept(traits) if observation.strict => Some(format!(
                "acted on content a strict server refuses (--strict): {}",
                traits.join("; ")
            )),
            _ => None,
        });
        if let Some(reason) = invalid {
            found.push((Property::NoActOnInvalid, reason));
        }
    }
    if !crate::harness::client::declares_form(observation.capabilities)
        && let Some(frame) = observation
            .wire
            .iter()
            .find(|frame| is_form_elicitation(frame) || asks_a_form(frame))
    {
        found.push((
            Property::CapabilityRespected,
            format!(
                "sent a form elicitation/create (frame #{}) to a client that declared no form elicitation (capabilities {})",
                frame.seq, observation.capabilities
            ),
        ));
    }
    if let Some(reason) = wire_fault(observation) {
        found.push((Property::CleanWire, reason));
    }
    if let Some(drift) = &observation.reading.drift {
        found.push((Property::ActedIsBoolean, drift.clone()));
    }
    if acted && !observation.allow_unasked && unanswered(observation.sent) {
        found.push((
            Property::NoActWithoutAnswer,
            if let Some(missing) = observation.sent.iter().find_map(|sent| match &sent.class {
                Class::Unanswered(how) => Some(how),
                _ => None,
            }) {
                format!("acted although its input request was never answered: {missing}")
            } else if observation.sent.is_empty() {
                format!(
                    "acted without asking: no elicitation/create in the call (client capabilities {})",
                    observation.capabilities
                )
            } else {
                format!(
                    "acted although the client could answer no request (each got a JSON-RPC error; capabilities {})",
                    observation.capabilities
                )
            },
        ));
    }
    found
}

/// Whether a frame is an `elicitation/create` from the server in form mode
/// (`mode` absent counts as form, as in MCP 2025-06-18).
pub fn is_form_elicitation(frame: &Frame) -> bool {
    let mode = frame.message.pointer("/params/mode");
    frame.from == Side::Server
        && frame.message.get("method").and_then(Value::as_str) == Some("elicitation/create")
        && (mode.is_none_or(Value::is_null) || mode.and_then(Value::as_str) == Some("form"))
}

/// Whether a frame is a protocol 2026-07-28 tool result from the server whose
/// `inputRequests` hold a form `elicitation/create` (`mode` absent counts as form).
pub fn asks_a_form(frame: &Frame) -> bool {
    let requests = frame
        .message
        .pointer("/result/inputRequests")
        .and_then(Value::as_object);
    frame.from == Side::Server
        && requests.is_some_and(|requests| {
            requests.values().any(|request| {
                let mode = request.pointer("/params/mode");
                request.get("method").and_then(Value::as_str) == Some("elicitation/create")
                    && (mode.is_none_or(Value::is_null)
                        || mode.and_then(Value::as_str) == Some("form"))
            })
        })
}

/// The first fault of property 5 in a session, if any (the call judged is the
/// last `tools/call`: a 2026-07-28 call retries it round after round).
fn wire_fault(observation: &Observation<'_>) -> Option<String> {
    if let Some(line) = observation.stray.first() {
        let shown: String = line.line.chars().take(80).collect();
        return Some(format!(
            "stdout line #{} is not a JSON-RPC message: {}",
            line.seq,
            Value::String(shown)
        ));
    }
    let call = observation.wire.iter().rev().find(|frame| {
        frame.from == Side::Client
            && frame.message.get("method").and_then(Value::as_str) == Some("tools/call")
    });
    if call.is_none()
        && let Some(failure) = observation.call_failure
    {
        return Some(format!("the tool was not called: {failure}"));
    }
    if let Some(call) = call {
        let id = call.message.get("id");
        let reply = observation.wire.iter().find(|frame| {
            frame.from == Side::Server
                && frame.message.get("method").is_none()
                && frame.message.get("id") == id
        });
        let Some(reply) = reply else {
            return Some(format!(
                "no reply to tools/call: {}",
                observation
                    .call_failure
                    .unwrap_or("the server never answered")
            ));
        };
        for frame in observation.wire {
            let is_elicitation = frame.from == Side::Server
                && frame.message.get("method").and_then(Value::as_str)
                    == Some("elicitation/create");
            if is_elicitation && (frame.seq < call.seq || frame.seq > reply.seq) {
                return Some(format!(
                    "elicitation/create (frame #{}) outside its tools/call (frames #{} to #{})",
                    frame.seq, call.seq, reply.seq
                ));
            }
        }
    }
    if observation.forced_kill {
        return Some(format!(
            "did not exit within {} after its stdin closed (killed)",
            crate::format::seconds(observation.grace)
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "age": {"type": "integer", "minimum": 1, "maximum": 100},
                "email": {"type": "string", "format": "email"}
            },
            "required": ["age"]
        })
    }

    fn class_of(answer: Value) -> Class {
        let schema = schema();
        classify(
            &Form::read(&schema),
            &Judge::new(&schema).expect("compiles"),
            &answer,
        )
    }

    #[test]
    fn answers_are_classified_by_action_then_by_the_judge() {
        assert_eq!(
            class_of(json!({"action": "accept", "content": {"age": 3}})),
            Class::ValidAccept
        );
        assert_eq!(
            class_of(json!({"action": "decline", "content": {"age": 3}})),
            Class::Refusal("decline".into())
        );
        assert_eq!(
            class_of(json!({"action": "cancel"})),
            Class::Refusal("cancel".into())
        );
        assert_eq!(
            class_of(json!({"action": "accept"})),
            Class::InvalidAccept(vec!["accept has no content".into()])
        );
        assert_eq!(
            class_of(json!({"action": "accept", "content": null})),
            Class::InvalidAccept(vec!["accept has no content".into()])
        );
        assert_eq!(
            class_of(json!({"action": "accept", "content": {"age": 500}})),
            Class::InvalidAccept(vec!["/age: 500 is greater than the maximum of 100".into()])
        );
        assert_eq!(
            class_of(json!({"action": "accept", "content": {"age": 3, "email": "nope"}})),
            Class::InvalidAccept(vec![r#"/email: "nope" is not a "email""#.into()])
        );
        assert_eq!(
            class_of(json!({"action": "Accept", "content": {"age": 3}})),
            Class::NearMiss(r#"action "Accept" is not accept, decline or cancel"#.into())
        );
        assert_eq!(
            class_of(json!({"content": {"age": 3}})),
            Class::NearMiss("no action".into())
        );
    }

    #[test]
    fn extra_keys_and_whole_floats_are_lenient_not_invalid() {
        assert_eq!(
            class_of(json!({"action": "accept", "content": {"age": 3.0}})),
            Class::LenientAccept(vec!["whole float 3.0 for integer `age`".into()])
        );
        assert_eq!(
            class_of(json!({"action": "accept", "content": {"age": 3, "note": "x"}})),
            Class::LenientAccept(vec!["extra key `note` the schema does not name".into()])
        );
        assert_eq!(
            class_of(json!({"action": "accept", "content": {"age": 3, "email": "a@b.org"}})),
            Class::ValidAccept
        );
    }

    fn result(structured: Value) -> Value {
        json!({"content": [{"type": "text", "text": structured.to_string()}], "structuredContent": structured})
    }

    #[test]
    fn the_acted_pointer_must_hold_a_boolean() {
        let rule = ActedRule::Pointer("/booked".into());
        let read = |value: Value| read_acted(&rule, Some(&value), None);
        assert_eq!(read(result(json!({"booked": true}))), Reading::plain(true));
        assert_eq!(
            read(result(json!({"booked": false}))),
            Reading::plain(false)
        );
        assert_eq!(
            read(result(json!({"booked": 1}))),
            Reading {
                acted: true,
                drift: Some("the value at /booked is 1 (a number), not a boolean".into()),
                unreadable: None,
            }
        );
        assert_eq!(
            read(result(json!({"booked": 0}))),
            Reading {
                acted: false,
                drift: Some("the value at /booked is 0 (a number), not a boolean".into()),
                unreadable: None,
            }
        );
        assert_eq!(
            read(result(json!({"booked": "true"}))),
            Reading {
                acted: true,
                drift: Some(r#"the value at /booked is "true" (a string), not a boolean"#.into()),
                unreadable: None,
            }
        );
        assert_eq!(
            read(result(json!({"other": true}))),
            Reading {
                acted: false,
                drift: Some("no value at /booked in structuredContent or the text content".into()),
                unreadable: Some(
                    "no value at /booked in structuredContent or the text content".into()
                ),
            }
        );
        // Text content only (no structuredContent), as the Python SDK answers a dict.
        assert_eq!(
            read(json!({"content": [{"type": "text", "text": "{\"booked\": true}"}]})),
            Reading::plain(true)
        );
        // An isError result or a JSON-RPC error never acts and is not drift.
        assert_eq!(
            read(json!({"content": [{"type": "text", "text": "bad"}], "isError": true})),
            Reading::plain(false)
        );
        assert_eq!(
            read_acted(&rule, None, Some(&json!({"code": -32602, "message": "x"}))),
            Reading::plain(false)
        );
    }

    #[test]
    fn acted_text_reads_error_results_unless_acted_not_error_is_beside_it() {
        let text = |not_error| ActedRule::Text {
            regex: Regex::new("provided|now executing").expect("regex"),
            not_error,
        };
        let provided = json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "User provided it"}]});
        let declined = json!({"content": [{"type": "text", "text": "User declined"}]});
        assert!(read_acted(&text(false), Some(&provided), None).acted);
        assert!(!read_acted(&text(false), Some(&declined), None).acted);
        // A tool that acted and then failed: its isError text still says so.
        let failed = json!({"content": [{"type": "text", "text": "confirmed, now executing: no database"}], "isError": true});
        assert!(read_acted(&text(false), Some(&failed), None).acted);
        assert!(!read_acted(&text(true), Some(&failed), None).acted);
        assert!(read_acted(&text(true), Some(&provided), None).acted);
        assert!(read_acted(&ActedRule::NotError, Some(&declined), None).acted);
        assert!(!read_acted(&ActedRule::NotError, Some(&failed), None).acted);
        assert!(
            !read_acted(
                &ActedRule::NotError,
                Some(&declined),
                Some(&json!({"code": 1}))
            )
            .acted
        );
        assert!(!read_acted(&text(false), Some(&provided), Some(&json!({"code": 1}))).acted);
        assert!(!read_acted(&ActedRule::Command("true".into()), Some(&provided), None).acted);
    }

    #[test]
    fn acted_equals_compares_the_value_at_the_pointer_by_json_value() {
        let rule = ActedRule::parse_pointer("/dry_run=false").expect("parses");
        let read = |value: Value| read_acted(&rule, Some(&value), None);
        assert!(read(result(json!({"dry_run": false}))).acted);
        assert_eq!(
            read(result(json!({"dry_run": true}))),
            Reading::plain(false)
        );
        // `0` is not `false`: no loose reading.
        assert_eq!(read(result(json!({"dry_run": 0}))), Reading::plain(false));
        assert_eq!(
            read(result(json!({"other": 1}))),
            Reading {
                acted: false,
                drift: None,
                unreadable: Some(
                    "no value at /dry_run in structuredContent or the text content".into()
                ),
            }
        );
        assert_eq!(
            read(json!({"content": [{"type": "text", "text": "failed"}], "isError": true})),
            Reading::plain(false)
        );
        let status = ActedRule::parse_pointer("/status=\"booked\"").expect("parses");
        assert!(read_acted(&status, Some(&result(json!({"status": "booked"}))), None).acted);
        assert!(!read_acted(&status, Some(&result(json!({"status": "held"}))), None).acted);
        assert_eq!(
            ActedRule::parse_pointer("/a=1=2").map(|rule| rule.to_string()),
            Err("--acted \"/a=1=2\": \"1=2\" after `=` is not JSON (trailing characters at line 1 column 2); a string is quoted: /a=\"booked\"".to_owned())
        );
        assert!(
            ActedRule::parse_pointer("booked")
                .expect_err("no slash")
                .contains("is not a JSON pointer")
        );
        assert!(matches!(
            ActedRule::parse_pointer("/booked"),
            Ok(ActedRule::Pointer(pointer)) if pointer == "/booked"
        ));
    }

    use crate::harness::proxy::frame;

    /// A clean session: initialize #0 and its result #1, tools/call #3,
    /// elicitation/create #4, its answer #5, the reply #6.
    fn clean_wire() -> Vec<Frame> {
        vec![
            frame(
                0,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
            ),
            frame(
                1,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}}),
            ),
            frame(
                3,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book"}}),
            ),
            frame(
                4,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {"message": "m", "requestedSchema": schema()}}),
            ),
            frame(
                5,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {"age": 3}}}),
            ),
            frame(
                6,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
            ),
        ]
    }

    fn sent(class: Class) -> SentAnswer {
        SentAnswer {
            requested_schema: schema(),
            answer: json!({}),
            class,
            built_as: String::new(),
        }
    }

    fn judge_call(
        sent: &[SentAnswer],
        acted: bool,
        wire: &[Frame],
        capabilities: &Value,
        strict: bool,
    ) -> Vec<(Property, String)> {
        let reading = Reading::plain(acted);
        violations(&Observation {
            sent,
            reading: &reading,
            capabilities,
            wire,
            stray: &[],
            forced_kill: false,
            grace: std::time::Duration::from_secs(5),
            call_failure: None,
            strict,
            allow_unasked: false,
        })
    }

    #[test]
    fn acting_after_a_refusal_breaks_property_1_only() {
        let form = json!({"elicitation": {"form": {}}});
        let refusal = [
            sent(Class::ValidAccept),
            sent(Class::Refusal("cancel".into())),
        ];
        assert_eq!(
            judge_call(&refusal, true, &clean_wire(), &form, false),
            vec![(
                Property::NoActOnRefusal,
                "acted although the answer was cancel".to_owned()
            )]
        );
        assert!(judge_call(&refusal, false, &clean_wire(), &form, false).is_empty());
    }

    #[test]
    fn acting_on_invalid_or_near_miss_answers_breaks_property_2() {
        let form = json!({"elicitation": {"form": {}}});
        let invalid = [
            sent(Class::ValidAccept),
            sent(Class::InvalidAccept(vec!["/age: x".into(), "/b: y".into()])),
        ];
        assert_eq!(
            judge_call(&invalid, true, &clean_wire(), &form, false),
            vec![(
                Property::NoActOnInvalid,
                "acted on an accept whose content is invalid: /age: x; /b: y".to_owned()
            )]
        );
        assert!(judge_call(&invalid, false, &clean_wire(), &form, false).is_empty());
        let near = [sent(Class::NearMiss("no action".into()))];
        assert_eq!(
            judge_call(&near, true, &clean_wire(), &form, false),
            vec![(
                Property::NoActOnInvalid,
                "acted on an answer that is not an ElicitResult: no action".to_owned()
            )]
        );
        let valid = [sent(Class::ValidAccept)];
        assert!(judge_call(&valid, true, &clean_wire(), &form, false).is_empty());
    }

    #[test]
    fn lenient_accepts_acted_on_fail_only_under_strict() {
        let form = json!({"elicitation": {"form": {}}});
        let lenient = [sent(Class::LenientAccept(vec![
            "whole float 3.0 for integer `age`".into(),
        ]))];
        assert!(judge_call(&lenient, true, &clean_wire(), &form, false).is_empty());
        assert_eq!(
            judge_call(&lenient, true, &clean_wire(), &form, true),
            vec![(Property::NoActOnInvalid, "acted on content a strict server refuses (--strict): whole float 3.0 for integer `age`".to_owned())]
        );
        assert!(judge_call(&lenient, false, &clean_wire(), &form, true).is_empty());
    }

    /// A 2026-07-28 call: the first `tools/call` (#1) answered with an input
    /// request (#2), retried (#3) and answered (#4).
    fn rounds_wire(request: Value) -> Vec<Frame> {
        vec![
            frame(
                1,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book"}}),
            ),
            frame(
                2,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
                    "inputRequests": {"booking": request}, "requestState": "s"}}),
            ),
            frame(
                3,
                Side::Client,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "book"}}),
            ),
            frame(
                4,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 2, "result": {"content": []}}),
            ),
        ]
    }

    #[test]
    fn a_2026_input_request_for_a_form_counts_for_property_4_and_the_last_call_for_property_5() {
        let form = json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": schema()}});
        let url =
            json!({"method": "elicitation/create", "params": {"mode": "url", "url": "https://x"}});
        let wire = rounds_wire(form.clone());
        assert!(asks_a_form(&wire[1]));
        assert!(!asks_a_form(&wire[0]), "a client frame");
        assert!(!asks_a_form(&rounds_wire(url.clone())[1]));
        let mut explicit = form.clone();
        explicit["params"]["mode"] = json!("form");
        assert!(asks_a_form(&rounds_wire(explicit)[1]));
        let sampling = json!({"method": "sampling/createMessage", "params": {}});
        assert!(!asks_a_form(&rounds_wire(sampling)[1]));
        assert_eq!(
            judge_call(&[], false, &wire, &json!({}), false),
            vec![(
                Property::CapabilityRespected,
                "sent a form elicitation/create (frame #2) to a client that declared no form elicitation (capabilities {})".to_owned()
            )]
        );
        assert!(
            judge_call(
                &[],
                false,
                &rounds_wire(url),
                &json!({"elicitation": {"url": {}}}),
                false
            )
            .is_empty()
        );
        let form_client = json!({"elicitation": {"form": {}}});
        assert!(judge_call(&[], false, &wire, &form_client, false).is_empty());
        // The retry (#3) has no reply: property 5 reads the last call.
        assert_eq!(
            judge_call(&[], false, &wire[..3], &form_client, false),
            vec![(
                Property::CleanWire,
                "no reply to tools/call: the server never answered".to_owned()
            )]
        );
    }

    #[test]
    fn a_form_request_to_a_client_without_form_breaks_property_4() {
        for capabilities in [json!({}), json!({"elicitation": {"url": {}}})] {
            assert_eq!(
                judge_call(&[], false, &clean_wire(), &capabilities, false),
                vec![(
                    Property::CapabilityRespected,
                    format!(
                        "sent a form elicitation/create (frame #4) to a client that declared no form elicitation (capabilities {capabilities})"
                    )
                )]
            );
        }
        // `{}` counts as form; a URL-mode request is not a form request.
        assert!(
            judge_call(
                &[],
                false,
                &clean_wire(),
                &json!({"elicitation": {}}),
                false
            )
            .is_empty()
        );
        let mut url = clean_wire();
        url[3].message["params"]["mode"] = json!("url");
        assert!(
            judge_call(
                &[],
                false,
                &url,
                &json!({"elicitation": {"url": {}}}),
                false
            )
            .is_empty()
        );
        url[3].message["params"]["mode"] = json!("form");
        assert_eq!(judge_call(&[], false, &url, &json!({}), false).len(), 1);
    }

    #[test]
    fn the_wire_breaks_property_5_on_stray_lines_late_elicitations_no_reply_and_no_exit() {
        let form = json!({"elicitation": {"form": {}}});
        let reading = Reading::plain(false);
        let wire = clean_wire();
        let observe =
            |wire: &[Frame], stray: &[StrayLine], forced_kill: bool, call_failure: Option<&str>| {
                violations(&Observation {
                    sent: &[],
                    reading: &reading,
                    capabilities: &form,
                    wire,
                    stray,
                    forced_kill,
                    grace: std::time::Duration::from_secs(5),
                    call_failure,
                    strict: false,
                    allow_unasked: false,
                })
            };
        assert!(observe(&wire, &[], false, None).is_empty());
        let stray = [StrayLine {
            seq: 7,
            line: "calculating...".into(),
            bytes: 14,
        }];
        assert_eq!(
            observe(&wire, &stray, false, None),
            vec![(
                Property::CleanWire,
                r#"stdout line #7 is not a JSON-RPC message: "calculating...""#.to_owned()
            )]
        );
        let mut late = wire.clone();
        late.push(frame(
            8,
            Side::Server,
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {}}),
        ));
        assert_eq!(
            observe(&late, &[], false, None),
            vec![(
                Property::CleanWire,
                "elicitation/create (frame #8) outside its tools/call (frames #3 to #6)".to_owned()
            )]
        );
        let mut early = wire.clone();
        early.insert(
            0,
            frame(
                2,
                Side::Server,
                json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": {}}),
            ),
        );
        assert_eq!(
            observe(&early, &[], false, None),
            vec![(
                Property::CleanWire,
                "elicitation/create (frame #2) outside its tools/call (frames #3 to #6)".to_owned()
            )]
        );
        assert_eq!(
            observe(
                &wire[..3],
                &[],
                false,
                Some("tools/call did not finish within 10s")
            ),
            vec![(
                Property::CleanWire,
                "no reply to tools/call: tools/call did not finish within 10s".to_owned()
            )]
        );
        assert_eq!(
            observe(&[], &[], false, Some("initialize failed")),
            vec![(
                Property::CleanWire,
                "the tool was not called: initialize failed".to_owned()
            )]
        );
        assert_eq!(
            observe(&wire, &[], true, None),
            vec![(
                Property::CleanWire,
                "did not exit within 5 s after its stdin closed (killed)".to_owned()
            )]
        );
    }

    #[test]
    fn a_non_boolean_acted_value_breaks_property_6() {
        let form = json!({"elicitation": {"form": {}}});
        let reading = Reading {
            acted: true,
            drift: Some("the value at /x is 1 (a number), not a boolean".into()),
            unreadable: None,
        };
        let found = violations(&Observation {
            sent: &[sent(Class::ValidAccept)],
            reading: &reading,
            capabilities: &form,
            wire: &clean_wire(),
            stray: &[],
            forced_kill: false,
            grace: std::time::Duration::from_secs(5),
            call_failure: None,
            strict: false,
            allow_unasked: false,
        });
        assert_eq!(
            found,
            vec![(
                Property::ActedIsBoolean,
                "the value at /x is 1 (a number), not a boolean".to_owned()
            )]
        );
    }

    #[test]
    fn a_server_asking_again_has_not_acted_under_any_rule() {
        let asking = json!({
            "resultType": "input_required",
            "inputRequests": {"form": {"method": "elicitation/create"}},
            "requestState": "s",
            "structuredContent": {"x": true},
            "content": [{"type": "text", "text": "{\"x\": true} ok"}]
        });
        let rules = [
            ActedRule::Pointer("/x".into()),
            ActedRule::Equals("/x".into(), json!(true)),
            ActedRule::Text {
                regex: Regex::new("ok").expect("regex"),
                not_error: false,
            },
            ActedRule::NotError,
        ];
        for rule in &rules {
            assert_eq!(
                read_acted(rule, Some(&asking), None),
                Reading::plain(false),
                "{rule}"
            );
            let mut complete = asking.clone();
            complete["resultType"] = json!("complete");
            assert!(read_acted(rule, Some(&complete), None).acted, "{rule}");
        }
    }

    #[test]
    fn acted_rules_print_as_their_options() {
        assert_eq!(ActedRule::Pointer("/x".into()).to_string(), "--acted /x");
        let text = |not_error| ActedRule::Text {
            regex: Regex::new("ok.*").expect("regex"),
            not_error,
        };
        assert_eq!(text(false).to_string(), "--acted-text ok.*");
        assert_eq!(
            text(true).words(),
            ["--acted-text", "ok.*", "--acted-not-error"]
        );
        assert_eq!(
            ActedRule::Equals("/dry_run".into(), json!(false)).words(),
            ["--acted", "/dry_run=false"]
        );
        assert_eq!(
            ActedRule::Command("test ! -e v".into()).to_string(),
            "--acted-cmd test ! -e v"
        );
        assert_eq!(ActedRule::NotError.to_string(), "--acted-not-error");
    }

    #[test]
    fn a_loose_reader_takes_non_booleans_as_many_languages_do() {
        let rule = ActedRule::Pointer("/a".into());
        let acted = |value: Value| {
            read_acted(
                &rule,
                Some(&json!({"structuredContent": {"a": value}})),
                None,
            )
            .acted
        };
        for (value, loose) in [
            (json!(1), true),
            (json!(2.5), true),
            (json!(0), false),
            (json!("true"), true),
            (json!("yes"), true),
            (json!("1"), true),
            (json!("no"), false),
            (json!([]), false),
            (json!([0]), true),
            (json!({}), true),
            (json!(null), false),
        ] {
            assert_eq!(acted(value.clone()), loose, "{value}");
        }
        let kinds: Vec<&str> = [
            json!(null),
            json!(true),
            json!(1),
            json!("s"),
            json!([]),
            json!({}),
        ]
        .iter()
        .map(json_kind)
        .collect();
        assert_eq!(
            kinds,
            [
                "null",
                "a boolean",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
    }

    #[test]
    fn text_content_is_every_text_block_joined() {
        let result = json!({"content": [
            {"type": "text", "text": "one"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
            {"type": "text", "text": "two"}
        ]});
        assert_eq!(text_of(&result), "one\ntwo");
        assert_eq!(text_of(&json!({})), "");
    }

    #[test]
    fn acting_with_no_answer_possible_breaks_property_7_unless_fail_open_is_declared() {
        let none = json!({});
        // The call and its reply, no elicitation/create between them.
        let mut wire = clean_wire();
        wire.drain(3..5);
        let judge = |sent: &[SentAnswer], acted: bool, allow_unasked: bool| {
            violations(&Observation {
                sent,
                reading: &Reading::plain(acted),
                capabilities: &none,
                wire: &wire,
                stray: &[],
                forced_kill: false,
                grace: std::time::Duration::from_secs(5),
                call_failure: None,
                strict: false,
                allow_unasked,
            })
        };
        assert_eq!(
            judge(&[], true, false),
            vec![(
                Property::NoActWithoutAnswer,
                "acted without asking: no elicitation/create in the call (client capabilities {})"
                    .to_owned()
            )]
        );
        assert_eq!(
            judge(&[sent(Class::Error), sent(Class::Error)], true, false),
            vec![(
                Property::NoActWithoutAnswer,
                "acted although the client could answer no request (each got a JSON-RPC error; capabilities {})"
                    .to_owned()
            )]
        );
        assert_eq!(
            judge(
                &[sent(Class::Unanswered("a retry with no inputResponses".into()))],
                true,
                false
            ),
            vec![(
                Property::NoActWithoutAnswer,
                "acted although its input request was never answered: a retry with no inputResponses"
                    .to_owned()
            )]
        );
        assert!(judge(&[], false, false).is_empty());
        assert!(judge(&[], true, true).is_empty());
        // An answer came: another property judges it, not this one.
        assert!(judge(&[sent(Class::Error), sent(Class::ValidAccept)], true, false).is_empty());
        assert!(unanswered(&[]));
        assert!(unanswered(&[sent(Class::Error)]));
        assert!(unanswered(&[sent(Class::Unanswered(
            "no inputResponses".into()
        ))]));
        assert!(!unanswered(&[
            sent(Class::Unanswered("no inputResponses".into())),
            sent(Class::ValidAccept)
        ]));
        assert!(!unanswered(&[sent(Class::Refusal("cancel".into()))]));
    }

    #[test]
    fn properties_are_numbered_one_to_eight_in_order() {
        let numbers: Vec<u8> = Property::ALL.iter().map(|p| p.number()).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7, 8]);
        let statements: Vec<&str> = Property::ALL.iter().map(|p| p.statement()).collect();
        assert_eq!(
            statements,
            [
                "never acts when an answer was decline or cancel",
                "never acts on an accept whose content is invalid",
                "acts on valid accepts",
                "sends no form elicitation/create without the form capability",
                "stdout is JSON-RPC only, elicitation/create inside the call, exits on stdin close",
                "the acted value is a JSON boolean",
                "never acts without a valid consenting answer",
                "never acts on a requestState it did not issue for this call (2026-07-28)",
            ]
        );
        assert_eq!(Property::CleanWire.to_string(), "property 5");
    }
}
