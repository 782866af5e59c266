//! Why a case was built: declared capabilities, the tool's policy and the reply, with their strategies.

use std::fmt;

use proptest::prelude::*;
use serde_json::{Map, Value};

use super::expected::{REFUSAL_CODE, REFUSAL_MESSAGE, outcome};
use super::policy::{GuardedPolicy, Policy, guarded_policy, policy};
use super::reply::{Reply, near_miss, reply};
use crate::case::Case;

/// Capabilities that declare form elicitation (contract rule 1).
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

/// Capabilities that do not declare form elicitation (contract rule 1).
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

/// Why a case was built: capabilities, policy and the deliberate answer.
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
        let mut case = Case {
            name: "generated".to_owned(),
            policy: self.policy_str().to_owned(),
            capabilities: self.capabilities_json(),
            answer: None,
            answer_text: None,
        };
        if let Some(wire) = reply.wire_answer() {
            case.set_wire_answer(wire);
        }
        case
    }

    /// The outcome this reason implies (the contract table), derived from the
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

/// A reason: form declared most often (every policy), then a near miss under
/// `validated` (about one case in four, [`near_miss`]), else form not declared
/// under a guarded policy or under `diagnostic_unchecked`.
///
/// The near misses are weighted so that each planted fault of
/// `fixtures/servers/calculator.py` is found by the default 256 generated cases
/// whatever the seed: its rarest finding (`true` or `"3"` for an integer) comes
/// about once in 30 cases, about 8 times in 256
/// (`tests/properties/planted_faults.rs` checks 20 seeds).
pub fn reason() -> impl Strategy<Value = Reason> {
    prop_oneof![
        8 => (form_capabilities(), policy(), reply()).prop_map(|(capabilities, policy, reply)| {
            Reason::Declared { capabilities, policy, reply }
        }),
        4 => (form_capabilities(), near_miss()).prop_map(|(capabilities, reply)| {
            Reason::Declared { capabilities, policy: Policy::Validated, reply }
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
