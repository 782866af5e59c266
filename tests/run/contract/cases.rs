//! The 19 contract cases: over real stdio (one fresh server per case) and against
//! the pure core. Expected outcomes come from `expected/results.json`, written by
//! hand from the contract table (docs/src/contract.md, C1 to C19).

use elicit_check::case;
use elicit_check::compare;
use elicit_check::oracle::contract;
use serde_json::Value;

use crate::support;

/// Runs one contract case over stdio and fails with every check that did not hold.
fn over_stdio(name: &str) {
    let (case, expected) = support::contract_case(name);
    let evidence = support::run_on_reference(&case);
    let failures = contract::check(&case, &expected, &evidence);
    assert!(
        failures.is_empty(),
        "case {name} failed:\n  {}\nwire: {}",
        failures
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n  "),
        serde_json::to_string_pretty(&evidence.wire).unwrap_or_default()
    );
    // The check above covers these; they are repeated so the contract reads here too.
    let elicitations = evidence
        .wire
        .iter()
        .filter(|frame| {
            frame.message.get("method").and_then(Value::as_str) == Some("elicitation/create")
        })
        .count();
    let requested = expected.get("requested") != Some(&Value::Bool(false));
    assert_eq!(
        elicitations,
        usize::from(requested),
        "{name}: elicitation/create count"
    );
    assert_eq!(evidence.callbacks, elicitations, "{name}: client callbacks");
    assert_eq!(evidence.exit_code, Some(0), "{name}: exit code");
    assert!(!evidence.forced_kill, "{name}: forced kill");
    assert_eq!(evidence.protocol_version.as_deref(), Some("2025-11-25"));
}

macro_rules! stdio_cases {
    ($($name:ident),* $(,)?) => {
        /// The 19 cases of the contract table (docs/src/contract.md, C1 to C19), in order.
        const CONTRACT_NAMES: [&str; 19] = [$(stringify!($name)),*];

        mod stdio {
            $(
                #[test]
                fn $name() {
                    super::over_stdio(stringify!($name));
                }
            )*
        }
    };
}

crate::with_contract_cases!(stdio_cases);

#[test]
fn fixtures_hold_exactly_the_nineteen_contract_cases_in_table_order() {
    let names: Vec<String> = case::contract_cases()
        .into_iter()
        .map(|case| case.name)
        .collect();
    assert_eq!(names, CONTRACT_NAMES);
    let expected = case::contract_expected();
    let mut expected_names: Vec<&str> = expected.keys().map(String::as_str).collect();
    expected_names.sort_unstable();
    let mut table = CONTRACT_NAMES.to_vec();
    table.sort_unstable();
    assert_eq!(expected_names, table);
}

#[test]
fn the_pure_core_gives_every_expected_outcome() {
    let expected = case::contract_expected();
    for case in case::contract_cases() {
        let outcome = support::core_outcome(&case).to_json();
        let mismatches = compare::compare(&expected[&case.name], &outcome);
        assert!(mismatches.is_empty(), "{}: {mismatches:?}", case.name);
    }
}

#[test]
fn the_reference_model_gives_every_expected_outcome() {
    let expected = case::contract_expected();
    for case in case::contract_cases() {
        let outcome = elicit_check::oracle::model::expected_outcome(&case);
        let mismatches = compare::compare(&expected[&case.name], &outcome);
        assert!(mismatches.is_empty(), "{}: {mismatches:?}", case.name);
    }
}

#[test]
fn the_requested_schema_is_exactly_the_contract_schema() {
    let sent = serde_json::to_value(elicit_check::server::requested_schema()).expect("serializes");
    assert_eq!(
        compare::compare(&contract::contract_schema(), &sent),
        vec![]
    );
    assert_eq!(
        sent.to_string(),
        r#"{"type":"object","properties":{"units":{"type":"integer","minimum":1,"maximum":10},"unit_value":{"type":"integer","minimum":1,"maximum":100}},"required":["units","unit_value"]}"#
    );
}

#[test]
fn cargo_lock_pins_the_rmcp_version_reported_in_evidence() {
    let lock = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"));
    let pinned = format!(
        "name = \"rmcp\"\nversion = \"{}\"",
        elicit_check::harness::evidence::RMCP_VERSION
    );
    assert!(
        lock.contains(&pinned),
        "Cargo.lock does not pin rmcp {}",
        elicit_check::harness::evidence::RMCP_VERSION
    );
}

/// Every count of the contract cases in the README and the guide ("the 19
/// contract cases") is the number `fixtures/cases.json` holds, and the guide's
/// contract table has one row per case, C1 to C19.
#[test]
fn the_readme_and_the_guide_count_the_contract_cases_the_fixtures_hold() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(case::contract_cases().len(), 19);
    let mut texts = vec![std::fs::read_to_string(root.join("README.md")).expect("README.md")];
    for page in std::fs::read_dir(root.join("docs/src")).expect("docs/src") {
        let page = page.expect("a page").path();
        if page.extension().is_some_and(|e| e == "md") {
            texts.push(std::fs::read_to_string(page).expect("a page"));
        }
    }
    let said = regex::Regex::new(r"\b(\d+) contract cases\b").expect("a regex");
    let counts: Vec<String> = texts
        .iter()
        .flat_map(|text| said.captures_iter(text).map(|said| said[1].to_owned()))
        .collect();
    assert!(counts.len() >= 2, "the README and the guide count them");
    assert!(counts.iter().all(|count| count == "19"), "{counts:?}");
    let contract = std::fs::read_to_string(root.join("docs/src/contract.md")).expect("contract.md");
    let rows: Vec<String> = regex::Regex::new(r"(?m)^\| (C\d+) \|")
        .expect("a regex")
        .captures_iter(&contract)
        .map(|row| row[1].to_owned())
        .collect();
    let expected: Vec<String> = (1..=19).map(|n| format!("C{n}")).collect();
    assert_eq!(rows, expected);
}

/// `run::run_contract_in`, the library's contract run, checks every name it is
/// given before anything runs: an unknown one is [`Error::UnknownCase`] naming
/// it and the 19 cases, with no server started (the command here does not
/// exist) and no verdict given.
#[test]
fn the_library_contract_run_refuses_an_unknown_case_before_anything_runs() {
    use elicit_check::error::Error;
    use elicit_check::harness::Limits;
    use elicit_check::oracle::contract::Judging;
    use elicit_check::report::EvidenceLog;
    use elicit_check::run::{self, Settings};

    let dir = tempfile::tempdir().expect("a temporary folder");
    let log = EvidenceLog::create(dir.path()).expect("evidence folder");
    let settings = Settings::legacy(Limits::default(), Judging::EXACT);
    let command = vec!["/nonexistent/elicit-check-server".to_owned()];
    let mut verdicts = 0;
    let outcome = support::runtime().block_on(run::run_contract_in(
        &command,
        &["decline".to_owned(), "declined".to_owned()],
        &settings,
        &log,
        &mut |_| verdicts += 1,
    ));
    match outcome {
        Err(Error::UnknownCase { name, known }) => {
            assert_eq!(name, "declined");
            assert_eq!(known.len(), 19);
            assert_eq!(known[0], "accept_valid");
            assert!(known.contains(&"decline".to_owned()), "{known:?}");
        }
        other => panic!("expected the unknown case \"declined\", got {other:?}"),
    }
    assert_eq!(verdicts, 0);
}
