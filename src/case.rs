//! A case: the declared client capabilities, the tool's policy and the raw answer to send.
//!
//! Cases hold inputs only. The expected outcomes of the contract cases live in
//! `expected/results.json`, written by hand from the contract table
//! (docs/src/contract.md).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// One input to the server: what the client declares and what it answers.
///
/// JSON shape (`fixtures/cases.json` holds an array of these):
/// `{"name": "...", "policy": "validated", "capabilities": {"elicitation": {"form": {}}},
///   "answer": {"result": {"action": "accept", "content": {...}}}}`.
/// `answer` is absent when the case expects no `elicitation/create` or lets the
/// client's own reply stand (see [`Answer`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Stable, unique name; it names the evidence and the snapshot.
    pub name: String,
    /// The `policy` argument of the `calculate` tool: `validated`, `raw` or
    /// `diagnostic_unchecked` (see `crate::server::decision::Policy`).
    pub policy: String,
    /// The `capabilities` object the client declares at `initialize`, exactly as
    /// sent (`{}` declares nothing; `{"elicitation": {}}` is the legacy form-only object).
    pub capabilities: Value,
    /// The answer to `elicitation/create`, as raw JSON written into the reply frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
    /// The exact JSON text of `answer`'s member, when it is written in a form
    /// `serde_json::Value` does not keep (`-0`, `3e0`, an integer beyond 64 bits):
    /// the proxy sends this text byte for byte instead of `answer` re-serialized.
    /// `answer` holds the same text parsed (what the oracles read). Set it with
    /// [`Case::set_wire_answer`]; absent means `answer` is sent as serialized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_text: Option<RawJson>,
}

impl Case {
    /// The answer as it goes on the wire: `answer_text` when set, else `answer`
    /// serialized compactly; `None` when the case has no answer.
    pub fn wire_answer(&self) -> Option<WireAnswer> {
        let answer = self.answer.as_ref()?;
        Some(match &self.answer_text {
            Some(text) => WireAnswer {
                member: answer.member(),
                text: text.clone(),
            },
            None => WireAnswer::from(answer),
        })
    }

    /// Sets the answer from its wire form: `answer` becomes the text parsed, and
    /// `answer_text` keeps the text only when re-serializing would change it.
    pub fn set_wire_answer(&mut self, wire: WireAnswer) {
        let answer = wire.answer();
        let serialized = answer.value().to_string();
        self.answer_text = (serialized != wire.text.get()).then_some(wire.text);
        self.answer = Some(answer);
    }
}

/// The client's reply to `elicitation/create`, written verbatim into the JSON-RPC
/// response frame by the recording proxy, so malformed answers can be sent too.
///
/// When the case declared no form support, the client answers JSON-RPC error
/// `-32602` whatever the answer says, as a spec-conformant client must
/// (MCP 2025-11-25, Elicitation, "Capabilities"). When the case has no answer and
/// form is declared, the client answers `{"action":"cancel"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    /// The `result` member of the response: normally an `ElicitResult`
    /// (`{"action": ..., "content"?: ...}`), but any JSON is allowed.
    Result(Value),
    /// The `error` member of the response: a JSON-RPC error object
    /// (`{"code": -32603, "message": "..."}`), sent instead of a result.
    Error(Value),
}

impl Answer {
    /// Which member of the JSON-RPC response this answer is.
    pub fn member(&self) -> Member {
        match self {
            Answer::Result(_) => Member::Result,
            Answer::Error(_) => Member::Error,
        }
    }

    /// The member's value.
    pub fn value(&self) -> &Value {
        match self {
            Answer::Result(value) | Answer::Error(value) => value,
        }
    }
}

/// The member of a JSON-RPC response an answer fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// `"result"`.
    Result,
    /// `"error"`.
    Error,
}

impl Member {
    /// The member's key in the response object.
    pub fn key(self) -> &'static str {
        match self {
            Member::Result => "result",
            Member::Error => "error",
        }
    }
}

/// A JSON value kept as its exact text, compact: `-0`, `3e0` and
/// `18446744073709551616` stay as written (a `serde_json::Value` would turn them
/// into `-0.0`, `3.0` and `1.8446744073709552e+19`). Serializes as the JSON itself;
/// deserializes from any JSON, dropping whitespace between tokens only.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// Parses `text` as one JSON value and keeps it as written, whitespace between
    /// tokens dropped (so it fits on one JSON-RPC line).
    ///
    /// # Errors
    /// The `serde_json` error when `text` is not one JSON value, holds a
    /// number `serde_json` cannot read (`1e400`, beyond f64: `number out of
    /// range`), or names a member twice in one object (`the member "units"
    /// twice in one object`: parsers disagree on which one wins, so no outcome
    /// can be expected of it; `run --hostile`'s `duplicate_keys` case sends one),
    /// since the oracles judge the parsed value ([`RawJson::to_value`]).
    pub fn from_text(text: &str) -> Result<Self, serde_json::Error> {
        let text = compact(text);
        serde_json::from_str::<crate::unique_names::UniqueNames>(&text)?;
        RawValue::from_string(text).map(RawJson)
    }

    /// `value` serialized compactly.
    pub fn from_value(value: &Value) -> Self {
        RawJson(RawValue::from_string(value.to_string()).expect("a Value serializes to JSON"))
    }

    /// The exact JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The text parsed (numbers as `serde_json` reads them: `-0` is the float `-0.0`).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.get()).expect("a RawJson holds valid JSON")
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        RawJson::from_text(raw.get()).map_err(serde::de::Error::custom)
    }
}

/// `text` without whitespace between JSON tokens (whitespace inside strings kept).
fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// An answer as it goes on the wire: the response member it fills and its exact
/// JSON text. Built from a `serde_json::Value` ([`From<&Answer>`], [`WireAnswer::result`])
/// or from raw JSON text ([`WireAnswer::result_text`], [`WireAnswer::error_text`]);
/// this is what the harness injects into the reply to `elicitation/create`.
#[derive(Debug, Clone, PartialEq)]
pub struct WireAnswer {
    /// `result` or `error`.
    pub member: Member,
    /// The member's exact JSON text.
    pub text: RawJson,
}

impl WireAnswer {
    /// A `result` member holding `value`, serialized compactly.
    pub fn result(value: &Value) -> Self {
        WireAnswer {
            member: Member::Result,
            text: RawJson::from_value(value),
        }
    }

    /// A `result` member written exactly as `text` (whitespace between tokens dropped),
    /// e.g. `{"action":"accept","content":{"units":-0,"unit_value":3e0}}`.
    ///
    /// # Errors
    /// The `serde_json` error when `text` is not one JSON value.
    pub fn result_text(text: &str) -> Result<Self, serde_json::Error> {
        Ok(WireAnswer {
            member: Member::Result,
            text: RawJson::from_text(text)?,
        })
    }

    /// An `error` member written exactly as `text`.
    ///
    /// # Errors
    /// The `serde_json` error when `text` is not one JSON value.
    pub fn error_text(text: &str) -> Result<Self, serde_json::Error> {
        Ok(WireAnswer {
            member: Member::Error,
            text: RawJson::from_text(text)?,
        })
    }

    /// The answer parsed, as the oracles read it.
    pub fn answer(&self) -> Answer {
        let value = self.text.to_value();
        match self.member {
            Member::Result => Answer::Result(value),
            Member::Error => Answer::Error(value),
        }
    }
}

impl From<&Answer> for WireAnswer {
    fn from(answer: &Answer) -> Self {
        WireAnswer {
            member: answer.member(),
            text: RawJson::from_value(answer.value()),
        }
    }
}

impl From<Answer> for WireAnswer {
    fn from(answer: Answer) -> Self {
        WireAnswer::from(&answer)
    }
}

/// The contract cases shipped with the crate (`fixtures/cases.json`), compiled in
/// so the binary works from any directory.
pub fn contract_cases() -> Vec<Case> {
    serde_json::from_str(include_str!("../fixtures/cases.json"))
        .expect("fixtures/cases.json is valid (checked by tests)")
}

/// The hand-written expected outcomes (`expected/results.json`): an object from
/// case name to the exact outcome object.
pub fn contract_expected() -> serde_json::Map<String, Value> {
    serde_json::from_str(include_str!("../expected/results.json"))
        .expect("expected/results.json is valid (checked by tests)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_json_keeps_number_forms_as_written_and_drops_whitespace_between_tokens() {
        let raw = RawJson::from_text(
            "{ \"units\": -0,\n  \"unit_value\": 3e0, \"big\": 18446744073709551616, \"s\": \"a \\\" b\" }",
        )
        .expect("valid JSON");
        assert_eq!(
            raw.get(),
            r#"{"units":-0,"unit_value":3e0,"big":18446744073709551616,"s":"a \" b"}"#
        );
        // Parsed, the same numbers change form: this is why the text is kept.
        assert_eq!(
            raw.to_value().to_string(),
            r#"{"units":-0.0,"unit_value":3.0,"big":1.8446744073709552e+19,"s":"a \" b"}"#
        );
        assert!(RawJson::from_text("{\"a\":").is_err());
        // A number beyond f64 is refused with serde_json's reason, not kept to
        // fail later when an oracle reads it.
        let beyond = RawJson::from_text(r#"{"units":1e400}"#).expect_err("beyond f64");
        assert!(
            beyond.to_string().starts_with("number out of range"),
            "{beyond}"
        );
        // A member named twice, at any depth, is refused; the same name in two
        // objects is not.
        for twice in [
            r#"{"units":3,"units":3}"#,
            r#"{"content":{"a":1,"b":[{"units":"3","units":3}]}}"#,
        ] {
            let error = RawJson::from_text(twice).expect_err("a member twice");
            assert!(
                error
                    .to_string()
                    .starts_with("the member \"units\" twice in one object"),
                "{error}"
            );
        }
        assert!(
            RawJson::from_text(r#"{"units":{"units":1},"b":[{"units":2},{"units":3}]}"#).is_ok()
        );
        assert!(RawJson::from_text(r#"[1,"x",null,true,-0,2.5,{}]"#).is_ok());
    }

    #[test]
    fn a_case_keeps_the_answer_text_only_when_serializing_would_change_it() {
        let mut case = Case {
            name: "c".into(),
            policy: "validated".into(),
            capabilities: json!({}),
            answer: None,
            answer_text: None,
        };
        case.set_wire_answer(WireAnswer::result(&json!({"action": "cancel"})));
        assert_eq!(case.answer_text, None);
        assert_eq!(
            case.answer,
            Some(Answer::Result(json!({"action": "cancel"})))
        );
        let text = r#"{"action":"accept","content":{"units":-0}}"#;
        case.set_wire_answer(WireAnswer::result_text(text).expect("valid JSON"));
        assert_eq!(case.answer_text.as_ref().map(RawJson::get), Some(text));
        assert_eq!(
            case.wire_answer().map(|wire| wire.text.get().to_owned()),
            Some(text.to_owned())
        );
        // Round trip through the evidence's JSON keeps the text.
        let json = serde_json::to_string(&case).expect("serializes");
        assert!(
            json.ends_with(r#""answer_text":{"action":"accept","content":{"units":-0}}}"#),
            "{json}"
        );
        let back: Case = serde_json::from_str(&json).expect("deserializes");
        assert_eq!(back, case);
    }
}
