//! The SDK peers: the `calculate` contract written with the MCP Python
//! SDK 1.x and 2.x and the TypeScript SDK, each correct and naive, and the
//! cross-SDK table of what each does on the contract cases.
//!
//! The peers live in `fixtures/peers/`; `scripts/peers.sh` installs their pinned
//! environments under `target/peers/`. [`table`] turns the verdicts of one
//! `elicit-check run` per peer (`results.json`) into the Markdown table of docs/src/peers.md,
//! "The cross-SDK table", with the transports each peer is proven over
//! ([`Peer::transports`]).

use std::path::Path;

use serde_json::Value;

/// The two variants of each peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Capability guard, strict validation, decline and cancel never read.
    Correct,
    /// The classic bug: only `action == "accept"` checked, the SDK's own parsing.
    Naive,
}

impl Variant {
    /// `correct` or `naive`, as passed to the peer's `--variant`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Correct => "correct",
            Variant::Naive => "naive",
        }
    }
}

/// An MCP transport a peer serves the contract over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// stdio: the peer's command as given (`Peer::command`).
    Stdio,
    /// Streamable HTTP: the peer's command with `--port N`, at
    /// `http://127.0.0.1:N/mcp` (`elicit-check run --url`).
    Http,
}

impl Transport {
    /// `stdio` or `HTTP`, as the cross-SDK table writes it.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "HTTP",
        }
    }
}

/// One peer server: an SDK, its pinned version, a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// The SDK as its users name it, e.g. `MCP Python SDK 1.x (mcp)`.
    pub sdk: &'static str,
    /// The pinned version of the SDK package (`fixtures/peers/requirements-*.txt`,
    /// `fixtures/peers/typescript/package.json`).
    pub version: &'static str,
    /// Correct or naive.
    pub variant: Variant,
    /// The transports a test proves this peer over, written by hand: stdio for
    /// every peer (tests/peers.rs), HTTP only for a peer whose SDK has its
    /// test in tests/run/http.rs (that test checks the peer lists it).
    pub transports: &'static [Transport],
    /// The environment under `target/peers/` (`python-sdk1`, `python-sdk2`, `node`).
    environment: &'static str,
    /// The server file: under `fixtures/peers/` for Python, the environment for node.
    script: &'static str,
}

/// The six peers, in table order.
pub const PEERS: [Peer; 6] = [
    python(PYTHON_SDK1, Variant::Correct),
    python(PYTHON_SDK1, Variant::Naive),
    python(PYTHON_SDK2, Variant::Correct),
    python(PYTHON_SDK2, Variant::Naive),
    typescript(Variant::Correct),
    typescript(Variant::Naive),
];

/// stdio and Streamable HTTP.
const STDIO_AND_HTTP: &[Transport] = &[Transport::Stdio, Transport::Http];

/// (sdk, version, environment, script, transports) of a Python peer.
type PythonSdk = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [Transport],
);
const PYTHON_SDK1: PythonSdk = (
    "MCP Python SDK 1.x (`mcp`, FastMCP)",
    "1.30.0",
    "python-sdk1",
    "python_sdk1.py",
    STDIO_AND_HTTP,
);
const PYTHON_SDK2: PythonSdk = (
    "MCP Python SDK 2.x (`mcp`, MCPServer)",
    "2.3.0",
    "python-sdk2",
    "python_sdk2.py",
    STDIO_AND_HTTP,
);

const fn python(sdk: PythonSdk, variant: Variant) -> Peer {
    Peer {
        sdk: sdk.0,
        version: sdk.1,
        variant,
        transports: sdk.4,
        environment: sdk.2,
        script: sdk.3,
    }
}

const fn typescript(variant: Variant) -> Peer {
    Peer {
        sdk: "MCP TypeScript SDK (`@modelcontextprotocol/sdk`, McpServer, zod 4.6.7)",
        version: "1.32.2",
        variant,
        transports: STDIO_AND_HTTP,
        environment: "node",
        script: "server.mjs",
    }
}

impl Peer {
    /// A short unique name, e.g. `python-sdk1-naive`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.environment, self.variant.name())
    }

    /// The command that starts this peer, given the project's root folder and
    /// the peers' environments folder (`target/peers`).
    pub fn command(&self, root: &Path, environments: &Path) -> Vec<String> {
        let env = environments.join(self.environment);
        let (program, script) = if self.environment == "node" {
            ("node".to_owned(), env.join(self.script))
        } else {
            (
                env.join("bin/python").to_string_lossy().into_owned(),
                root.join("fixtures/peers").join(self.script),
            )
        };
        vec![
            program,
            script.to_string_lossy().into_owned(),
            "--variant".to_owned(),
            self.variant.name().to_owned(),
        ]
    }
}

/// The contract cases grouped as the cross-SDK table's columns, each
/// case with the short label its cell uses.
pub const GROUPS: [(&str, &[(&str, &str)]); 9] = [
    (
        "valid accept",
        &[
            ("accept_valid", "form"),
            ("legacy_empty_capability_accept", "legacy `{}`"),
        ],
    ),
    ("missing field", &[("accept_missing_field", "")]),
    (
        "wrong type",
        &[
            ("accept_wrong_type", "`\"3\"`"),
            ("accept_float_integer", "`3.0`"),
            ("accept_boolean_as_integer", "`true`"),
        ],
    ),
    ("out of range", &[("accept_out_of_range", "")]),
    ("extra key", &[("accept_extra_field", "")]),
    ("no content", &[("accept_no_content", "")]),
    (
        "decline/cancel",
        &[
            ("decline", "decline"),
            ("cancel", "cancel"),
            ("decline_with_spurious_data", "decline+content"),
            ("cancel_with_spurious_data", "cancel+content"),
        ],
    ),
    (
        "capability guard",
        &[
            ("unsupported_guarded", "none"),
            ("url_only_guarded", "url only"),
        ],
    ),
    (
        "diagnostic policies",
        &[
            ("raw_accept_missing_field", "raw"),
            ("unsupported_unchecked_diagnostic", "unchecked"),
        ],
    ),
];

/// What the server did in one failed case, in a few words: its outcome's status
/// (with `value` or `errors`), `tool error (isError)`, `no answer in time`, or
/// the first failure; prefixed with `asked anyway` when it sent an
/// `elicitation/create` where the contract asks nothing (`"requested": false`
/// in the expected outcome).
fn what_it_did(verdict: &Value) -> String {
    let evidence = &verdict["evidence"];
    let failures: Vec<&str> = verdict["failures"]
        .as_array()
        .map(|all| all.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let outcome = [&evidence["outcome"], &evidence["text_outcome"]]
        .into_iter()
        .find(|outcome| outcome.is_object());
    let mut did = match (evidence["error"].as_str(), outcome) {
        (Some(error), _) if error.contains("isError") => "tool error (isError)".to_owned(),
        (Some(error), _) if error.contains("did not finish") => "no answer in time".to_owned(),
        (Some(_), _) => "JSON-RPC error".to_owned(),
        (None, Some(outcome)) => {
            let status = outcome["status"].as_str().unwrap_or("no status");
            match (outcome.get("value"), outcome.get("errors")) {
                (Some(value), _) => format!("{status} {value}"),
                (None, Some(errors)) => format!("{status} {errors}"),
                (None, None) => status.to_owned(),
            }
        }
        (None, None) => failures.first().copied().unwrap_or("failed").to_owned(),
    };
    let asked = evidence["wire"].as_array().is_some_and(|wire| {
        wire.iter().any(|frame| {
            frame["from"] == "server" && frame["message"]["method"] == "elicitation/create"
        })
    });
    if asked && verdict["expected"]["requested"] == false {
        did = format!("asked anyway, {did}");
    }
    did
}

/// The table cell of one case group: `pass`, or for each failed case its label
/// and what the server did instead (`` `"3"` → calculated 21 ``).
fn cell(cases: &[(&str, &str)], verdicts: &[Value]) -> String {
    let mut failed = Vec::new();
    for (name, label) in cases {
        let verdict = verdicts
            .iter()
            .find(|verdict| verdict["case"].as_str() == Some(name));
        match verdict {
            None => failed.push(format!("{label} not run")),
            Some(verdict) if verdict["passed"] == Value::Bool(true) => {}
            Some(verdict) if label.is_empty() => failed.push(what_it_did(verdict)),
            Some(verdict) => failed.push(format!("{label} → {}", what_it_did(verdict))),
        }
    }
    if failed.is_empty() {
        "pass".to_owned()
    } else {
        failed.join("; ").replace('|', "\\|")
    }
}

/// The cross-SDK table in Markdown: one row per peer (SDK, version, variant,
/// the transports it is proven over, [`Peer::transports`]), one column per
/// contract case group ([`GROUPS`]), and a cell saying `pass` or what the
/// server did instead, in a run over stdio. `rows` holds each peer with the
/// verdicts of its contract cases, as `results.json` writes them.
pub fn table(rows: &[(Peer, Vec<Value>)]) -> String {
    let mut out = String::from("| SDK | version | variant | transports |");
    for (group, _) in GROUPS {
        out.push_str(&format!(" {group} |"));
    }
    out.push_str("\n|---|---|---|---|");
    out.push_str(&"---|".repeat(GROUPS.len()));
    out.push('\n');
    for (peer, verdicts) in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} |",
            peer.sdk,
            peer.version,
            peer.variant.name(),
            peer.transports
                .iter()
                .map(|transport| transport.name())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        for (_, cases) in GROUPS {
            out.push_str(&format!(" {} |", cell(cases, verdicts)));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::what_it_did;

    #[test]
    fn an_elicitation_the_case_did_not_expect_reads_asked_anyway() {
        let elicitation = |id: u64| {
            json!({"seq": id, "from": "server", "message": {
                "jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {}
            }})
        };
        let asked = json!({
            "expected": {"status": "unsupported", "computed": false, "requested": false},
            "evidence": {
                "error": "the calculate result has isError: true",
                "wire": [elicitation(0)],
            },
            "failures": ["1 elicitation/create request, expected 0"],
        });
        assert_eq!(what_it_did(&asked), "asked anyway, tool error (isError)");
        let twice = json!({
            "expected": {"status": "calculated", "computed": true, "value": 21},
            "evidence": {
                "outcome": {"status": "calculated", "value": 21},
                "wire": [elicitation(0), elicitation(1)],
            },
            "failures": ["2 elicitation/create requests, expected 1"],
        });
        assert_eq!(what_it_did(&twice), "calculated 21");
        // A client's frame with that method is not the server asking.
        let mut echoed = asked.clone();
        echoed["evidence"]["wire"][0]["from"] = json!("client");
        assert_eq!(what_it_did(&echoed), "tool error (isError)");
    }
}
