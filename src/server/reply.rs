//! The elicitation answer as the server sees it: a result, a malformed result, or an error.
//!
//! rmcp hands the server `Result<ElicitResult, ServiceError>`; this module names the
//! three cases the decision distinguishes and parses a raw wire answer into them
//! the same way rmcp does (as a `ClientResult`), so pure tests and the real server
//! see the same thing.

use rmcp::model::{ClientResult, ElicitResult, ErrorData};
use rmcp::service::ServiceError;
use serde_json::Value;

use crate::case::Answer;

/// What came back for one `elicitation/create`.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A well-formed `ElicitResult` (`action` is `accept`, `decline` or `cancel`;
    /// `content` is any JSON; `content: null` is absent).
    Result(ElicitResult),
    /// A result that is not an `ElicitResult`: unknown or missing `action`, wrong shape.
    Malformed,
    /// A JSON-RPC error response.
    Error {
        /// JSON-RPC error code.
        code: i64,
        /// JSON-RPC error message.
        message: String,
    },
}

impl Reply {
    /// Classifies what rmcp's `Peer::create_elicitation` returned.
    ///
    /// # Errors
    /// Returns the `ServiceError` itself when no answer arrived at all (transport
    /// closed, timeout, cancellation): that is not an answer to decide on.
    pub fn from_service(result: Result<ElicitResult, ServiceError>) -> Result<Reply, ServiceError> {
        match result {
            Ok(result) => Ok(Reply::Result(result)),
            Err(ServiceError::McpError(error)) => Ok(Reply::Error {
                code: i64::from(error.code.0),
                message: error.message.into_owned(),
            }),
            Err(ServiceError::UnexpectedResponse) => Ok(Reply::Malformed),
            Err(other) => Err(other),
        }
    }

    /// Parses a raw wire answer as rmcp would: a `result` through rmcp's untagged
    /// `ClientResult`, an `error` as rmcp's `ErrorData`.
    ///
    /// An `error` that is not a JSON-RPC error object also counts as [`Reply::Malformed`]
    /// (rmcp would not deliver it as an error).
    pub fn from_answer(answer: &Answer) -> Reply {
        match answer {
            Answer::Result(raw) => Reply::from_result(raw),
            Answer::Error(raw) => match serde_json::from_value::<ErrorData>(raw.clone()) {
                Ok(error) => Reply::Error {
                    code: i64::from(error.code.0),
                    message: error.message.into_owned(),
                },
                Err(_) => Reply::Malformed,
            },
        }
    }

    /// Parses a raw `result` (2025-11-25: the `result` of the reply to
    /// `elicitation/create`; 2026-07-28: `inputResponses["form"]`) through rmcp's
    /// untagged `ClientResult`: an `ElicitResult` or [`Reply::Malformed`].
    pub fn from_result(raw: &Value) -> Reply {
        match serde_json::from_value::<ClientResult>(raw.clone()) {
            Ok(ClientResult::ElicitResult(result)) => Reply::Result(result),
            _ => Reply::Malformed,
        }
    }

    /// The `content` of a result, with `null` treated as absent.
    pub fn content(result: &ElicitResult) -> Option<&Value> {
        result.content.as_ref().filter(|content| !content.is_null())
    }
}
