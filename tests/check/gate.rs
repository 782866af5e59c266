//! `check` as a CI gate on servers written with the MCP SDKs: each correct
//! server passes with no warning about a refused non-consenting accept, and
//! each variant with one planted defect fails exactly the property that
//! defect breaks, with default options. The coverage phase that finds them
//! takes no seed, so the seeds 1, 2 and 3 are spread over the variants; the
//! random phase after it must not hide what coverage found.
//!
//! Servers: `fixtures/servers/booking.py` and `fixtures/servers/confirm.py`
//! (MCP Python SDK 1.x, FastMCP), `fixtures/peers/typescript/refund.mjs`
//! (TypeScript SDK); each header lists its `--bug` variants.

use std::path::{Path, PathBuf};

use elicit_check::check::{self, CheckReport, PropertyVerdict, Target};
use elicit_check::evidence::HarnessFailure;
use elicit_check::report;
use serde_json::json;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The SDK environments (`scripts/peers.sh`, run once per test binary).
pub(super) fn environments() -> PathBuf {
    crate::peers::environments()
}

fn booking(bug: Option<&str>) -> Vec<String> {
    python("fixtures/servers/booking.py", bug)
}

fn confirm(bug: Option<&str>, report: &str) -> Vec<String> {
    let mut command = python("fixtures/servers/confirm.py", bug);
    command.extend(["--report".to_owned(), report.to_owned()]);
    command
}

fn python(script: &str, bug: Option<&str>) -> Vec<String> {
    let mut command = vec![
        environments()
            .join("python-sdk1/bin/python")
            .display()
            .to_string(),
        Path::new(ROOT).join(script).display().to_string(),
    ];
    if let Some(bug) = bug {
        command.extend(["--bug".to_owned(), bug.to_owned()]);
    }
    command
}

fn refund(bug: Option<&str>) -> Vec<String> {
    let mut command = vec![
        "node".to_owned(),
        environments().join("node/refund.mjs").display().to_string(),
    ];
    if let Some(bug) = bug {
        command.extend(["--bug".to_owned(), bug.to_owned()]);
    }
    command
}

/// Default options but the bounds, which a busy 2-core machine needs wider
/// for Python cold starts.
pub(super) fn gate(target: Target, seed: u64) -> CheckReport {
    let target = target.seed(seed).limits(elicit_check::harness::Limits {
        startup: std::time::Duration::from_secs(60),
        call: std::time::Duration::from_secs(30),
        shutdown: std::time::Duration::from_secs(10),
    });
    check::check(target).expect("the check runs")
}

/// Each `(bug, property)`: the variant fails that property and no other, the
/// seeds 1, 2 and 3 taken in turn.
fn each_variant_fails(
    target: &dyn Fn(Option<&'static str>) -> Target,
    variants: &[(&'static str, u8)],
) {
    for (index, &(bug, property)) in variants.iter().enumerate() {
        let report = gate(target(Some(bug)), 1 + index as u64 % 3);
        assert_eq!(
            crate::support::failing(&report),
            vec![property],
            "{bug}:\n{}",
            report::check::table(&report)
        );
    }
}

/// Every property holds, and no property-3 warning says a valid accept was refused.
pub(super) fn passes_with_no_refusal_warning(report: &CheckReport, what: &str) {
    assert!(report.passed, "{what}: {}", report::check::table(report));
    let acts = report.property(3).expect("property 3");
    assert!(
        acts.warnings.is_empty(),
        "{what}: {:?}\n{}",
        acts.warnings,
        report::check::table(report)
    );
}

#[test]
fn the_booking_form_fails_each_planted_defect_on_the_property_it_breaks() {
    let target = |bug| {
        Target::stdio(booking(bug))
            .tool("book")
            .acted_pointer("/booked")
    };
    let correct = gate(target(None), 1);
    passes_with_no_refusal_warning(&correct, "booking");
    each_variant_fails(
        &target,
        &[
            ("max-unchecked", 2),
            ("format-unchecked", 2),
            ("lenient-booleans", 2),
            ("lenient-numbers", 2),
            ("acts-on-decline-content", 1),
            ("accept-without-content", 2),
            ("no-capability-check", 4),
            ("books-without-asking", 7),
        ],
    );
}

/// A tool that books without asking a client that cannot answer forms fails
/// property 7; declared as its design (`--allow-unasked`), it passes with a
/// warning that says so, never silently.
#[test]
fn acting_without_asking_fails_property_7_unless_declared_fail_open() {
    let target = Target::stdio(booking(Some("books-without-asking")))
        .tool("book")
        .acted_pointer("/booked")
        .cases(10);
    let report = gate(target.clone(), 3);
    let failure = report
        .property(7)
        .and_then(|p| p.failure.as_ref())
        .expect("property 7 fails");
    assert_eq!(
        failure.reason,
        "acted without asking: no elicitation/create in the call (client capabilities {})"
    );
    let mut allowed = target;
    allowed.allow_unasked = true;
    let report = gate(allowed, 3);
    assert!(report.passed, "{}", report::check::table(&report));
    let seven = report.property(7).expect("property 7");
    assert_eq!(seven.cases, 2, "the two capability sessions");
    assert_eq!(
        seven.warnings,
        vec![
            "acted without a valid consenting answer (client capabilities {}): allowed by --allow-unasked, a declared fail-open design for clients that cannot answer a form",
            "acted without a valid consenting answer (client capabilities {\"elicitation\":{\"url\":{}}}): allowed by --allow-unasked, a declared fail-open design for clients that cannot answer a form",
        ]
    );
}

#[test]
fn the_booking_form_finds_every_lenient_number_class_with_its_count() {
    let report = gate(
        Target::stdio(booking(Some("lenient-numbers")))
            .tool("book")
            .acted_pointer("/booked"),
        2,
    );
    let classes: Vec<&str> = report
        .property(2)
        .expect("property 2")
        .findings
        .iter()
        .map(|finding| finding.answer_class.as_str())
        .collect();
    // The server coerces "3", "12", 3.5 and true for `nights` (and refuses
    // "NaN"): each class is listed, in the coverage phase's order.
    for class in [
        "accept: true for integer `nights`",
        "accept: \"3\" for integer `nights`",
        "accept: \"12\" for integer `nights`",
        "accept: 3.5 for integer `nights`",
    ] {
        assert!(classes.contains(&class), "{class} not in {classes:?}");
    }
    assert!(
        !classes.contains(&"accept: \"NaN\" for integer `nights`"),
        "{classes:?}"
    );
    let finding = &report.property(2).expect("property 2").findings[0];
    assert!(
        finding.acted >= 1 && finding.acted <= finding.of,
        "{finding:?}"
    );
}

#[test]
fn a_confirmation_form_names_its_consent_field_and_fails_each_planted_defect() {
    let target = |bug| {
        Target::stdio(confirm(bug, "flag"))
            .tool("delete_records")
            .acted_pointer("/deleted")
    };
    let correct = gate(target(None), 3);
    assert_eq!(
        correct.consent_fields,
        vec!["/confirm is a consent field: acts only when true"]
    );
    passes_with_no_refusal_warning(&correct, "confirm");
    each_variant_fails(
        &target,
        &[
            ("min-length-unchecked", 2),
            ("lenient-booleans", 2),
            ("acts-on-decline-content", 1),
            ("accept-without-content", 2),
            ("no-capability-check", 4),
        ],
    );
}

/// A tool that acts on `confirm: false` too acts on every valid accept: from
/// behaviour alone its `confirm` is no consent field, so no property fails;
/// the field's name reads as consent, so property 7 warns naming the option
/// that makes it one. Declared with `--consent`, acting on any other value
/// fails property 7 and nothing else, and the correct sibling passes. The
/// same for a consent asked as an enum (`answer`: "Yes" or "No").
#[test]
fn a_declared_consent_field_fails_property_7_when_the_tool_acts_on_another_value() {
    for (enum_form, declared, withheld, option) in [
        (
            false,
            "/confirm=true",
            "`confirm` is false, not true",
            "--consent '/confirm=true'",
        ),
        (
            true,
            "/answer=\"Yes\"",
            "`answer` is \"No\", not \"Yes\"",
            "--consent '/answer=\"Yes\"'",
        ),
    ] {
        let target = |bug| {
            let mut command = confirm(bug, "flag");
            if enum_form {
                command.push("--consent-enum".to_owned());
            }
            Target::stdio(command)
                .tool("delete_records")
                .acted_pointer("/deleted")
        };
        let consent = || {
            vec![
                elicit_check::oracle::consent::DeclaredConsent::parse(declared)
                    .expect("a well-formed --consent"),
            ]
        };

        let undeclared = gate(target(Some("acts-on-false")), 1);
        assert!(undeclared.passed, "{}", report::check::table(&undeclared));
        assert!(
            undeclared.consent_fields.is_empty(),
            "{:?}",
            undeclared.consent_fields
        );
        let warnings = &undeclared.property(7).expect("property 7").warnings;
        assert!(
            warnings.iter().any(|warning| warning.contains(option)),
            "{declared}: {warnings:?}"
        );

        let mut lax = target(Some("acts-on-false"));
        lax.consent = consent();
        let lax = gate(lax, 2);
        assert_eq!(
            crate::support::failing(&lax),
            vec![7],
            "{declared}:\n{}",
            report::check::table(&lax)
        );
        let reason = &lax
            .property(7)
            .expect("7")
            .failure
            .as_ref()
            .expect("failure")
            .reason;
        assert!(
            reason.contains(&format!(
                "acted on a valid accept that did not consent: {withheld}"
            )),
            "{reason}"
        );

        let mut correct = target(None);
        correct.consent = consent();
        let correct = gate(correct, 3);
        passes_with_no_refusal_warning(&correct, declared);
        let field = declared.split('=').next().expect("a pointer");
        assert_eq!(
            correct.consent_fields,
            vec![format!(
                "{field} is the consent field declared with --consent: acts only when {}",
                &declared[field.len() + 1..]
            )]
        );
    }
}

#[test]
fn a_replay_of_a_non_consenting_accept_never_fails_property_3() {
    let mut target = Target::stdio(confirm(None, "flag"))
        .tool("delete_records")
        .acted_pointer("/deleted");
    target.replay =
        vec![json!({"action": "accept", "content": {"confirm": false, "reason": "tidy up"}})];
    let report = gate(target, 1);
    assert!(report.passed, "{}", report::check::table(&report));
    assert_ne!(
        report.property(3).expect("3").verdict,
        PropertyVerdict::Fails
    );
}

#[test]
fn acting_reported_as_dry_run_false_as_an_error_text_or_as_a_file_deleted_is_read() {
    // `/dry_run=false`: acting is a false value.
    let dry = |bug| {
        Target::stdio(confirm(bug, "dry-run"))
            .tool("delete_records")
            .acted_equals("/dry_run", json!(false))
    };
    let report = gate(dry(None), 1);
    passes_with_no_refusal_warning(&report, "dry-run");
    assert_eq!(
        crate::support::failing(&gate(dry(Some("lenient-booleans")), 2)),
        vec![2]
    );

    // An isError result whose text says it acted.
    let text = |bug| {
        Target::stdio(confirm(bug, "error-text"))
            .tool("delete_records")
            .acted_text(regex::Regex::new("confirmed, now deleting").expect("regex"))
    };
    let report = gate(text(None), 1);
    assert!(report.passed, "{}", report::check::table(&report));
    assert!(report.property(3).expect("3").cases > 0);
    assert_eq!(
        crate::support::failing(&gate(text(Some("acts-on-decline-content")), 3)),
        vec![1]
    );

    // A file deleted: restored before each case by --setup, read by --acted-cmd.
    let dir = std::env::temp_dir().join(format!("elicit-check-gate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = |bug| {
        Target::stdio(confirm(bug, "file"))
            .tool("delete_records")
            .cwd(&dir)
            .setup("touch victim.txt")
            .acted_command("test ! -e victim.txt")
    };
    let report = gate(file(None), 1);
    assert!(report.passed, "{}", report::check::table(&report));
    assert!(
        report.consent_fields.len() == 1,
        "{:?}",
        report.consent_fields
    );
    assert_eq!(
        crate::support::failing(&gate(file(Some("min-length-unchecked")), 2)),
        vec![2]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrong_acted_pointer_is_a_configuration_error_naming_the_reply() {
    let target = Target::stdio(confirm(None, "flag"))
        .tool("delete_records")
        .acted_pointer("/scheduled");
    let error = check::check(target).expect_err("exit 2");
    let message = error.to_string();
    assert!(
        message.starts_with(
            "--acted /scheduled cannot be read from the tool's reply to the answer {\"action\":\"accept\",\"content\":{\"confirm\":true,\"reason\":\"aaaaa\"}}: no value at /scheduled"
        ),
        "{message}"
    );
    assert!(message.contains("\"deleted\":true"), "{message}");
}

#[test]
fn the_typescript_refund_form_fails_each_planted_defect() {
    crate::support::require_program("node", "the TypeScript SDK peer needs node");
    let target = |bug| {
        Target::stdio(refund(bug))
            .tool("refund")
            .acted_pointer("/refunded")
    };
    let correct = gate(target(None), 2);
    passes_with_no_refusal_warning(&correct, "refund");
    each_variant_fails(
        &target,
        &[
            ("max-unchecked", 2),
            ("lenient-numbers", 2),
            ("acts-on-decline-content", 1),
            ("accept-without-content", 2),
            ("no-capability-check", 4),
        ],
    );
}

/// The command line gives the same hooks as the library: `--cwd`, `--setup`,
/// `--acted-cmd` and `--env` (the server sees it), and a failure's
/// reproduction line repeats them; malformed ones exit 2 before anything runs.
#[test]
fn the_hooks_and_the_environment_from_the_command_line() {
    let dir = std::env::temp_dir().join(format!("elicit-check-cli-hooks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let dir_text = dir.display().to_string();
    let mut server = confirm(Some("acts-on-decline-content"), "file");
    let script = server[1].clone();
    server.truncate(1);
    // The server is started through `sh -c` so that it can check the variable.
    server = vec![
        "sh".to_owned(),
        "-c".to_owned(),
        format!(
            "test \"$GATE_MODE\" = ci && exec '{}' '{script}' --bug acts-on-decline-content --report file",
            server[0]
        ),
    ];
    let mut args: Vec<String> = [
        "--tool",
        "delete_records",
        "--cwd",
        &dir_text,
        "--setup",
        "touch victim.txt",
        "--acted-cmd",
        "test ! -e victim.txt",
        "--env",
        "GATE_MODE=ci",
        "--seed",
        "2",
        "--cases",
        "5",
        "--json",
        "--",
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend(server);
    let output = crate::support::elicit_check("check", &args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    // confirm.py speaks 2025-11-25 only: --protocol auto checked that era alone.
    assert_eq!(document["eras"][0]["protocol"], "2025-11-25", "{document}");
    assert_eq!(document["eras"][1]["checked"], false, "{document}");
    let report = &document["eras"][0]["report"];
    let failure = &report["properties"][0]["failure"];
    assert_eq!(
        failure["reason"], "acted although the answer was decline",
        "{report}"
    );
    let reproduce = failure["reproduce"].as_str().expect("a line");
    for part in [
        " --acted-cmd 'test ! -e victim.txt'",
        " --setup 'touch victim.txt'",
        " --env 'GATE_MODE=ci'",
        &format!(" --cwd {dir_text}"),
        // The era it failed in, so the line does not run the other one.
        " --protocol 2025-11-25 ",
    ] {
        assert!(reproduce.contains(part), "{part} not in {reproduce}");
    }
    let _ = std::fs::remove_dir_all(&dir);

    for (bad, said) in [
        (
            vec!["--env", "NOEQUALS"],
            "--env \"NOEQUALS\" is not KEY=VALUE",
        ),
        (
            vec!["--cwd", "/nonexistent/elicit-check"],
            "--cwd /nonexistent/elicit-check: no such folder",
        ),
        (
            vec!["--acted", "/a=yes"],
            "--acted \"/a=yes\": \"yes\" after `=` is not JSON",
        ),
        (
            vec!["--protocol", "2024-11-05"],
            "invalid value '2024-11-05' for '--protocol <ERA>'",
        ),
    ] {
        let mut args = vec!["--tool", "delete_records"];
        if !bad.contains(&"--acted") {
            args.extend(["--acted", "/deleted"]);
        }
        args.extend(bad);
        args.extend(["--", "python3", "-c", "pass"]);
        let output = crate::support::elicit_check("check", &args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(said), "{said} not in {stderr}");
    }
}

/// `fixtures/servers/mrtr_booking.py` (plain Python) on protocol 2026-07-28.
fn mrtr_booking(bug: Option<&str>) -> Vec<String> {
    let mut command = vec![
        crate::support::python3().to_owned(),
        Path::new(ROOT)
            .join("fixtures/servers/mrtr_booking.py")
            .display()
            .to_string(),
    ];
    if let Some(bug) = bug {
        command.extend(["--bug".to_owned(), bug.to_owned()]);
    }
    command
}

/// `check --protocol 2026-07-28`: the answers go into each retry's
/// `inputResponses`, the `requestState` back as received, the capabilities in
/// each request's `_meta`; the properties mean the same as in 2025-11-25.
#[test]
fn in_2026_07_28_each_planted_defect_fails_its_property_and_the_era_is_in_the_reproduction() {
    use elicit_check::harness::era::Protocol;
    let target = |bug| {
        Target::stdio(mrtr_booking(bug))
            .tool("book")
            .acted_pointer("/booked")
            .protocol(Protocol::V2026_07_28)
    };
    let correct = gate(target(None), 1);
    assert_eq!(correct.protocol, "2026-07-28");
    assert!(correct.coverage_cases > 0);
    assert_eq!(
        correct.consent_fields,
        vec!["/confirm is a consent field: acts only when true"]
    );
    passes_with_no_refusal_warning(&correct, "mrtr booking");
    // Property 8: the tampered, foreign and missing states were each refused
    // (-32602); the server ends a call at its decline, so that form has no
    // opening, and the report says so.
    let state = correct.property(8).expect("property 8");
    assert_eq!(state.cases, 3, "{}", report::check::table(&correct));
    assert_eq!(
        state.warnings,
        vec![
            "the requestState it sent after a decline, with a consenting accept: not tried (the server ended the call at the decline)"
        ]
    );
    for (index, (bug, property)) in [
        ("trusts-state", 8),
        // Books on a retry that carries no answer to its input request.
        ("books-when-unanswered", 7),
        ("lenient-booleans", 2),
        ("acts-without-asking", 7),
        ("acts-on-decline-content", 1),
        // Never asks in 2026-07-28 and always books: acting without an answer.
        ("never-asks-2026", 7),
    ]
    .into_iter()
    .enumerate()
    {
        let report = gate(target(Some(bug)), 1 + index as u64 % 3);
        assert_eq!(
            crate::support::failing(&report),
            vec![property],
            "{bug}:\n{}",
            report::check::table(&report)
        );
        let failure = report
            .property(property)
            .and_then(|p| p.failure.as_ref())
            .expect("a failure");
        assert!(
            failure.reproduce.contains(" --protocol 2026-07-28 "),
            "{}",
            failure.reproduce
        );
        if bug == "books-when-unanswered" {
            assert_eq!(
                failure.reason,
                "acted although its input request was never answered: a retry with the requestState but no inputResponses"
            );
        }
        if bug == "trusts-state" {
            let accepted: Vec<&str> = report
                .property(8)
                .expect("property 8")
                .findings
                .iter()
                .map(|finding| finding.answer_class.as_str())
                .collect();
            assert_eq!(
                accepted,
                vec![
                    "a tampered requestState (one character changed)",
                    "the requestState of another call (other arguments)",
                    "inputResponses with no requestState",
                ]
            );
            assert_eq!(
                failure.reason,
                "acted on a tampered requestState (one character changed)"
            );
            assert!(
                !failure.reproduce.contains("--answer"),
                "{}",
                failure.reproduce
            );
        }
    }
    // A server that goes on after a decline and books on the next accept: the
    // call acted although an answer was decline (1), on the state it sent
    // after the decline (8).
    let continues = gate(target(Some("asks-again-after-decline")), 2);
    assert_eq!(
        crate::support::failing(&continues),
        vec![1, 8],
        "{}",
        report::check::table(&continues)
    );
    assert_eq!(
        continues
            .property(8)
            .and_then(|p| p.failure.as_ref())
            .map(|f| f.reason.as_str()),
        Some("acted on the requestState it sent after a decline, with a consenting accept")
    );
    // A server that checks its state's MAC but not which call it belongs to:
    // only the state of another call (a real one, not an empty or made-up
    // string, which no MAC opens) shows it.
    let unbound = gate(target(Some("state-not-bound-to-call")), 1);
    assert_eq!(
        crate::support::failing(&unbound),
        vec![8],
        "{}",
        report::check::table(&unbound)
    );
    let state = unbound.property(8).expect("property 8");
    let accepted: Vec<&str> = state
        .findings
        .iter()
        .map(|finding| finding.answer_class.as_str())
        .collect();
    assert_eq!(
        accepted,
        vec!["the requestState of another call (other arguments)"]
    );
    // A server that keeps no state sends none: property 8 has nothing to test,
    // and says so, form by form.
    let mut stateless = mrtr_booking(None);
    stateless.push("--stateless".to_owned());
    let stateless = gate(
        Target::stdio(stateless)
            .tool("book")
            .acted_pointer("/booked")
            .protocol(Protocol::V2026_07_28),
        3,
    );
    passes_with_no_refusal_warning(&stateless, "stateless mrtr booking");
    let state = stateless.property(8).expect("property 8");
    assert_eq!(
        (state.verdict, state.cases),
        (PropertyVerdict::Untested, 0),
        "{}",
        report::check::table(&stateless)
    );
    assert_eq!(
        state.warnings,
        vec![
            "a tampered requestState (one character changed): not tried (the server sent no requestState)",
            "the requestState of another call (other arguments): not tried (a call with other arguments got no requestState)",
            "inputResponses with no requestState: not tried (the server sent no requestState)",
            "the requestState it sent after a decline, with a consenting accept: not tried (the server ended the call at the decline)",
        ]
    );
    // The same server in 2025-11-25 asks with elicitation/create, and is right.
    let asks_in_2025 = gate(
        target(Some("never-asks-2026")).protocol(Protocol::V2025_11_25),
        2,
    );
    assert!(
        asks_in_2025.passed,
        "{}",
        report::check::table(&asks_in_2025)
    );
    assert_eq!(asks_in_2025.protocol, "2025-11-25");
}

#[test]
fn the_reference_server_passes_every_property_in_2026_07_28() {
    let report = gate(
        Target::stdio(crate::support::reference_server())
            .tool("calculate")
            .acted_pointer("/computed")
            .protocol(elicit_check::harness::era::Protocol::V2026_07_28),
        3,
    );
    assert!(report.passed, "{}", report::check::table(&report));
    assert!(
        report
            .properties
            .iter()
            .all(|property| property.verdict == PropertyVerdict::Holds),
        "{}",
        report::check::table(&report)
    );
}

/// `--protocol auto` (the default) checks every era the server answers, each
/// with its own verdicts; `both` requires both. The 2026-07-28 booking server
/// refuses `book` in 2025-11-25 with an error naming elicitation (-32603
/// "this tool elicits only in 2026-07-28", nothing asked): the tool cannot be
/// confirmed there, a warning under auto and a failure when the era is asked
/// for. With `--bug never-asks-2026` it asks correctly in 2025-11-25 and books
/// without asking in 2026-07-28.
#[test]
fn auto_checks_each_era_the_server_answers_and_fails_only_the_era_that_breaks() {
    let evidence = std::env::temp_dir().join(format!("elicit-check-eras-{}", std::process::id()));
    // The sessions of each run, as `cases.jsonl` labels them.
    let labels = || -> Vec<String> {
        std::fs::read_to_string(evidence.join("cases.jsonl"))
            .expect("cases.jsonl")
            .lines()
            .map(|line| {
                let record: serde_json::Value = serde_json::from_str(line).expect("JSON");
                record["case"].as_str().expect("a label").to_owned()
            })
            .collect()
    };
    let run = |bug: Option<&str>, protocol: Option<&str>| {
        let mut args: Vec<String> = [
            "--tool", "book", "--acted", "/booked", "--cases", "5", "--seed", "1",
        ]
        .map(str::to_owned)
        .to_vec();
        args.extend(["--output".to_owned(), evidence.display().to_string()]);
        if let Some(protocol) = protocol {
            args.extend(["--protocol".to_owned(), protocol.to_owned()]);
        }
        args.push("--".to_owned());
        args.extend(mrtr_booking(bug));
        let output = crate::support::elicit_check("check", &args);
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };

    let (code, table, stderr) = run(Some("never-asks-2026"), None);
    assert_eq!(code, Some(1), "{table}\n{stderr}");
    let sections: Vec<&str> = table.split("== protocol ").skip(1).collect();
    assert_eq!(sections.len(), 2, "{table}");
    assert!(
        sections[0].starts_with("2025-11-25 (the server answers in this era)"),
        "{table}"
    );
    assert!(sections[0].contains("every property holds"), "{table}");
    assert!(
        sections[1].starts_with("2026-07-28 (the server answers in this era)"),
        "{table}"
    );
    assert!(sections[1].contains("FAILED: property 7\n"), "{table}");
    assert!(
        sections[1].contains("reproduce: ") && sections[1].contains(" --protocol 2026-07-28 "),
        "{table}"
    );
    assert!(
        table.ends_with("FAILED in protocol 2026-07-28\n"),
        "{table}"
    );
    // Two eras: each session's label names its era.
    let both = labels();
    assert!(
        both.iter()
            .any(|label| label.starts_with("2025-11-25: probe")),
        "{both:?}"
    );
    assert!(
        both.iter()
            .any(|label| label.starts_with("2026-07-28: probe")),
        "{both:?}"
    );
    assert!(
        both.iter()
            .all(|label| label.starts_with("2025-11-25: ") || label.starts_with("2026-07-28: ")),
        "{both:?}"
    );

    // One era: the labels as they are.
    let (code, table, stderr) = run(Some("never-asks-2026"), Some("2026-07-28"));
    assert_eq!(code, Some(1), "{table}\n{stderr}");
    let one = labels();
    assert!(
        one.iter().any(|label| label.starts_with("probe")),
        "{one:?}"
    );
    assert!(
        one.iter().all(|label| !label.starts_with("2026-07-28: ")),
        "{one:?}"
    );

    let (code, table, stderr) = run(None, None);
    assert_eq!(code, Some(0), "{table}\n{stderr}");
    // A hand-written server: no SDK's marks, said first.
    let (sdk, table) = table.split_once('\n').unwrap_or_default();
    assert!(
        sdk.starts_with("server SDK: not told (no SDK's marks; serverInfo {"),
        "{sdk}"
    );
    // The tool answers in 2025-11-25 with an error naming elicitation: it
    // cannot be confirmed there. Under auto, with another era checked, that
    // is a warning of its own, not "not checked".
    assert!(
        table.starts_with(
            "== protocol 2025-11-25: warning: the tool cannot be confirmed in 2025-11-25: tools/call \"book\" sent no form elicitation/create to a client declaring form elicitation, and acted on nothing (its reply names elicitation); its reply: {\"error\":{\"code\":-32603,\"message\":\"this tool elicits only in 2026-07-28\"}}\n"
        ),
        "{table}"
    );
    assert!(
        table.ends_with("every property holds in protocol 2026-07-28\n"),
        "{table}"
    );
    let document: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(evidence.join("check.json")).expect("check.json"),
    )
    .expect("JSON");
    assert_eq!(document["eras"][0]["status"], "cannot_confirm");
    assert_eq!(document["eras"][0]["fails"], false);
    assert_eq!(document["outcome"], "passed");

    // `both` requires both eras: a tool that cannot be confirmed in one fails (exit 1).
    let (code, table, stderr) = run(None, Some("both"));
    assert_eq!(code, Some(1), "{table}\n{stderr}");
    assert!(
        table.starts_with("server SDK: not told (")
            && table.contains(
                "\n== protocol 2025-11-25: FAILS: the tool cannot be confirmed in 2025-11-25: "
            ),
        "{table}"
    );
    assert!(
        table.ends_with("FAILED in protocol 2025-11-25\n"),
        "{table}"
    );
    // The reason is said once.
    assert_eq!(
        table.matches("sent no form elicitation/create").count(),
        1,
        "{table}"
    );
    // One era named: the finding fails it too.
    let (code, table, stderr) = run(None, Some("2025-11-25"));
    assert_eq!(code, Some(1), "{table}\n{stderr}");
    // No era checked: no SDK line.
    assert!(
        table.starts_with(
            "== protocol 2025-11-25: FAILS: the tool cannot be confirmed in 2025-11-25: "
        ),
        "{table}"
    );
    let _ = std::fs::remove_dir_all(&evidence);
}

/// The MCP SDK v2 peers, each asking its form the way its SDK intends in
/// 2026-07-28 (an `InputRequiredResult`, the SDK sealing `requestState`):
/// `fixtures/peers/python_sdk2_mrtr.py` (Python `mcp` 2.3.0, `MCPServer`) and
/// `fixtures/peers/typescript-v2/booking.mjs` (`@modelcontextprotocol/server`
/// 2.4.0). Each correct variant passes every property; each naive one (only
/// `action == "accept"` checked, lax reading) fails property 2, and the Python
/// one also 4 (no capability guard) and 8 (it never reads the state, so a retry
/// without one books). The TypeScript SDK refuses, on its own, to send a form
/// to a client that did not declare it (-32021), and its strict empty input
/// schema refuses the other arguments a foreign state needs: property 8 has
/// two forms there, three on Python.
#[test]
fn the_sdk_v2_peers_are_judged_in_2026_07_28() {
    use elicit_check::harness::era::Protocol;
    let python = |variant: &str| {
        vec![
            environments()
                .join("python-sdk2/bin/python")
                .display()
                .to_string(),
            Path::new(ROOT)
                .join("fixtures/peers/python_sdk2_mrtr.py")
                .display()
                .to_string(),
            "--variant".to_owned(),
            variant.to_owned(),
        ]
    };
    let typescript = |variant: &str| {
        vec![
            "node".to_owned(),
            environments()
                .join("node-v2/booking.mjs")
                .display()
                .to_string(),
            "--variant".to_owned(),
            variant.to_owned(),
        ]
    };
    type Command = Box<dyn Fn(&str) -> Vec<String>>;
    let peers: [(&str, Command, usize, Vec<u8>); 2] = [
        ("python mcp 2.3.0", Box::new(python), 3, vec![2, 4, 8]),
        ("typescript server 2.4.0", Box::new(typescript), 2, vec![2]),
    ];
    for (index, (peer, command, state_forms, naive_fails)) in peers.into_iter().enumerate() {
        let target = |variant: &str| {
            Target::stdio(command(variant))
                .tool("book")
                .acted_pointer("/booked")
                .protocol(Protocol::V2026_07_28)
                .cases(20)
        };
        let correct = gate(target("correct"), 1 + index as u64);
        passes_with_no_refusal_warning(&correct, peer);
        assert_eq!(
            correct.property(8).expect("property 8").cases,
            state_forms,
            "{peer}: {}",
            report::check::table(&correct)
        );
        let naive = gate(target("naive"), 2 + index as u64);
        assert_eq!(
            crate::support::failing(&naive),
            naive_fails,
            "{peer}: {}",
            report::check::table(&naive)
        );
    }
}

/// MCP 2026-07-28's retry loop has no end of its own: a client bounds the
/// rounds of one call. Against a server that asks again on every retry, the
/// `check` driver stops after `DRIVER_MAX_ROUNDS` `tools/call` requests and
/// says so, and a retry form (properties 7 and 8) ends at the first new input
/// request instead of answering it.
#[tokio::test]
async fn the_rounds_of_one_call_are_bounded_against_a_server_that_never_decides() {
    use std::sync::Arc;

    use elicit_check::case::Answer;
    use elicit_check::harness::child::Environment;
    use elicit_check::harness::mrtr::DRIVER_MAX_ROUNDS;
    use elicit_check::harness::proxy::{Responder, Side};
    use elicit_check::harness::rounds::RetryFault;
    use elicit_check::harness::{Limits, Session};

    let command = mrtr_booking(Some("asks-forever"));
    let capabilities = json!({"elicitation": {"form": {}}});
    let mut session = Session::open_discover(
        &command,
        &Environment::default(),
        &elicit_check::harness::Transport::Stdio,
        &capabilities,
        Limits::default(),
    )
    .await
    .expect("the server starts");
    assert_eq!(session.startup_error(), None);
    let responder: Responder = Arc::new(|_| {
        Answer::Result(json!({"action": "accept", "content": {"nights": 1, "confirm": true}}))
    });
    let calls = |frames: &[elicit_check::harness::proxy::Frame]| {
        frames
            .iter()
            .filter(|frame| frame.from == Side::Client && frame.message["method"] == "tools/call")
            .count()
    };
    let call = session.call_tool_rounds("book", None, &responder).await;
    assert_eq!(DRIVER_MAX_ROUNDS, 6);
    assert_eq!(
        call.failure,
        Some(HarnessFailure::StillInputRequired { requests: 6 })
    );
    assert_eq!(
        call.failure.map(|failure| failure.to_string()).as_deref(),
        Some("the server still answered input_required after 6 tools/call requests")
    );
    assert_eq!(calls(&call.frames), 6);
    let retried = session
        .call_tool_retried(
            "book",
            None,
            &responder,
            Some(&RetryFault::WithoutResponses),
        )
        .await;
    assert_eq!(retried.failure, None);
    assert_eq!(calls(&retried.frames), 2);
    assert_eq!(
        retried.result.as_ref().map(|result| &result["resultType"]),
        Some(&json!("input_required"))
    );
    session.finish().await;
}
