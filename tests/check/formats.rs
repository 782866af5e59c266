//! A `format` checked too leniently or too strictly, on the TypeScript SDK
//! 1.x peer `fixtures/peers/typescript/arrival.mjs` (tool `schedule`, one
//! required `date-time` field `arrival`; its header lists the variants).
//!
//! The coverage phase sends each malformed `date-time` by the reading that
//! takes it and each valid one in another shape of RFC 3339 section 5.6, so
//! what these tests find takes no seed: a server that reads `date-time` with
//! JavaScript's `Date.parse` fails property 2 with every seed, on exactly the
//! readings `Date.parse` takes; the one that checks RFC 3339 passes with
//! every seed; the one that takes only `Z` fails property 3 on the first
//! valid offset it refuses after acting on the same time in `Z`.

use std::collections::BTreeSet;

use elicit_check::check::{PropertyVerdict, Target};

use super::gate::{environments, gate, passes_with_no_refusal_warning};
use crate::support::failing;

/// The `schedule` tool of `node arrival.mjs [--bug BUG]`, acting at `/scheduled`.
fn arrival(bug: Option<&str>) -> Target {
    let mut command = vec![
        "node".to_owned(),
        environments()
            .join("node/arrival.mjs")
            .display()
            .to_string(),
    ];
    if let Some(bug) = bug {
        command.extend(["--bug".to_owned(), bug.to_owned()]);
    }
    Target::stdio(command)
        .tool("schedule")
        .acted_pointer("/scheduled")
}

/// The coverage answer built on `arrival` with `value`, read as `how`.
fn reading(how: &str, value: &str) -> String {
    format!("accept: {how} {value:?} for date-time `arrival`")
}

#[test]
fn formats_a_date_time_read_by_date_parse_fails_property_2_with_every_seed() {
    // `Date.parse` falls back to implementation-specific heuristics when a
    // string is not ECMAScript's Date Time String Format (V8, Node's engine,
    // reads on): it takes a date only as
    // midnight UTC, a local time, an English date, a space for `T`, no
    // seconds, `+0200`; it rolls February 30 over to March 2 and hour 24 to
    // the next day's midnight. Month 13 and prose it cannot read (NaN).
    let taken: BTreeSet<String> = [
        ("a date only", "2030-01-15"),
        ("a local time without offset", "2030-01-15T10:00:00"),
        ("February 30", "2030-02-30T10:00:00Z"),
        ("hour 24", "2030-01-15T24:00:00Z"),
        ("an English date", "Jan 15 2030"),
        ("an English date and time", "15 January 2030 10:00"),
        ("a space instead of T", "2030-01-15 10:00:00Z"),
        ("no seconds", "2030-01-15T10:00Z"),
        ("an offset without a colon", "2030-01-15T10:00:00+0200"),
    ]
    .into_iter()
    .map(|(how, value)| reading(how, value))
    .collect();
    for seed in 1..=3 {
        let report = gate(arrival(Some("date-parse")), seed);
        let table = elicit_check::report::check::table(&report);
        assert_eq!(failing(&report), vec![2], "seed {seed}:\n{table}");
        let invalid = report.property(2).expect("property 2");
        let acted_on: BTreeSet<String> = invalid
            .findings
            .iter()
            .map(|finding| finding.answer_class.clone())
            .collect();
        assert_eq!(acted_on, taken, "seed {seed}:\n{table}");
        // The minimal failure is a coverage answer (no seed shrinks it), one
        // of the readings `Date.parse` takes.
        let failure = invalid.failure.as_ref().expect("a failure");
        assert_eq!(failure.case_index, None, "seed {seed}:\n{table}");
        assert!(
            taken.contains(&failure.built_as[0]),
            "seed {seed}: {:?}\n{table}",
            failure.built_as
        );
        // It takes every valid shape too: no valid accept refused.
        let acts = report.property(3).expect("property 3");
        assert_eq!(
            acts.verdict,
            PropertyVerdict::Holds,
            "seed {seed}:\n{table}"
        );
        assert!(acts.warnings.is_empty(), "seed {seed}:\n{table}");
    }
}

#[test]
fn formats_a_date_time_checked_by_rfc_3339_passes_with_every_seed() {
    for seed in 1..=3 {
        let report = gate(arrival(None), seed);
        passes_with_no_refusal_warning(&report, &format!("arrival, seed {seed}"));
    }
}

/// A server that refuses some valid accepts and acts on others holds
/// property 3 with a warning per refused accept (docs/src/check.md, "The
/// properties P1 to P8": a server may add rules of its own); property 3 fails
/// only when no valid accept acted. `utc-only` acts on the base
/// (`2030-01-15T10:00:00Z`), so the check passes, and its warnings name the
/// valid shapes it refuses: the coverage phase's offsets and lower case first
/// (at most 5 listed, then a count of the rest, from the random phase).
/// Too strict: it acts on `2030-01-15T10:00:00Z` and refuses the same
/// wall-clock time with an offset, which RFC 3339 section 5.6 allows:
/// property 3 fails on the first such shape, with every seed, and every
/// refusal is still listed.
#[test]
fn formats_a_date_time_that_must_end_in_z_fails_property_3_on_the_valid_offset_it_refuses() {
    let fails_on_the_offset = |seed: u64| {
        let report = gate(arrival(Some("utc-only")), seed);
        let table = elicit_check::report::check::table(&report);
        assert!(!report.passed, "seed {seed}: {table}");
        let acts = report.property(3).expect("property 3");
        assert_eq!(acts.verdict, PropertyVerdict::Fails, "seed {seed}: {table}");
        let failure = acts.failure.as_ref().expect("a failure");
        assert_eq!(
            failure.reason,
            r#"refused `arrival` "2030-01-15T10:00:00+02:00" (a date-time with an offset, valid under RFC 3339 section 5.6) after acting on "2030-01-15T10:00:00Z" in the same accept"#,
            "seed {seed}: {table}"
        );
        assert_eq!(
            failure.answers,
            [
                serde_json::json!({"action": "accept", "content": {"arrival": "2030-01-15T10:00:00+02:00"}})
            ]
        );
        // The other properties are untouched by the shape.
        for other in [1, 2, 7] {
            let line = report.property(other).expect("a property");
            assert_ne!(line.verdict, PropertyVerdict::Fails, "seed {seed}: {table}");
        }
        (report, table)
    };
    for seed in 2..=3 {
        fails_on_the_offset(seed);
    }
    let (report, table) = fails_on_the_offset(1);
    let acts = report.property(3).expect("property 3");
    let refused = |value: &str| {
        format!(
            r#"did not act on the valid accept {{"action":"accept","content":{{"arrival":"{value}"}}}} (it answered "#
        )
    };
    assert_eq!(acts.warnings.len(), 6, "{table}");
    for (warning, value) in acts.warnings.iter().zip([
        "2030-01-15T10:00:00+02:00",
        "2030-01-15T10:00:00-05:30",
        "2030-01-15t10:00:00z",
    ]) {
        assert!(warning.starts_with(&refused(value)), "{warning}\n{table}");
    }
    // The two from the random phase: an offset or a lower-case `t` or `z`,
    // never a value that ends in `Z` after an upper-case `T`.
    for warning in &acts.warnings[3..5] {
        let value = warning
            .split(r#""arrival":""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("an arrival");
        assert!(
            !(value[10..11] == *"T" && value.ends_with('Z')),
            "{warning}\n{table}"
        );
    }
    assert!(
        acts.warnings[5].starts_with("and ") && acts.warnings[5].ends_with(" it did not act on"),
        "{table}"
    );
}
