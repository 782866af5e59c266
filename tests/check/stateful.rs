//! `check` on servers that hold state outside the call
//! (`fixtures/servers/stateful.py`, MCP Python SDK 1.x; the SDK 2.x peers):
//! one case at a time means one, a run that could learn nothing is
//! inconclusive (exit 2) and never a pass, every action taken without asking
//! is reported, an ignored stdin close is shown once and not paid for per
//! case, and a tool that cannot ask in an era is that era's finding
//! (docs/src/check.md, "Servers that hold state"; docs/src/sessions.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::cli::assert_valid_report_json;
use crate::support::Scratch;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn environments() -> PathBuf {
    crate::peers::environments()
}

fn python1() -> String {
    environments()
        .join("python-sdk1/bin/python")
        .display()
        .to_string()
}

fn stateful(mode: &[&str]) -> Vec<String> {
    let mut command = vec![
        python1(),
        Path::new(ROOT)
            .join("fixtures/servers/stateful.py")
            .display()
            .to_string(),
    ];
    command.extend(mode.iter().map(|word| (*word).to_owned()));
    command
}

/// `script` (under `fixtures/`) on the MCP Python SDK 2.x, then `args`.
fn python2(script: &str, args: &[&str]) -> Vec<String> {
    let mut command = vec![
        environments()
            .join("python-sdk2/bin/python")
            .display()
            .to_string(),
        Path::new(ROOT).join(script).display().to_string(),
    ];
    command.extend(args.iter().map(|word| (*word).to_owned()));
    command
}

/// The deleter over a victim file in `dir`, created now: its path and the
/// server command (with `args` after it).
fn deleter(dir: &Path, args: &[&str]) -> (PathBuf, Vec<String>) {
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "x").expect("the victim file");
    let mut server = stateful(&["deleter", "--victim"]);
    server.push(victim.display().to_string());
    server.extend(args.iter().map(|word| (*word).to_owned()));
    (victim, server)
}

/// The report files of one check in `dir`: JUnit, SARIF, the summary.
struct Reports {
    junit: PathBuf,
    sarif: PathBuf,
    summary: PathBuf,
}

impl Reports {
    fn in_dir(dir: &Path) -> Reports {
        Reports {
            junit: dir.join("check.xml"),
            sarif: dir.join("check.sarif"),
            summary: dir.join("summary.md"),
        }
    }

    /// `--junit`, `--sarif` and `--summary` naming them.
    fn options(&self) -> Vec<String> {
        [
            ("--junit", &self.junit),
            ("--sarif", &self.sarif),
            ("--summary", &self.summary),
        ]
        .into_iter()
        .flat_map(|(option, path)| [option.to_owned(), path.display().to_string()])
        .collect()
    }

    /// What each holds: the JUnit XML, the SARIF document, the summary.
    fn read(&self) -> (String, Value, String) {
        let junit = std::fs::read_to_string(&self.junit).expect("JUnit written");
        let sarif = serde_json::from_str(&std::fs::read_to_string(&self.sarif).expect("SARIF"))
            .expect("SARIF is JSON");
        let summary = std::fs::read_to_string(&self.summary).expect("summary written");
        (junit, sarif, summary)
    }
}

/// Runs `check` with `options`, then `--` and `server`; the exit code, the
/// `--json` document (when one was printed) and stderr.
fn check(options: &[String], server: &[String]) -> (Option<i32>, Value, String) {
    let mut args: Vec<String> = options.to_vec();
    args.extend(["--json".to_owned(), "--".to_owned()]);
    args.extend(server.iter().cloned());
    let output = crate::support::elicit_check("check", &args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let document = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    if !document.is_null() {
        assert_valid_report_json(&document);
    }
    (output.status.code(), document, stderr)
}

fn words(words: &[&str]) -> Vec<String> {
    words.iter().map(|word| (*word).to_owned()).collect()
}

/// The era `protocol`'s entry in `document` (its status, why, report).
fn era<'a>(document: &'a Value, protocol: &str) -> &'a Value {
    document["eras"]
        .as_array()
        .and_then(|eras| eras.iter().find(|era| era["protocol"] == protocol))
        .unwrap_or_else(|| panic!("era {protocol}: {document:#}"))
}

/// The numbers of the properties that fail in the era `protocol`.
fn failing_in(document: &Value, protocol: &str) -> Vec<u64> {
    era(document, protocol)["report"]["properties"]
        .as_array()
        .map(|properties| {
            properties
                .iter()
                .filter(|property| property["verdict"] == "fails")
                .filter_map(|property| property["property"].as_u64())
                .collect()
        })
        .unwrap_or_default()
}

/// The property `number`'s entry in the era `protocol` of `document`.
fn property<'a>(document: &'a Value, protocol: &str, number: u64) -> &'a Value {
    era(document, protocol)["report"]["properties"]
        .as_array()
        .and_then(|properties| properties.iter().find(|p| p["property"] == number))
        .unwrap_or_else(|| panic!("property {number} in {protocol}: {document:#}"))
}

/// The time intervals, in nanoseconds, of each session as the log `lines`
/// written by the hooks and the server show them: `(EVENT ERA SESSION
/// NANOS)` lines, grouped by era and session.
fn intervals(lines: &str) -> BTreeMap<(String, String), (u128, u128)> {
    let mut spans: BTreeMap<(String, String), (u128, u128)> = BTreeMap::new();
    for line in lines.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [_, era, session, nanos] = fields[..] else {
            panic!("a log line of four fields: {line:?}");
        };
        let nanos: u128 = nanos.parse().expect("nanoseconds");
        let span = spans
            .entry((era.to_owned(), session.to_owned()))
            .or_insert((nanos, nanos));
        span.0 = span.0.min(nanos);
        span.1 = span.1.max(nanos);
    }
    spans
}

/// The tracker of the published spreadsheet server: a `--setup` that deletes
/// and recreates the book with a command that refuses an existing one, a
/// server that refuses to start without it, and the acted reading from the
/// book itself. At `-j 1`, and at `-j 2` without `--independent-cases`, no
/// two sessions overlap: the setup, the server and the acted command of each
/// session write their own timestamps, and the spans never cross. The check
/// passes, with no false P5 and no exit 2.
#[test]
fn a_stateful_tracker_passes_and_no_two_sessions_overlap() {
    let scratch = Scratch::new("tracker");
    let dir = scratch.path().to_path_buf();
    let book = dir.join("book.json");
    let log = dir.join("log.txt");
    let script = Path::new(ROOT).join("fixtures/servers/stateful.py");
    let stamp = |event: &str| {
        format!(
            "echo \"{event} $ELICIT_CHECK_ERA $ELICIT_CHECK_SESSION $(date +%s%N)\" >> {}",
            log.display()
        )
    };
    let setup = format!(
        "{}; rm -f {book}; {python} {script} new {book}; {}",
        stamp("setup"),
        stamp("setup-done"),
        book = book.display(),
        python = python1(),
        script = script.display(),
    );
    let acted = format!("{}; grep -q row {}", stamp("acted"), book.display());
    for jobs in ["1", "2"] {
        let _ = std::fs::remove_file(&log);
        let options = words(&[
            "--tool",
            "add_row",
            "--cases",
            "10",
            "--seed",
            "4",
            "-j",
            jobs,
            "--setup",
            &setup,
            "--acted-cmd",
            &acted,
            "--protocol",
            "2025-11-25",
        ]);
        let mut server = stateful(&["tracker", "--book"]);
        server.push(book.display().to_string());
        // The server's own start and exit, in the same log, by its session.
        let server_log = dir.join("server.txt");
        let _ = std::fs::remove_file(&server_log);
        server.extend(["--log".to_owned(), server_log.display().to_string()]);
        let (code, document, stderr) = check(&options, &server);
        assert_eq!(code, Some(0), "-j {jobs}: {document:#}\n{stderr}");
        assert_eq!(document["outcome"], "passed");
        assert_eq!(property(&document, "2025-11-25", 5)["verdict"], "holds");
        if jobs == "2" {
            assert!(
                stderr.contains("one case at a time: --setup or --acted-cmd may share state"),
                "{stderr}"
            );
        }
        // The server's lines: `start SESSION PID NANOS`, `exit SESSION PID NANOS`.
        let server_lines: String = std::fs::read_to_string(&server_log)
            .expect("the server's log")
            .lines()
            .map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                format!("{} 2025-11-25 {} {}\n", fields[0], fields[1], fields[3])
            })
            .collect();
        let hooks = std::fs::read_to_string(&log).expect("the hooks' log");
        let spans = intervals(&(hooks.clone() + &server_lines));
        // Every session is numbered, and more than the probe ran.
        assert!(!spans.contains_key(&("2025-11-25".to_owned(), String::new())));
        assert!(spans.len() >= 4, "{spans:?}");
        let ordered: Vec<_> = spans.values().copied().collect();
        for (index, a) in ordered.iter().enumerate() {
            for b in &ordered[index + 1..] {
                assert!(
                    a.1 < b.0 || b.1 < a.0,
                    "-j {jobs}: two sessions overlap: {spans:?}\n{hooks}{server_lines}"
                );
            }
        }
    }
}

/// A tool that consumes its state (it deletes its file, then answers "does
/// not exist" without asking) checked without `--setup`: after the probe's
/// first call, which acted, no planned case reaches the form. The era is
/// inconclusive: exit 2, no property "holds", a line naming the repeated
/// reply, the 10 planned cases in a row that never reached it, and the rest
/// left unrun. With a `--setup` that restores the file, the same tool is
/// judged: its planted lax reading of `confirm` fails P2, and the correct
/// tool passes.
#[test]
fn a_tool_that_consumes_its_state_is_inconclusive_without_setup_and_judged_with_it() {
    let scratch = Scratch::new("deleter");
    let dir = scratch.path().to_path_buf();
    let (victim, server) = deleter(&dir, &[]);
    let options = words(&[
        "--tool",
        "delete_file",
        "--acted",
        "/deleted",
        "--cases",
        "20",
        "--seed",
        "2",
        "--protocol",
        "2025-11-25",
    ]);
    let (code, document, stderr) = check(&options, &server);
    assert_eq!(code, Some(2), "{document:#}\n{stderr}");
    assert_eq!(document["outcome"], "inconclusive");
    assert_eq!(document["passed"], false);
    let entry = era(&document, "2025-11-25");
    let health = &entry["report"]["health"];
    // Planned: the coverage cases of the two fields, and 20 random ones.
    let planned = health["planned"].as_u64().expect("planned");
    let coverage = entry["report"]["coverage_cases"]
        .as_u64()
        .expect("coverage");
    assert_eq!(health["reached_form"], 0, "{health:#}");
    assert_eq!(health["ran"], 10, "{health:#}");
    assert_eq!(coverage, 10);
    let gone = format!("{} does not exist", victim.display());
    assert_eq!(
        health["repeated_reply"],
        serde_json::json!({
            "reply": gone,
            "times": 11,
            "after": "probe: a consenting valid accept",
            "after_acted": true,
        })
    );
    let line = format!(
        "0 of {planned} planned cases reached the form: after probe: a consenting valid accept, which acted, the tool answered \"{gone}\" without asking, 11 times (its state changed; reset it before each case with --setup CMD); the other {} planned cases were not run",
        planned - 10
    );
    assert_eq!(health["inconclusive"], line.as_str());
    assert!(
        stderr.contains(&format!(
            "the check is inconclusive in protocol 2025-11-25: {line}"
        )),
        "{stderr}"
    );
    for number in 1..=8 {
        assert_ne!(
            property(&document, "2025-11-25", number)["verdict"],
            "holds",
            "P{number}: {document:#}"
        );
    }
    assert_eq!(
        property(&document, "2025-11-25", 3)["verdict"],
        "inconclusive"
    );
    assert_eq!(property(&document, "2025-11-25", 3)["planned"]["judged"], 0);

    // In a fresh process per case the same: 10 in a row, then the rest unrun.
    std::fs::write(&victim, "x").expect("the victim file again");
    let mut fresh = options.clone();
    fresh.push("--fresh".to_owned());
    let (code, document, stderr) = check(&fresh, &server);
    assert_eq!(code, Some(2), "{document:#}\n{stderr}");
    let health = &era(&document, "2025-11-25")["report"]["health"];
    assert_eq!(health["ran"], 10, "{health:#}");
    assert_eq!(health["reached_form"], 0, "{health:#}");

    let setup = format!("touch {}", victim.display());
    let mut judged = options.clone();
    judged.extend(["--setup".to_owned(), setup]);
    let (_, lax) = deleter(&dir, &["--bug", "lenient-booleans"]);
    let (code, document, stderr) = check(&judged, &lax);
    assert_eq!(code, Some(1), "{document:#}\n{stderr}");
    assert_eq!(document["outcome"], "failed");
    let entry = era(&document, "2025-11-25");
    assert_eq!(entry["report"]["health"]["reached_form"], planned);
    assert_eq!(failing_in(&document, "2025-11-25"), vec![2], "{document:#}");
    let (code, document, stderr) = check(&judged, &server);
    assert_eq!(code, Some(0), "{document:#}\n{stderr}");
}

/// The document-store server's shape: a form-capable client gets an error
/// and no form (nothing done), a client that declared no form elicitation
/// gets its collection dropped at once. The probe sees no form, yet the
/// sessions declaring no form elicitation run and fail P7 (exit 1), not
/// "nothing to check" (exit 2). Declared as its design (`--allow-unasked`),
/// nothing is left to judge: exit 2.
#[test]
fn acting_unasked_for_a_client_that_cannot_answer_fails_p7_though_the_probe_saw_no_form() {
    let options = words(&[
        "--tool",
        "drop_collection",
        "--acted",
        "/dropped",
        "--protocol",
        "2025-11-25",
    ]);
    let server = stateful(&["unasked"]);
    let (code, document, stderr) = check(&options, &server);
    assert_eq!(code, Some(1), "{document:#}\n{stderr}");
    let seven = property(&document, "2025-11-25", 7);
    assert_eq!(seven["verdict"], "fails");
    assert_eq!(
        seven["failure"]["reason"],
        "acted without asking: no elicitation/create in the call (client capabilities {})"
    );
    assert_eq!(failing_in(&document, "2025-11-25"), vec![7], "{document:#}");
    // Declared fail-open: nothing left to judge (exit 2), and every report
    // the options ask for says why.
    let scratch = Scratch::new("unasked-reports");
    let dir = scratch.path().to_path_buf();
    let reports = Reports::in_dir(&dir);
    let mut allowed = options.clone();
    allowed.push("--allow-unasked".to_owned());
    allowed.extend(reports.options());
    let (code, document, stderr) = check(&allowed, &server);
    assert_eq!(code, Some(2), "{document:#}\n{stderr}");
    let why = "tools/call \"drop_collection\" sent no form elicitation/create to a client declaring form elicitation";
    assert!(stderr.contains(why), "{stderr}");
    assert_eq!(document["outcome"], "not_checked");
    assert_eq!(document["tool"], "drop_collection");
    assert!(
        document["error"]
            .as_str()
            .is_some_and(|error| error.starts_with(why)),
        "{document:#}"
    );
    let (junit, sarif, summary) = reports.read();
    assert!(junit.contains("<error message=\"tools/call"), "{junit}");
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    assert!(
        summary.starts_with("## elicit-check check `drop_collection`: NOT CHECKED"),
        "{summary}"
    );
}

/// `--acted-cmd` is read before each call too: a command that already says
/// "acted" before the probe's call cannot tell anything (exit 2, naming it);
/// one that says so before later calls (the file the tool deletes was not
/// restored) makes those calls count for no property, and the era is
/// inconclusive, not a failure of property 7.
#[test]
fn an_acted_command_that_says_acted_before_the_call_is_not_read_as_acting() {
    let scratch = Scratch::new("acted-before");
    let dir = scratch.path().to_path_buf();
    let (victim, server) = deleter(&dir, &[]);
    let options = |acted: &str| {
        words(&[
            "--tool",
            "delete_file",
            "--acted-cmd",
            acted,
            "--cases",
            "5",
            "--protocol",
            "2025-11-25",
        ])
    };
    let (code, _, stderr) = check(&options("true"), &server);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(victim.exists(), "said before the tool was called");
    assert!(
        stderr.contains("--acted-cmd \"true\" already exits 0 before the tool is called (probe: a consenting valid accept): it cannot tell whether a call acted"),
        "{stderr}"
    );
    let gone = format!("test ! -e {}", victim.display());
    let (code, document, stderr) = check(&options(&gone), &server);
    assert_eq!(code, Some(2), "{document:#}\n{stderr}");
    assert_eq!(document["outcome"], "inconclusive");
    let health = &era(&document, "2025-11-25")["report"]["health"];
    // The probe's decline, the 10 planned cases in a row, the two
    // capability sessions.
    assert_eq!(
        health["acted_before_call"].as_array().map(Vec::len),
        Some(13)
    );
    assert_eq!(health["acted_before_call"][0], "probe: a decline");
    assert!(
        failing_in(&document, "2025-11-25").is_empty(),
        "no property fails on calls it cannot read: {document:#}"
    );
}

/// A tool that asks before it looks at its state (the SDK 2.x resolver
/// pattern): every call reaches the form, but once the probe's consenting
/// answer has acted, the same answer is refused in coverage 0. The era is
/// inconclusive (the tool's state changed), never "holds"; with `--setup`
/// it is judged and passes.
#[test]
fn a_tool_that_asks_before_it_looks_is_inconclusive_once_its_state_is_spent() {
    let scratch = Scratch::new("ask-first");
    let dir = scratch.path().to_path_buf();
    let (victim, server) = deleter(&dir, &["--ask-first"]);
    let options = words(&[
        "--tool",
        "delete_file",
        "--acted",
        "/deleted",
        "--cases",
        "5",
        "--protocol",
        "2025-11-25",
    ]);
    let (code, document, stderr) = check(&options, &server);
    assert_eq!(code, Some(2), "{document:#}\n{stderr}");
    let health = &era(&document, "2025-11-25")["report"]["health"];
    let refused = format!(
        "coverage 0: \"{{\\\"deleted\\\":false,\\\"reason\\\":\\\"{} does not exist\\\"}}\"",
        victim.display()
    );
    assert_eq!(health["base_refused"], refused.as_str(), "{health:#}");
    assert!(
        health["inconclusive"]
            .as_str()
            .is_some_and(|line| line.contains("the tool acted on its consenting answer in the probe, then refused the same answer in coverage 0")),
        "{health:#}"
    );
    let mut judged = options.clone();
    judged.extend(["--setup".to_owned(), format!("touch {}", victim.display())]);
    let (code, document, stderr) = check(&judged, &server);
    assert_eq!(code, Some(0), "{document:#}\n{stderr}");
}

/// `--allow-unasked` speaks of clients that cannot answer a form: a tool
/// that books without asking a form-capable client (the 2026-07-28 booking
/// server's `never-asks-2026`) still fails P7 with it, in 2026-07-28's
/// words.
#[test]
fn allow_unasked_leaves_a_form_capable_client_never_asked_failing() {
    let server = vec![
        python1(),
        Path::new(ROOT)
            .join("fixtures/servers/mrtr_booking.py")
            .display()
            .to_string(),
        "--bug".to_owned(),
        "never-asks-2026".to_owned(),
    ];
    let options = words(&[
        "--tool",
        "book",
        "--acted",
        "/booked",
        "--protocol",
        "2026-07-28",
        "--allow-unasked",
    ]);
    let (code, document, stderr) = check(&options, &server);
    assert_eq!(code, Some(1), "{document:#}\n{stderr}");
    assert_eq!(
        property(&document, "2026-07-28", 7)["failure"]["reason"],
        "acted without asking: no InputRequiredResult asking for a form before it (client capabilities {\"elicitation\":{\"form\":{},\"url\":{}}})"
    );
}

/// A server whose live background timer keeps it running after stdin closes
/// (the MCP Python SDK 2.x peer with `--linger`, both eras): P5 fails in each
/// era with the reason, and the grace is paid twice in the first era, once
/// in the second; every later session is ended by elicit-check, and the
/// answer phase is still judged (every other property holds, as for the
/// correct sibling).
#[test]
fn a_server_that_ignores_stdin_close_fails_p5_once_and_later_sessions_are_ended_by_check() {
    let peer = |linger: bool| {
        python2(
            "fixtures/peers/python_sdk2_mrtr.py",
            if linger { &["--linger"] } else { &[] },
        )
    };
    let options = words(&[
        "--tool",
        "book",
        "--acted",
        "/booked",
        "--cases",
        "20",
        "--seed",
        "3",
        // Long enough for the correct sibling (an SDK that takes its time to
        // exit) under a loaded machine: it must never be killed.
        "--shutdown-grace",
        "5",
    ]);
    let (code, document, stderr) = check(&options, &peer(true));
    assert_eq!(code, Some(1), "{document:#}\n{stderr}");
    for (protocol, waits) in [("2025-11-25", 2), ("2026-07-28", 1)] {
        assert_eq!(
            failing_in(&document, protocol),
            vec![5],
            "{protocol}: {document:#}"
        );
        assert_eq!(
            property(&document, protocol, 5)["failure"]["reason"],
            "did not exit within 5 s after its stdin closed (killed)"
        );
        let health = &era(&document, protocol)["report"]["health"];
        assert_eq!(
            health["ignored_stdin_close"], waits,
            "{protocol}: {health:#}"
        );
        assert!(
            health["stopped_by_check"].as_u64().unwrap_or(0) > 0,
            "{protocol}: {health:#}"
        );
    }
    let (code, document, stderr) = check(&options, &peer(false));
    assert_eq!(code, Some(0), "{document:#}\n{stderr}");
    for protocol in ["2025-11-25", "2026-07-28"] {
        let health = &era(&document, protocol)["report"]["health"];
        assert_eq!(health["ignored_stdin_close"], 0);
        assert_eq!(health["stopped_by_check"], 0);
    }
}

/// The MCP Python SDK 2.x's `ctx.elicit` cannot send `elicitation/create`
/// while serving a 2026-07-28 request: the `calculate` peer answers a
/// form-capable client with an error naming it and asks nothing. That era is
/// its own finding ("cannot be confirmed"), never "not checked": a warning
/// under auto beside the era checked, a failure when the era is asked for.
#[test]
fn a_tool_that_cannot_ask_in_2026_07_28_gets_that_eras_finding() {
    let server = python2("fixtures/peers/python_sdk2.py", &[]);
    let base = words(&[
        "--tool",
        "calculate",
        "--acted",
        "/computed",
        "--cases",
        "5",
        "--seed",
        "1",
    ]);
    let (_, document, stderr) = check(&base, &server);
    let entry = era(&document, "2026-07-28");
    assert_eq!(entry["status"], "cannot_confirm", "{document:#}\n{stderr}");
    assert_eq!(entry["fails"], false);
    let why = entry["why"].as_str().expect("why");
    assert!(
        why.starts_with("the tool cannot be confirmed in 2026-07-28: tools/call \"calculate\" returned no InputRequiredResult asking for a form to a client declaring form elicitation, and acted on nothing (its reply names elicitation); its reply: "),
        "{why}"
    );
    let mut only = base.clone();
    only.extend(["--protocol".to_owned(), "2026-07-28".to_owned()]);
    let (code, document, stderr) = check(&only, &server);
    assert_eq!(code, Some(1), "{document:#}\n{stderr}");
    let entry = era(&document, "2026-07-28");
    assert_eq!(entry["status"], "cannot_confirm");
    assert_eq!(entry["fails"], true);
    assert_eq!(document["outcome"], "failed");
}

/// A `--setup` that fails after an era was judged (here: in 2026-07-28
/// only) loses nothing: the 2025-11-25 verdicts stay in every report, the
/// 2026-07-28 era says it could not be completed and why, and the check
/// exits 2 saying which part was not completed.
#[test]
fn a_setup_that_fails_in_a_later_era_keeps_the_verdicts_of_the_era_judged() {
    let scratch = Scratch::new("late-setup");
    let dir = scratch.path().to_path_buf();
    let reports = Reports::in_dir(&dir);
    let server = python2(
        "fixtures/peers/python_sdk2_mrtr.py",
        &["--variant", "naive"],
    );
    let mut options = words(&[
        "--tool",
        "book",
        "--acted",
        "/booked",
        "--cases",
        "5",
        "--seed",
        "1",
        "--setup",
        "test \"$ELICIT_CHECK_ERA\" != 2026-07-28",
    ]);
    options.extend(reports.options());
    let (code, document, stderr) = check(&options, &server);
    assert_eq!(code, Some(2), "{document:#}\n{stderr}");
    assert_eq!(document["outcome"], "incomplete");
    let judged = era(&document, "2025-11-25");
    assert_eq!(judged["status"], "checked");
    // The naive peer's lax reading fails P2 in the era that was judged.
    assert!(
        failing_in(&document, "2025-11-25").contains(&2),
        "{document:#}"
    );
    let late = era(&document, "2026-07-28");
    assert_eq!(late["status"], "incomplete");
    assert_eq!(
        late["why"],
        "--setup \"test \\\"$ELICIT_CHECK_ERA\\\" != 2026-07-28\" ended with exit status 1 (before probe: a consenting valid accept)"
    );
    assert!(
        stderr.contains("the check could not be completed in protocol 2026-07-28: --setup"),
        "{stderr}"
    );
    let (junit, sarif, summary) = reports.read();
    assert!(junit.contains("protocol 2025-11-25"), "{junit}");
    assert!(junit.contains("<error message=\"--setup"), "{junit}");
    let runs = sarif["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "{sarif:#}");
    assert_eq!(runs[1]["invocations"][0]["executionSuccessful"], false);
    assert!(
        summary.starts_with("## elicit-check check `book`: NOT COMPLETED"),
        "{summary}"
    );
    assert!(
        summary.contains("### protocol 2026-07-28: NOT COMPLETED"),
        "{summary}"
    );
}

/// An inconclusive era says so in every report: the table, JUnit (an error,
/// never a pass), SARIF (an invocation that did not succeed) and the
/// Markdown summary.
#[test]
fn an_inconclusive_era_says_so_in_the_table_junit_sarif_and_the_summary() {
    let scratch = Scratch::new("inconclusive-reports");
    let dir = scratch.path().to_path_buf();
    let reports = Reports::in_dir(&dir);
    let (_, server) = deleter(&dir, &[]);
    let mut args = words(&[
        "--tool",
        "delete_file",
        "--acted",
        "/deleted",
        "--cases",
        "5",
        "--protocol",
        "2025-11-25",
    ]);
    args.extend(reports.options());
    args.push("--".to_owned());
    args.extend(server);
    let output = crate::support::elicit_check("check", &args);
    let table = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(2), "{table}");
    assert!(table.contains("\nINCONCLUSIVE: 0 of "), "{table}");
    assert!(
        table.contains("  inconclusive\n"),
        "a property that held on the cases that ran: {table}"
    );
    assert!(!table.contains("  holds\n"), "{table}");
    assert!(
        table.ends_with("INCONCLUSIVE in protocol 2025-11-25\n"),
        "{table}"
    );
    let (junit, sarif, summary) = reports.read();
    assert!(
        junit.contains("<error message=\"inconclusive: 0 of "),
        "{junit}"
    );
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "{sarif:#}");
    assert!(
        invocation["toolExecutionNotifications"][0]["message"]["text"]
            .as_str()
            .is_some_and(|text| text.starts_with("inconclusive: 0 of ")),
        "{sarif:#}"
    );
    assert!(
        summary.starts_with("## elicit-check check `delete_file`: INCONCLUSIVE"),
        "{summary}"
    );
    assert!(summary.contains("**Inconclusive**: 0 of "), "{summary}");
}

/// The health's notes reach every report, not the table and `--json` alone:
/// a tool that asks once per server process (`calculator.py
/// --once-per-process`) passes with a note that the remaining cases ran in a
/// fresh process each; JUnit carries it in the suite's `<system-out>`, SARIF
/// as a notification of level `note` of an invocation that succeeded (still
/// valid SARIF 2.1.0), and the summary as a quoted line under the era's table.
#[test]
fn a_health_note_reaches_junit_sarif_and_the_summary() {
    let scratch = Scratch::new("note-reports");
    let reports = Reports::in_dir(scratch.path());
    let mut args = words(&[
        "--tool",
        "calculate",
        "--acted",
        "/computed",
        "--cases",
        "4",
        "--protocol",
        "2025-11-25",
    ]);
    args.extend(reports.options());
    args.push("--".to_owned());
    args.extend(crate::support::calculator(None));
    args.push("--once-per-process".to_owned());
    let output = crate::support::elicit_check("check", &args);
    let table = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(0), "{table}");
    let note = "the tool asked for a form in a fresh server process but not as call 2 of a session: from coverage 1 on, each case ran in a fresh process";
    assert!(table.contains(&format!("note: {note}\n")), "{table}");
    let (junit, sarif, summary) = reports.read();
    assert!(
        junit.contains(&format!("<system-out>note: {note}</system-out>")),
        "{junit}"
    );
    assert_eq!(super::reports::sarif_errors(&sarif), Vec::<String>::new());
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true, "{sarif:#}");
    assert_eq!(
        invocation["toolExecutionNotifications"],
        serde_json::json!([{"level": "note", "message": {"text": note}}]),
        "{sarif:#}"
    );
    assert!(
        summary.contains(&format!("\n> note: {note}\n")),
        "{summary}"
    );
}

/// A failure's wire in the table is readable however large the frames: a
/// `tools/list` result names its tools only (200 more tools here), a line
/// past 400 characters is cut saying its size (a tool result of 60,000
/// bytes), and the whole failing report stays under 10 KB; `--verbose`
/// shows every frame whole.
#[test]
fn large_frames_are_shown_in_brief_under_a_failure_unless_verbose() {
    let server = stateful(&[
        "unasked",
        "--linger",
        "--many-tools",
        "200",
        "--reply-padding",
        "60000",
    ]);
    let table = |verbose: bool| {
        let mut args = words(&[
            "--tool",
            "drop_collection",
            "--acted",
            "/dropped",
            "--protocol",
            "2025-11-25",
            "--shutdown-grace",
            "1",
        ]);
        if verbose {
            args.push("--verbose".to_owned());
        }
        args.push("--".to_owned());
        args.extend(server.iter().cloned());
        let output = crate::support::elicit_check("check", &args);
        assert_eq!(output.status.code(), Some(1));
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let brief = table(false);
    assert!(brief.contains("FAILS"), "{brief}");
    assert!(
        brief.contains("… (60,"),
        "a long frame is cut, saying its size: {brief}"
    );
    assert!(
        brief.contains("bytes; --verbose or --json shows it whole)"),
        "{brief}"
    );
    assert!(
        brief.contains("tools: drop_collection, noop_1, noop_2"),
        "{brief}"
    );
    assert!(brief.len() < 10_000, "{} bytes: {brief}", brief.len());
    let whole = table(true);
    assert!(whole.len() > 60_000, "{} bytes", whole.len());
}
