//! The two protocol eras a case can run in (docs/src/eras.md).
//!
//! - `2025-11-25`: `initialize`, then `tools/call`; the server sends
//!   `elicitation/create` in the middle of the call and the client answers it.
//! - `2026-07-28`: no `initialize` (`server/discover`, then requests carrying
//!   their protocol version and client capabilities in `_meta`); `tools/call`
//!   answers `InputRequiredResult` and the client retries under a new id with
//!   `inputResponses` and the `requestState` echoed.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A protocol era, named by its MCP protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Protocol {
    /// `"2025-11-25"`: server→client `elicitation/create` inside the call.
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// `"2026-07-28"`: multi round-trip requests (`InputRequiredResult`, retry).
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl Protocol {
    /// Both eras, oldest first.
    pub const ALL: [Protocol; 2] = [Protocol::V2025_11_25, Protocol::V2026_07_28];

    /// The protocol version string.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::V2025_11_25 => "2025-11-25",
            Protocol::V2026_07_28 => "2026-07-28",
        }
    }
}

impl Default for Protocol {
    /// `2025-11-25`, the default of `elicit-check run`.
    fn default() -> Self {
        Protocol::V2025_11_25
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A protocol version this harness does not speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol {0:?}: expected 2025-11-25 or 2026-07-28")]
pub struct UnknownProtocol(pub String);

impl FromStr for Protocol {
    type Err = UnknownProtocol;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Protocol::ALL
            .into_iter()
            .find(|protocol| protocol.as_str() == text)
            .ok_or_else(|| UnknownProtocol(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_parse_from_and_print_as_their_version() {
        assert_eq!("2025-11-25".parse(), Ok(Protocol::V2025_11_25));
        assert_eq!("2026-07-28".parse(), Ok(Protocol::V2026_07_28));
        assert_eq!(Protocol::V2026_07_28.to_string(), "2026-07-28");
        assert_eq!(
            "2026-07-29".parse::<Protocol>().unwrap_err().to_string(),
            "unknown protocol \"2026-07-29\": expected 2025-11-25 or 2026-07-28"
        );
        assert_eq!(Protocol::default(), Protocol::V2025_11_25);
        assert_eq!(
            serde_json::to_value(Protocol::V2026_07_28).expect("serializes"),
            serde_json::json!("2026-07-28")
        );
    }
}
