//! The eight properties of `elicit-check check` (P1 to P8, docs/src/check.md,
//! "The properties"), judged on one call to anyone's tool, from the wire and the tool's
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
use serde_json::{Value, json};

use super::consent::DeclaredConsent;
use crate::evidence::HarnessFailure;
use crate::evidence::http::HttpRecord;
use crate::evidence::wire::{Frame, Side, StrayLine};
use crate::harness::era::Protocol;
use crate::schema::Form;
use crate::schema::Kind;
use crate::schema::judge::Judge;

/// A property, numbered as in `check`'s report and docs/src/check.md (P1 to P8).
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
    /// 5: clean stdout, elicitation inside the call, exit on stdin close;
    /// over Streamable HTTP, the transport's rules (`super::http`).
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

    /// Whether an act alone breaks it (1, 2, 7, 8): no accept authorizes another call's act.
    pub fn broken_by_an_act(self) -> bool {
        use Property::{NoActOnInvalid, NoActOnRefusal, NoActWithoutAnswer, StateVerified};
        matches!(
            self,
            NoActOnRefusal | NoActOnInvalid | NoActWithoutAnswer | StateVerified
        )
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
    /// A URL-mode request answered as a user who completed it (`accept`, no
    /// content): a step of a multi-step tool, not a form to judge.
    UrlCompleted,
}

/// Classifies `answer` (the reply's `result`, raw JSON) for the request whose
/// schema reads as `form` and is judged by `judge`.
///
/// An `accept` without `content` is judged as the empty object `{}` (MCP
/// 2025-11-25, client/elicitation: `content` is the submitted form data, and
/// a form that requires no field is submitted whole with none): valid when
/// the schema requires nothing, invalid (`accept has no content`) otherwise.
/// `content: null` is not an object and is never valid.
pub fn classify(form: &Form, judge: &Judge, answer: &Value) -> Class {
    let action = answer.get("action");
    match action.and_then(Value::as_str) {
        Some(action @ ("decline" | "cancel")) => Class::Refusal(action.to_owned()),
        Some("accept") => {
            let empty = json!({});
            let content = match answer.get("content") {
                Some(Value::Null) => {
                    return Class::InvalidAccept(vec!["content is null, not an object".to_owned()]);
                }
                Some(content) => content,
                None if judge.errors(&empty).is_empty() => &empty,
                None => {
                    return Class::InvalidAccept(vec!["accept has no content".to_owned()]);
                }
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
    /// Whether it reads a field of the call's own reply (`--acted /pointer`,
    /// `/pointer=value`), where an earlier call's act or a late one does not
    /// show: a text, a non-error reply or `--acted-cmd`'s state may.
    pub fn reads_a_reply_field(&self) -> bool {
        matches!(self, ActedRule::Pointer(_) | ActedRule::Equals(..))
    }

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
    /// A message naming what is wrong: not a JSON pointer, the empty pointer
    /// (RFC 6901: the whole document, which names no one value: most often an
    /// unset shell variable), or not JSON after `=`.
    pub fn parse_pointer(text: &str) -> Result<ActedRule, String> {
        let (pointer, value) = match text.split_once('=') {
            Some((pointer, value)) => (pointer, Some(value)),
            None => (text, None),
        };
        if pointer.is_empty() {
            return Err(format!(
                "--acted {text:?}: the empty pointer names the whole result, not the value that says the tool acted; give its pointer, e.g. /booked or /status=\"booked\""
            ));
        }
        if !pointer.starts_with('/') {
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
    /// The HTTP steps that carried the wire (Streamable HTTP; empty over stdio).
    pub http: &'a [HttpRecord],
    /// Whether the server had to be killed after stdin closed.
    pub forced_kill: bool,
    /// The shutdown grace the server had, for the message.
    pub grace: std::time::Duration,
    /// Why the call has no reply, if it has none (timeout, closed
    /// transport), as the harness kept it.
    pub call_failure: Option<&'a HarnessFailure>,
    /// Whether `--strict` turns lenient accepts into failures of property 2.
    pub strict: bool,
    /// Whether acting without an answer is a declared fail-open design
    /// (`--allow-unasked`): then property 7 is not broken by a call whose
    /// client declared no form elicitation, only reported. A form-capable
    /// client that was never asked still breaks it.
    pub allow_unasked: bool,
    /// The era the call was made in: the reasons speak its words
    /// (`elicitation/create` on 2025-11-25, an `InputRequiredResult` asking
    /// for a form on 2026-07-28).
    pub protocol: Protocol,
    /// The consent fields declared with `--consent POINTER=JSON`: acting on
    /// a valid accept that carries another value there breaks property 7.
    pub consent: &'a [DeclaredConsent],
}

/// Whether no answer could come in a call: nothing was asked, or every form
/// request got a JSON-RPC error (the client could not answer it) or its
/// answer never reached the server. A URL-mode step completed before the
/// form is no answer to it; a call that asked for URL steps only is not
/// counted here. Property 7's calls.
pub fn unanswered(sent: &[SentAnswer]) -> bool {
    let mut forms = sent
        .iter()
        .filter(|sent| sent.class != Class::UrlCompleted)
        .peekable();
    (sent.is_empty() || forms.peek().is_some())
        && forms.all(|sent| matches!(sent.class, Class::Error | Class::Unanswered(_)))
}

/// The answers a call's action is attributed to, in order. A server that
/// asks the same form again (the same `requestedSchema`) after an answer it
/// could not use (invalid content, no `ElicitResult`, or content only a lax
/// reading takes, such as an extra key a strict server refuses) has
/// re-asked: that
/// answer is superseded, and acting after a later valid consenting answer is
/// correct (MCP 2025-11-25, client/elicitation: servers SHOULD validate what
/// they receive; asking again is how they recover). A refusal or a valid
/// accept is never superseded: the user's `decline` stands, whatever is asked
/// after it. URL-mode completions carry no content and are left out.
pub fn judged(sent: &[SentAnswer]) -> Vec<&SentAnswer> {
    sent.iter()
        .enumerate()
        .filter(|(_, answer)| answer.class != Class::UrlCompleted)
        .filter(|(at, answer)| {
            let unusable = matches!(
                answer.class,
                Class::InvalidAccept(_) | Class::NearMiss(_) | Class::LenientAccept(_)
            );
            let asked_again = !answer.requested_schema.is_null()
                && sent[at + 1..]
                    .iter()
                    .any(|later| later.requested_schema == answer.requested_schema);
            !(unusable && asked_again)
        })
        .map(|(_, answer)| answer)
        .collect()
}

/// How many answers of a call a re-ask superseded (see [`judged`]).
pub fn superseded(sent: &[SentAnswer]) -> usize {
    let urls = sent
        .iter()
        .filter(|answer| answer.class == Class::UrlCompleted)
        .count();
    sent.len() - urls - judged(sent).len()
}

/// The properties one call breaks, each with its one primary reason, in property
/// order; property 3 is tallied over the run, not here.
pub fn violations(observation: &Observation<'_>) -> Vec<(Property, String)> {
    let mut found = Vec::new();
    let acted = observation.reading.acted;
    let judged = judged(observation.sent);
    let refusal = judged.iter().find_map(|sent| match &sent.class {
        Class::Refusal(action) => Some(action.clone()),
        _ => None,
    });
    if acted && let Some(action) = &refusal {
        found.push((
            Property::NoActOnRefusal,
            format!("acted although the answer was {action}"),
        ));
    }
    let mut invalid_found = false;
    if acted && refusal.is_none() {
        let invalid = judged.iter().find_map(|sent| match &sent.class {
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
            invalid_found = true;
            found.push((Property::NoActOnInvalid, reason));
        }
    }
    let form_declared = crate::harness::client::declares_form(observation.capabilities);
    if !form_declared && let Some(asked) = observation.wire.iter().find_map(form_request) {
        found.push((
            Property::CapabilityRespected,
            format!(
                "{asked} to a client that declared no form elicitation (capabilities {})",
                observation.capabilities
            ),
        ));
    }
    if let Some(reason) = wire_fault(observation) {
        found.push((Property::CleanWire, reason));
    }
    if let Some(drift) = &observation.reading.drift {
        found.push((Property::ActedIsBoolean, drift.clone()));
    }
    if acted
        && refusal.is_none()
        && !invalid_found
        && let Some(reason) = withheld_consent(&judged, observation.consent)
    {
        found.push((Property::NoActWithoutAnswer, reason));
    }
    // --allow-unasked speaks of clients that cannot answer a form only.
    let fail_open_allowed = observation.allow_unasked && !form_declared;
    if acted && !fail_open_allowed && unanswered(observation.sent) {
        let capabilities = observation.capabilities;
        found.push((
            Property::NoActWithoutAnswer,
            if let Some(missing) = observation.sent.iter().find_map(|sent| match &sent.class {
                Class::Unanswered(how) => Some(how),
                _ => None,
            }) {
                format!("acted although its input request was never answered: {missing}")
            } else if observation.sent.is_empty() {
                match observation.protocol {
                    Protocol::V2025_11_25 => format!(
                        "acted without asking: no elicitation/create in the call (client capabilities {capabilities})"
                    ),
                    Protocol::V2026_07_28 => format!(
                        "acted without asking: no InputRequiredResult asking for a form before it (client capabilities {capabilities})"
                    ),
                }
            } else {
                match observation.protocol {
                    Protocol::V2025_11_25 => format!(
                        "acted although the client could answer no request (each got a JSON-RPC error; capabilities {capabilities})"
                    ),
                    Protocol::V2026_07_28 => format!(
                        "acted although the client could answer none of its input requests (capabilities {capabilities})"
                    ),
                }
            },
        ));
    }
    found
}

/// Why the answers `judged` did not consent, when one is a valid accept
/// that carries another value (or none) where `consent` declares the
/// consenting one: `` acted on a valid accept that did not consent: `confirm`
/// is false, not true (--consent /confirm=true) ``.
pub fn withheld_consent(judged: &[&SentAnswer], consent: &[DeclaredConsent]) -> Option<String> {
    judged
        .iter()
        .filter(|sent| matches!(sent.class, Class::ValidAccept | Class::LenientAccept(_)))
        .find_map(|sent| {
            let content = sent.answer.get("content").unwrap_or(&Value::Null);
            consent.iter().find_map(|declared| {
                declared
                    .withheld_by(&sent.requested_schema, content)
                    .map(|carried| {
                        format!(
                            "acted on a valid accept that did not consent: {carried} ({declared})"
                        )
                    })
            })
        })
}

/// How a server frame asks a form, in its era's words, when it does: a form
/// `elicitation/create` (`sent a form elicitation/create (frame #3)`,
/// 2025-11-25) or a tool result whose `inputRequests` hold one (`returned an
/// InputRequiredResult asking for a form (inputRequests.confirm, frame #3)`,
/// 2026-07-28).
fn form_request(frame: &Frame) -> Option<String> {
    if is_form_elicitation(frame) {
        return Some(format!(
            "sent a form elicitation/create (frame #{})",
            frame.seq
        ));
    }
    let key = form_input_request(frame)?;
    Some(format!(
        "returned an InputRequiredResult asking for a form (inputRequests.{key}, frame #{})",
        frame.seq
    ))
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
    form_input_request(frame).is_some()
}

/// The key of the first form `elicitation/create` in a protocol 2026-07-28
/// tool result's `inputRequests` (`mode` absent counts as form), when the
/// frame is one from the server.
fn form_input_request(frame: &Frame) -> Option<&str> {
    if frame.from != Side::Server {
        return None;
    }
    let requests = frame
        .message
        .pointer("/result/inputRequests")
        .and_then(Value::as_object)?;
    requests.iter().find_map(|(key, request)| {
        let mode = request.pointer("/params/mode");
        let form = request.get("method").and_then(Value::as_str) == Some("elicitation/create")
            && (mode.is_none_or(Value::is_null) || mode.and_then(Value::as_str) == Some("form"));
        form.then_some(key.as_str())
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
    // Over Streamable HTTP, the transport's own rules (`super::http`).
    if let Some(failure) = super::http::check(observation.http).first() {
        return Some(format!("HTTP: {failure}"));
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
        // A reply after the call's bound ran out, the client having
        // cancelled the request (`notifications/cancelled`), came too late
        // to be one.
        let late = matches!(
            observation.call_failure,
            Some(HarnessFailure::CallTimedOut { .. })
        );
        let reply = observation.wire.iter().find(|frame| {
            frame.from == Side::Server
                && frame.message.get("method").is_none()
                && frame.message.get("id") == id
        });
        let Some(reply) = reply.filter(|_| !late) else {
            let stdio = observation.http.is_empty();
            return Some(super::no_reply::no_reply(observation.call_failure, stdio));
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
mod tests;
