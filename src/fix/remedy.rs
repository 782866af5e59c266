//! How to fix a finding, in the SDK the server is written with: one `fix:`
//! line per failed property ([`fix`]), from its flaw ([`Flaw`]) and the SDK
//! the wire told ([`Sdk`]), and the guide page with a before/after pair per
//! SDK ([`url`], `docs/src/fixes/<flaw>.md`). Every pair on those pages is a
//! fixture `check` fails before the fix and passes after it
//! (`fixtures/fixes/`, `tests/fixes.rs`).

use super::flaw::Flaw;
use super::sdk::Sdk;

/// Where the guide's pages live, for `fix_url` and SARIF's `helpUri`.
pub const FIXES_DOC: &str = "https://github.com/elicit-check/elicit-check/blob/main/docs/src/fixes";

/// The guide page of `flaw`, e.g.
/// `https://github.com/elicit-check/elicit-check/blob/main/docs/src/fixes/lax-coercion.md`.
pub fn url(flaw: Flaw) -> String {
    format!("{FIXES_DOC}/{}.md", flaw.slug())
}

/// The one-line remedy of `flaw` for a server on `sdk` (none: in the
/// protocol's terms, for any SDK).
pub fn fix(flaw: Flaw, sdk: Option<Sdk>) -> String {
    let python = sdk.is_some_and(Sdk::is_python);
    let typescript = sdk.is_some_and(Sdk::is_typescript);
    let rmcp = sdk == Some(Sdk::Rmcp);
    let text = match flaw {
        Flaw::LaxCoercion if python => {
            "validate the answer in pydantic's strict mode: `model_config = ConfigDict(strict=True)` on the elicited model (lax mode takes \"yes\" and 1 as True, \"3\" as 3)"
        }
        Flaw::LaxCoercion if typescript => {
            "validate `content` with exact JSON types: no Ajv `coerceTypes`, no `z.coerce`; a JSON Schema validator without coercion, or `typeof` checks, before acting"
        }
        Flaw::LaxCoercion if rmcp => {
            "deserialize `content` into a typed struct with `serde_json::from_value` and never convert strings or floats to the asked type: rmcp validates nothing against the schema"
        }
        Flaw::LaxCoercion => {
            "check each field's JSON type exactly as the schema you sent says before acting: \"yes\" and 1 are no booleans, \"3\" and 3.5 no integers"
        }
        Flaw::UncheckedConstraints if python => {
            "validate `content` against the schema you sent, its rules included (`jsonschema.Draft202012Validator(schema)`, or a strict pydantic model with `Field(ge=..., le=...)`), not only its types"
        }
        Flaw::UncheckedConstraints if typescript => {
            "validate `content` against the requestedSchema you sent (bounds, lengths, formats, enums, required): `elicitInput` does with the SDK's validator, a raw `elicitation/create` request does not"
        }
        Flaw::UncheckedConstraints if rmcp => {
            "check the schema's rules (minimum, maximum, lengths, formats, enums) after `serde_json::from_value`: neither `create_elicitation` nor `elicit::<T>()` checks them"
        }
        Flaw::UncheckedConstraints => {
            "validate `content` against the whole requestedSchema you sent (minimum, maximum, lengths, formats, enums, required) before acting"
        }
        Flaw::ContentlessAccept if python => {
            "refuse an accept whose `content` is None or not a dict when the form requires fields: never fill missing answers with defaults"
        }
        Flaw::ContentlessAccept if typescript => {
            "refuse an accept without `content` (`result.content` is optional, and the SDK's validator skips a missing one): never default `result.content?.x ?? ...`"
        }
        Flaw::ContentlessAccept => {
            "refuse an accept whose content is missing or not an object when the form requires fields: an empty answer is no consent"
        }
        Flaw::ActsOnRefusal if python => {
            "act only when `result.action == \"accept\"`: a decline or cancel may carry `content`, and a raw `elicit_form` result keeps it"
        }
        Flaw::ActsOnRefusal if typescript => {
            "check `result.action === \"accept\"` before reading `result.content`: a decline or cancel may carry content"
        }
        Flaw::ActsOnRefusal if rmcp => {
            "match `ElicitationAction::Accept` before reading `content`: a decline or cancel may carry content"
        }
        Flaw::ActsOnRefusal => {
            "act only on the action `accept`: a decline or cancel may carry content, and no other action is an answer"
        }
        Flaw::ConsentIgnored if python => {
            "an accept returns input, not consent: act only when the consent field says so (e.g. `result.action == \"accept\" and result.data.confirm`)"
        }
        Flaw::ConsentIgnored => {
            "an accept returns input, not consent: act only when the consent field carries its consenting value (e.g. `confirm === true`)"
        }
        Flaw::CapabilityNotChecked if python => {
            "ask only a client that declared form elicitation (`capabilities.elicitation` with `form`, or `{}`; URL only is no form): read `ctx.session.client_params.capabilities` before `elicit_form`"
        }
        Flaw::CapabilityNotChecked if typescript => {
            "ask only a client that declared form elicitation: check `server.getClientCapabilities()?.elicitation` (`{}` or `form`; `url` alone is no form) before sending the form"
        }
        Flaw::CapabilityNotChecked if rmcp => {
            "use `peer.elicit::<T>()`, or check `supported_elicitation_modes()` first: `create_elicitation` sends without checking the capability"
        }
        Flaw::CapabilityNotChecked => {
            "send a form only to a client whose `capabilities.elicitation` declares form (`{}` counts; `url` alone does not); answer the others without asking"
        }
        Flaw::FailOpen => {
            "when the client cannot answer a form, refuse with an error naming what the tool needs: never skip the confirmation"
        }
        Flaw::ActsWithoutAsking if sdk == Some(Sdk::TypescriptV2) => {
            "return `inputRequired({ inputRequests: { ... } })` whenever the call carries no answer for your key; act only on `acceptedContent(...)`"
        }
        Flaw::ActsWithoutAsking => {
            "ask before acting: send the form (2025-11-25), or return an InputRequiredResult whenever the retry carries no answer to your input request (2026-07-28)"
        }
        Flaw::UnboundState if sdk == Some(Sdk::TypescriptV2) => {
            "seal `requestState` with `createRequestStateCodec` and pass `requestState.verify`, binding the state to the tool and its arguments"
        }
        Flaw::UnboundState if python => {
            "let `MCPServer` seal `requestState` (it binds it to the tool and arguments), or add a `RequestStateBoundary` to a low-level `Server`"
        }
        Flaw::UnboundState if rmcp => {
            "seal `requestState` with `RequestStateCodec` and the call's arguments as associated data (`SealOptions::associated_data`)"
        }
        Flaw::UnboundState => {
            "integrity-protect `requestState` and bind it to the tool and its arguments; over HTTP, take an answer only on the session that was asked"
        }
        Flaw::RefusesValid => {
            "take every valid consenting answer the schema you send allows (date-times in every RFC 3339 shape), or send a narrower schema"
        }
        Flaw::TransportRule => {
            "keep stdout to JSON-RPC (log to stderr), send elicitation/create only inside its tools/call, and exit when stdin closes"
        }
        Flaw::ActedNotBoolean => {
            "write the acted value as a JSON boolean (`true`/`false`), not \"true\", 1 or a string"
        }
    };
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDKS: [Option<Sdk>; 8] = [
        None,
        Some(Sdk::PythonV1),
        Some(Sdk::PythonV2),
        Some(Sdk::Fastmcp),
        Some(Sdk::TypescriptV1),
        Some(Sdk::TypescriptV2),
        Some(Sdk::Typescript),
        Some(Sdk::Rmcp),
    ];

    #[test]
    fn every_flaw_has_a_line_for_every_sdk_and_a_page() {
        for flaw in Flaw::ALL {
            for sdk in SDKS {
                let line = fix(flaw, sdk);
                assert!(line.len() > 40, "{flaw:?} {sdk:?}: {line}");
                assert!(!line.contains('\n'), "one line");
            }
            assert!(url(flaw).ends_with(&format!("/docs/src/fixes/{}.md", flaw.slug())));
            let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("docs/src/fixes")
                .join(format!("{}.md", flaw.slug()));
            assert!(page.is_file(), "{} is missing", page.display());
        }
    }

    #[test]
    fn the_line_speaks_the_sdk_s_api() {
        let says = |flaw: Flaw, sdk: Option<Sdk>, words: &str| {
            let line = fix(flaw, sdk);
            assert!(line.contains(words), "{flaw:?} {sdk:?}: {line}");
        };
        for python in [Sdk::PythonV1, Sdk::PythonV2, Sdk::Fastmcp] {
            says(Flaw::LaxCoercion, Some(python), "ConfigDict(strict=True)");
            says(
                Flaw::ActsOnRefusal,
                Some(python),
                "result.action == \"accept\"",
            );
            says(
                Flaw::CapabilityNotChecked,
                Some(python),
                "client_params.capabilities",
            );
            says(Flaw::ConsentIgnored, Some(python), "result.data.confirm");
            says(Flaw::UnboundState, Some(python), "MCPServer");
        }
        for typescript in [Sdk::TypescriptV1, Sdk::TypescriptV2, Sdk::Typescript] {
            says(Flaw::LaxCoercion, Some(typescript), "coerceTypes");
            says(
                Flaw::ActsOnRefusal,
                Some(typescript),
                "result.action === \"accept\"",
            );
            says(
                Flaw::CapabilityNotChecked,
                Some(typescript),
                "getClientCapabilities()",
            );
            says(Flaw::ContentlessAccept, Some(typescript), "result.content");
            says(Flaw::UncheckedConstraints, Some(typescript), "elicitInput");
        }
        says(
            Flaw::UnboundState,
            Some(Sdk::TypescriptV2),
            "createRequestStateCodec",
        );
        says(
            Flaw::ActsWithoutAsking,
            Some(Sdk::TypescriptV2),
            "inputRequired(",
        );
        says(Flaw::LaxCoercion, Some(Sdk::Rmcp), "serde_json::from_value");
        says(
            Flaw::CapabilityNotChecked,
            Some(Sdk::Rmcp),
            "supported_elicitation_modes()",
        );
        says(Flaw::UnboundState, Some(Sdk::Rmcp), "RequestStateCodec");
        says(
            Flaw::ActsOnRefusal,
            Some(Sdk::Rmcp),
            "ElicitationAction::Accept",
        );
        says(
            Flaw::UncheckedConstraints,
            Some(Sdk::PythonV1),
            "Draft202012Validator",
        );
        says(Flaw::ContentlessAccept, Some(Sdk::PythonV2), "None");
        // Without an SDK, the protocol's words only.
        for flaw in Flaw::ALL {
            let line = fix(flaw, None);
            for api in ["pydantic", "ConfigDict", "Ajv", "serde", "ctx.", "server."] {
                assert!(!line.contains(api), "{flaw:?}: {line}");
            }
        }
    }

    /// The mark of each flaw's line for each of [`SDKS`], in its order (no
    /// SDK, Python SDK 1.x, 2.x, FastMCP, TypeScript SDK 1.x, 2.x, bare,
    /// rmcp): the SDK's own API where the guide has a pair for it, else the
    /// protocol's words.
    const MARKS: [(Flaw, [&str; 8]); 12] = {
        const PROTOCOL_LAX: &str = "exactly as the schema you sent says";
        const PROTOCOL_RULES: &str = "against the whole requestedSchema";
        const PROTOCOL_EMPTY: &str = "an empty answer is no consent";
        const PROTOCOL_ACTION: &str = "no other action is an answer";
        const PROTOCOL_CONSENT: &str = "(e.g. `confirm === true`)";
        const PROTOCOL_CAPABILITY: &str = "answer the others without asking";
        const PROTOCOL_ASK: &str = "return an InputRequiredResult";
        const PROTOCOL_STATE: &str = "integrity-protect `requestState`";
        const PY_LAX: &str = "ConfigDict(strict=True)";
        const PY_RULES: &str = "Draft202012Validator";
        const PY_EMPTY: &str = "is None or not a dict";
        const PY_ACTION: &str = "`result.action == \"accept\"`";
        const PY_CONSENT: &str = "result.data.confirm";
        const PY_CAPABILITY: &str = "ctx.session.client_params.capabilities";
        const PY_STATE: &str = "let `MCPServer` seal";
        const TS_LAX: &str = "no Ajv `coerceTypes`";
        const TS_RULES: &str = "`elicitInput` does";
        const TS_EMPTY: &str = "`result.content?.x ?? ...`";
        const TS_ACTION: &str = "`result.action === \"accept\"`";
        const TS_CAPABILITY: &str = "server.getClientCapabilities()?.elicitation";
        const TS2_ASK: &str = "inputRequired({ inputRequests";
        const TS2_STATE: &str = "createRequestStateCodec";
        const RMCP_LAX: &str = "rmcp validates nothing";
        const RMCP_RULES: &str = "neither `create_elicitation` nor `elicit::<T>()`";
        const RMCP_ACTION: &str = "ElicitationAction::Accept";
        const RMCP_CAPABILITY: &str = "supported_elicitation_modes()";
        const RMCP_STATE: &str = "SealOptions::associated_data";
        [
            (
                Flaw::LaxCoercion,
                [
                    PROTOCOL_LAX,
                    PY_LAX,
                    PY_LAX,
                    PY_LAX,
                    TS_LAX,
                    TS_LAX,
                    TS_LAX,
                    RMCP_LAX,
                ],
            ),
            (
                Flaw::UncheckedConstraints,
                [
                    PROTOCOL_RULES,
                    PY_RULES,
                    PY_RULES,
                    PY_RULES,
                    TS_RULES,
                    TS_RULES,
                    TS_RULES,
                    RMCP_RULES,
                ],
            ),
            (
                Flaw::ContentlessAccept,
                [
                    PROTOCOL_EMPTY,
                    PY_EMPTY,
                    PY_EMPTY,
                    PY_EMPTY,
                    TS_EMPTY,
                    TS_EMPTY,
                    TS_EMPTY,
                    PROTOCOL_EMPTY,
                ],
            ),
            (
                Flaw::ActsOnRefusal,
                [
                    PROTOCOL_ACTION,
                    PY_ACTION,
                    PY_ACTION,
                    PY_ACTION,
                    TS_ACTION,
                    TS_ACTION,
                    TS_ACTION,
                    RMCP_ACTION,
                ],
            ),
            (
                Flaw::ConsentIgnored,
                [
                    PROTOCOL_CONSENT,
                    PY_CONSENT,
                    PY_CONSENT,
                    PY_CONSENT,
                    PROTOCOL_CONSENT,
                    PROTOCOL_CONSENT,
                    PROTOCOL_CONSENT,
                    PROTOCOL_CONSENT,
                ],
            ),
            (
                Flaw::CapabilityNotChecked,
                [
                    PROTOCOL_CAPABILITY,
                    PY_CAPABILITY,
                    PY_CAPABILITY,
                    PY_CAPABILITY,
                    TS_CAPABILITY,
                    TS_CAPABILITY,
                    TS_CAPABILITY,
                    RMCP_CAPABILITY,
                ],
            ),
            (Flaw::FailOpen, ["never skip the confirmation"; 8]),
            (
                Flaw::ActsWithoutAsking,
                [
                    PROTOCOL_ASK,
                    PROTOCOL_ASK,
                    PROTOCOL_ASK,
                    PROTOCOL_ASK,
                    PROTOCOL_ASK,
                    TS2_ASK,
                    PROTOCOL_ASK,
                    PROTOCOL_ASK,
                ],
            ),
            (
                Flaw::UnboundState,
                [
                    PROTOCOL_STATE,
                    PY_STATE,
                    PY_STATE,
                    PY_STATE,
                    PROTOCOL_STATE,
                    TS2_STATE,
                    PROTOCOL_STATE,
                    RMCP_STATE,
                ],
            ),
            (Flaw::RefusesValid, ["every RFC 3339 shape"; 8]),
            (Flaw::TransportRule, ["log to stderr"; 8]),
            (Flaw::ActedNotBoolean, ["as a JSON boolean"; 8]),
        ]
    };

    #[test]
    fn each_sdk_gets_its_own_line_or_the_protocol_s() {
        assert_eq!(
            MARKS.map(|(flaw, _)| flaw),
            Flaw::ALL,
            "every flaw, in order"
        );
        for (flaw, marks) in MARKS {
            for (sdk, mark) in SDKS.into_iter().zip(marks) {
                let line = fix(flaw, sdk);
                assert!(line.contains(mark), "{flaw:?} {sdk:?}: {line}");
                // Not another SDK's line for the same flaw.
                for other in marks.into_iter().filter(|other| *other != mark) {
                    assert!(
                        !line.contains(other),
                        "{flaw:?} {sdk:?} has {other:?}: {line}"
                    );
                }
            }
        }
    }
}
