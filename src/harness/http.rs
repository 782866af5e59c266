//! The Streamable HTTP end of the recording proxy (MCP 2025-11-25,
//! basic/transports, "Streamable HTTP"): the proxy writes and reads JSON-RPC
//! lines as it does over stdio, and this bridge carries them over HTTP,
//! recording every step ([`crate::evidence::http`]).
//!
//! ```text
//! proxy ─line→ bridge ─POST /mcp (body: the line, byte for byte)→ server
//! proxy ←line─ bridge ←application/json body, or each SSE event's data─ server
//! ```
//! - Each line is one POST, sent in the order the client wrote them; the next
//!   POST waits for the status line of the one before (so the `Mcp-Session-Id`
//!   the `initialize` response assigns goes on every later request), not for
//!   its event stream, which is read on its own task.
//! - After `notifications/initialized` is accepted, a GET opens the standalone
//!   event stream (a 405 is recorded and is not an error: the stream is
//!   optional), and the next POST waits for its status line, at most
//!   [`STANDALONE_STREAM_WAIT`]: a server may send its requests on that stream
//!   (MCP 2025-11-25, basic/transports, "Listening for Messages from the
//!   Server"), and one that has no such stream yet may drop them (the
//!   TypeScript SDK 1.x does, for an `elicitInput` with no related request), so
//!   the stream is established before the tool is called, as a client that
//!   listens first does.
//! - When the client side closes, a DELETE ends the session.
//! - Bounds: connecting (until the server answers at all) by the startup
//!   limit, a status line and a JSON body by the call limit, an event stream
//!   or a body by 16 MiB (cut and recorded as such).
//!
//! This file: the bridge and the state it keeps. One concept per file under
//! it: the POST path (`post`), event streams and their resumption (`events`),
//! a reply planted in another session (`planted`), the session's end (`end`),
//! and one exchange's request, status line and body as recorded (`exchange`).

mod end;
mod events;
mod exchange;
mod planted;
mod post;

use std::collections::BTreeSet;
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::Url;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::limits::Limits;
use super::proxy::{ProxyState, read_line};

/// The `Accept` header of every POST (the transport requires both types).
pub const POST_ACCEPT: &str = "application/json, text/event-stream";

/// Most bytes of a non-forwarded body kept in its record.
const MAX_BODY_TEXT: usize = 1024;

/// How often a refused connection is tried again while the server starts.
const CONNECT_RETRY: Duration = Duration::from_millis(50);

/// How long the next POST after `notifications/initialized` waits for the
/// status line of the standalone GET (a 405, an error status or a failure
/// ends the wait at once): long enough for a server on the loopback or a LAN
/// to register the stream, short beside the call bound, since a server may
/// hold that status line until it has something to send.
pub const STANDALONE_STREAM_WAIT: Duration = Duration::from_secs(2);

/// The `_meta` key carrying the protocol version on 2026-07-28 requests.
const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// Carries the proxy's lines over Streamable HTTP until `from_proxy` ends,
/// then ends the session (DELETE) and closes `to_proxy`. `hold` is kept open
/// until then (a started server's stdin, which some servers read as their
/// lifetime). `headers` (`--header`) go on every request: each POST, the
/// standalone GET, a resumption, the DELETE, and the second session of a
/// planted reply.
pub(crate) async fn bridge<R, W, H>(
    url: Url,
    headers: HeaderMap,
    state: ProxyState,
    limits: Limits,
    from_proxy: R,
    to_proxy: W,
    hold: H,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
    H: Send,
{
    let (out, lines) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(write_lines(lines, to_proxy));
    let (stop, mut stopped) = mpsc::unbounded_channel::<()>();
    let mut bridge = Bridge {
        url,
        state,
        limits,
        client: reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(limits.startup)
            .default_headers(headers)
            .build()
            .unwrap_or_default(),
        session_id: None,
        protocol_version: Arc::new(Mutex::new(None)),
        exchanges: Arc::new(AtomicU32::new(0)),
        out,
        streams: Vec::new(),
        open: Arc::new(Mutex::new(BTreeSet::new())),
        answered_once: false,
        started: Instant::now(),
        stop,
        cancelled: Arc::new(Mutex::new(Vec::new())),
        initialize: None,
    };
    let mut reader = BufReader::new(from_proxy);
    loop {
        let line = tokio::select! {
            line = read_line(&mut reader) => line,
            // A request's event stream ended without its response and with
            // nothing to resume from: the request will never be answered.
            _ = stopped.recv() => None,
        };
        let Some(line) = line else { break };
        if !bridge.post(line.into_bytes()).await {
            break;
        }
    }
    bridge.end().await;
    drop(hold);
    let Bridge { out, .. } = bridge;
    drop(out);
    let _ = writer.await;
}

/// Writes each line (and a newline) to the proxy until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(mut lines: mpsc::UnboundedReceiver<String>, mut to: W) {
    while let Some(line) = lines.recv().await {
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        let written = async {
            to.write_all(&bytes).await?;
            to.flush().await
        };
        if written.await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

struct Bridge {
    url: Url,
    state: ProxyState,
    limits: Limits,
    client: reqwest::Client,
    /// The `Mcp-Session-Id` the server assigned, sent on every later request.
    session_id: Option<String>,
    /// The version negotiated at `initialize`, sent as `MCP-Protocol-Version`.
    protocol_version: Arc<Mutex<Option<String>>>,
    /// The number of the last exchange recorded (shared with the tasks
    /// that resume event streams).
    exchanges: Arc<AtomicU32>,
    out: mpsc::UnboundedSender<String>,
    streams: Vec<JoinHandle<()>>,
    /// Exchanges whose event stream is still being read.
    open: Arc<Mutex<BTreeSet<u32>>>,
    /// Whether the server has answered any request (until then a refused
    /// connection is the server still starting).
    answered_once: bool,
    started: Instant,
    /// Stops the session (see [`read_events`]).
    stop: mpsc::UnboundedSender<()>,
    /// The ids of the requests the client cancelled with
    /// `notifications/cancelled`: their streams may end without a response.
    cancelled: Arc<Mutex<Vec<Value>>>,
    /// The `initialize` request's body, byte for byte (a second session for a
    /// planted reply opens with it).
    initialize: Option<Vec<u8>>,
}

#[cfg(test)]
mod tests;
