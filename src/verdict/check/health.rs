//! The era's health: whether its calls could learn anything (in the spirit of
//! Hypothesis's health checks, which refuse to call a test that saw no
//! examples a pass). Per era: the planned cases, the ones whose call reached
//! the form, the calls whose server never reached the tool, and, when most
//! planned cases never reached the form, the one reply they got instead
//! (`after probe: a consenting valid accept, which acted, the tool answered
//! "victim.txt does not exist" without asking, 11 times`). Such an era is
//! **inconclusive**: no property of it is called "holds", and the check
//! exits 2.
//!
//! `Unreached` stops an era's planned cases early when
//! [`UNREACHED_IN_A_ROW`] of them in a row never reached the form, or
//! [`UNANSWERED_IN_A_ROW`] in a row waited out `--call-timeout`.

use serde::Serialize;
use serde_json::Value;

use crate::check::case_run::CaseRun;
use crate::check::runner::Endings;
use crate::evidence::HarnessFailure;
use crate::oracle::no_reply::no_reply;
use crate::oracle::property::ActedRule;
use crate::oracle::property::{Property, text_of};

/// Planned cases in a row that may end without reaching the form before the
/// era's remaining planned cases are left unrun: a tool that stopped asking
/// (its state changed, its server no longer starts) would answer them all
/// the same way, and each would test nothing.
pub const UNREACHED_IN_A_ROW: usize = 10;

/// Planned cases in a row whose `tools/call` waited out `--call-timeout`
/// before the era's remaining planned cases are left unrun: property 5 fails
/// on each already, and each further one would cost the bound and read no
/// act (as `run` stops after 2 consecutive `hung` cases). A call whose
/// server died in it costs no wait and does not count: a tool that dies on
/// some answers only is still asked the others.
pub const UNANSWERED_IN_A_ROW: usize = 3;

/// Most characters of a reply quoted in a health line.
const QUOTED_REPLY_CHARS: usize = 160;

/// Counts planned cases in a row that never reached the form, and those
/// whose call got no reply.
#[derive(Debug, Default)]
pub(crate) struct Unreached {
    in_a_row: usize,
    unanswered_in_a_row: usize,
}

impl Unreached {
    /// Counts `run`: one more in a row when it never reached the form (or
    /// `--acted-cmd` already said acted before it), none when it did; one
    /// more unanswered in a row when its call waited out `--call-timeout`,
    /// none otherwise.
    pub(crate) fn push(&mut self, run: &CaseRun) {
        self.in_a_row = if run.reached_form() && !run.acted_before {
            0
        } else {
            self.in_a_row + 1
        };
        let timed_out = matches!(run.call_failure, Some(HarnessFailure::CallTimedOut { .. }));
        self.unanswered_in_a_row = if timed_out {
            self.unanswered_in_a_row + 1
        } else {
            0
        };
    }

    /// Whether [`UNREACHED_IN_A_ROW`] planned cases in a row never reached
    /// the form, or [`UNANSWERED_IN_A_ROW`] waited out `--call-timeout`: the era's
    /// remaining planned cases are not run.
    pub(crate) fn stops(&self) -> bool {
        self.in_a_row >= UNREACHED_IN_A_ROW || self.unanswered_in_a_row >= UNANSWERED_IN_A_ROW
    }

    /// The health's note when the calls without reply stopped the era's
    /// planned cases, `left` of them not run; none otherwise.
    pub(crate) fn note(&self, left: usize) -> Option<String> {
        (self.unanswered_in_a_row >= UNANSWERED_IN_A_ROW && left > 0).then(|| {
            format!(
                "{UNANSWERED_IN_A_ROW} planned cases in a row got no reply to tools/call (property 5): the other {left} planned cases were not run, each would wait out --call-timeout and read no act"
            )
        })
    }
}

/// The one reply most calls that never reached the form got instead.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepeatedReply {
    /// The reply in brief: a JSON-RPC error's message, a result's text (or
    /// its `structuredContent`), or why there is none
    /// ([`no_reply`]: `no reply to tools/call within 10 s`); at most 160
    /// characters.
    pub reply: String,
    /// How many calls got it without reaching the form.
    pub times: usize,
    /// The last call that reached the form before the first that did not
    /// (`probe: a consenting valid accept`, `coverage 3`).
    pub after: String,
    /// Whether that call acted.
    pub after_acted: bool,
}

/// What one era's calls could learn (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Health {
    /// Coverage and random cases planned in this era (in this slice).
    pub planned: usize,
    /// Of them, the cases that ran (the rest were left unrun, see
    /// [`UNREACHED_IN_A_ROW`]).
    pub ran: usize,
    /// Of them, the cases whose call reached the form and has an acted
    /// reading ([`CaseRun::has_reading`]: a reply, or `--acted-cmd` read
    /// after it and did not say acted before it).
    pub reached_form: usize,
    /// Calls whose server never reached the tool (it died at start-up, its
    /// handshake failed), each `LABEL: WHY`; they count for no property.
    pub never_reached_tool: Vec<String>,
    /// Calls before which `--acted-cmd` already said the tool had acted (what
    /// it reads was not reset), each its label; they count for no property.
    pub acted_before_call: Vec<String>,
    /// The planned case that sent the very answer the tool acted on in the
    /// probe and that the tool then refused (its state changed after the
    /// probe), with its reply in brief: `coverage 0: "q3.txt is not in the
    /// inbox"`; none when it acted as in the probe.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_refused: Option<String>,
    /// The reply most calls that never reached the form got instead, when
    /// one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeated_reply: Option<RepeatedReply>,
    /// Sessions whose server did not exit after its stdin closed (killed
    /// after the grace): each costs the grace, so after two (one in an era
    /// after one that showed it) `check` stops later sessions itself.
    pub ignored_stdin_close: usize,
    /// Later sessions `check` stopped itself, the ignored stdin close being
    /// shown (their exits are not judged).
    pub stopped_by_check: usize,
    /// What the runs showed about the check itself (e.g. the tool asked
    /// only in a fresh process, so the cases ran fresh).
    pub notes: Vec<String>,
    /// Why the era is inconclusive, in one line, when most planned cases
    /// never reached the form; none when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inconclusive: Option<String>,
}

/// One call made declaring form elicitation, as health reads it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    /// Its label.
    pub(crate) label: String,
    /// Whether it is a planned (coverage or random) case.
    pub(crate) planned: bool,
    /// Whether it sent the probe's base: the consenting answer the tool
    /// acted on in the probe.
    pub(crate) base: bool,
    /// Whether it reached the form.
    pub(crate) reached_form: bool,
    /// Whether its acted reading says something of the call
    /// ([`CaseRun::has_reading`]: `--acted-cmd` did not say acted before it,
    /// and it got a reply or `--acted-cmd` read after it).
    pub(crate) read: bool,
    /// Whether it acted.
    pub(crate) acted: bool,
    /// Its reply in brief.
    pub(crate) reply: String,
}

impl Seen {
    /// `run`, labelled `label`, as health reads it under the acted rule
    /// `acted`: a planned case or not, the probe's base or not.
    pub(crate) fn of(
        label: &str,
        (planned, base): (bool, bool),
        run: &CaseRun,
        acted: &ActedRule,
    ) -> Seen {
        Seen {
            label: label.to_owned(),
            planned,
            base,
            reached_form: run.reached_form(),
            read: run.has_reading(acted),
            acted: run.reading.acted,
            reply: in_brief(&run.reply, run.call_failure.as_ref(), run.http.is_empty()),
        }
    }

    /// Whether the call tested what it was planned to: it reached the form
    /// and its acted reading can be trusted.
    fn tested(&self) -> bool {
        self.reached_form && self.read
    }
}

/// What an era's health is read from.
pub(crate) struct Observed<'a> {
    /// The calls declaring form elicitation, in order (the probe's, then the
    /// planned cases').
    pub(crate) seen: &'a [Seen],
    /// The coverage and random cases planned.
    pub(crate) planned: usize,
    /// Calls whose server never reached the tool, `LABEL: WHY`.
    pub(crate) never_reached_tool: Vec<String>,
    /// Calls before which `--acted-cmd` already said acted, by label.
    pub(crate) acted_before_call: Vec<String>,
    /// How the era's sessions ended, and the notes kept.
    pub(crate) endings: (Endings, Vec<String>),
    /// Whether `--setup` was given (the advice of the line).
    pub(crate) setup: bool,
}

/// A reply in brief (see [`RepeatedReply::reply`]); `failure` and `stdio`
/// say why there is none.
pub(crate) fn in_brief(reply: &Value, failure: Option<&HarnessFailure>, stdio: bool) -> String {
    let text = if let Some(message) = reply.pointer("/error/message").and_then(Value::as_str) {
        message.to_owned()
    } else if let Some(result) = reply.get("result") {
        let text = text_of(result);
        if text.is_empty() {
            result
                .get("structuredContent")
                .map_or_else(|| result.to_string(), Value::to_string)
        } else if let Ok(json) = serde_json::from_str::<Value>(&text) {
            // JSON text content, as compact JSON.
            json.to_string()
        } else {
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        }
    } else {
        no_reply(failure, stdio)
    };
    let mut quoted: String = text.chars().take(QUOTED_REPLY_CHARS).collect();
    if quoted.len() < text.len() {
        quoted.push('…');
    }
    quoted
}

impl Health {
    /// The health of an era whose form-capable calls were `seen`, in order
    /// (the probe's, then the planned cases'), with `planned` cases planned
    /// and `never_reached_tool` calls that never reached the tool; `setup`:
    /// whether `--setup` was given (the line's advice).
    pub(crate) fn assess(observed: Observed<'_>) -> Health {
        let Observed {
            seen,
            planned,
            never_reached_tool,
            acted_before_call,
            endings: (endings, mut notes),
            setup,
        } = observed;
        let cases: Vec<&Seen> = seen.iter().filter(|seen| seen.planned).collect();
        let reached_form = cases.iter().filter(|seen| seen.tested()).count();
        let repeated_reply = repeated_reply(seen);
        // The base acted in the probe; a planned case sending it was refused.
        let base_refused = seen
            .iter()
            .filter(|seen| seen.planned && seen.base && seen.tested() && !seen.acted)
            .map(|seen| format!("{}: {}", seen.label, Value::String(seen.reply.clone())))
            .next();
        if endings.stopped_by_check > 0 {
            notes.push(format!(
                "the server did not exit after its stdin closed in {} (property 5 fails on it): elicit-check ended the {} after them itself",
                crate::format::counted(endings.ignored_stdin_close, "session"),
                crate::format::counted(endings.stopped_by_check, "later session")
            ));
        }
        let mut health = Health {
            planned,
            ran: cases.len(),
            reached_form,
            never_reached_tool,
            acted_before_call,
            base_refused,
            repeated_reply,
            ignored_stdin_close: endings.ignored_stdin_close,
            stopped_by_check: endings.stopped_by_check,
            notes,
            inconclusive: None,
        };
        // Fewer than half reached the form (never when nothing was planned),
        // or the base was refused.
        if reached_form * 2 < planned || health.base_refused.is_some() {
            // A call that reached the form and has no acted reading (no
            // reply, or --acted-cmd said acted before it) is not counted.
            let unread = cases.iter().any(|seen| seen.reached_form && !seen.read);
            health.inconclusive = Some(health.line(setup, unread));
        }
        health
    }

    /// The inconclusive line: how many planned cases reached the form, the
    /// repeated reply and what to do, the base the tool refused after the
    /// probe, the calls `--acted-cmd` could not read, the cases left unrun.
    fn line(&self, setup: bool, unread: bool) -> String {
        let advice = if setup {
            "--setup did not restore it"
        } else {
            "reset it before each case with --setup CMD"
        };
        // A call that reached the form without an acted reading tested
        // nothing: the count says so.
        let trusted = if unread {
            " with an acted reading to trust"
        } else {
            ""
        };
        let mut line = format!(
            "{} of {} planned cases reached the form{trusted}",
            self.reached_form, self.planned
        );
        if let Some(repeated) = &self.repeated_reply {
            line.push_str(&format!(
                ": after {}{}, the tool answered {} without asking, {} (its state changed; {advice})",
                repeated.after,
                if repeated.after_acted {
                    ", which acted"
                } else {
                    ""
                },
                Value::String(repeated.reply.clone()),
                crate::format::counted(repeated.times, "time")
            ));
        }
        if let Some(refused) = &self.base_refused {
            line.push_str(&format!(
                "; the tool acted on its consenting answer in the probe, then refused the same answer in {refused} (its state changed; {advice})"
            ));
        }
        if !self.acted_before_call.is_empty() {
            line.push_str(&format!(
                "; before {} --acted-cmd already said the tool had acted (reset what it reads before each case with --setup)",
                crate::format::counted(self.acted_before_call.len(), "call")
            ));
        }
        let unrun = self.planned - self.ran;
        if unrun > 0 {
            line.push_str(&format!(
                "; the other {} were not run",
                crate::format::counted(unrun, "planned case")
            ));
        }
        line
    }
}

/// The reply most calls that never reached the form got, after the last
/// call that reached it (none when every call reached it).
fn repeated_reply(seen: &[Seen]) -> Option<RepeatedReply> {
    let first_short = seen.iter().position(|seen| !seen.reached_form)?;
    let before = seen[..first_short]
        .iter()
        .rev()
        .find(|seen| seen.reached_form)?;
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for short in seen[first_short..].iter().filter(|seen| !seen.reached_form) {
        match counts.iter_mut().find(|(reply, _)| *reply == short.reply) {
            Some((_, times)) => *times += 1,
            None => counts.push((&short.reply, 1)),
        }
    }
    // The most frequent; on a tie, the first met.
    let (reply, times) = counts
        .iter()
        .fold(None::<(&str, usize)>, |best, &(reply, times)| match best {
            Some((_, most)) if most >= times => best,
            _ => Some((reply, times)),
        })?;
    Some(RepeatedReply {
        reply: reply.to_owned(),
        times,
        after: before.label.clone(),
        after_acted: before.acted,
    })
}

/// Per property, the planned calls aimed at it and how many could be
/// judged (`judged on 2 of 27 planned calls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PlannedCases {
    /// Planned calls aimed at the property.
    pub cases: usize,
    /// Of them, the ones that could be judged (they reached the form, or
    /// for a capability session the tool, and `--acted-cmd` could read them).
    pub judged: usize,
}

/// Counts, per property, the planned cases aimed at it and reaching the form.
#[derive(Debug, Default)]
pub(crate) struct Aimed {
    counts: Vec<(Property, PlannedCases)>,
}

impl Aimed {
    /// Counts one planned call aimed at `property` (none: at no property);
    /// `judged`: whether it could be judged (false for a case not run).
    pub(crate) fn add(&mut self, property: Option<Property>, judged: bool) {
        let Some(property) = property else {
            return;
        };
        let at = match self.counts.iter().position(|(known, _)| *known == property) {
            Some(at) => at,
            None => {
                self.counts.push((
                    property,
                    PlannedCases {
                        cases: 0,
                        judged: 0,
                    },
                ));
                self.counts.len() - 1
            }
        };
        let counted = &mut self.counts[at].1;
        counted.cases += 1;
        counted.judged += usize::from(judged);
    }

    /// The planned cases aimed at `property`, when any was.
    pub(crate) fn of(&self, property: Property) -> Option<PlannedCases> {
        self.counts
            .iter()
            .find(|(known, _)| *known == property)
            .map(|(_, counted)| *counted)
    }
}

#[cfg(test)]
mod tests;
