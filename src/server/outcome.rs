//! The outcome of one `calculate` call: its statuses and their exact JSON shapes.
//!
//! Source: the contract's statuses (docs/src/contract.md, "Statuses"). Every outcome is a JSON
//! object whose `computed` member is a JSON boolean; only `calculated` has
//! `computed: true`.

use serde_json::{Value, json};

use crate::server::form::ErrorPath;

/// Error text of an `accept` whose `content` is absent or `null`.
pub const NO_CONTENT: &str = "accept response has no content";
/// Error text of an answer that is not a valid `ElicitResult`.
pub const MALFORMED: &str = "malformed elicitation result";

/// What the server concluded from the elicitation answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `{"status":"calculated","computed":true,"value":N}`: a valid accept, N = units × unit_value.
    Calculated {
        /// units × unit_value.
        value: i64,
    },
    /// `{"status":"invalid_content","computed":false,"errors":[[...],...]}`: accept with content
    /// that fails the form rules; `errors` lists every failing path (see `crate::server::form::validate`).
    InvalidContent {
        /// Failing paths, schema order then sorted extra keys.
        errors: Vec<ErrorPath>,
    },
    /// `{"status":"invalid_response","computed":false,"error":"..."}`: accept without content
    /// ([`NO_CONTENT`]) or an answer that is not an `ElicitResult` ([`MALFORMED`]).
    InvalidResponse {
        /// [`NO_CONTENT`] or [`MALFORMED`].
        error: &'static str,
    },
    /// `{"status":"declined","computed":false}`: content riding along is never read.
    Declined,
    /// `{"status":"cancelled","computed":false}`: content riding along is never read.
    Cancelled,
    /// `{"status":"unsupported","computed":false,"requested":false}`: the client declared no
    /// form elicitation, so nothing was asked.
    Unsupported,
    /// `{"status":"protocol_error","computed":false,"code":C,"error":"..."}`: the client answered
    /// `elicitation/create` with a JSON-RPC error.
    ProtocolError {
        /// JSON-RPC error code.
        code: i64,
        /// JSON-RPC error message.
        message: String,
    },
    /// `{"status":"timed_out","computed":false}`: no answer to `elicitation/create`
    /// within `serve --elicitation-timeout` (the reference server under bad
    /// answers); the request was cancelled with `notifications/cancelled` and a
    /// late answer is ignored.
    TimedOut,
    /// `{"status":"raw_response","computed":false,"action":"accept","content":{...}}`: the answer
    /// as received (diagnostic policies); `content` is omitted when absent.
    RawResponse {
        /// `accept`, `decline` or `cancel`.
        action: String,
        /// The content as received, any JSON.
        content: Option<Value>,
    },
}

impl Outcome {
    /// The `status` string.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Calculated { .. } => "calculated",
            Outcome::InvalidContent { .. } => "invalid_content",
            Outcome::InvalidResponse { .. } => "invalid_response",
            Outcome::Declined => "declined",
            Outcome::Cancelled => "cancelled",
            Outcome::Unsupported => "unsupported",
            Outcome::ProtocolError { .. } => "protocol_error",
            Outcome::RawResponse { .. } => "raw_response",
            Outcome::TimedOut => "timed_out",
        }
    }

    /// Whether the server computed a value: true only for [`Outcome::Calculated`].
    pub fn computed(&self) -> bool {
        matches!(self, Outcome::Calculated { .. })
    }

    /// The outcome's exact JSON object, keys in the documented order.
    pub fn to_json(&self) -> Value {
        let mut object = json!({"status": self.status(), "computed": self.computed()});
        let extra = match self {
            Outcome::Calculated { value } => json!({"value": value}),
            Outcome::InvalidContent { errors } => json!({"errors": errors}),
            Outcome::InvalidResponse { error } => json!({"error": error}),
            Outcome::Declined | Outcome::Cancelled | Outcome::TimedOut => json!({}),
            Outcome::Unsupported => json!({"requested": false}),
            Outcome::ProtocolError { code, message } => json!({"code": code, "error": message}),
            Outcome::RawResponse { action, content } => match content {
                Some(content) => json!({"action": action, "content": content}),
                None => json!({"action": action}),
            },
        };
        if let (Some(object), Value::Object(extra)) = (object.as_object_mut(), extra) {
            object.extend(extra);
        }
        object
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each shape compared as text, so `true` vs `1` and key order both count.
    fn text(outcome: Outcome) -> String {
        outcome.to_json().to_string()
    }

    #[test]
    fn every_status_has_its_exact_shape() {
        assert_eq!(
            text(Outcome::Calculated { value: 21 }),
            r#"{"status":"calculated","computed":true,"value":21}"#
        );
        assert_eq!(
            text(Outcome::InvalidContent {
                errors: vec![vec!["unit_value".into()]]
            }),
            r#"{"status":"invalid_content","computed":false,"errors":[["unit_value"]]}"#
        );
        assert_eq!(
            text(Outcome::InvalidResponse { error: NO_CONTENT }),
            r#"{"status":"invalid_response","computed":false,"error":"accept response has no content"}"#
        );
        assert_eq!(
            text(Outcome::InvalidResponse { error: MALFORMED }),
            r#"{"status":"invalid_response","computed":false,"error":"malformed elicitation result"}"#
        );
        assert_eq!(
            text(Outcome::Declined),
            r#"{"status":"declined","computed":false}"#
        );
        assert_eq!(
            text(Outcome::Cancelled),
            r#"{"status":"cancelled","computed":false}"#
        );
        assert_eq!(
            text(Outcome::TimedOut),
            r#"{"status":"timed_out","computed":false}"#
        );
        assert_eq!(
            text(Outcome::Unsupported),
            r#"{"status":"unsupported","computed":false,"requested":false}"#
        );
        assert_eq!(
            text(Outcome::ProtocolError {
                code: -32602,
                message: "m".into()
            }),
            r#"{"status":"protocol_error","computed":false,"code":-32602,"error":"m"}"#
        );
        assert_eq!(
            text(Outcome::RawResponse {
                action: "accept".into(),
                content: Some(json!({"units": 3}))
            }),
            r#"{"status":"raw_response","computed":false,"action":"accept","content":{"units":3}}"#
        );
        assert_eq!(
            text(Outcome::RawResponse {
                action: "decline".into(),
                content: None
            }),
            r#"{"status":"raw_response","computed":false,"action":"decline"}"#
        );
    }
}
