//! The elicitation answer as the server sees it: a result, a malformed result, or an error.
//!
//! rmcp hands the server `Result<ElicitResult, ServiceError>`; this module names the
//! three cases the decision distinguishes and parses a raw wire answer into them
//! the same way rmcp does (as a `ClientResult`), so pure tests and the real server
//! see the same thing. The parse reads the answer in place: `ElicitResult`'s own
//! serde shape over the borrowed `Value`, with no copy of the answer and no
//! buffering through `ClientResult`'s untagged enum (for the pure core's
//! decisions per second). It reads exactly what `ClientResult` reads after
//! [`elicit_result_members`] (the tests below hold the two side by side).
//!
//! Extra result members: MCP 2025-11-25 lets every result carry `_meta` and
//! members its schema does not name (`Result` admits any key). rmcp's untagged
//! `ClientResult` tries other result types first, so `{"action":"accept",
//! "content":{...},"roots":[]}` would read as a roots result and never reach the
//! server as an answer. The server therefore keeps only the members an
//! `ElicitResult` names ([`RESULT_MEMBERS`]) before rmcp parses a response
//! ([`without_extra_members`], applied to every line the reference server reads).

use rmcp::model::{ElicitResult, ErrorData};
use rmcp::service::ServiceError;
use serde::Deserialize;
use serde_json::Value;

use crate::case::Answer;
// The tests hold the in-place read against rmcp's own `ClientResult` parse.
#[cfg(test)]
use rmcp::model::ClientResult;

/// The members of an `ElicitResult` (MCP 2025-11-25 schema): every other member of
/// a result is ignored.
pub const RESULT_MEMBERS: [&str; 3] = ["action", "content", "_meta"];

/// `result` without the members an `ElicitResult` does not name; anything that is
/// not an object is returned unchanged.
pub fn elicit_result_members(result: &Value) -> Value {
    match result {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .filter(|(key, _)| RESULT_MEMBERS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A JSON-RPC line from the client rewritten so that the `result` of a response
/// keeps only the [`RESULT_MEMBERS`]; `None` when the line needs no change (not
/// JSON, not a response, or a result without extra members). The reference
/// server sends no request other than `elicitation/create`, so every result it
/// reads answers one.
pub fn without_extra_members(line: &str) -> Option<String> {
    let mut message: Value = serde_json::from_str(line).ok()?;
    if message.get("method").is_some() {
        return None;
    }
    let result = message.get_mut("result")?;
    let kept = elicit_result_members(result);
    if kept == *result {
        return None;
    }
    *result = kept;
    Some(message.to_string())
}

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

    /// Parses a raw wire answer as the reference server reads it: a `result`
    /// without extra members ([`elicit_result_members`]) through rmcp's untagged
    /// `ClientResult`, an `error` as rmcp's `ErrorData`.
    ///
    /// An `error` that is not a JSON-RPC error object also counts as [`Reply::Malformed`]
    /// (rmcp would not deliver it as an error).
    pub fn from_answer(answer: &Answer) -> Reply {
        match answer {
            Answer::Result(raw) => Reply::from_result(raw),
            Answer::Error(raw) => match ErrorData::deserialize(raw) {
                Ok(error) => Reply::Error {
                    code: i64::from(error.code.0),
                    message: error.message.into_owned(),
                },
                Err(_) => Reply::Malformed,
            },
        }
    }

    /// Parses a raw `result` (2025-11-25: the `result` of the reply to
    /// `elicitation/create`; 2026-07-28: `inputResponses["form"]`) as rmcp's
    /// `ClientResult` reads it without its extra members ([`elicit_result_members`]):
    /// an `ElicitResult` or [`Reply::Malformed`].
    ///
    /// Read in place with `ElicitResult`'s serde shape: once the extra members are
    /// gone, the variants `ClientResult` tries before `ElicitResult` never match
    /// (`CreateMessageResult` needs `model`, `ListRootsResult` needs `roots`, and
    /// as an array two members, where `ElicitResult` takes three), and
    /// `ElicitResult` ignores members it does not name, so the members need not be
    /// dropped first. Only `content` is copied (into the `ElicitResult`).
    pub fn from_result(raw: &Value) -> Reply {
        match ElicitResult::deserialize(raw) {
            Ok(result) => Reply::Result(result),
            Err(_) => Reply::Malformed,
        }
    }

    /// The `content` of a result, with `null` treated as absent.
    pub fn content(result: &ElicitResult) -> Option<&Value> {
        result.content.as_ref().filter(|content| !content.is_null())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn extra_result_members_are_dropped_before_rmcp_parses_the_answer() {
        let answer = Answer::Result(json!({
            "action": "accept", "content": {"units": 3, "unit_value": 7}, "roots": [],
            "_meta": {"k": 1}, "note": "x"
        }));
        let Reply::Result(result) = Reply::from_answer(&answer) else {
            panic!("not an ElicitResult: {:?}", Reply::from_answer(&answer));
        };
        assert_eq!(
            Reply::content(&result),
            Some(&json!({"units": 3, "unit_value": 7}))
        );
        // Without the rewrite rmcp reads the same answer as a roots result.
        let raw = json!({"action": "accept", "content": {"units": 3}, "roots": []});
        assert!(matches!(
            serde_json::from_value::<ClientResult>(raw),
            Ok(ClientResult::ListRootsResult(_))
        ));
    }

    #[test]
    fn a_meta_that_is_not_an_object_is_malformed() {
        let answer = Answer::Result(json!({"action": "accept", "content": {}, "_meta": 5}));
        assert_eq!(Reply::from_answer(&answer), Reply::Malformed);
        let answer = Answer::Result(json!({"action": "decline", "_meta": null}));
        assert!(matches!(Reply::from_answer(&answer), Reply::Result(_)));
    }

    #[test]
    fn only_response_lines_with_extra_result_members_are_rewritten() {
        assert_eq!(
            without_extra_members(
                r#"{"jsonrpc":"2.0","id":0,"result":{"action":"cancel","roots":[],"_meta":{}}}"#
            )
            .as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":0,"result":{"action":"cancel","_meta":{}}}"#)
        );
        for unchanged in [
            r#"{"jsonrpc":"2.0","id":0,"result":{"action":"cancel","content":{"roots":1}}}"#,
            r#"{"jsonrpc":"2.0","id":0,"result":[1]}"#,
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":1,"message":"m","roots":[]}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"roots":[]},"result":{"roots":[]}}"#,
            "not json",
        ] {
            assert_eq!(without_extra_members(unchanged), None, "{unchanged}");
        }
    }

    /// The answer as rmcp's `ClientResult` reads it after the extra members are
    /// dropped: what [`Reply::from_result`] must agree with.
    fn through_client_result(raw: &Value) -> Reply {
        match serde_json::from_value::<ClientResult>(elicit_result_members(raw)) {
            Ok(ClientResult::ElicitResult(result)) => Reply::Result(result),
            _ => Reply::Malformed,
        }
    }

    /// `Reply::Result` of the given action and content, no `_meta`.
    fn result(action: &str, content: Option<Value>) -> Reply {
        let mut result = ElicitResult::new(serde_json::from_value(json!(action)).unwrap());
        result.content = content;
        Reply::Result(result)
    }

    #[test]
    fn answers_rmcp_reads_as_elicit_results_are_read_the_same_in_place() {
        let units = json!({"units": 3, "unit_value": 7});
        for (raw, expected) in [
            (
                json!({"action": "accept", "content": units}),
                result("accept", Some(units.clone())),
            ),
            (
                json!({"action": "decline", "content": units}),
                result("decline", Some(units.clone())),
            ),
            (json!({"action": "cancel"}), result("cancel", None)),
            (
                json!({"action": "accept", "content": null}),
                result("accept", None),
            ),
            (
                json!({"action": "accept", "content": [1, "3", 3.0, true, -0.0]}),
                result("accept", Some(json!([1, "3", 3.0, true, -0.0]))),
            ),
            // Members rmcp would read as another result type are not read at all.
            (
                json!({"action": "cancel", "roots": [], "model": "m", "role": "user"}),
                result("cancel", None),
            ),
            // serde's other spellings of a struct and of a unit variant.
            (
                json!(["accept", units, null]),
                result("accept", Some(units.clone())),
            ),
            (
                json!({"action": {"decline": null}}),
                result("decline", None),
            ),
        ] {
            assert_eq!(Reply::from_result(&raw), expected, "{raw}");
            assert_eq!(through_client_result(&raw), expected, "{raw}");
        }
    }

    #[test]
    fn answers_rmcp_does_not_read_as_elicit_results_are_malformed_in_place() {
        for raw in [
            json!({}),
            json!({"content": {"units": 3}}),
            json!({"action": "Accept"}),
            json!({"action": "ACCEPT", "content": {}}),
            json!({"action": "approve"}),
            json!({"action": null}),
            json!({"action": 1}),
            json!({"action": ["accept"]}),
            json!({"action": {"accept": 1}}),
            json!({"action": {"accept": null, "decline": null}}),
            json!({"action": "accept", "_meta": []}),
            json!({"action": "accept", "_meta": "m"}),
            json!({"roots": []}),
            json!({"model": "m", "role": "assistant", "content": {"type": "text", "text": "t"}}),
            json!(["accept", {}]),
            json!(["accept", {}, null, null]),
            json!([[], null]),
            json!([]),
            json!("accept"),
            json!(null),
            json!(3),
            json!(true),
        ] {
            assert_eq!(Reply::from_result(&raw), Reply::Malformed, "{raw}");
            assert_eq!(through_client_result(&raw), Reply::Malformed, "{raw}");
        }
    }

    #[test]
    fn an_error_answer_is_read_in_place_as_rmcp_reads_it() {
        let error = |raw: Value| Reply::from_answer(&Answer::Error(raw));
        assert_eq!(
            error(
                json!({"code": -32602, "message": "elicitation mode not declared: form", "data": [1]})
            ),
            Reply::Error {
                code: -32602,
                message: "elicitation mode not declared: form".to_owned()
            }
        );
        for malformed in [
            json!({"code": "-32602", "message": "m"}),
            json!({"code": -32602}),
            json!({"message": "m"}),
            json!({"code": 1.5, "message": "m"}),
            json!({"code": 4_294_967_296_i64, "message": "m"}),
            json!("error"),
        ] {
            assert_eq!(error(malformed.clone()), Reply::Malformed, "{malformed}");
        }
    }

    /// Any JSON: scalars, arrays and objects whose keys are mostly the
    /// `ElicitResult` members and the action names.
    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            prop::sample::select(vec!["accept", "decline", "cancel", "Accept", "x"])
                .prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            let key = prop::sample::select(vec![
                "action", "content", "_meta", "roots", "model", "role", "accept", "decline", "k",
            ]);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec((key, inner), 0..4).prop_map(|members| {
                    Value::Object(
                        members
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn any_result_is_read_in_place_as_rmcp_reads_it(raw in any_json()) {
            proptest::prop_assert_eq!(Reply::from_result(&raw), through_client_result(&raw));
        }
    }
}
