//! The sealed `requestState` of protocol 2026-07-28 and the round logic of one
//! multi round-trip `tools/call`.
//!
//! Source: MCP 2026-07-28, multi round-trip requests (SEP-2322). On
//! 2026-07-28 the server does not send `elicitation/create`: `calculate`
//! answers `{"resultType":"input_required","inputRequests":{"form":{...}},
//! "requestState":"rs1...."}` and the client retries under a new id with
//! `inputResponses: {"form": <ElicitResult>}` and the state echoed.
//!
//! The state is attacker-controlled, so it is sealed with rmcp's
//! [`RequestStateCodec`] (HMAC-SHA256, a key of [`KEY_BYTES`] random bytes per
//! server process) and bound, through associated data, to the tool name and the
//! call's arguments (a state minted for `{"policy":"raw"}` does not open for
//! `{"policy":"validated"}`). It carries the round number and its own expiry
//! (inclusive: a state is expired from its expiry millisecond on).
//!
//! [`step`] is pure: given what the retry carried, it says whether to ask
//! (again), to decide on the answer, or to refuse with JSON-RPC `-32602`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{InputResponses, RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The key of the form request in `inputRequests` and of its answer in `inputResponses`.
pub const FORM_KEY: &str = "form";

/// Most `InputRequiredResult`s one call may get (the first one included). A
/// retry that still lacks [`FORM_KEY`] after this many rounds is refused with
/// `-32602` ([`Refusal::TooManyRounds`]), so a client cannot keep a call alive
/// forever (docs/src/eras.md: at most 3 rounds per call).
pub const MAX_ROUNDS: u32 = 3;

/// Bytes of the random per-process sealing key (rmcp requires at least 32).
pub const KEY_BYTES: usize = 32;

/// How long a sealed state stays valid by default: 300 s.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);

/// What is sealed into `requestState`: JSON `{"round": 1, "expires_ms": 1764549000000}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    /// How many `InputRequiredResult`s this call has had, this one included (from 1).
    pub round: u32,
    /// Unix time in milliseconds from which the state is expired.
    pub expires_ms: i64,
}

/// Why a `requestState` did not open. The client sees one message for all of
/// them ([`Refusal::message`]), as rmcp's codec asks; the detail goes to the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// Forged, tampered with, malformed, or minted for another tool or other arguments.
    #[error("requestState failed verification (tampered, foreign or malformed)")]
    Invalid,
    /// Sealed by this server for this call, but its expiry has passed.
    #[error("requestState has expired")]
    Expired,
}

/// Seals and opens `requestState` for one server process.
#[derive(Clone)]
pub struct RequestStates {
    codec: RequestStateCodec,
    ttl: Duration,
}

impl std::fmt::Debug for RequestStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("RequestStates")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl RequestStates {
    /// A sealer with a fresh key of [`KEY_BYTES`] random bytes from the OS and
    /// states valid for `ttl` (`0`: every state is already expired when it comes back).
    ///
    /// # Panics
    /// When the operating system has no random source.
    pub fn new(ttl: Duration) -> Self {
        let mut key = [0u8; KEY_BYTES];
        getrandom::fill(&mut key).expect("the operating system provides random bytes");
        Self::with_key(&key, ttl).expect("KEY_BYTES is rmcp's minimum key length")
    }

    /// A sealer with a given key (tests: two servers with different keys).
    ///
    /// # Errors
    /// rmcp's [`RequestStateError::KeyTooShort`] for a key under 32 bytes.
    pub fn with_key(key: &[u8], ttl: Duration) -> Result<Self, RequestStateError> {
        Ok(RequestStates {
            codec: RequestStateCodec::try_new(key.to_vec())?,
            ttl,
        })
    }

    /// Seals `round` for a call of `tool` with `arguments`.
    pub fn seal(&self, tool: &str, arguments: &Map<String, Value>, round: u32) -> String {
        self.seal_at(tool, arguments, round, now_ms())
    }

    fn seal_at(&self, tool: &str, arguments: &Map<String, Value>, round: u32, now: i64) -> String {
        let ttl_ms = i64::try_from(self.ttl.as_millis()).unwrap_or(i64::MAX);
        let sealed = Sealed {
            round,
            expires_ms: now.saturating_add(ttl_ms),
        };
        let bound = associated_data(tool, arguments);
        // The expiry travels inside the sealed payload, not as the codec's TTL:
        // rmcp's expiry passes a state in the very millisecond it expires, so a
        // TTL of 0 could still open; ours is inclusive.
        let options = SealOptions::new().associated_data(&bound);
        self.codec
            .seal_json_with(&sealed, &options)
            .expect("two integers always serialize")
    }

    /// Opens a state echoed by the client for a call of `tool` with `arguments`.
    ///
    /// # Errors
    /// [`StateError::Invalid`] when it was forged, changed, or sealed for another
    /// tool, other arguments or by another process; [`StateError::Expired`] from
    /// its expiry on (the expiry instant itself counts as expired, so a TTL of 0
    /// always expires).
    pub fn open(
        &self,
        state: &str,
        tool: &str,
        arguments: &Map<String, Value>,
    ) -> Result<Sealed, StateError> {
        self.open_at(state, tool, arguments, now_ms())
    }

    fn open_at(
        &self,
        state: &str,
        tool: &str,
        arguments: &Map<String, Value>,
        now: i64,
    ) -> Result<Sealed, StateError> {
        let bound = associated_data(tool, arguments);
        let sealed: Sealed = self
            .codec
            .open_json_with(state, &bound)
            .map_err(|_| StateError::Invalid)?;
        if now >= sealed.expires_ms {
            return Err(StateError::Expired);
        }
        Ok(sealed)
    }
}

/// The associated data a state is bound to: the JSON text of
/// `{"arguments": {...}, "tool": "calculate"}` with object keys sorted at every
/// depth, so the client's key order does not matter but every value does.
fn associated_data(tool: &str, arguments: &Map<String, Value>) -> Vec<u8> {
    let mut bound = Map::new();
    bound.insert(
        "arguments".into(),
        canonical(&Value::Object(arguments.clone())),
    );
    bound.insert("tool".into(), Value::String(tool.to_owned()));
    Value::Object(bound).to_string().into_bytes()
}

/// `value` with object keys sorted at every depth.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), canonical(&object[key])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

fn now_ms() -> i64 {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX)
}

/// What the server does with one 2026-07-28 `tools/call` whose client declared form support.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Answer `InputRequiredResult` asking for the form, with a state sealing this round (from 1).
    Ask {
        /// The round to seal.
        round: u32,
    },
    /// Decide on the raw `inputResponses["form"]` (any JSON, parsed like a 2025-11-25 answer).
    Decide(Value),
    /// Refuse with JSON-RPC `-32602`; nothing is computed.
    Refuse(Refusal),
}

/// Why a retry is refused with JSON-RPC `-32602` (invalid params).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The retry carries `inputResponses` but no `requestState`.
    MissingState,
    /// The `requestState` did not open (tampered, foreign, malformed or expired).
    BadState(StateError),
    /// [`MAX_ROUNDS`] rounds passed and the retry still lacks [`FORM_KEY`].
    TooManyRounds,
}

impl Refusal {
    /// The JSON-RPC error message the client sees. Every state failure reads the
    /// same (`requestState is invalid or expired`), so a client learns nothing
    /// from probing.
    pub fn message(self) -> String {
        match self {
            Refusal::MissingState => "inputResponses without requestState".to_owned(),
            Refusal::BadState(_) => "requestState is invalid or expired".to_owned(),
            Refusal::TooManyRounds => format!(
                "inputResponses still lacks {FORM_KEY:?} after {MAX_ROUNDS} rounds; nothing was computed"
            ),
        }
    }
}

/// The round logic of one call, pure: `opened` is what the echoed
/// `requestState` opened to (`None`: the call carried none).
///
/// - no state, no `inputResponses`: a first call, ask (round 1);
/// - `inputResponses` without a state: refuse ([`Refusal::MissingState`]);
/// - a state that did not open: refuse ([`Refusal::BadState`]);
/// - a state and the form's answer: decide on it;
/// - a state and no answer: ask again (round + 1), up to [`MAX_ROUNDS`], then refuse.
pub fn step(
    opened: Option<Result<Sealed, StateError>>,
    input_responses: Option<&InputResponses>,
) -> Step {
    let sealed = match (opened, input_responses) {
        (None, None) => return Step::Ask { round: 1 },
        (None, Some(_)) => return Step::Refuse(Refusal::MissingState),
        (Some(Err(error)), _) => return Step::Refuse(Refusal::BadState(error)),
        (Some(Ok(sealed)), _) => sealed,
    };
    match input_responses.and_then(|responses| responses.get(FORM_KEY)) {
        Some(answer) => Step::Decide(answer.clone()),
        None if sealed.round >= MAX_ROUNDS => Step::Refuse(Refusal::TooManyRounds),
        None => Step::Ask {
            round: sealed.round + 1,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &[u8; 32] = b"0123456789abcdef0123456789abcdef";
    const NOW: i64 = 1_764_549_000_000;

    fn arguments(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(object) => object,
            _ => panic!("arguments are an object"),
        }
    }

    fn states(ttl_secs: u64) -> RequestStates {
        RequestStates::with_key(KEY, Duration::from_secs(ttl_secs)).expect("a 32-byte key")
    }

    #[test]
    fn a_state_opens_for_the_same_tool_and_arguments_in_any_key_order() {
        let states = states(60);
        let sealed = states.seal_at(
            "calculate",
            &arguments(json!({"policy": "raw", "x": {"b": 1, "a": 2}})),
            2,
            NOW,
        );
        let opened = states.open_at(
            &sealed,
            "calculate",
            &arguments(json!({"x": {"a": 2, "b": 1}, "policy": "raw"})),
            NOW + 1,
        );
        assert_eq!(
            opened,
            Ok(Sealed {
                round: 2,
                expires_ms: NOW + 60_000
            })
        );
    }

    #[test]
    fn a_state_for_other_arguments_another_tool_or_another_key_is_invalid() {
        let states = states(60);
        let args = arguments(json!({"policy": "validated"}));
        let sealed = states.seal_at("calculate", &args, 1, NOW);
        let raw = arguments(json!({"policy": "raw"}));
        assert_eq!(
            states.open_at(&sealed, "calculate", &raw, NOW),
            Err(StateError::Invalid)
        );
        assert_eq!(
            states.open_at(&sealed, "other", &args, NOW),
            Err(StateError::Invalid)
        );
        let nested = arguments(json!({"policy": "validated", "x": [1]}));
        let sealed_nested = states.seal_at("calculate", &nested, 1, NOW);
        let other_nested = arguments(json!({"policy": "validated", "x": [2]}));
        assert_eq!(
            states.open_at(&sealed_nested, "calculate", &other_nested, NOW),
            Err(StateError::Invalid)
        );
        let other_key =
            RequestStates::with_key(b"fedcba9876543210fedcba9876543210", Duration::from_secs(60))
                .expect("a 32-byte key");
        assert_eq!(
            other_key.open_at(&sealed, "calculate", &args, NOW),
            Err(StateError::Invalid)
        );
    }

    #[test]
    fn a_tampered_or_malformed_state_is_invalid() {
        let states = states(60);
        let args = arguments(json!({}));
        let sealed = states.seal_at("calculate", &args, 1, NOW);
        let mut tampered = sealed.clone().into_bytes();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).expect("ASCII");
        assert_eq!(
            states.open_at(&tampered, "calculate", &args, NOW),
            Err(StateError::Invalid)
        );
        assert_eq!(
            states.open_at("not a state", "calculate", &args, NOW),
            Err(StateError::Invalid)
        );
    }

    #[test]
    fn a_state_expires_at_its_expiry_and_a_zero_ttl_always_expires() {
        let states = states(60);
        let args = arguments(json!({}));
        let sealed = states.seal_at("calculate", &args, 1, NOW);
        assert!(
            states
                .open_at(&sealed, "calculate", &args, NOW + 59_999)
                .is_ok()
        );
        assert_eq!(
            states.open_at(&sealed, "calculate", &args, NOW + 60_000),
            Err(StateError::Expired)
        );
        let zero = states_with_zero_ttl();
        let sealed = zero.seal("calculate", &args, 1);
        assert_eq!(
            zero.open(&sealed, "calculate", &args),
            Err(StateError::Expired)
        );
    }

    fn states_with_zero_ttl() -> RequestStates {
        RequestStates::with_key(KEY, Duration::ZERO).expect("a 32-byte key")
    }

    #[test]
    fn fresh_keys_differ_between_processes() {
        let args = arguments(json!({}));
        let first = RequestStates::new(Duration::from_secs(60));
        let second = RequestStates::new(Duration::from_secs(60));
        let sealed = first.seal("calculate", &args, 1);
        assert!(first.open(&sealed, "calculate", &args).is_ok());
        assert_eq!(
            second.open(&sealed, "calculate", &args),
            Err(StateError::Invalid)
        );
    }

    #[test]
    fn key_order_inside_arrays_of_objects_does_not_matter() {
        let states = states(60);
        let sealed = states.seal_at(
            "calculate",
            &arguments(json!({"x": [{"b": 1, "a": 2}]})),
            1,
            NOW,
        );
        assert!(
            states
                .open_at(
                    &sealed,
                    "calculate",
                    &arguments(json!({"x": [{"a": 2, "b": 1}]})),
                    NOW
                )
                .is_ok()
        );
    }

    #[test]
    fn the_clock_is_the_system_clock_in_milliseconds() {
        let system = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_millis();
        let ours = u128::try_from(now_ms()).expect("positive");
        assert!(ours.abs_diff(system) < 60_000, "{ours} vs {system}");
    }

    #[test]
    fn the_debug_text_never_shows_the_key() {
        assert_eq!(
            format!("{:?}", states(60)),
            "RequestStates { ttl: 60s, .. }"
        );
    }

    #[test]
    fn a_short_key_is_refused() {
        assert!(RequestStates::with_key(&[7u8; 31], DEFAULT_TTL).is_err());
    }

    fn responses(value: Value) -> InputResponses {
        arguments(value).into_iter().collect()
    }

    fn round(round: u32) -> Option<Result<Sealed, StateError>> {
        Some(Ok(Sealed {
            round,
            expires_ms: NOW,
        }))
    }

    #[test]
    fn the_first_call_asks_and_a_retry_with_the_answer_decides() {
        assert_eq!(step(None, None), Step::Ask { round: 1 });
        let answered = responses(json!({"form": {"action": "decline"}}));
        assert_eq!(
            step(round(1), Some(&answered)),
            Step::Decide(json!({"action": "decline"}))
        );
        let null = responses(json!({"form": null}));
        assert_eq!(step(round(3), Some(&null)), Step::Decide(Value::Null));
    }

    #[test]
    fn a_retry_without_the_form_answer_asks_again_until_the_bound() {
        let other = responses(json!({"other": {"action": "accept"}}));
        assert_eq!(step(round(1), Some(&other)), Step::Ask { round: 2 });
        assert_eq!(step(round(2), None), Step::Ask { round: 3 });
        assert_eq!(
            step(round(MAX_ROUNDS), Some(&other)),
            Step::Refuse(Refusal::TooManyRounds)
        );
        assert_eq!(
            step(round(MAX_ROUNDS + 1), None),
            Step::Refuse(Refusal::TooManyRounds)
        );
    }

    #[test]
    fn answers_without_a_good_state_are_refused() {
        let answered = responses(json!({"form": {"action": "accept"}}));
        assert_eq!(
            step(None, Some(&answered)),
            Step::Refuse(Refusal::MissingState)
        );
        assert_eq!(
            step(Some(Err(StateError::Invalid)), Some(&answered)),
            Step::Refuse(Refusal::BadState(StateError::Invalid))
        );
        assert_eq!(
            step(Some(Err(StateError::Expired)), None),
            Step::Refuse(Refusal::BadState(StateError::Expired))
        );
    }

    #[test]
    fn refusal_messages_speak_the_protocol() {
        assert_eq!(
            Refusal::MissingState.message(),
            "inputResponses without requestState"
        );
        assert_eq!(
            Refusal::BadState(StateError::Expired).message(),
            "requestState is invalid or expired"
        );
        assert_eq!(
            Refusal::BadState(StateError::Invalid).message(),
            "requestState is invalid or expired"
        );
        assert_eq!(
            Refusal::TooManyRounds.message(),
            "inputResponses still lacks \"form\" after 3 rounds; nothing was computed"
        );
    }
}
