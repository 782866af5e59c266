//! A property's failure as the report shows it, from the call that showed
//! it ([`CaseRun`]): its reason, the flaw it shows, the answers sent, the
//! wire, the server's stderr, and the reproduction lines (`--answer JSON` per
//! request, or `--seed S --case-index I`; for an act seen after earlier calls
//! of a session, the check again with its seed).

use serde_json::Value;

use super::outcome::PropertyFailure;
use super::reproduction::{base_command, join_command};
use crate::check::case_run::CaseRun;
use crate::fix::flaw::Flaw;
use crate::format::last_lines;
use crate::oracle::property::{Class, Property};
use crate::targets::target::Target;

/// A failure of `property` for `reason` from a run, with the flaw it shows
/// (its fix is given once the check's SDK is known: `super::eras`, with `crate::fix::remedy::fix`).
pub(crate) fn failure_of(
    target: &Target,
    (property, reason): (Property, String),
    run: &CaseRun,
    case_index: Option<usize>,
    shrink_runs: usize,
    shrink_stopped_early: bool,
    seed: u64,
) -> PropertyFailure {
    let answers: Vec<Value> = run
        .sent
        .iter()
        .filter(|sent| sent.class != Class::Error)
        .map(|sent| sent.answer.clone())
        .collect();
    let mut replay = base_command(target);
    for answer in &answers {
        replay.push("--answer".to_owned());
        replay.push(answer.to_string());
    }
    PropertyFailure {
        reason,
        flaw: Flaw::of(property, &run.sent, &run.capabilities),
        fix: String::new(),
        fix_url: String::new(),
        case_index,
        built_as: run.sent.iter().map(|sent| sent.built_as.clone()).collect(),
        answers,
        shrink_runs,
        shrink_stopped_early,
        earlier_calls: 0,
        wire: run.wire.clone(),
        stray_stdout: run.stray.clone(),
        reproduce: join_command(&replay, &target.command),
        reply: run.reply.clone(),
        stderr: last_lines(&run.stderr, 10),
        reproduce_seed: case_index.map(|index| {
            let mut again = base_command(target);
            again.extend([
                "--seed".to_owned(),
                seed.to_string(),
                "--case-index".to_owned(),
                index.to_string(),
            ]);
            join_command(&again, &target.command)
        }),
    }
}

/// A failure of `property` for `reason` seen in `run`, a call after
/// [`CaseRun::served_before`] earlier calls of its server process (session
/// mode) whose fresh run kept the property: not shrunk (a candidate alone in
/// a fresh process would not show it); the reason counts the earlier calls,
/// and the reproduction is the check again with its seed (and its
/// `--cases` when not the default), which runs the same calls in the same
/// order.
pub(crate) fn in_session(
    target: &Target,
    (property, reason): (Property, String),
    run: &CaseRun,
    seed: u64,
) -> PropertyFailure {
    let reason = format!(
        "{reason}, after {} of the same server process (run again alone in a fresh process, it kept {property})",
        crate::format::counted(run.served_before, "earlier call")
    );
    let mut failure = failure_of(target, (property, reason), run, None, 0, false, seed);
    failure.earlier_calls = run.served_before;
    let mut again = base_command(target);
    again.extend(["--seed".to_owned(), seed.to_string()]);
    // The earlier calls are the same for any count of random cases that
    // reaches this one; the default may not.
    if target.cases != crate::targets::target::DEFAULT_CASES {
        again.extend(["--cases".to_owned(), target.cases.to_string()]);
    }
    failure.reproduce = join_command(&again, &target.command);
    failure
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::oracle::property::{Reading, SentAnswer};

    /// A run that sent `answer` (a refusal) and acted, its process having
    /// served `served_before` calls before it.
    fn acted_on(answer: Value, served_before: usize) -> CaseRun {
        CaseRun {
            sent: vec![SentAnswer {
                requested_schema: json!({"type": "object"}),
                answer,
                class: Class::Refusal("decline".into()),
                built_as: "decline with content".into(),
            }],
            reading: Reading::plain(true),
            reply: json!({"result": {"booked": true}}),
            wire: Vec::new(),
            http: Vec::new(),
            stray: Vec::new(),
            forced_kill: false,
            call_failure: None,
            capabilities: json!({"elicitation": {"form": {}}}),
            stderr: String::new(),
            forms: 1,
            acted_before: false,
            served_before,
        }
    }

    #[test]
    fn an_act_seen_after_earlier_calls_counts_them_and_is_reproduced_by_the_checks_seed() {
        let target = Target::stdio(["python3", "srv.py"])
            .tool("book")
            .acted_pointer("/booked");
        let decline = json!({"action": "decline", "content": {"slot": 1}});
        let failure = in_session(
            &target,
            (
                Property::NoActOnRefusal,
                "acted although the answer was decline".to_owned(),
            ),
            &acted_on(decline.clone(), 2),
            9,
        );
        assert_eq!(
            failure.reason,
            "acted although the answer was decline, after 2 earlier calls of the same server process (run again alone in a fresh process, it kept property 1)"
        );
        assert_eq!(failure.answers, vec![decline]);
        assert_eq!((failure.shrink_runs, failure.case_index), (0, None));
        // Its answer is that call's, not a minimal one: the reports say so.
        assert_eq!(failure.earlier_calls, 2);
        assert_eq!(
            failure.answers_title(),
            "answer (after 2 earlier calls of its server process, not shrunk)"
        );
        assert_eq!(
            failure.reproduce,
            "elicit-check check --tool book --acted /booked --protocol 2025-11-25 --seed 9 -- python3 srv.py"
        );
        assert_eq!(failure.reproduce_seed, None);
        // After one call, one: the count is spelt for it.
        let once = in_session(
            &target,
            (Property::NoActOnRefusal, "acted".to_owned()),
            &acted_on(json!({"action": "cancel"}), 1),
            9,
        );
        assert!(
            once.reason.starts_with("acted, after 1 earlier call of"),
            "{}",
            once.reason
        );
        // A count of random cases not the default is repeated: the default
        // may stop short of the case.
        let more = in_session(
            &target.clone().cases(300),
            (Property::NoActOnRefusal, "acted".to_owned()),
            &acted_on(json!({"action": "cancel"}), 250),
            9,
        );
        assert_eq!(
            more.reproduce,
            "elicit-check check --tool book --acted /booked --protocol 2025-11-25 --seed 9 --cases 300 -- python3 srv.py"
        );
    }
}
