//! A `tools/call` that got no reply, said as what happened to it: the call
//! bound ran out, the server's stdout closed first (it exited or crashed in
//! the call), the HTTP step that failed. Read from the harness's typed
//! failure, never from its wording; `elicit-check check` gives it as property
//! 5's reason, in its health note and when its probe call got no reply.

use crate::evidence::HarnessFailure;
use crate::format::seconds;

/// Why a `tools/call` got no reply, one clause that starts `no reply to
/// tools/call`:
///
/// - the call bound ran out: `no reply to tools/call within 10 s`;
/// - over stdio, the call ended with no reply frame (the harness's
///   [`HarnessFailure::NoReply`]): `no reply to tools/call: the server's
///   stdout closed first (it exited or crashed in the call)`;
/// - over Streamable HTTP, the same with its HTTP clause
///   (`no reply to tools/call; HTTP: POST /mcp got status 500`), or `the
///   connection ended first` without one;
/// - any other failure (a failed handshake, a refused call):
///   `no reply to tools/call: ` and the failure's own text;
/// - no failure kept: `no reply to tools/call: the server never answered`.
///
/// `stdio` is whether the server was reached over stdio.
pub fn no_reply(failure: Option<&HarnessFailure>, stdio: bool) -> String {
    match failure {
        Some(HarnessFailure::CallTimedOut { within }) => {
            format!("no reply to tools/call within {}", seconds(*within))
        }
        Some(HarnessFailure::NoReply { .. }) if stdio => {
            "no reply to tools/call: the server's stdout closed first (it exited or crashed in the call)"
                .to_owned()
        }
        Some(HarnessFailure::NoReply { http }) if http.is_empty() => {
            "no reply to tools/call: the connection ended first".to_owned()
        }
        Some(HarnessFailure::NoReply { http }) => format!("no reply to tools/call{http}"),
        Some(failure) => format!("no reply to tools/call: {failure}"),
        None => "no reply to tools/call: the server never answered".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn each_way_a_call_ends_without_reply_is_said_as_what_happened() {
        let timed_out = HarnessFailure::CallTimedOut {
            within: Duration::from_millis(2500),
        };
        assert_eq!(
            no_reply(Some(&timed_out), true),
            "no reply to tools/call within 2.5 s"
        );
        let closed = HarnessFailure::NoReply {
            http: String::new(),
        };
        assert_eq!(
            no_reply(Some(&closed), true),
            "no reply to tools/call: the server's stdout closed first (it exited or crashed in the call)"
        );
        assert_eq!(
            no_reply(Some(&closed), false),
            "no reply to tools/call: the connection ended first"
        );
        let http = HarnessFailure::NoReply {
            http: "; HTTP: POST /mcp got status 500".to_owned(),
        };
        assert_eq!(
            no_reply(Some(&http), false),
            "no reply to tools/call; HTTP: POST /mcp got status 500"
        );
        assert_eq!(
            no_reply(Some(&HarnessFailure::NotStarted), true),
            "no reply to tools/call: session not started"
        );
        assert_eq!(
            no_reply(None, false),
            "no reply to tools/call: the server never answered"
        );
    }
}
