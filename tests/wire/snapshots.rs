//! Wire-log snapshots: the transcript of each contract case
//! over real stdio, one insta snapshot per case in the top-level `snapshots/`
//! folder, named after the case. `CI=true cargo test` fails on any changed frame.

use elicit_check::case;
use elicit_check::transcript;

use crate::support;

/// Runs contract case `name` against the reference server and snapshots its transcript.
fn snapshot(name: &str) {
    let (case, _) = support::contract_case(name);
    let evidence = support::run_on_reference(&case);
    let text = transcript::render_with_stray(&evidence.wire, &evidence.stray_stdout);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_description(format!("wire of contract case {name}"));
    settings.bind(|| insta::assert_snapshot!(name, text));
}

macro_rules! snapshot_cases {
    ($($name:ident),* $(,)?) => {
        /// The cases with a snapshot test, in table order.
        const SNAPSHOT_CASES: &[&str] = &[$(stringify!($name)),*];
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
fn every_contract_case_has_a_snapshot_test() {
    let names: Vec<String> = case::contract_cases()
        .into_iter()
        .map(|case| case.name)
        .collect();
    assert_eq!(names, SNAPSHOT_CASES);
}
