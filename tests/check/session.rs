//! `elicit-check check` in session mode (the default): the cases run in one
//! server process, a case that breaks a property no fresh run has shown yet is
//! re-run in a fresh process, and the report is the one `--fresh` gives, on
//! the reference server, the MCP Python SDK 1.x peer and broken servers.

use std::path::Path;

use elicit_check::check::{self, CaseRecord, CheckReport, PropertyFailure, Target};
use elicit_check::peers::PEERS;
use elicit_check::report;
use serde_json::{Value, json};

use crate::support;

/// The check of `target` in both modes: (fresh-process report and its case
/// records, session report and its case records).
fn both_modes(target: &Target) -> [(CheckReport, Vec<CaseRecord>); 2] {
    [false, true].map(|session| logged(&target.clone().session(session)))
}

/// The check of `target` and the record of every session it ran.
fn logged(target: &Target) -> (CheckReport, Vec<CaseRecord>) {
    let runtime = support::runtime();
    let mut records = Vec::new();
    let report = runtime
        .block_on(check::check_with_log(target, &mut |record| {
            records.push(record)
        }))
        .expect("the check runs");
    (report, records)
}

/// What the two modes must agree on: each property's verdict, the calls it
/// applied to, its warnings, and its minimal failure (reason, case, answers).
fn judged(report: &CheckReport) -> Vec<Value> {
    report
        .properties
        .iter()
        .map(|property| {
            json!({
                "property": property.property,
                "verdict": property.verdict,
                "cases": property.cases,
                "warnings": property.warnings,
                "failure": property.failure.as_ref().map(|failure| json!({
                    "reason": failure.reason,
                    "case_index": failure.case_index,
                    "answers": failure.answers,
                    "shrink_runs": failure.shrink_runs,
                })),
            })
        })
        .collect()
}

/// The `id` of the `tools/call` request in each `case N` record, in order.
fn call_ids(records: &[CaseRecord]) -> Vec<Value> {
    call_ids_of(records, &["case "])
}

/// The labels of the planned cases' records start with one of these.
const PLANNED: [&str; 2] = ["coverage ", "case "];

/// The same for every planned case: each `coverage N` and `case N` record.
fn planned_call_ids(records: &[CaseRecord]) -> Vec<Value> {
    call_ids_of(records, &PLANNED)
}

/// The `id` of the `tools/call` request in each record whose label starts
/// with one of `prefixes`, in order.
fn call_ids_of(records: &[CaseRecord], prefixes: &[&str]) -> Vec<Value> {
    records
        .iter()
        .filter(|record| {
            prefixes
                .iter()
                .any(|prefix| record.case.starts_with(prefix))
        })
        .map(|record| {
            let calls: Vec<&Value> = record
                .wire
                .iter()
                .filter(|frame| frame.message["method"] == "tools/call")
                .map(|frame| &frame.message["id"])
                .collect();
            assert_eq!(calls.len(), 1, "{}: one tools/call", record.case);
            assert_eq!(
                record.wire[0].message["method"], "initialize",
                "{}: the wire starts with the handshake",
                record.case
            );
            calls[0].clone()
        })
        .collect()
}

/// `calculator.py` with `options` (`--bug NAME` or its other options),
/// checked on `calculate` with the acted pointer `/computed`, `cases` random
/// cases and seed 3.
fn calculator_target(options: &[&str], cases: usize) -> Target {
    support::require_program("python3", "the plain Python peer server needs python3");
    let mut command = support::calculator(None);
    command.extend(options.iter().map(|option| (*option).to_owned()));
    Target::stdio(command)
        .tool("calculate")
        .acted_pointer("/computed")
        .cases(cases)
        .seed(3)
}

#[test]
fn check_session_gives_the_fresh_report_on_the_reference_server_in_one_process() {
    let target = Target::stdio(support::reference_server())
        .tool("calculate")
        .acted_pointer("/computed")
        .cases(24)
        .seed(7);
    let [(fresh, fresh_records), (session, session_records)] = both_modes(&target);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(support::failing(&session), Vec::<u8>::new());
    assert_eq!(judged(&session), judged(&fresh));
    // Fresh: every case is a new process, so every tools/call has the same id.
    // Session: one process, so the 24 calls carry 24 different ids.
    let fresh_ids = call_ids(&fresh_records);
    assert_eq!(fresh_ids.len(), 24);
    assert!(
        fresh_ids.iter().all(|id| *id == fresh_ids[0]),
        "{fresh_ids:?}"
    );
    let mut session_ids = call_ids(&session_records);
    assert_eq!(session_ids.len(), 24);
    session_ids.dedup();
    assert_eq!(session_ids.len(), 24, "{session_ids:?}");
    // The coverage cases too, the probe's consenting answer (coverage 0)
    // first: every planned case is a later call of the one session.
    let planned = planned_call_ids(&session_records);
    assert!(planned.len() > 24, "{planned:?}");
    let mut distinct = planned.clone();
    distinct.sort_by_key(Value::to_string);
    distinct.dedup();
    assert_eq!(distinct.len(), planned.len(), "{planned:?}");
}

#[test]
fn check_session_gives_the_fresh_report_on_broken_servers_from_fresh_reruns() {
    support::require_program("python3", "the plain Python peer server needs python3");
    for (bug, property, reason) in [
        (
            "computes-on-decline",
            1,
            "acted although the answer was decline",
        ),
        (
            "stdout-noise",
            5,
            r#"is not a JSON-RPC message: "calculating...""#,
        ),
    ] {
        let target = Target::stdio(support::calculator(Some(bug)))
            .tool("calculate")
            .acted_pointer("/computed")
            .cases(12)
            .seed(3)
            .max_shrink_runs(20);
        let [(fresh, fresh_records), (session, session_records)] = both_modes(&target);
        assert!(
            support::failing(&fresh).contains(&property),
            "{bug}: {}",
            report::check::table(&fresh)
        );
        let failure = session
            .property(property)
            .and_then(|p| p.failure.as_ref())
            .expect("fails in session mode too");
        assert!(failure.reason.contains(reason), "{bug}: {}", failure.reason);
        assert_eq!(judged(&session), judged(&fresh), "{bug}");
        // The fresh re-runs keep every break the sessions showed: no
        // session-only break, no state that hid one, nothing to note.
        assert_eq!(session.health.notes, Vec::<String>::new(), "{bug}");
        // The first decline that breaks property 1 ends its session and is
        // re-run fresh, confirming it; later declines that break it keep
        // their session runs: the calls that were the first of a process are
        // the first session's, that re-run's and the next session's.
        let first = &call_ids(&fresh_records)[0];
        let firsts = planned_call_ids(&session_records)
            .iter()
            .filter(|id| *id == first)
            .count();
        if bug == "computes-on-decline" {
            assert_eq!(firsts, 3, "{bug}: {:?}", planned_call_ids(&session_records));
        }
        if bug == "stdout-noise" {
            // Every case prints a stray line. Property 5 was shown broken by a
            // fresh run (the probe's), so the session goes on: later cases keep
            // their session runs, each call a later one of the same process.
            let ids = call_ids(&session_records);
            let mut distinct = ids.clone();
            distinct.dedup();
            assert_eq!(distinct.len(), ids.len(), "{bug}: {ids:?}");
        }
    }
}

#[test]
fn check_session_gives_the_fresh_report_on_the_python_sdk_peer() {
    let environments = crate::peers::environments();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let command = PEERS
        .iter()
        .find(|peer| peer.name() == "python-sdk1-correct")
        .expect("a listed peer")
        .command(root, &environments);
    let target = Target::stdio(command)
        .tool("calculate")
        .acted_pointer("/computed")
        .cases(3)
        .seed(5)
        .limits(elicit_check::harness::Limits {
            startup: std::time::Duration::from_secs(60),
            call: std::time::Duration::from_secs(60),
            shutdown: std::time::Duration::from_secs(10),
        });
    let [(fresh, _), (session, session_records)] = both_modes(&target);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(judged(&session), judged(&fresh));
    let mut ids = call_ids(&session_records);
    ids.dedup();
    assert_eq!(ids.len(), 3, "one process for the 3 cases: {ids:?}");
}

/// `-j N` runs fresh processes at once and changes nothing else: the same
/// records in the same order, the same report, on the reference server in
/// 2026-07-28 (fresh cases, then the retries).
#[test]
fn jobs_run_fresh_processes_at_once_and_change_nothing_but_the_time() {
    let target = Target::stdio(support::reference_server())
        .tool("calculate")
        .acted_pointer("/computed")
        .protocol(elicit_check::harness::era::Protocol::V2026_07_28)
        .cases(12)
        .seed(5)
        .session(false);
    {
        let [(one, one_records), (three, three_records)] =
            [1, 3].map(|jobs| logged(&target.clone().jobs(jobs)));
        assert!(one.passed, "{}", report::check::table(&one));
        assert_eq!(judged(&one), judged(&three));
        let labels = |records: &[CaseRecord]| -> Vec<(String, Value)> {
            records
                .iter()
                .map(|record| {
                    (
                        record.case.clone(),
                        serde_json::to_value(&record.sent).expect("json"),
                    )
                })
                .collect()
        };
        assert_eq!(labels(&one_records), labels(&three_records));
        assert!(
            one_records
                .iter()
                .any(|record| record.case.starts_with("retry: ")),
            "the 2026-07-28 retries ran"
        );
    }
}

/// The check of `target` in both modes: `--fresh` passes, session mode fails
/// `property` alone: the session's report, its records and the property's
/// failure.
fn fails_in_session_only(
    target: &Target,
    property: u8,
) -> (CheckReport, Vec<CaseRecord>, PropertyFailure) {
    let [(fresh, _), (session, records)] = both_modes(target);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(
        support::failing(&session),
        vec![property],
        "{}",
        report::check::table(&session)
    );
    let failure = session
        .property(property)
        .and_then(|verdict| verdict.failure.clone())
        .expect("the property's failure");
    (session, records, failure)
}

/// An act that no earlier call can make right is judged where it was seen: a
/// server whose earlier calls change how it answers (`remembers-consent`:
/// once it has computed, it reads the fields after a decline too) acts on a
/// decline only in a session, after the session's own accepts. An accept
/// authorizes nothing beyond its own request, so the session run fails
/// property 1 though its fresh run keeps it: the reason counts the calls the
/// process served before, the answer is that call's decline, and the
/// reproduction is the check again with its seed and its count of random
/// cases (12, not the default). `--fresh` cannot see it.
#[test]
fn an_act_on_a_decline_that_only_earlier_calls_of_the_session_cause_fails_property_1() {
    let (session, session_records, failure) =
        fails_in_session_only(&calculator_target(&["--bug", "remembers-consent"], 12), 1);
    // No fresh process acts on a decline: the failing call came after
    // others, and it says how many.
    let served = failure
        .reason
        .strip_prefix("acted although the answer was decline, after ")
        .and_then(|rest| {
            rest.strip_suffix(
                " earlier calls of the same server process (run again alone in a fresh process, it kept property 1)",
            )
        })
        .and_then(|count| count.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("{}", failure.reason));
    assert!(served >= 1, "{}", failure.reason);
    assert_eq!(failure.shrink_runs, 0, "not shrunk");
    assert_eq!(failure.answers.len(), 1, "{:?}", failure.answers);
    assert_eq!(failure.answers[0]["action"], json!("decline"));
    assert!(
        failure.reproduce.contains(" --seed 3 --cases 12 -- ")
            && !failure.reproduce.contains("--answer"),
        "{}",
        failure.reproduce
    );
    assert_eq!(failure.reproduce_seed, None);
    // The failing call is a later call of its process: its tools/call id
    // is past the ids of the calls before it (ids start at 0).
    let call_ids: Vec<u64> = failure
        .wire
        .iter()
        .filter(|frame| frame.message["method"] == "tools/call")
        .filter_map(|frame| frame.message["id"].as_u64())
        .collect();
    assert_eq!(call_ids, vec![served as u64 + 1]);
    // The evidence keeps the session run that was judged (no fresh run acts
    // on a decline).
    assert!(
        session_records.iter().any(|record| record.violations
            == vec!["property 1: acted although the answer was decline".to_owned()]),
        "no record of the session run"
    );
    // Judged, not merely noted.
    assert!(
        !session
            .health
            .notes
            .iter()
            .any(|note| note.contains("only after earlier calls")),
        "{:?}",
        session.health.notes
    );
}

/// The same break, read with a text pattern (`--acted-text '"computed": true'`),
/// is judged on the fresh run and noted: a pattern may match a reply that
/// recounts what earlier calls did, so only a field of the call's own reply
/// (`--acted /pointer`) fails a session-only act. The report is the one
/// `--fresh` gives, and the note names the break, the doubt (the pattern may
/// read an earlier call's act) and the rule that judges it where it was seen.
#[test]
fn a_session_only_act_read_from_the_replys_text_is_judged_fresh_and_noted() {
    let target = calculator_target(&["--bug", "remembers-consent"], 12)
        .acted_text(regex::Regex::new(r#""computed": true"#).expect("a regex"));
    let [(fresh, _), (session, _)] = both_modes(&target);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(judged(&session), judged(&fresh));
    let [note] = session.health.notes.as_slice() else {
        panic!("one note: {:?}", session.health.notes);
    };
    assert!(
        note.ends_with(" broke property 1 only after earlier calls of its server process (its fresh run keeps it): the fresh run is the one judged; with --acted-text the reading may show an earlier call's act (one that lands after its reply, or one its reply recounts), while an acted rule on a field of the call's own reply (--acted /pointer) judges an act where it was seen"),
        "{note}"
    );
}

/// A tool that asks on its process's first call only and then acts on that
/// answer in every later call without asking (`asks-once`: consent held per
/// connection) fails property 7 in a session, on the call after the first:
/// an accept authorizes nothing beyond its own request. No fresh process
/// shows it, so `--fresh` passes; the session's note says the rest of the
/// cases ran in a fresh process each (the tool asks only in a new one).
#[test]
fn a_tool_that_stops_asking_after_its_first_call_fails_property_7_in_a_session() {
    let (session, _, failure) =
        fails_in_session_only(&calculator_target(&["--bug", "asks-once"], 8), 7);
    assert_eq!(
        failure.reason,
        "acted without asking: no elicitation/create in the call (client capabilities {\"elicitation\":{\"form\":{},\"url\":{}}}), after 1 earlier call of the same server process (run again alone in a fresh process, it kept property 7)"
    );
    assert!(failure.answers.is_empty(), "{:?}", failure.answers);
    assert_eq!(
        session.health.notes,
        vec![
            "the tool asked for a form in a fresh server process but not as call 2 of a session: from coverage 1 on, each case ran in a fresh process"
                .to_owned()
        ]
    );
}

/// A wire fault or a reply's shape no earlier call can make right is judged
/// where it was seen. `forms.py --noise-from 3` prints a log line on stdout
/// (not JSON-RPC) from its process's third call on, which every client that
/// keeps one connection reads; `--drift-from 3` answers `"acted": 1` or `0`
/// from then on. The session's third call (coverage 2) fails property 5, or
/// 6, though its fresh run (a first call) keeps it: the reason counts the
/// two calls before it, the answer is that call's (not called minimal), and
/// the reproduction is the check again with its seed and its count of random
/// cases. `--fresh` passes, and nothing is left to a note.
#[test]
fn a_stdout_line_or_a_drifted_acted_value_only_a_later_call_shows_fails_in_the_session() {
    let ways = [
        (
            "--noise-from",
            5,
            " is not a JSON-RPC message: \"forms.py: call 3\"",
        ),
        ("--drift-from", 6, " (a number), not a boolean"),
    ];
    for (option, property, fault) in ways {
        let (session, _, failure) =
            fails_in_session_only(&forms_enum_target(&[option, "3"], 6), property);
        assert!(
            failure.reason.ends_with(&format!(
                "{fault}, after 2 earlier calls of the same server process (run again alone in a fresh process, it kept property {property})"
            )),
            "{option}: {}",
            failure.reason
        );
        assert!(
            failure.reproduce.contains(" --seed 3 --cases 6 -- "),
            "{option}: {}",
            failure.reproduce
        );
        assert_eq!(session.health.notes, Vec::<String>::new(), "{option}");
        let table = report::check::table(&session);
        assert!(
            table.contains(
                "     answer (after 2 earlier calls of its server process, not shrunk): {"
            ) && !table.contains("minimal answer"),
            "{option}: {table}"
        );
    }
}

/// `forms.py --form enum OPTIONS`, checked on `choose_size` with the acted
/// pointer `/acted`, `cases` random cases and seed 3.
fn forms_enum_target(options: &[&str], cases: usize) -> Target {
    support::require_program("python3", "the plain Python peer server needs python3");
    let mut command = vec![
        support::python3().to_owned(),
        "-S".to_owned(),
        format!("{}/fixtures/servers/forms.py", env!("CARGO_MANIFEST_DIR")),
        "--form".to_owned(),
        "enum".to_owned(),
    ];
    command.extend(options.iter().map(|option| (*option).to_owned()));
    Target::stdio(command)
        .tool("choose_size")
        .acted_pointer("/acted")
        .cases(cases)
        .seed(3)
}

/// `forms.py --form enum --once`: a tool that acts once per server process (a
/// slot booked) and refuses every later call after asking; with `naive`, it
/// acts after checking only `action == "accept"`. 8 random cases.
fn once_target(naive: bool) -> Target {
    if naive {
        forms_enum_target(&["--once", "--naive"], 8)
    } else {
        forms_enum_target(&["--once"], 8)
    }
}

/// Earlier calls must not hide a break either. A tool that acts once per
/// server process (`--once`) refuses every call after the session's first
/// act, whatever the answer: in a session, the naive server's acting on
/// invalid content never shows. The first consenting valid accept it refuses
/// after that act is re-run fresh, where it acts: from then on every case
/// runs fresh, and the session's cases after the act run again fresh. The
/// report is the fresh one: the naive server fails property 2, the careful
/// one passes, and the health says why the cases ran fresh.
#[test]
fn a_tool_whose_earlier_calls_refuse_later_ones_is_judged_on_fresh_runs() {
    for naive in [true, false] {
        let [(fresh, _), (session, _)] = both_modes(&once_target(naive));
        let expected: Vec<u8> = if naive { vec![2] } else { vec![] };
        assert_eq!(
            support::failing(&session),
            expected,
            "naive {naive}: {}",
            report::check::table(&session)
        );
        assert_eq!(judged(&session), judged(&fresh), "naive {naive}");
        let [note] = session.health.notes.as_slice() else {
            panic!("naive {naive}: one note: {:?}", session.health.notes);
        };
        assert!(
            note.starts_with("the tool refused the consenting valid accept of coverage ")
                && note.contains(
                    " after an earlier call of its server process acted, and acted on it in a fresh process"
                ),
            "{note}"
        );
    }
}

/// A server that exits in the 4th `tools/call` of its process
/// (`forms.py --dies-from 4`) gives no reply there; that case, re-run in a
/// fresh process, is answered, whether the server died after reading the
/// answers or as the call arrived. The session's no-reply is a server that died
/// after the calls it served, not a tool that asks once per process (no
/// switch to a fresh process per case) nor a refusal its state caused (no
/// state re-runs): one note names the case, the calls served before and
/// what happened; the report is the one `--fresh` gives (the naive server's
/// break still found).
#[test]
fn a_server_that_dies_after_some_calls_of_a_session_is_noted_and_judged_fresh() {
    // Each way: dying after reading the answers, dying as the call arrives
    // (short of the form); a careful server, a naive one.
    let ways: [&[&str]; 4] = [
        &["--dies-from", "4"],
        &["--dies-from", "4", "--naive"],
        &["--dies-from", "4", "--dies-early"],
        &["--dies-from", "4", "--dies-early", "--naive"],
    ];
    for options in ways {
        judged_fresh_with_one_note(
            options,
            8,
            "coverage 3 got no reply in a server process that had served 3 calls before (no reply to tools/call: the server's stdout closed first (it exited or crashed in the call)), and a reply in a fresh process: the fresh run is the one judged, but a client that keeps one connection meets it",
        );
    }
}

/// A server that hangs in the 2nd `tools/call` of its process (`forms.py
/// --hang-from 2`) would cost every session the call's bound (1 s here):
/// after the first case that waited it out in a session and got a reply in a
/// fresh process, each later case runs in a fresh process, as the one note
/// says. The report is the one `--fresh` gives, and from `coverage 1` on
/// every planned call is the first of its process.
#[test]
fn a_server_that_hangs_after_its_first_call_has_the_later_cases_run_fresh() {
    let target =
        forms_enum_target(&["--hang-from", "2"], 4).limits(elicit_check::harness::Limits {
            startup: std::time::Duration::from_secs(30),
            call: std::time::Duration::from_secs(1),
            shutdown: std::time::Duration::from_secs(5),
        });
    let [(fresh, _), (session, records)] = both_modes(&target);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(judged(&session), judged(&fresh));
    assert_eq!(
        session.health.notes,
        vec![
            "coverage 1 got no reply in a server process that had served 1 call before (no reply to tools/call within 1 s), and a reply in a fresh process: the fresh run is the one judged, but a client that keeps one connection meets it; each later case ran in a fresh process"
                .to_owned()
        ]
    );
    let ids = planned_call_ids(&records);
    assert!(ids.len() > 4, "{ids:?}");
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
}

/// `forms.py --form enum OPTIONS` checked with `cases` random cases in both
/// modes: the naive server (`--naive` among `options`) fails property 2 and
/// the careful one passes, the session report is the fresh one, and the
/// session's health holds `note` alone (`--fresh`'s none).
fn judged_fresh_with_one_note(options: &[&str], cases: usize, note: &str) {
    let naive = options.contains(&"--naive");
    let [(fresh, _), (session, _)] = both_modes(&forms_enum_target(options, cases));
    let expected: Vec<u8> = if naive { vec![2] } else { vec![] };
    assert_eq!(
        support::failing(&session),
        expected,
        "{options:?}: {}",
        report::check::table(&session)
    );
    assert_eq!(judged(&session), judged(&fresh), "{options:?}");
    assert_eq!(session.health.notes, vec![note.to_owned()], "{options:?}");
    assert!(fresh.health.notes.is_empty(), "{:?}", fresh.health.notes);
}

/// `forms.py --form enum --notes-after-call 1 --pending-file PATH` plus
/// `extra`, with a `--setup` that waits until the frame after the first call
/// is sent (so in a session it arrives between two calls), 2 random cases;
/// the report and records of each mode.
fn a_frame_between_two_calls(extra: &[&str]) -> [(CheckReport, Vec<CaseRecord>); 2] {
    a_frame_after_call("1", extra)
}

/// [`a_frame_between_two_calls`] with the frame sent after call `call`
/// (`"0"`: after the handshake, before a session's first call).
fn a_frame_after_call(call: &str, extra: &[&str]) -> [(CheckReport, Vec<CaseRecord>); 2] {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let pending = folder.path().join("pending");
    let pending = pending.to_str().expect("a UTF-8 path");
    let mut options = vec!["--notes-after-call", call, "--pending-file", pending];
    options.extend(extra);
    let target = forms_enum_target(&options, 2)
        // Bounded (10 s), so a test process killed mid-case leaves no loop behind.
        .setup(format!(
            "for _ in $(seq 200); do [ -e '{pending}' ] || break; sleep 0.05; done"
        ));
    both_modes(&target)
}

/// The planned cases' records.
fn planned_records(records: &[CaseRecord]) -> Vec<&CaseRecord> {
    records
        .iter()
        .filter(|record| PLANNED.iter().any(|prefix| record.case.starts_with(prefix)))
        .collect()
}

/// The methods of a record's frames, in order.
fn methods(record: &CaseRecord) -> Vec<&str> {
    record
        .wire
        .iter()
        .filter_map(|frame| frame.message["method"].as_str())
        .collect()
}

/// Every planned case of `records` ran in one session: their `tools/call`
/// ids are consecutive.
fn assert_one_session(records: &[CaseRecord]) {
    let ids = planned_call_ids(records);
    let first = ids[0].as_u64().expect("a numeric id");
    let consecutive: Vec<Value> = (first..first + ids.len() as u64).map(Value::from).collect();
    assert_eq!(ids, consecutive, "one session");
}

/// A request the server sends after a call's reply belongs to that call,
/// whenever it arrives. `forms.py --ping-after-call` sends a `ping` 0.2 s
/// after the reply to its first `tools/call`; in a session it arrives
/// between two calls. The next case sees a request ahead of its `tools/call`
/// (a late frame of the earlier call): both re-run fresh, and every planned
/// case's record, in both modes, holds the `ping` after its own call's reply
/// (none is lost between two calls, none kept in a later case's wire). The
/// report is the one `--fresh` gives.
#[test]
fn a_request_sent_between_two_calls_of_a_session_stays_with_the_call_it_follows() {
    let [(fresh, fresh_records), (session, session_records)] =
        a_frame_between_two_calls(&["--ping-after-call"]);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(judged(&session), judged(&fresh));
    for (mode, records) in [("fresh", &fresh_records), ("session", &session_records)] {
        let planned = planned_records(records);
        assert!(planned.len() > 2, "{mode}: coverage and random");
        for record in planned {
            let methods = methods(record);
            let call = methods.iter().position(|method| *method == "tools/call");
            let pings: Vec<usize> = (0..methods.len())
                .filter(|&at| methods[at] == "ping")
                .collect();
            assert!(
                matches!((call, pings.as_slice()), (Some(call), [ping]) if call < *ping),
                "{mode}: {} holds its call's late ping: {methods:?}",
                record.case
            );
        }
    }
}

/// Over stdio, a notification the server sends after a call's reply (a log
/// line) ends no session: nothing waits on it and no property judges it by
/// its place. It goes to the call it follows: in a session, the first
/// planned case's record holds it after its own reply, no other planned
/// record holds one, and every planned case ran in the one session
/// (consecutive `tools/call` ids). The report is the one `--fresh` gives.
#[test]
fn a_notification_sent_between_two_calls_of_a_session_goes_to_the_call_it_follows() {
    let [(fresh, _), (session, session_records)] = a_frame_between_two_calls(&[]);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(judged(&session), judged(&fresh));
    assert!(
        planned_records(&session_records).len() > 2,
        "coverage and random"
    );
    assert_the_first_case_alone_holds_the_notification(&session_records, false);
}

/// Over stdio, a notification the server sends after the handshake and
/// before the first call (`forms.py --notes-after-call 0`: 0.2 s after the
/// client's `notifications/initialized`) ends no session and stays in the
/// part of the session's first case, ahead of its `tools/call`: no other
/// planned record holds it, and every planned record in both modes shows the
/// whole handshake (`initialize`, then the client's
/// `notifications/initialized`, once, before the `tools/call`), however
/// late the proxy records that notification. The report is the one `--fresh`
/// gives.
#[test]
fn a_notification_sent_before_a_sessions_first_call_stays_with_its_first_case() {
    let [(fresh, fresh_records), (session, session_records)] = a_frame_after_call("0", &[]);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(judged(&session), judged(&fresh));
    for (mode, records) in [("fresh", &fresh_records), ("session", &session_records)] {
        let planned = planned_records(records);
        assert!(planned.len() > 2, "{mode}: coverage and random");
        for record in planned {
            let methods = methods(record);
            let handshake = ["initialize", "notifications/initialized"];
            let call = methods.iter().position(|method| *method == "tools/call");
            assert!(
                methods.starts_with(&handshake)
                    && methods
                        .iter()
                        .filter(|method| **method == handshake[1])
                        .count()
                        == 1
                    && call.is_some(),
                "{mode}: {} holds the handshake once: {methods:?}",
                record.case
            );
        }
    }
    assert_the_first_case_alone_holds_the_notification(&session_records, true);
}

/// The planned cases of `records` ran in one session, the first holds the
/// one `notifications/message` (`ahead` of its `tools/call`, or after it),
/// and no other holds one.
fn assert_the_first_case_alone_holds_the_notification(records: &[CaseRecord], ahead: bool) {
    for (at, record) in planned_records(records).iter().enumerate() {
        let methods = methods(record);
        let notes: Vec<usize> = (0..methods.len())
            .filter(|&index| methods[index] == "notifications/message")
            .collect();
        let call = methods.iter().position(|method| *method == "tools/call");
        if at == 0 {
            assert!(
                matches!((call, notes.as_slice()), (Some(call), [note]) if (*note < call) == ahead),
                "{} holds the notification (ahead of its call: {ahead}): {methods:?}",
                record.case
            );
        } else {
            assert_eq!(notes, Vec::<usize>::new(), "{}: {methods:?}", record.case);
        }
    }
    assert_one_session(records);
}

/// A server that exits with status 1 when its stdin closes
/// (`forms.py --exit-status 1`) ends no session cleanly: each case a session
/// ran is re-run in a fresh process, and one note says why (the exit code,
/// the rule a session's runs stand by). The report is the one `--fresh`
/// gives, the naive server's break found; `--fresh` itself has no note.
#[test]
fn a_server_that_exits_non_zero_as_its_stdin_closes_is_noted_and_judged_fresh() {
    let ways: [&[&str]; 2] = [&["--exit-status", "1"], &["--exit-status", "1", "--naive"]];
    for options in ways {
        judged_fresh_with_one_note(
            options,
            4,
            "a session's server process exited with status 1 when its stdin closed (a session's runs stand when it exits with 0): each case it ran was re-run in a fresh process",
        );
    }
}

/// A tool that asks once per server process (a confirmation held per
/// connection: `--once-per-process`, later calls answer `already_asked`
/// without asking) reaches the form in the first case of a session only. The
/// next case is short of the form, so it is re-run fresh, reaches the form
/// there, and from then on every case runs in a fresh process of its own, as
/// the era's note says: every planned case reaches the form and the check
/// passes, never inconclusive.
#[test]
fn a_tool_that_asks_once_per_process_is_judged_with_a_fresh_process_per_case() {
    let target = calculator_target(&["--once-per-process"], 8);
    let (report, records) = logged(&target);
    assert!(report.passed, "{}", report::check::table(&report));
    let health = &report.health;
    assert_eq!(health.inconclusive, None);
    assert!(health.planned > 8, "coverage and random: {health:?}");
    assert_eq!(
        (health.ran, health.reached_form),
        (health.planned, health.planned),
        "{health:?}"
    );
    let [note] = health.notes.as_slice() else {
        panic!("one note: {:?}", health.notes);
    };
    assert!(
        note.starts_with(
            "the tool asked for a form in a fresh server process but not as call 2 of a session: from "
        ) && note.ends_with(" on, each case ran in a fresh process"),
        "{note}"
    );
    // After the session's first case, each case's call is the first of its
    // process: the ids of the second case on are all the first case's.
    let ids = call_ids(&records);
    assert!(ids[1..].iter().all(|id| *id == ids[0]), "{ids:?}");
}

/// A session's stderr is kept, with its last case: the server's log of
/// every answer it read (`--log-answers`) is in the last planned case's
/// record, not lost with the session's process.
#[test]
fn a_sessions_stderr_is_kept_with_its_last_case() {
    let target = calculator_target(&["--log-answers"], 4);
    let (report, records) = logged(&target);
    assert!(report.passed, "{}", report::check::table(&report));
    let planned: Vec<&CaseRecord> = records
        .iter()
        .filter(|record| PLANNED.iter().any(|prefix| record.case.starts_with(prefix)))
        .collect();
    let last = planned.last().expect("planned cases ran");
    let logged_answers = last.stderr.matches("answer: ").count();
    assert_eq!(
        logged_answers,
        planned.len(),
        "one logged answer per planned case of the one session: {}",
        last.stderr
    );
}

/// A server request after a session's last case (`--farewell-ping`: a
/// `ping` as the server exits) may belong to any case of the session, so the
/// session cannot vouch for them: its cases are re-run in fresh processes,
/// each of whose calls is the first of its process, and the report is the
/// fresh one.
#[test]
fn a_server_request_after_the_last_case_has_the_sessions_cases_re_run_fresh() {
    let target = calculator_target(&["--farewell-ping"], 4);
    let [(fresh, fresh_records), (session, session_records)] = both_modes(&target);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(judged(&session), judged(&fresh));
    let first = &call_ids(&fresh_records)[0];
    let ids = planned_call_ids(&session_records);
    assert!(ids.len() > 4, "{ids:?}");
    assert!(ids.iter().all(|id| id == first), "{ids:?}");
}

/// Over stdio, a notification after a session's last case (`--farewell`: a
/// log line as the server exits) leaves the session standing: its cases are
/// not re-run (consecutive `tools/call` ids, one process), and the last
/// planned case's record ends with it, after its own reply.
#[test]
fn a_notification_after_the_last_case_goes_to_it_and_the_session_stands() {
    let target = calculator_target(&["--farewell"], 4);
    let [(fresh, _), (session, session_records)] = both_modes(&target);
    assert!(fresh.passed, "{}", report::check::table(&fresh));
    assert_eq!(judged(&session), judged(&fresh));
    assert_one_session(&session_records);
    let last = planned_records(&session_records)
        .pop()
        .expect("planned cases ran");
    assert_eq!(
        last.wire
            .last()
            .map(|frame| &frame.message["params"]["data"]),
        Some(&json!("goodbye")),
        "{:?}",
        methods(last)
    );
}

/// `calculator.py --linger-after-refusal` (it ignores stdin close once it has
/// refused an answer: the probe's accept and the capability sessions never
/// bring that out) with `extra` options, in session mode, the coverage cases
/// only, a 1 s grace: the report and the `tools/call` id of each planned case.
fn lingering(extra: &[&str]) -> (CheckReport, Vec<Value>) {
    let options: Vec<&str> = ["--linger-after-refusal"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    let target = calculator_target(&options, 0).limits(elicit_check::harness::Limits {
        startup: std::time::Duration::from_secs(30),
        call: std::time::Duration::from_secs(30),
        shutdown: std::time::Duration::from_secs(1),
    });
    let (report, records) = logged(&target);
    assert_eq!(
        support::failing(&report),
        vec![5],
        "{}",
        report::check::table(&report)
    );
    (report, planned_call_ids(&records))
}

/// A session whose only fault is an ignored stdin close, once a call's own
/// process has shown that fault (the probe's decline: property 5 fails on
/// it), is not re-run: its cases stand as its later calls.
#[test]
fn a_session_whose_only_fault_is_an_ignored_stdin_close_already_shown_stands() {
    let (report, ids) = lingering(&[]);
    let failure = report
        .property(5)
        .and_then(|property| property.failure.as_ref())
        .expect("property 5 fails");
    assert_eq!(
        failure.reason,
        "did not exit within 1 s after its stdin closed (killed)"
    );
    let first = ids[0].as_u64().expect("a numeric id");
    let later: Vec<Value> = (first..first + ids.len() as u64).map(Value::from).collect();
    assert_eq!(ids, later, "one session, every case a later call of it");
}

/// A session with another fault besides (`--farewell-ping`: a server
/// request after its last case) cannot vouch for any of its cases: they are
/// all re-run in fresh processes, though the ignored stdin close is already
/// shown.
#[test]
fn a_session_with_an_ignored_stdin_close_and_another_fault_re_runs_every_case() {
    let (_, ids) = lingering(&["--farewell-ping"]);
    assert!(ids.len() > 2, "{ids:?}");
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
}

/// The re-runs that look for a session's state hiding a break are bounded: a
/// tool that refuses consenting valid accepts on their own merits (`forms.py
/// --acts-on large`: it acts on `size: "large"` only) refuses them in a fresh
/// process too, so each such re-run ends its session and costs two processes
/// (the fresh re-run, the next session). 60 random cases (a third of the
/// valid ones `large`) give it more than 3 chances; after 3 such re-runs an
/// era stops looking: the first planned case of the era, then 3 times a fresh re-run
/// and the first case of the next session, are the only calls that are the
/// first of their process. The report is the fresh one, and there is no note
/// (the session's state hid nothing).
#[test]
fn a_tool_that_refuses_valid_accepts_on_their_merits_costs_at_most_3_fresh_re_runs() {
    let target = forms_enum_target(&["--acts-on", "large"], 60);
    let [(fresh, _), (session, records)] = both_modes(&target);
    assert!(session.passed, "{}", report::check::table(&session));
    assert_eq!(judged(&session), judged(&fresh));
    assert!(
        session.health.notes.is_empty(),
        "{:?}",
        session.health.notes
    );
    let ids = planned_call_ids(&records);
    let first = &ids[0];
    let firsts = ids.iter().filter(|id| *id == first).count();
    assert_eq!(firsts, 1 + 2 * 3, "{ids:?}");
}
