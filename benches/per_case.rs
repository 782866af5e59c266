//! What one case costs, against the Python laboratory's 0.56 s per case.
//!
//! - `stdio/contract_case`: one contract case end to end: spawn the reference
//!   server, initialize, list tools, call, answer the elicitation, shut down.
//! - `stdio/session_call`: one `tools/call` with its elicitation in a session
//!   that stays open (no spawn, no handshake).
//! - `core/decide`: the pure decision for one generated case (no I/O).
//!
//! Run with `cargo bench`; figures are reported in the README.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use elicit_check::case::{self, Case};
use elicit_check::harness::{self, Limits, Session, client::reply_for};
use elicit_check::server::decision::{self, Policy};
use elicit_check::server::reply::Reply;
use elicit_check::strategy::generated_case;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use rmcp::model::ClientCapabilities;

fn reference_server() -> Vec<String> {
    vec![
        env!("CARGO_BIN_EXE_elicit-check").to_owned(),
        "serve".to_owned(),
    ]
}

fn accept_valid() -> Case {
    case::contract_cases()
        .into_iter()
        .find(|case| case.name == "accept_valid")
        .expect("accept_valid is a contract case")
}

fn stdio(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let server = reference_server();
    let case = accept_valid();
    let mut group = c.benchmark_group("stdio");
    group.sample_size(50);
    group.bench_function("contract_case", |b| {
        b.iter(|| {
            let evidence = runtime
                .block_on(harness::run_case(&server, &case, Limits::default(), None))
                .expect("the server starts");
            assert!(evidence.outcome.is_some());
        });
    });
    let mut session = runtime
        .block_on(Session::start(
            &server,
            &case.capabilities,
            Limits::default(),
            None,
        ))
        .expect("the server starts");
    group.bench_function("session_call", |b| {
        b.iter(|| {
            let call = runtime.block_on(session.call(&case.policy, case.wire_answer()));
            assert!(call.outcome.is_some());
        });
    });
    runtime.block_on(session.finish());
    group.finish();
}

fn core(c: &mut Criterion) {
    let mut runner = TestRunner::deterministic();
    let strategy = generated_case();
    let cases: Vec<Case> = (0..1000)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("a case")
                .current()
                .case
        })
        .collect();
    let mut next = cases.iter().cycle();
    c.bench_function("core/decide", |b| {
        b.iter(|| {
            let case = next.next().expect("cycle never ends");
            let capabilities: ClientCapabilities =
                serde_json::from_value(case.capabilities.clone()).expect("capabilities");
            let policy: Policy = case.policy.parse().expect("policy");
            black_box(decision::decide(
                capabilities.elicitation.as_ref(),
                policy,
                || Reply::from_answer(&reply_for(case)),
            ))
        });
    });
}

criterion_group!(benches, stdio, core);
criterion_main!(benches);
