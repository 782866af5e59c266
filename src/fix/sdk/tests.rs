//! Each SDK told from the handshake its servers really send (recorded from
//! the SDK peers and the reference server), and a server with no SDK's marks.

use serde_json::Value;

use super::*;
use crate::evidence::wire::{Frame, Side};

/// A session: the client's handshake request (`method`), the server's reply
/// as written (`reply`, raw JSON text: key order matters), then `tools/list`
/// with the reply `tools` when given.
fn session(method: &str, reply: &str, tools: Option<&str>) -> Vec<Frame> {
    let parse = |text: &str| -> Value { serde_json::from_str(text).expect("JSON") };
    let frame = |seq: u64, from: Side, message: Value| Frame {
        seq,
        from,
        message,
        text: None,
    };
    let mut wire = vec![
        frame(
            0,
            Side::Client,
            parse(&format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"{method}","params":{{}}}}"#
            )),
        ),
        frame(1, Side::Server, parse(reply)),
    ];
    if let Some(tools) = tools {
        wire.push(frame(
            2,
            Side::Client,
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        ));
        wire.push(frame(
            3,
            Side::Server,
            parse(&format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":{tools}}}}}"#
            )),
        ));
    }
    wire
}

const PYTHON1: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{},"prompts":{"listChanged":false},"resources":{"subscribe":false,"listChanged":false},"tools":{"listChanged":false}},"serverInfo":{"name":"python-sdk1-correct","version":"1.30.0"}}}"#;
const PYTHON1_TOOLS: &str = r#"[{"name":"calculate","inputSchema":{"properties":{"policy":{"type":"string"}},"title":"calculateArguments","type":"object"}}]"#;
const PYTHON2: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"prompts":{"listChanged":false},"resources":{"listChanged":false,"subscribe":false},"tools":{"listChanged":false}},"protocolVersion":"2025-11-25","serverInfo":{"name":"python-sdk2-correct","version":""}}}"#;
const PYTHON2_DISCOVER: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"cacheScope":"private","capabilities":{"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":0,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"python-sdk2-mrtr-correct","version":""}}}}"#;
const TYPESCRIPT: &str = r#"{"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"booking","version":"1.0.0"}},"jsonrpc":"2.0","id":0}"#;
const TYPESCRIPT1_TOOLS: &str = r#"[{"name":"calculate","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{}},"execution":{"taskSupport":"forbidden"}}]"#;
const TYPESCRIPT2_TOOLS: &str = r#"[{"name":"book","inputSchema":{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema","properties":{},"additionalProperties":false}}]"#;
const TYPESCRIPT2_DISCOVER: &str = r#"{"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"booking","version":"1.0.0"}}},"jsonrpc":"2.0","id":0}"#;
const RMCP: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"elicit-check","version":"0.1.0"}}}"#;
const RMCP_DISCOVER: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2024-11-05","2025-03-26","2025-06-18","2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"elicit-check","version":"0.1.0"}}}}"#;

#[test]
fn the_python_sdk_1_is_told_by_its_experimental_capability_and_fastmcp_by_its_schema_title() {
    let low_level = identify(&session("initialize", PYTHON1, None));
    assert_eq!(low_level.sdk, Some(Sdk::PythonV1));
    assert_eq!(
        low_level.version, None,
        "a low-level Server may set its own version"
    );
    let fastmcp = identify(&session("initialize", PYTHON1, Some(PYTHON1_TOOLS)));
    assert_eq!(fastmcp.sdk, Some(Sdk::PythonV1));
    assert_eq!(fastmcp.version.as_deref(), Some("1.30.0"));
    assert!(
        fastmcp
            .line()
            .starts_with("MCP Python SDK 1.30.0 (capabilities.experimental")
    );
}

#[test]
fn the_python_sdk_2_is_told_by_its_sorted_keys_in_both_handshakes() {
    for (method, reply) in [
        ("initialize", PYTHON2),
        ("server/discover", PYTHON2_DISCOVER),
    ] {
        let guess = identify(&session(method, reply, None));
        assert_eq!(guess.sdk, Some(Sdk::PythonV2), "{method}");
        assert_eq!(guess.version, None);
    }
}

#[test]
fn sorted_keys_alone_are_not_the_python_sdk_2() {
    // Keys in order, but no resources capability with subscribe.
    let reply = r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"logging":{},"tools":{"listChanged":true}},"protocolVersion":"2025-11-25","serverInfo":{"name":"go-server","version":"v1.0.0"}}}"#;
    let guess = identify(&session("initialize", reply, None));
    assert_eq!(guess.sdk, None);
    assert!(
        guess
            .line()
            .starts_with("not told (no SDK's marks; serverInfo {")
    );
}

#[test]
fn the_typescript_sdk_writes_result_first_and_its_major_shows_in_its_schemas() {
    let bare = identify(&session("initialize", TYPESCRIPT, None));
    assert_eq!(bare.sdk, Some(Sdk::Typescript));
    let one = identify(&session("initialize", TYPESCRIPT, Some(TYPESCRIPT1_TOOLS)));
    assert_eq!(one.sdk, Some(Sdk::TypescriptV1));
    let two = identify(&session("initialize", TYPESCRIPT, Some(TYPESCRIPT2_TOOLS)));
    assert_eq!(two.sdk, Some(Sdk::TypescriptV2));
    let discover = identify(&session("server/discover", TYPESCRIPT2_DISCOVER, None));
    assert_eq!(discover.sdk, Some(Sdk::TypescriptV2));
    assert!(
        one.line().ends_with("; its version is not told)"),
        "{}",
        one.line()
    );
}

#[test]
fn rmcp_is_told_by_its_default_name_or_its_discover_result() {
    // The reference server names itself: its initialize alone tells nothing.
    assert_eq!(identify(&session("initialize", RMCP, None)).sdk, None);
    assert_eq!(
        identify(&session("server/discover", RMCP_DISCOVER, None)).sdk,
        Some(Sdk::Rmcp)
    );
    // rmcp's default serverInfo is its crate's name and version.
    let default = RMCP.replace(
        r#""name":"elicit-check","version":"0.1.0""#,
        r#""name":"rmcp","version":"3.11.0""#,
    );
    let guess = identify(&session("initialize", &default, None));
    assert_eq!(
        (guess.sdk, guess.version.as_deref()),
        (Some(Sdk::Rmcp), Some("3.11.0"))
    );
    // A hand-written server with rmcp's key order but its own versions.
    let copied = r#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mrtr_booking.py","version":"1"}}}}"#;
    let guess = identify(&session("server/discover", copied, None));
    assert_eq!(guess.sdk, None);
    assert!(
        guess.told_by.contains("mrtr_booking.py"),
        "{}",
        guess.told_by
    );
}

#[test]
fn fastmcp_the_package_is_told_by_its_tool_meta_before_anything_else() {
    // fastmcp 4.2.3, recorded: its own initialize result, `_meta.fastmcp`.
    let initialize = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":false,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"fm","version":"4.2.3"}}}"#;
    let tools = r#"[{"_meta":{"fastmcp":{"tags":[]}},"inputSchema":{"properties":{},"type":"object","additionalProperties":false},"name":"delete_records"}]"#;
    let guess = identify(&session("initialize", initialize, Some(tools)));
    assert_eq!(guess.sdk, Some(Sdk::Fastmcp));
    assert_eq!(guess.version.as_deref(), Some("4.2.3"));
    assert!(
        guess
            .line()
            .starts_with("FastMCP 4.2.3 (tool \"delete_records\" carries _meta.fastmcp; ")
    );
    // fastmcp 2.x wrote `_meta._fastmcp`, on the Python SDK 1.x's handshake.
    let older =
        r#"[{"name":"delete","inputSchema":{"type":"object"},"_meta":{"_fastmcp":{"tags":[]}}}]"#;
    let guess = identify(&session("initialize", PYTHON1, Some(older)));
    assert_eq!(guess.sdk, Some(Sdk::Fastmcp));
    assert!(
        guess
            .told_by
            .starts_with("tool \"delete\" carries _meta._fastmcp")
    );
    // An empty version is no version.
    let unversioned = initialize.replace("4.2.3", "");
    let guess = identify(&session("initialize", &unversioned, Some(tools)));
    assert_eq!((guess.sdk, guess.version), (Some(Sdk::Fastmcp), None));
}

#[test]
fn no_handshake_or_an_error_reply_tells_nothing() {
    assert_eq!(identify(&[]).sdk, None);
    let error = r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}"#;
    let guess = identify(&session("server/discover", error, None));
    assert_eq!(guess.sdk, None);
    assert_eq!(guess.told_by, "the server/discover reply is an error");
}

#[test]
fn the_better_guess_names_more() {
    let none = SdkGuess::unknown("nothing");
    let bare = identify(&session("initialize", TYPESCRIPT, None));
    let two = identify(&session("server/discover", TYPESCRIPT2_DISCOVER, None));
    let versioned = identify(&session("initialize", PYTHON1, Some(PYTHON1_TOOLS)));
    let python = identify(&session("initialize", PYTHON1, None));
    assert_eq!(none.clone().better(bare.clone()), bare);
    assert_eq!(bare.clone().better(none.clone()), bare);
    assert_eq!(bare.clone().better(two.clone()), two);
    assert_eq!(two.clone().better(bare.clone()), two);
    assert_eq!(python.clone().better(versioned.clone()), versioned);
    assert_eq!(versioned.clone().better(python.clone()), versioned);
    assert_eq!(
        two.clone().better(python.clone()),
        two,
        "a tie keeps the first"
    );
}

#[test]
fn each_sdk_s_name_and_a_line_without_a_version() {
    let names = [
        (Sdk::PythonV1, "MCP Python SDK 1.x"),
        (Sdk::PythonV2, "MCP Python SDK 2.x"),
        (Sdk::Fastmcp, "FastMCP (fastmcp)"),
        (Sdk::TypescriptV1, "MCP TypeScript SDK 1.x"),
        (Sdk::TypescriptV2, "MCP TypeScript SDK 2.x"),
        (Sdk::Typescript, "MCP TypeScript SDK"),
        (Sdk::Rmcp, "rmcp"),
    ];
    for (sdk, name) in names {
        assert_eq!(sdk.name(), name);
    }
    let two = identify(&session("server/discover", TYPESCRIPT2_DISCOVER, None));
    assert_eq!(
        two.line(),
        "MCP TypeScript SDK 2.x (replies written result first; it answers server/discover; its version is not told)"
    );
}

#[test]
fn draft_07_alone_or_a_tool_s_execution_alone_is_the_typescript_sdk_1() {
    let draft_07 = r#"[{"name":"calculate","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{}}}]"#;
    let execution = r#"[{"name":"calculate","inputSchema":{"type":"object","properties":{}},"execution":{"taskSupport":"forbidden"}}]"#;
    for tools in [draft_07, execution] {
        let guess = identify(&session("initialize", TYPESCRIPT, Some(tools)));
        assert_eq!(guess.sdk, Some(Sdk::TypescriptV1), "{tools}");
    }
}

#[test]
fn the_python_sdk_2_is_told_by_its_keys_as_written() {
    let initialize = identify(&session("initialize", PYTHON2, None));
    assert_eq!(
        initialize.told_by,
        "the initialize result's keys in alphabetical order (capabilities, protocolVersion, serverInfo)"
    );
    let discover = identify(&session("server/discover", PYTHON2_DISCOVER, None));
    assert_eq!(
        discover.told_by,
        "the server/discover result's keys in alphabetical order (cacheScope, capabilities, resultType, supportedVersions, ttlMs, _meta)"
    );
}

#[test]
fn a_subscribe_capability_with_keys_out_of_order_is_not_the_python_sdk_2() {
    // `protocolVersion` before `capabilities`, as most SDKs write it; the
    // resources capability says subscribe.
    let reply = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"go-server","version":"v1.0.0"}}}"#;
    let guess = identify(&session("initialize", reply, None));
    assert_eq!(guess.sdk, None);
    assert_eq!(
        guess.told_by,
        r#"no SDK's marks; serverInfo {"name":"go-server","version":"v1.0.0"}"#
    );
    // A `_meta` key out of order is set aside, the others are not.
    let discover = r#"{"jsonrpc":"2.0","id":0,"result":{"_meta":{},"capabilities":{"resources":{"subscribe":true}},"cacheScope":"private","resultType":"complete"}}"#;
    let guess = identify(&session("server/discover", discover, None));
    assert_eq!(guess.sdk, None);
}
