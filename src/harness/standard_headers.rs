//! The standard request headers of protocol 2026-07-28's Streamable HTTP
//! (basic/transports, "Standard Headers", SEP-2243): every POST of a request
//! names its JSON-RPC method in `Mcp-Method`, and a `tools/call` or
//! `prompts/get` its `params.name` (a `resources/*` request its `params.uri`)
//! in `Mcp-Name`, so intermediaries route without reading the body. A value
//! that cannot travel as a plain header value (non-ASCII or control
//! characters, leading or trailing blanks, or one that already looks wrapped)
//! is sent as `=?base64?…?=`. Servers reject a 2026-07-28 request without them
//! (JSON-RPC `-32020`, HTTP 400). Arguments annotated for `Mcp-Param-*`
//! headers are not promoted.

use base64::Engine as _;
use base64::prelude::BASE64_STANDARD;
use serde_json::Value;

/// The first protocol version whose requests carry the standard headers.
pub const SINCE: &str = "2026-07-28";

/// The `(name, value)` standard headers of `message` under protocol
/// `version` (`YYYY-MM-DD`): none before [`SINCE`], for a notification or a
/// response, or without a version.
pub fn for_request(message: &Value, version: Option<&str>) -> Vec<(&'static str, String)> {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Vec::new();
    };
    if message.get("id").is_none() || version.is_none_or(|version| version < SINCE) {
        return Vec::new();
    }
    let mut headers = vec![("mcp-method", method.to_owned())];
    let key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("uri"),
        _ => None,
    };
    if let Some(name) = key
        .and_then(|key| message.pointer(&format!("/params/{key}")))
        .and_then(Value::as_str)
    {
        headers.push(("mcp-name", encoded(name)));
    }
    headers
}

/// `value` as a header value: as is, or `=?base64?…?=` when it cannot be one.
fn encoded(value: &str) -> String {
    let blank = |c: Option<char>| matches!(c, Some(' ' | '\t'));
    let printable = value.chars().all(|c| (' '..='~').contains(&c));
    let looks_wrapped = value.starts_with("=?base64?") && value.ends_with("?=");
    if blank(value.chars().next()) || blank(value.chars().last()) || !printable || looks_wrapped {
        format!("=?base64?{}?=", BASE64_STANDARD.encode(value))
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const V2026: Option<&str> = Some("2026-07-28");

    #[test]
    fn a_2026_call_names_its_method_and_tool() {
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "calculate"}});
        assert_eq!(
            for_request(&call, V2026),
            [
                ("mcp-method", "tools/call".to_owned()),
                ("mcp-name", "calculate".to_owned())
            ]
        );
        let read = json!({"id": 3, "method": "resources/read", "params": {"uri": "file:///a"}});
        assert_eq!(
            for_request(&read, V2026),
            [
                ("mcp-method", "resources/read".to_owned()),
                ("mcp-name", "file:///a".to_owned())
            ]
        );
        let discover = json!({"id": 0, "method": "server/discover", "params": {}});
        assert_eq!(
            for_request(&discover, V2026),
            [("mcp-method", "server/discover".to_owned())]
        );
    }

    #[test]
    fn nothing_before_2026_07_28_for_notifications_or_responses() {
        let call = json!({"id": 2, "method": "tools/call", "params": {"name": "calculate"}});
        assert_eq!(for_request(&call, Some("2025-11-25")), []);
        assert_eq!(for_request(&call, None), []);
        assert_eq!(
            for_request(&json!({"method": "notifications/initialized"}), V2026),
            []
        );
        assert_eq!(for_request(&json!({"id": 0, "result": {}}), V2026), []);
    }

    #[test]
    fn a_name_that_cannot_be_a_header_value_is_wrapped_in_base64() {
        assert_eq!(encoded("book"), "book");
        assert_eq!(encoded("réserver"), "=?base64?csOpc2VydmVy?=");
        assert_eq!(encoded(" book"), "=?base64?IGJvb2s=?=");
        assert_eq!(encoded("book\t"), "=?base64?Ym9vawk=?=");
        assert_eq!(encoded("a\nb"), "=?base64?YQpi?=");
        assert_eq!(encoded("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
        assert_eq!(encoded(""), "");
        // Only a value wrapped at both ends looks encoded already.
        assert_eq!(encoded("=?base64?x"), "=?base64?x");
        assert_eq!(encoded("x?="), "x?=");
    }
}
