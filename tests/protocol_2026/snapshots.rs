//! Wire-log snapshots on protocol 2026-07-28: the transcript of each
//! contract case, `snapshots/mrtr_NAME.snap`. It reads call → `input_required`
//! (the form request and an opaque state) → retry under a new id with the answer
//! and the state echoed → result; `requestState` values are numbered
//! (`transcript::redact_mrtr`), so an echo reads as the same state.

use elicit_check::harness::Limits;
use elicit_check::harness::mrtr::{self, Retry};
use elicit_check::transcript;

use crate::support;

fn snapshot(name: &str) {
    let (case, _) = support::contract_case(name);
    let evidence = support::runtime()
        .block_on(mrtr::run_case(
            &support::reference_server(),
            &case,
            Limits::default(),
            Retry::Echo,
        ))
        .expect("the reference server starts");
    let wire = transcript::redact_mrtr(&evidence.wire);
    let text = transcript::render_with_stray(&wire, &evidence.stray_stdout);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_description(format!(
        "wire of contract case {name} on protocol 2026-07-28"
    ));
    settings.bind(|| insta::assert_snapshot!(format!("mrtr_{name}"), text));
}

macro_rules! snapshot_cases {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                snapshot(stringify!($name));
            }
        )*
    };
}

crate::with_contract_cases!(snapshot_cases);

#[test]
fn request_states_are_numbered_by_first_appearance() {
    use elicit_check::harness::proxy::{Frame, Side};
    use serde_json::json;
    let frame = |seq, from, message| Frame {
        seq,
        from,
        message,
        text: None,
    };
    let wire = [
        frame(
            0,
            Side::Server,
            json!({"id": 1, "result": {"requestState": "rs1.a"}}),
        ),
        frame(
            1,
            Side::Client,
            json!({"id": 2, "method": "tools/call", "params": {"requestState": "rs1.a"}}),
        ),
        frame(
            2,
            Side::Server,
            json!({"id": 2, "result": {"requestState": "rs1.b", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "9"}}}}),
        ),
    ];
    let redacted: Vec<_> = transcript::redact_mrtr(&wire)
        .into_iter()
        .map(|frame| frame.message)
        .collect();
    assert_eq!(
        redacted,
        [
            json!({"id": 1, "result": {"requestState": "[requestState 1]"}}),
            json!({"id": 2, "method": "tools/call", "params": {"requestState": "[requestState 1]"}}),
            json!({"id": 2, "result": {"requestState": "[requestState 2]", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "[version]"}}}}),
        ]
    );
}
