//! Event streams: a POST's stream and the standalone GET's, each read on its
//! own task, its events recorded and their data forwarded as lines; a POST's
//! stream the server ends before the response is resumed with `Last-Event-ID`.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::HeaderMap;
use reqwest::{Method, Response, Url};
use serde_json::Value;
use sse_stream::SseStream;
use tokio::sync::mpsc;

use super::exchange::*;
use super::{Bridge, STANDALONE_STREAM_WAIT};
use crate::evidence::http::{CLOSED_BY_HARNESS, Carried, HttpStep};
use crate::harness::proxy::{MAX_LINE_BYTES, ProxyState};

impl Bridge {
    /// Reads `response`'s event stream on its own task (see [`read_events`]).
    pub(super) fn read_stream(
        &mut self,
        exchange: u32,
        response: Response,
        initialize: bool,
        answer: Option<Value>,
    ) {
        let resume = answer.is_some().then(|| Resume {
            client: self.client.clone(),
            url: self.url.clone(),
            headers: self.event_stream_headers(),
            exchanges: Arc::clone(&self.exchanges),
            limit: self.limits.call,
        });
        let events = Events {
            state: self.state.clone(),
            out: self.out.clone(),
            open: Arc::clone(&self.open),
            version: initialize.then(|| Arc::clone(&self.protocol_version)),
            exchange,
            answer: answer.map(|id| Awaited {
                id,
                stop: self.stop.clone(),
                cancelled: Arc::clone(&self.cancelled),
            }),
            resume,
        };
        self.streams
            .push(tokio::spawn(read_events(events, response)));
    }

    /// Opens the standalone event stream with a GET, read on its own task,
    /// and waits for its status line (or why there is none) at most
    /// [`STANDALONE_STREAM_WAIT`] before the next POST: a server that sends a
    /// request on that stream can only deliver it once the stream is
    /// established (MCP 2025-11-25, basic/transports, "Listening for Messages
    /// from the Server"). A server may hold the status line until it has
    /// something to send: past the wait, the next POST goes out without it and
    /// the timeline says so; the GET's own bound stays the call bound.
    pub(super) async fn open_standalone_stream(&mut self) {
        let headers = self.event_stream_headers();
        let exchange = self.request(Method::GET, &headers, None);
        let request = self.client.get(self.url.clone()).headers(headers);
        let limit = self.limits.call;
        let (status_line, waited) = tokio::sync::oneshot::channel::<()>();
        let events = Events {
            state: self.state.clone(),
            out: self.out.clone(),
            open: Arc::clone(&self.open),
            version: None,
            exchange,
            answer: None,
            resume: None,
        };
        self.streams.push(tokio::spawn(async move {
            let response = send_once(&events.state, exchange, request, limit, "").await;
            let _ = status_line.send(());
            if let Some(response) = response.filter(|response| response.status().is_success()) {
                read_events(events, response).await;
            }
        }));
        if tokio::time::timeout(STANDALONE_STREAM_WAIT, waited)
            .await
            .is_err()
        {
            self.state.event(format!(
                "HTTP exchange {exchange}: no status line to the standalone GET within {}; the next request goes out without waiting for it",
                crate::format::seconds(STANDALONE_STREAM_WAIT)
            ));
        }
    }
}

/// Where one event stream's events go.
pub(super) struct Events {
    state: ProxyState,
    out: mpsc::UnboundedSender<String>,
    /// Exchanges whose stream is being read (the bridge records the ones it
    /// closes at the session's end).
    open: Arc<Mutex<BTreeSet<u32>>>,
    /// Set from the stream's `initialize` result (the stream of an
    /// `initialize` POST only).
    version: Option<Arc<Mutex<Option<String>>>>,
    exchange: u32,
    /// The request the stream answers (a POST's).
    answer: Option<Awaited>,
    /// How to resume the stream when the server ends it before the response
    /// (a POST's stream).
    resume: Option<Resume>,
}

/// The request whose response a POST's event stream is to carry.
pub(super) struct Awaited {
    id: Value,
    /// Stops the session when the stream ends without that response.
    stop: mpsc::UnboundedSender<()>,
    /// The ids the client cancelled: a stream that ends after its request
    /// was cancelled leaves the session going (MCP 2025-11-25,
    /// basic/utilities/cancellation: the server SHOULD NOT send a response
    /// for a cancelled request).
    cancelled: Arc<Mutex<Vec<Value>>>,
}

/// How a request's event stream that the server ended before the response,
/// after an event id, is resumed (MCP 2025-11-25, basic/transports,
/// "Resumability and Redelivery"; SEP-1699, SSE polling): a GET carrying
/// `Last-Event-ID`, after the wait the server's `retry` field asked for.
pub(super) struct Resume {
    client: reqwest::Client,
    url: Url,
    /// `Accept: text/event-stream` and the session's `Mcp-Session-Id` and
    /// `MCP-Protocol-Version`.
    headers: HeaderMap,
    exchanges: Arc<AtomicU32>,
    /// The call bound: on each GET's status line, and on the wait.
    limit: Duration,
}

/// Most GETs that resume one request's stream (a server that ends each
/// resumed stream at once is not followed for ever).
pub(super) const MAX_RESUMPTIONS: usize = 100;

/// The wait before resuming when the server's events set no `retry`.
pub(super) const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// What one event stream showed.
pub(super) struct StreamRead {
    /// Whether the server ended it (or it failed): false when it passed
    /// [`MAX_LINE_BYTES`] or the harness closed it, which is not resumed.
    by_server: bool,
    /// Whether it carried the response to the request it answers.
    answered: bool,
    /// The last non-empty event id (what a GET resumes after).
    last_id: Option<String>,
    /// The last `retry` field, in milliseconds.
    retry: Option<u64>,
}

/// Records each event of `response`'s stream and forwards its data as one
/// line (see [`read_stream_events`]). A POST's stream that the server ends
/// before the response to its request is resumed after its last event id
/// with a GET carrying `Last-Event-ID`, as often as the server ends the
/// resumed stream again (at most [`MAX_RESUMPTIONS`] times); without an event
/// id to resume from, it stops the session: the request can never be
/// answered (MCP 2025-11-25, basic/transports, "Sending Messages to the
/// Server": the server may close the stream before the response only after
/// an event id), unless the client had cancelled the request
/// ([`Awaited::cancelled`]). A resumption that gets no event stream is recorded and
/// leaves the session to its call bound (the response may still come on the
/// standalone stream).
pub(super) async fn read_events(events: Events, response: Response) {
    let Events {
        state,
        out,
        open,
        version,
        mut exchange,
        answer,
        resume,
    } = events;
    let answer_id = answer.as_ref().map(|awaited| &awaited.id);
    let mut response = response;
    let mut last_id: Option<String> = None;
    let mut retry = None;
    let mut resumptions = 0;
    let answered = loop {
        let read = read_stream_events(
            &state,
            &out,
            &open,
            version.as_deref(),
            exchange,
            answer_id,
            response,
        )
        .await;
        last_id = read.last_id.or(last_id);
        retry = read.retry.or(retry);
        if !read.by_server {
            break read.answered;
        }
        let resume = match (&resume, &last_id) {
            (Some(resume), Some(after)) if !read.answered && resumptions < MAX_RESUMPTIONS => {
                (resume, after.clone())
            }
            _ => break read.answered,
        };
        let (resume, after) = resume;
        resumptions += 1;
        let wait = retry.map_or(DEFAULT_RETRY, Duration::from_millis);
        tokio::time::sleep(wait.min(resume.limit)).await;
        let Some(resumed) = resume_stream(&state, resume, exchange, &after).await else {
            return;
        };
        (exchange, response) = resumed;
    };
    if let Some(awaited) = answer
        && !answered
        && last_id.is_none()
        && !lock(&awaited.cancelled).contains(&awaited.id)
    {
        let _ = awaited.stop.send(());
    }
}

/// GETs the stream of exchange `from` again after event id `after`: the new
/// exchange and its response, when it is an event stream; otherwise none,
/// with why recorded.
pub(super) async fn resume_stream(
    state: &ProxyState,
    resume: &Resume,
    from: u32,
    after: &str,
) -> Option<(u32, Response)> {
    let mut headers = resume.headers.clone();
    if let Ok(value) = after.parse() {
        headers.insert("last-event-id", value);
    }
    let exchange = record_request(
        state,
        &resume.exchanges,
        &resume.url,
        &Method::GET,
        &headers,
        None,
    );
    state.event(format!(
        "HTTP exchange {exchange}: resuming the event stream of exchange {from} after event id {after}"
    ));
    let request = resume.client.get(resume.url.clone()).headers(headers);
    let response = send_once(state, exchange, request, resume.limit, "").await?;
    let event_stream = header(response.headers(), "content-type")
        .is_some_and(|kind| kind.trim_start().starts_with("text/event-stream"));
    if response.status().is_success() && event_stream {
        return Some((exchange, response));
    }
    let (body, cut, _) = read_body(response, resume.limit).await;
    if !body.is_empty() {
        state.record_http(exchange, unforwarded_body(&body, cut));
    }
    None
}

/// Records each event of `response`'s stream (exchange `exchange`) and
/// forwards its data as one line, until the stream ends, fails or passes
/// [`MAX_LINE_BYTES`]; then records how it ended. `answer` is the id of the
/// request the stream answers; `version` is set from an `initialize` result.
pub(super) async fn read_stream_events(
    state: &ProxyState,
    out: &mpsc::UnboundedSender<String>,
    open: &Mutex<BTreeSet<u32>>,
    version: Option<&Mutex<Option<String>>>,
    exchange: u32,
    answer: Option<&Value>,
    response: Response,
) -> StreamRead {
    let mut answered = false;
    let mut last_id = None;
    let mut retry = None;
    lock(open).insert(exchange);
    let cut = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&cut);
    let mut total = 0usize;
    let bytes = response.bytes_stream().take_while(move |chunk| {
        if let Ok(chunk) = chunk {
            total += chunk.len();
        }
        let within = total <= MAX_LINE_BYTES;
        if !within {
            seen.store(true, Ordering::SeqCst);
        }
        std::future::ready(within)
    });
    let mut stream = SseStream::from_bytes_stream(bytes);
    let end = loop {
        match stream.next().await {
            None if cut.load(Ordering::SeqCst) => break (cut_words(), false),
            None => break ("end of stream".to_owned(), true),
            Some(Err(error)) => break (error.to_string(), true),
            Some(Ok(event)) => {
                let data = event.data.unwrap_or_default();
                let carries = serde_json::from_str::<Value>(&data)
                    .ok()
                    .and_then(|message| Carried::of(&message));
                answered |= matches!(
                    (&carries, answer),
                    (Some(carried), Some(id)) if carried.answers(id)
                );
                if let Some(id) = event.id.as_deref().filter(|id| !id.is_empty()) {
                    last_id = Some(id.to_owned());
                }
                retry = event.retry.or(retry);
                state.record_http(
                    exchange,
                    HttpStep::Event {
                        id: event.id,
                        event: event.event,
                        data_bytes: data.len(),
                        carries,
                    },
                );
                if data.trim().is_empty() {
                    continue;
                }
                let line = one_line(data.as_bytes());
                if let Some(version) = version {
                    learn_version(version, &line);
                }
                if out.send(line).is_err() {
                    break (CLOSED_BY_HARNESS.to_owned(), false);
                }
            }
        }
    };
    let (how, by_server) = end;
    // Not in the set any more: the harness closed it and recorded so.
    let recorded = lock(open).remove(&exchange);
    if recorded {
        state.record_http(exchange, HttpStep::Ended { how });
    }
    StreamRead {
        by_server: by_server && recorded,
        answered,
        last_id,
        retry,
    }
}
