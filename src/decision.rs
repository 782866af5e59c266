//! The decision: declared capabilities + policy + elicitation answer -> outcome. Pure.
//!
//! Source: issue 2, section 1 and 2. An `accept` returns input; it never
//! authorizes anything else: the value is computed only for a `validated` policy,
//! an `accept` action and content that passes `crate::form::validate`.

use std::fmt;
use std::str::FromStr;

use rmcp::model::{ElicitationAction, ElicitationCapability};

use crate::form;
use crate::outcome::{MALFORMED, NO_CONTENT, Outcome};
use crate::reply::Reply;

/// The `policy` argument of the `calculate` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// `"validated"` (default): guard, ask once, validate strictly, compute only on a valid accept.
    Validated,
    /// `"raw"`: guard, ask once, return the answer as received; never computes.
    Raw,
    /// `"diagnostic_unchecked"`: skip the guard on purpose, ask anyway; never computes.
    DiagnosticUnchecked,
}

impl Policy {
    /// Every policy, in documentation order.
    pub const ALL: [Policy; 3] = [Policy::Validated, Policy::Raw, Policy::DiagnosticUnchecked];

    /// The wire name.
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

/// An unknown `policy` string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown policy {0:?}: expected validated, raw or diagnostic_unchecked")]
pub struct UnknownPolicy(pub String);

impl FromStr for Policy {
    type Err = UnknownPolicy;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Policy::ALL
            .into_iter()
            .find(|policy| policy.as_str() == text)
            .ok_or_else(|| UnknownPolicy(text.to_owned()))
    }
}

/// Whether the client declared form elicitation (MCP 2025-11-25, Elicitation,
/// "Capabilities"): `elicitation` present and either `form` present or neither
/// `form` nor `url` present (the legacy empty object). URL-only or no
/// `elicitation` means unsupported.
pub fn form_supported(elicitation: Option<&ElicitationCapability>) -> bool {
    match elicitation {
        None => false,
        Some(capability) => capability.form.is_some() || capability.url.is_none(),
    }
}

/// Whether the server sends `elicitation/create` at all. `validated` and `raw`
/// ask only when form is supported; `diagnostic_unchecked` always asks.
pub fn should_elicit(form_supported: bool, policy: Policy) -> bool {
    form_supported || policy == Policy::DiagnosticUnchecked
}

/// The outcome once the answer is in. Call only after [`should_elicit`] said yes.
pub fn conclude(policy: Policy, reply: &Reply) -> Outcome {
    let result = match reply {
        Reply::Error { code, message } => {
            return Outcome::ProtocolError {
                code: *code,
                message: message.clone(),
            };
        }
        Reply::Malformed => return Outcome::InvalidResponse { error: MALFORMED },
        Reply::Result(result) => result,
    };
    let content = Reply::content(result);
    let Some(action) = Action::of(&result.action) else {
        return Outcome::InvalidResponse { error: MALFORMED };
    };
    if policy != Policy::Validated {
        return Outcome::RawResponse {
            action: action.as_str().to_owned(),
            content: content.cloned(),
        };
    }
    match action {
        Action::Decline => Outcome::Declined,
        Action::Cancel => Outcome::Cancelled,
        Action::Accept => match content {
            None => Outcome::InvalidResponse { error: NO_CONTENT },
            Some(content) => match form::validate(content) {
                Ok(form) => Outcome::Calculated {
                    value: form.product(),
                },
                Err(errors) => Outcome::InvalidContent { errors },
            },
        },
    }
}

/// The whole decision: the guard, then (when it asks) the answer.
///
/// `reply` is consulted only when [`should_elicit`] says the server asks.
pub fn decide(
    elicitation: Option<&ElicitationCapability>,
    policy: Policy,
    reply: impl FnOnce() -> Reply,
) -> Outcome {
    if should_elicit(form_supported(elicitation), policy) {
        conclude(policy, &reply())
    } else {
        Outcome::Unsupported
    }
}

/// The three actions of MCP 2025-11-25 (`ElicitResult.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Accept,
    Decline,
    Cancel,
}

impl Action {
    /// Our action for rmcp's; `None` for an action rmcp may add later
    /// (its enum is non-exhaustive), which this contract treats as malformed.
    fn of(action: &ElicitationAction) -> Option<Action> {
        match action {
            ElicitationAction::Accept => Some(Action::Accept),
            ElicitationAction::Decline => Some(Action::Decline),
            ElicitationAction::Cancel => Some(Action::Cancel),
            _ => None,
        }
    }

    /// The wire name.
    fn as_str(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
        }
    }
}
