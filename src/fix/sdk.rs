//! Which MCP SDK answered: read from what every session already carries (the
//! `initialize` result or, in 2026-07-28, the `server/discover` result, the
//! `tools/list` result, and how the server writes a JSON-RPC reply), so a
//! finding's remedy ([`super::remedy`]) can speak the server's own API.
//!
//! Each SDK leaves marks no server author sets by hand. The rules, each
//! checked on that SDK's servers (`tests/fixes.rs`, the SDK peers):
//!
//! | SDK | marks |
//! |---|---|
//! | FastMCP (the `fastmcp` package) | a tool's `_meta.fastmcp` (`_meta._fastmcp` before 3.0); `serverInfo.version` is FastMCP's own unless the server sets one |
//! | MCP Python SDK 1.x | `capabilities.experimental` in the `initialize` result; with a `…Arguments` input schema (its `FastMCP`), `serverInfo.version` is the SDK's own |
//! | MCP Python SDK 2.x | a handshake result whose keys are in alphabetical order (`capabilities`, `protocolVersion`, `serverInfo`; `cacheScope` first in `server/discover`) and whose `resources` capability says `subscribe` (it declares one even when it serves no resources; key order alone would also match other servers) |
//! | MCP TypeScript SDK | a reply whose first key is `result`, before `jsonrpc`; 2.x when it answers `server/discover` or its input schemas say draft 2020-12, 1.x when they say draft-07 or a tool has `execution` |
//! | rmcp | `serverInfo` named `rmcp` (its default, with rmcp's version), or a `server/discover` result written `resultType` first whose `supportedVersions` are rmcp's five known versions in its order (a hand-written server may copy the key order, seldom that list) |
//!
//! The version is named only where the SDK writes its own; otherwise the
//! report says the server does not tell it. Servers on other SDKs, or that
//! rewrite their replies, are "not told", with what was seen.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::evidence::wire::{Frame, Side};

/// An SDK `check` can tell from the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sdk {
    /// The MCP Python SDK 1.x (`mcp` on PyPI), `FastMCP` or the low-level `Server`.
    PythonV1,
    /// The MCP Python SDK 2.x (`mcp` 2, `MCPServer`).
    PythonV2,
    /// FastMCP, the `fastmcp` package (not the Python SDK's own class).
    Fastmcp,
    /// The MCP TypeScript SDK 1.x (`@modelcontextprotocol/sdk`).
    TypescriptV1,
    /// The MCP TypeScript SDK 2.x (`@modelcontextprotocol/server`).
    TypescriptV2,
    /// The MCP TypeScript SDK, major version not told.
    Typescript,
    /// rmcp, the Rust SDK.
    Rmcp,
}

impl Sdk {
    /// Its name as the report prints it, e.g. `MCP Python SDK 1.x`.
    pub fn name(self) -> &'static str {
        match self {
            Sdk::PythonV1 => "MCP Python SDK 1.x",
            Sdk::PythonV2 => "MCP Python SDK 2.x",
            Sdk::Fastmcp => "FastMCP (fastmcp)",
            Sdk::TypescriptV1 => "MCP TypeScript SDK 1.x",
            Sdk::TypescriptV2 => "MCP TypeScript SDK 2.x",
            Sdk::Typescript => "MCP TypeScript SDK",
            Sdk::Rmcp => "rmcp",
        }
    }

    /// Its name with a version the SDK wrote itself: `MCP Python SDK
    /// 1.30.0` for [`Sdk::PythonV1`] and `1.30.0`.
    pub fn versioned(self, version: &str) -> String {
        match self {
            Sdk::PythonV1 | Sdk::PythonV2 => format!("MCP Python SDK {version}"),
            Sdk::TypescriptV1 | Sdk::TypescriptV2 | Sdk::Typescript => {
                format!("MCP TypeScript SDK {version}")
            }
            Sdk::Fastmcp => format!("FastMCP {version}"),
            Sdk::Rmcp => format!("rmcp {version}"),
        }
    }

    /// Whether it is one of the MCP Python SDKs (FastMCP included).
    pub fn is_python(self) -> bool {
        matches!(self, Sdk::PythonV1 | Sdk::PythonV2 | Sdk::Fastmcp)
    }

    /// Whether it is one of the MCP TypeScript SDKs.
    pub fn is_typescript(self) -> bool {
        matches!(
            self,
            Sdk::TypescriptV1 | Sdk::TypescriptV2 | Sdk::Typescript
        )
    }
}

/// What the wire told of the server's SDK.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SdkGuess {
    /// The SDK, when its marks were seen.
    pub sdk: Option<Sdk>,
    /// Its version, when the SDK itself wrote it (`serverInfo.version` of a
    /// Python SDK 1.x `FastMCP` server, e.g. `1.30.0`).
    pub version: Option<String>,
    /// The marks it was told by, or why it could not be told, e.g.
    /// `capabilities.experimental in the initialize result`.
    pub told_by: String,
}

impl SdkGuess {
    /// Nothing seen: no handshake on the wire.
    pub fn unknown(why: &str) -> SdkGuess {
        SdkGuess {
            sdk: None,
            version: None,
            told_by: why.to_owned(),
        }
    }

    /// The report's line: `MCP Python SDK 1.30.0 (capabilities.experimental
    /// ...)`, `MCP TypeScript SDK 2.x (...; its version is not told)`, or
    /// `not told (...)`.
    pub fn line(&self) -> String {
        match (self.sdk, &self.version) {
            (Some(sdk), Some(version)) => format!("{} ({})", sdk.versioned(version), self.told_by),
            (Some(sdk), None) => {
                format!("{} ({}; its version is not told)", sdk.name(), self.told_by)
            }
            (None, _) => format!("not told ({})", self.told_by),
        }
    }

    /// The better of two guesses from two eras of one server: a named SDK
    /// over none, a named major over the bare TypeScript SDK, a version
    /// over none; `self` on a tie.
    pub fn better(self, other: SdkGuess) -> SdkGuess {
        let rank = |guess: &SdkGuess| match guess.sdk {
            None => 0,
            Some(Sdk::Typescript) => 1,
            Some(_) => 2 + usize::from(guess.version.is_some()),
        };
        if rank(&other) > rank(&self) {
            other
        } else {
            self
        }
    }
}

/// The SDK behind the server of a session whose whole wire is `wire`.
pub fn identify(wire: &[Frame]) -> SdkGuess {
    let handshake = reply_to(wire, "initialize").or_else(|| reply_to(wire, "server/discover"));
    let Some((reply, method)) = handshake else {
        return SdkGuess::unknown("no initialize or server/discover result on the wire");
    };
    let Some(result) = reply.get("result").and_then(Value::as_object) else {
        return SdkGuess::unknown(&format!("the {method} reply is an error"));
    };
    let tools: Vec<&Value> = reply_to(wire, "tools/list")
        .and_then(|(list, _)| list.pointer("/result/tools"))
        .and_then(Value::as_array)
        .map(|tools| tools.iter().collect())
        .unwrap_or_default();
    let guess = |sdk: Sdk, told_by: String| SdkGuess {
        sdk: Some(sdk),
        version: None,
        told_by,
    };
    if let Some((tool, key)) = tools.iter().find_map(|tool| {
        ["fastmcp", "_fastmcp"]
            .into_iter()
            .find(|key| tool.get("_meta").and_then(|meta| meta.get(key)).is_some())
            .map(|key| (tool, key))
    }) {
        let version = result
            .get("serverInfo")
            .and_then(|info| info.get("version"))
            .and_then(Value::as_str)
            .filter(|version| !version.is_empty());
        return SdkGuess {
            sdk: Some(Sdk::Fastmcp),
            version: version.map(str::to_owned),
            told_by: format!(
                "tool {} carries _meta.{key}{}",
                name_of(tool),
                if version.is_some() {
                    "; serverInfo.version is FastMCP's own unless the server sets one"
                } else {
                    ""
                }
            ),
        };
    }
    let capabilities = result.get("capabilities");
    if method == "initialize" && capabilities.and_then(|c| c.get("experimental")).is_some() {
        let fastmcp_tool = tools.iter().find(|tool| {
            tool.pointer("/inputSchema/title")
                .and_then(Value::as_str)
                .is_some_and(|title| title.ends_with("Arguments"))
        });
        let version = result
            .get("serverInfo")
            .and_then(|info| info.get("version"))
            .and_then(Value::as_str)
            .filter(|version| version.starts_with("1."));
        return match (fastmcp_tool, version) {
            (Some(tool), Some(version)) => SdkGuess {
                sdk: Some(Sdk::PythonV1),
                version: Some(version.to_owned()),
                told_by: format!(
                    "capabilities.experimental in the initialize result; tool {}'s input schema titled by FastMCP, whose serverInfo.version is the SDK's",
                    name_of(tool)
                ),
            },
            _ => guess(
                Sdk::PythonV1,
                "capabilities.experimental in the initialize result".to_owned(),
            ),
        };
    }
    let subscribe = capabilities
        .and_then(|c| c.pointer("/resources/subscribe"))
        .is_some();
    if result.len() >= 3 && keys_sorted(result) && subscribe {
        return guess(
            Sdk::PythonV2,
            format!(
                "the {method} result's keys in alphabetical order ({})",
                keys(result)
            ),
        );
    }
    if first_key(reply) == Some("result") {
        let drafts: Vec<&str> = tools
            .iter()
            .filter_map(|tool| tool.pointer("/inputSchema/$schema").and_then(Value::as_str))
            .collect();
        if method == "server/discover" {
            return guess(
                Sdk::TypescriptV2,
                "replies written result first; it answers server/discover".to_owned(),
            );
        }
        if drafts.iter().any(|draft| draft.contains("2020-12")) {
            return guess(
                Sdk::TypescriptV2,
                "replies written result first; input schemas of draft 2020-12".to_owned(),
            );
        }
        if drafts.iter().any(|draft| draft.contains("draft-07"))
            || tools.iter().any(|tool| tool.get("execution").is_some())
        {
            return guess(
                Sdk::TypescriptV1,
                "replies written result first; input schemas of draft-07 or a tool's execution"
                    .to_owned(),
            );
        }
        return guess(Sdk::Typescript, "replies written result first".to_owned());
    }
    let server_info = result.get("serverInfo").or_else(|| {
        result
            .get("_meta")?
            .get("io.modelcontextprotocol/serverInfo")
    });
    if server_info
        .and_then(|info| info.get("name"))
        .and_then(Value::as_str)
        == Some("rmcp")
    {
        return SdkGuess {
            sdk: Some(Sdk::Rmcp),
            version: server_info
                .and_then(|info| info.get("version"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            told_by: "serverInfo named rmcp, its default (Implementation::from_build_env)"
                .to_owned(),
        };
    }
    if method == "server/discover"
        && result.keys().next().map(String::as_str) == Some("resultType")
        && result.get("supportedVersions") == Some(&rmcp_known_versions())
    {
        return guess(
            Sdk::Rmcp,
            "a server/discover result written resultType first, listing rmcp's known protocol versions".to_owned(),
        );
    }
    let info = server_info.map_or_else(|| "no serverInfo".to_owned(), Value::to_string);
    SdkGuess::unknown(&format!("no SDK's marks; serverInfo {info}"))
}

/// The server's reply to the client's first `method` request, and the
/// method's name as given.
fn reply_to<'a>(wire: &'a [Frame], method: &'static str) -> Option<(&'a Value, &'static str)> {
    let id = wire.iter().find_map(|frame| {
        (frame.from == Side::Client
            && frame.message.get("method").and_then(Value::as_str) == Some(method))
        .then(|| frame.message.get("id"))
        .flatten()
    })?;
    wire.iter()
        .find(|frame| {
            frame.from == Side::Server
                && frame.message.get("method").is_none()
                && frame.message.get("id") == Some(id)
        })
        .map(|frame| (&frame.message, method))
}

/// The protocol versions rmcp 3.11 lists in `supportedVersions`
/// (`ProtocolVersion::KNOWN_VERSIONS`), in its order.
fn rmcp_known_versions() -> Value {
    Value::from(vec![
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ])
}

/// An object's first key, as written.
fn first_key(message: &Value) -> Option<&str> {
    message.as_object()?.keys().next().map(String::as_str)
}

/// Whether an object's keys were written in alphabetical order (`_meta`
/// and other keys starting with `_` aside: the Python SDK 2.x writes them last).
fn keys_sorted(object: &Map<String, Value>) -> bool {
    let named: Vec<&String> = object.keys().filter(|key| !key.starts_with('_')).collect();
    named.windows(2).all(|pair| pair[0] <= pair[1])
}

/// An object's keys as written, comma-separated.
fn keys(object: &Map<String, Value>) -> String {
    object.keys().cloned().collect::<Vec<_>>().join(", ")
}

/// A tool's name as JSON, for the marks.
fn name_of(tool: &Value) -> String {
    tool.get("name")
        .map_or_else(|| "?".to_owned(), Value::to_string)
}

#[cfg(test)]
#[path = "sdk/tests.rs"]
mod tests;
