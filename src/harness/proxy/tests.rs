//! The unit tests of the recording proxy: lines cut at 16 MiB, stray lines
//! kept and counted, answers injected byte for byte into the replies they
//! belong to, one sequence over frames and stray lines.

use serde_json::json;

use super::*;

/// A line longer than rmcp's 16 MiB cap is cut at exactly 16 MiB (16,777,216
/// bytes), and the line after it is read whole.
#[test]
fn a_line_past_sixteen_mib_is_cut_there_and_the_next_line_is_whole() {
    let sixteen_mib = 16 * 1024 * 1024;
    let mut input = vec![b'x'; sixteen_mib + 10];
    input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\"}\n");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let (first, second) = runtime.block_on(async {
        let mut reader = BufReader::new(input.as_slice());
        (read_line(&mut reader).await, read_line(&mut reader).await)
    });
    assert_eq!(first.map(|line| line.len()), Some(16_777_216));
    assert_eq!(second.as_deref(), Some(r#"{"jsonrpc":"2.0"}"#));
}

/// The HTTP clause of an error names the request of the exchange that
/// stopped short (no response, or a non-2xx status): the last POST that
/// did, else the last request that did, and nothing when every exchange
/// got a 2xx.
#[test]
fn the_http_failure_names_the_request_of_the_exchange_that_stopped_short() {
    use std::collections::BTreeMap;
    let state = ProxyState::new(json!({}), Instant::now());
    let request = |method: &str| HttpStep::Request {
        method: method.to_owned(),
        path: "/mcp".to_owned(),
        headers: BTreeMap::new(),
        carries: None,
    };
    let status = |status| HttpStep::Response {
        status,
        headers: BTreeMap::new(),
    };
    state.record_http(1, request("POST"));
    state.record_http(1, status(200));
    assert_eq!(state.http_failure(), "");
    state.record_http(2, request("GET"));
    state.record_http(2, status(405));
    assert_eq!(state.http_failure(), "; HTTP: GET /mcp got status 405");
    state.record_http(3, request("DELETE"));
    state.record_http(
        3,
        HttpStep::Failed {
            error: "connection refused".to_owned(),
        },
    );
    assert_eq!(
        state.http_failure(),
        "; HTTP: DELETE /mcp got no response: connection refused"
    );
    // A POST that stopped short is named before any later GET or DELETE.
    state.record_http(4, request("POST"));
    state.record_http(4, status(500));
    state.record_http(5, request("GET"));
    state.record_http(5, status(405));
    assert_eq!(state.http_failure(), "; HTTP: POST /mcp got status 500");
    // A refusal of the credentials says what the status means.
    state.record_http(6, request("POST"));
    state.record_http(6, status(401));
    assert_eq!(
        state.http_failure(),
        "; HTTP: POST /mcp got status 401 (Unauthorized: the server wants credentials; check sends them with --header, e.g. --header 'Authorization: Bearer ${TOKEN}')"
    );
    state.record_http(7, request("POST"));
    state.record_http(7, status(403));
    assert_eq!(
        state.http_failure(),
        "; HTTP: POST /mcp got status 403 (Forbidden: the server refuses the credentials sent, or their absence)"
    );
}

/// The first 100 stray lines are kept, the rest counted; a mark counts every
/// line seen, and the part after a mark has the kept lines and the count of
/// the others seen after it (session mode slices a case's part).
#[test]
fn a_recording_keeps_a_hundred_stray_lines_and_counts_the_rest() {
    let state = ProxyState::new(json!({}), Instant::now());
    let mut marks = Vec::new();
    for line in 0..150 {
        if [90, 100, 120].contains(&line) {
            marks.push(state.mark());
        }
        state.record_stray(format!("line {line}"));
    }
    let recording = state.recording();
    assert_eq!(recording.stray_stdout.len(), 100);
    assert_eq!(recording.stray_stdout[99].line, "line 99");
    assert_eq!(recording.stray_stdout[99].seq, 99);
    assert_eq!(recording.stray_stdout_not_kept, 50);
    assert_eq!(state.mark().stray_stdout, 150);
    let since = |mark: Mark| {
        let part = state.recording_since(mark);
        let first = part.stray_stdout.first().map(|stray| stray.line.clone());
        (
            mark.stray_stdout,
            part.stray_stdout.len(),
            first,
            part.stray_stdout_not_kept,
        )
    };
    assert_eq!(since(marks[0]), (90, 10, Some("line 90".to_owned()), 50));
    assert_eq!(since(marks[1]), (100, 0, None, 50));
    assert_eq!(since(marks[2]), (120, 0, None, 30));
    // A frame after the flood still gets its own seq.
    state.record(
        Side::Server,
        json!({"jsonrpc": "2.0", "id": 0, "result": {}}),
        None,
    );
    assert_eq!(state.recording().wire[0].seq, 150);
}

/// A stray stdout line is kept up to 64 KiB (65,536 bytes, cut on a character
/// boundary) with its whole length recorded.
#[test]
fn a_long_stray_line_is_kept_up_to_sixty_four_kib_with_its_length() {
    let state = ProxyState::new(json!({}), Instant::now());
    state.record_stray("x".repeat(70_000));
    // 65,535 ASCII bytes, then a 2-byte character across the 65,536 limit.
    state.record_stray(format!("{}é", "y".repeat(65_535)));
    let stray = state.recording().stray_stdout;
    assert_eq!((stray[0].line.len(), stray[0].bytes), (65_536, 70_000));
    assert_eq!((stray[1].line.len(), stray[1].bytes), (65_535, 65_537));
}

fn state_with_answer(text: &str) -> ProxyState {
    let state = ProxyState::new(json!({}), Instant::now());
    state.set_answer(Some(WireAnswer::result_text(text).expect("test JSON")));
    state
}

#[test]
fn the_reply_to_a_pending_elicitation_carries_the_answer_exactly_as_written() {
    let state = state_with_answer(r#"{"action":"accept","content":{"units":-0}}"#);
    state.note_server_frame(&json!({"jsonrpc":"2.0","id":4,"method":"elicitation/create"}));
    let (message, text) =
        state.rewrite_client_frame(json!({"jsonrpc":"2.0","id":4,"result":{"action":"decline"}}));
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":4,"result":{"action":"accept","content":{"units":-0}}}"#
    );
    assert_eq!(message["result"]["content"]["units"], json!(-0.0));
    // Answered once: a second reply under the same id is left alone.
    let (_, text) =
        state.rewrite_client_frame(json!({"jsonrpc":"2.0","id":4,"result":{"action":"decline"}}));
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":4,"result":{"action":"decline"}}"#
    );
}

#[test]
fn replies_to_other_requests_and_refusals_are_left_alone() {
    let state = state_with_answer(r#"{"action":"accept"}"#);
    // A reply to a request that is not a pending elicitation (a ping, say).
    let (_, text) = state.rewrite_client_frame(json!({"jsonrpc":"2.0","id":7,"result":{}}));
    assert_eq!(text, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
    // A client request under the id of a pending elicitation is not its reply.
    state.note_server_frame(&json!({"jsonrpc":"2.0","id":1,"method":"elicitation/create"}));
    let request = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}});
    let (message, _) = state.rewrite_client_frame(request.clone());
    assert_eq!(message, request);
    // A refusal keeps its error.
    let refusal = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}});
    let (message, _) = state.rewrite_client_frame(refusal.clone());
    assert_eq!(message, refusal);
}

/// Reply matching is by the exact id: a reply under `"1"` is not the reply
/// to elicitation `1`, and of two pending elicitations each reply is
/// matched to its own request.
#[test]
fn replies_are_matched_to_pending_elicitations_by_exact_id_value_and_type() {
    let state = ProxyState::new(json!({}), Instant::now());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    state.set_responder(Some(Arc::new(move |request: &Value| {
        log.lock()
            .expect("test lock")
            .push(request["params"]["message"].clone());
        Answer::Result(json!({"action": "decline"}))
    })));
    let ask = |id: Value, message: &str| json!({"jsonrpc":"2.0","id":id,"method":"elicitation/create","params":{"message":message}});
    state.note_server_frame(&ask(json!(1), "first"));
    state.note_server_frame(&ask(json!(2), "second"));
    let reply = |id: Value| json!({"jsonrpc":"2.0","id":id,"result":{"action":"cancel"}});
    // Under the string "1": not a reply to either, left alone.
    let (_, text) = state.rewrite_client_frame(reply(json!("1")));
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":"1","result":{"action":"cancel"}}"#
    );
    assert!(seen.lock().expect("test lock").is_empty());
    // Each reply gets the responder's answer to its own request.
    let (_, text) = state.rewrite_client_frame(reply(json!(1)));
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}"#
    );
    let (_, text) = state.rewrite_client_frame(reply(json!(2)));
    assert_eq!(
        text,
        r#"{"jsonrpc":"2.0","id":2,"result":{"action":"decline"}}"#
    );
    assert_eq!(
        *seen.lock().expect("test lock"),
        [json!("first"), json!("second")]
    );
}

/// Frames and stray lines share one sequence, +1 per line, and each frame
/// gets a timeline line `<side> <method|result|error> id <id|->`.
#[test]
fn frames_and_stray_lines_share_one_sequence_and_the_timeline_names_each_frame() {
    let state = ProxyState::new(json!({}), Instant::now());
    state.record_stray("hello".into());
    state.record(
        Side::Server,
        json!({"jsonrpc":"2.0","id":3,"method":"elicitation/create"}),
        None,
    );
    state.record_stray("again".into());
    state.record(
        Side::Client,
        json!({"jsonrpc":"2.0","id":3,"result":{}}),
        None,
    );
    state.record(
        Side::Client,
        json!({"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"m"}}),
        None,
    );
    state.record(
        Side::Client,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        None,
    );
    let recording = state.recording();
    let strays: Vec<u64> = recording.stray_stdout.iter().map(|line| line.seq).collect();
    let frames: Vec<u64> = recording.wire.iter().map(|frame| frame.seq).collect();
    assert_eq!((strays, frames), (vec![0, 2], vec![1, 3, 4, 5]));
    let events: Vec<&str> = recording
        .timeline
        .iter()
        .map(|e| e.event.as_str())
        .collect();
    assert_eq!(
        events,
        [
            "server elicitation/create id 3",
            "client result id 3",
            r#"client error id "a""#,
            "client notifications/initialized id -",
        ]
    );
}

#[test]
fn a_raw_client_line_is_recorded_with_its_text_only_when_it_differs() {
    let state = ProxyState::new(json!({}), Instant::now());
    state.record_client_line(br#"{"id":1}"#);
    state.record_client_line(br#"{"id":1, "x":3e0}"#);
    state.record_client_line(b"not json \xff");
    let wire = state.recording().wire;
    assert_eq!(
        (wire[0].from, &wire[0].message, &wire[0].text),
        (Side::Client, &json!({"id":1}), &None)
    );
    assert_eq!(wire[1].text.as_deref(), Some(r#"{"id":1, "x":3e0}"#));
    assert_eq!(
        (&wire[2].message, wire[2].text.as_deref()),
        (&Value::Null, Some("not json \u{fffd}"))
    );
}

#[test]
fn a_member_is_spliced_as_the_last_key_of_any_object() {
    assert_eq!(
        with_member(&mut json!({"id":1,"result":{}}), "error", "3e0"),
        r#"{"id":1,"error":3e0}"#
    );
    assert_eq!(
        with_member(&mut json!({}), "result", "[]"),
        r#"{"result":[]}"#
    );
}

/// Waiting for a client frame: it is found once recorded, whether recorded
/// before the wait or while it waits (the pump runs apart from the client);
/// a frame from the server with that method, or a client frame of another
/// method, is not it; when the client→server pump ends without it, the wait
/// ends then, without it, and when nothing comes, at the bound. On a paused
/// clock, so the time a wait took is exact: none but the last ran out its
/// bound (60 s).
#[test]
fn a_client_frame_is_waited_for_until_recorded_the_pump_ends_or_the_bound_passes() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("runtime");
    let initialized = "notifications/initialized";
    let bound = std::time::Duration::from_secs(60);
    let fresh = || ProxyState::new(json!({}), Instant::now());
    runtime.block_on(async {
        let start = tokio::time::Instant::now();
        let before = fresh();
        before.record_client_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(before.client_frame_recorded(initialized, bound).await);

        let later = fresh();
        let recorder = later.clone();
        let wait =
            tokio::spawn(async move { later.client_frame_recorded(initialized, bound).await });
        tokio::task::yield_now().await;
        recorder.record_client_line(br#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#);
        tokio::task::yield_now().await;
        recorder.record_client_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(wait.await.expect("the wait ends"));

        let ended = fresh();
        ended.record(
            Side::Server,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            None,
        );
        let pump = tokio::spawn(client_to_server(
            ended.clone(),
            &br#"{"jsonrpc":"2.0","id":0,"method":"ping"}
"#[..],
            tokio::io::sink(),
        ));
        assert!(!ended.client_frame_recorded(initialized, bound).await);
        pump.await.expect("the pump ends");
        assert_eq!(
            start.elapsed(),
            std::time::Duration::ZERO,
            "no wait ran out its bound"
        );

        let silent = fresh();
        assert!(!silent.client_frame_recorded(initialized, bound).await);
        assert_eq!(start.elapsed(), bound);
    });
}
