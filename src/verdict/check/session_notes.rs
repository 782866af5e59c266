//! The notes a check's sessions leave in its health: what a session showed
//! that the judged runs do not, so a user who reads only the verdicts learns
//! it too. Session mode (the sessions of [`mod@crate::check`]) decides when a note is
//! due; this module says it, in the protocol's terms. Each function returns
//! one note (a sentence, no trailing period) for
//! [`crate::verdict::check::health::Health`]'s `notes`.

use crate::oracle::property::{ActedRule, Property};

/// A case whose session call got no reply (`why`, as property 5 says it)
/// and whose fresh run got one: `label`, the calls its process `served`
/// before, and whether each later case therefore ran fresh (`fresh_only`:
/// the call waited out its bound).
pub(crate) fn no_reply_in_session(
    label: &str,
    served: usize,
    why: &str,
    fresh_only: bool,
) -> String {
    format!(
        "{label} got no reply in a server process that had served {} before ({why}), and a reply in a fresh process: the fresh run is the one judged, but a client that keeps one connection meets it{}",
        crate::format::counted(served, "call"),
        if fresh_only {
            "; each later case ran in a fresh process"
        } else {
            ""
        }
    )
}

/// The tool refused `label`'s consenting valid accept after an earlier call
/// of its session acted, and acted on it in a fresh process: its state
/// across calls changes its answers.
pub(crate) fn state_changes_answers(label: &str) -> String {
    format!(
        "the tool refused the consenting valid accept of {label} after an earlier call of its server process acted, and acted on it in a fresh process: its state across calls changes its answers, so each case that ran after an act in a session, and each case from {label} on, ran in a fresh process"
    )
}

/// `label`'s session run broke `property` and its fresh run kept it, and
/// the fresh run is the one judged. When the property is one an act alone
/// breaks ([`Property::broken_by_an_act`]) and `acted` reads more than a
/// field of the call's own reply (`--acted-text`, `--acted-not-error`,
/// `--acted-cmd`), the reading may show an earlier call's act (one that
/// lands after its reply, or one its reply recounts): the note says so and
/// names the rule that judges an act where it was seen. Otherwise a client
/// that keeps one connection meets the break.
pub(crate) fn session_only(label: &str, property: Property, acted: &ActedRule) -> String {
    let head = format!(
        "{label} broke {property} only after earlier calls of its server process (its fresh run keeps it): the fresh run is the one judged"
    );
    if property.broken_by_an_act() && !acted.reads_a_reply_field() {
        let option = acted.words().into_iter().next().unwrap_or_default();
        format!(
            "{head}; with {option} the reading may show an earlier call's act (one that lands after its reply, or one its reply recounts), while an acted rule on a field of the call's own reply (--acted /pointer) judges an act where it was seen"
        )
    } else {
        format!("{head}, but a client that keeps one connection meets the break")
    }
}

/// The tool did `what` (asked for a form, or acted on the probe's consenting
/// answer) in a fresh process but not as call `call` (from 1) of a session:
/// from `label` on, each case ran in a fresh process.
pub(crate) fn stops_asking(what: &str, call: usize, label: &str) -> String {
    format!(
        "the tool {what} in a fresh server process but not as call {call} of a session: from {label} on, each case ran in a fresh process"
    )
}

/// A session's server process exited with status `code` (not 0) when its
/// stdin closed, its only fault: its cases were re-run fresh.
pub(crate) fn exit_status(code: i32) -> String {
    format!(
        "a session's server process exited with status {code} when its stdin closed (a session's runs stand when it exits with 0): each case it ran was re-run in a fresh process"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session-only act read by a rule on the call's own reply is a break a
    /// long-lived client meets; read by `--acted-cmd` or `--acted-text`, it
    /// may be an earlier call's act, and the note names the rule in use and
    /// the one that judges it where it was seen; a property no act breaks
    /// (property 3, a refused valid accept) reads as before whatever the rule.
    #[test]
    fn a_session_only_act_is_named_after_what_the_acted_rule_can_see() {
        let pointer = ActedRule::Pointer("/booked".into());
        let command = ActedRule::Command("test -e booked".into());
        let text = ActedRule::Text {
            regex: regex::Regex::new("booked").expect("a regex"),
            not_error: false,
        };
        let met = "case 4 broke property 1 only after earlier calls of its server process (its fresh run keeps it): the fresh run is the one judged, but a client that keeps one connection meets the break";
        assert_eq!(
            session_only("case 4", Property::NoActOnRefusal, &pointer),
            met
        );
        assert_eq!(
            session_only("case 4", Property::NoActOnRefusal, &command),
            "case 4 broke property 1 only after earlier calls of its server process (its fresh run keeps it): the fresh run is the one judged; with --acted-cmd the reading may show an earlier call's act (one that lands after its reply, or one its reply recounts), while an acted rule on a field of the call's own reply (--acted /pointer) judges an act where it was seen"
        );
        assert!(
            session_only("case 4", Property::NoActWithoutAnswer, &text)
                .contains("; with --acted-text the reading may show an earlier call's act"),
        );
        assert_eq!(
            session_only("case 4", Property::ActsOnValid, &command),
            "case 4 broke property 3 only after earlier calls of its server process (its fresh run keeps it): the fresh run is the one judged, but a client that keeps one connection meets the break"
        );
    }
}
