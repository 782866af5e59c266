//! The decision: declared capabilities + policy + elicitation answer -> outcome. Pure.
//!
//! Source: the `calculate` contract (docs/src/contract.md). An `accept` returns
//! input; it never authorizes anything else: the value is computed only for a
//! `validated` policy, an `accept` action and content that passes
//! `crate::server::form::validate`.

use std::fmt;
use std::str::FromStr;

use rmcp::model::{ElicitationAction, ElicitationCapability};

use crate::server::form;
use crate::server::outcome::{MALFORMED, NO_CONTENT, Outcome};
use crate::server::reply::Reply;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A declared `elicitation` capability, from its JSON.
    fn declared(capability: Value) -> ElicitationCapability {
        serde_json::from_value(capability).expect("an elicitation capability")
    }

    /// A well-formed `ElicitResult` answer, from its JSON.
    fn answer(result: Value) -> Reply {
        Reply::Result(serde_json::from_value(result).expect("an ElicitResult"))
    }

    fn valid_accept() -> Reply {
        answer(json!({"action": "accept", "content": {"units": 3, "unit_value": 7}}))
    }

    #[test]
    fn form_is_supported_when_declared_or_legacy_empty_never_url_only_or_absent() {
        assert!(form_supported(Some(&declared(json!({"form": {}})))));
        assert!(form_supported(Some(&declared(
            json!({"form": {}, "url": {}})
        ))));
        assert!(form_supported(Some(&declared(json!({})))));
        assert!(!form_supported(Some(&declared(json!({"url": {}})))));
        assert!(!form_supported(None));
    }

    #[test]
    fn only_diagnostic_unchecked_asks_without_form_support() {
        for policy in Policy::ALL {
            assert!(should_elicit(true, policy), "{policy} with form");
        }
        assert!(!should_elicit(false, Policy::Validated));
        assert!(!should_elicit(false, Policy::Raw));
        assert!(should_elicit(false, Policy::DiagnosticUnchecked));
    }

    #[test]
    fn the_guard_asks_nothing_when_form_is_not_declared() {
        let url_only = declared(json!({"url": {}}));
        for (elicitation, policy) in [
            (None, Policy::Validated),
            (None, Policy::Raw),
            (Some(&url_only), Policy::Validated),
            (Some(&url_only), Policy::Raw),
        ] {
            let outcome = decide(elicitation, policy, || panic!("{policy} asked"));
            assert_eq!(outcome, Outcome::Unsupported);
        }
        let refused = decide(None, Policy::DiagnosticUnchecked, || Reply::Error {
            code: -32602,
            message: "elicitation mode not declared: form".to_owned(),
        });
        assert_eq!(
            refused,
            Outcome::ProtocolError {
                code: -32602,
                message: "elicitation mode not declared: form".to_owned()
            }
        );
    }

    #[test]
    fn a_valid_accept_computes_only_under_validated() {
        let form = declared(json!({"form": {}}));
        assert_eq!(
            decide(Some(&form), Policy::Validated, valid_accept),
            Outcome::Calculated { value: 21 }
        );
        for policy in [Policy::Raw, Policy::DiagnosticUnchecked] {
            assert_eq!(
                decide(Some(&form), policy, valid_accept),
                Outcome::RawResponse {
                    action: "accept".to_owned(),
                    content: Some(json!({"units": 3, "unit_value": 7}))
                },
                "{policy}"
            );
        }
    }

    #[test]
    fn decline_with_valid_content_is_never_computed() {
        let spurious = json!({"units": 3, "unit_value": 7});
        assert_eq!(
            conclude(
                Policy::Validated,
                &answer(json!({"action": "decline", "content": spurious}))
            ),
            Outcome::Declined
        );
        assert_eq!(
            conclude(
                Policy::Validated,
                &answer(json!({"action": "cancel", "content": spurious}))
            ),
            Outcome::Cancelled
        );
    }

    #[test]
    fn raw_policies_report_decline_and_cancel_as_received() {
        assert_eq!(
            conclude(
                Policy::Raw,
                &answer(json!({"action": "decline", "content": [1]}))
            ),
            Outcome::RawResponse {
                action: "decline".to_owned(),
                content: Some(json!([1]))
            }
        );
        assert_eq!(
            conclude(
                Policy::DiagnosticUnchecked,
                &answer(json!({"action": "cancel", "content": null}))
            ),
            Outcome::RawResponse {
                action: "cancel".to_owned(),
                content: None
            }
        );
    }

    #[test]
    fn accept_without_content_or_with_null_content_is_an_invalid_response() {
        for result in [
            json!({"action": "accept"}),
            json!({"action": "accept", "content": null}),
        ] {
            assert_eq!(
                conclude(Policy::Validated, &answer(result)),
                Outcome::InvalidResponse {
                    error: "accept response has no content"
                }
            );
        }
    }

    #[test]
    fn accept_with_invalid_content_lists_the_failing_paths() {
        assert_eq!(
            conclude(
                Policy::Validated,
                &answer(json!({"action": "accept", "content": {"units": "3", "unit_value": 7}}))
            ),
            Outcome::InvalidContent {
                errors: vec![vec!["units".to_owned()]]
            }
        );
    }

    #[test]
    fn a_malformed_answer_or_an_error_is_never_computed_under_any_policy() {
        for policy in Policy::ALL {
            assert_eq!(
                conclude(policy, &Reply::Malformed),
                Outcome::InvalidResponse {
                    error: "malformed elicitation result"
                },
                "{policy}"
            );
            assert_eq!(
                conclude(
                    policy,
                    &Reply::Error {
                        code: -32603,
                        message: "boom".to_owned()
                    }
                ),
                Outcome::ProtocolError {
                    code: -32603,
                    message: "boom".to_owned()
                },
                "{policy}"
            );
        }
    }

    #[test]
    fn policies_parse_from_and_display_as_their_wire_names() {
        for (text, policy) in [
            ("validated", Policy::Validated),
            ("raw", Policy::Raw),
            ("diagnostic_unchecked", Policy::DiagnosticUnchecked),
        ] {
            assert_eq!(text.parse::<Policy>(), Ok(policy));
            assert_eq!(policy.to_string(), text);
        }
        assert_eq!(
            "Validated".parse::<Policy>(),
            Err(UnknownPolicy("Validated".to_owned()))
        );
    }
}
