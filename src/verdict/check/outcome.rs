//! What a check reports: per property ([`PropertyReport`], properties 1 to 8)
//! a [`PropertyVerdict`], the calls it applied to, its warnings and its minimal
//! [`PropertyFailure`] with the commands that reproduce it; and the whole
//! [`CheckReport`] the table, JSON and JUnit renderings read.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::health::{Health, PlannedCases};
use super::tally::ClassFinding;
use crate::evidence::wire::{Frame, StrayLine};
use crate::fix::flaw::Flaw;
use crate::fix::sdk::SdkGuess;

/// A property's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PropertyVerdict {
    /// It held on every case it applied to (warnings aside).
    Holds,
    /// A case broke it.
    Fails,
    /// No case applied to it (e.g. property 6 without `--acted POINTER`).
    Untested,
    /// It held on the cases that ran, but most planned cases never reached
    /// the form ([`CheckReport::health`]): that is not enough to say it holds.
    Inconclusive,
}

impl PropertyVerdict {
    /// The word printed in the table.
    pub fn word(self) -> &'static str {
        match self {
            PropertyVerdict::Holds => "holds",
            PropertyVerdict::Fails => "FAILS",
            PropertyVerdict::Untested => "untested",
            PropertyVerdict::Inconclusive => "inconclusive",
        }
    }
}

/// Whether `count` is 0 (a field left out of the JSON report).
fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// A property's minimal failure.
#[derive(Debug, Clone, Serialize)]
pub struct PropertyFailure {
    /// The one primary reason, on the minimal case.
    pub reason: String,
    /// The flaw it shows in the server's code, e.g. `lax-coercion`.
    pub flaw: Flaw,
    /// How to fix it in the server's SDK, one line (`crate::fix::remedy::fix`);
    /// empty until the check's SDK is known.
    pub fix: String,
    /// The guide page with a before/after pair per SDK (`docs/src/fixes/`).
    pub fix_url: String,
    /// The generated case it came from (none for replays and capability sessions).
    pub case_index: Option<usize>,
    /// The minimal answers, one per `elicitation/create`, as sent.
    pub answers: Vec<Value>,
    /// How each was built.
    pub built_as: Vec<String>,
    /// Stdio runs spent shrinking.
    pub shrink_runs: usize,
    /// Whether shrinking stopped at [`Target::max_shrink_runs`](crate::targets::target::Target::max_shrink_runs) before it was done.
    pub shrink_stopped_early: bool,
    /// The calls its server process served before the call that showed it
    /// (session mode, a break no earlier call can make right); 0, and not
    /// written, when the call had a process of its own. When not 0 the
    /// answers are that call's, not shrunk: alone in a fresh process they
    /// pass, and the check again with its seed reproduces the failure.
    #[serde(skip_serializing_if = "is_zero")]
    pub earlier_calls: usize,
    /// The minimal case's whole wire.
    pub wire: Vec<Frame>,
    /// Its non-JSON-RPC stdout lines.
    pub stray_stdout: Vec<StrayLine>,
    /// A one-line command replaying the minimal answers (`--answer JSON`).
    pub reproduce: String,
    /// A one-line command repeating the generated case (`--seed S --case-index I`).
    pub reproduce_seed: Option<String>,
    /// The tool's reply in that case (`{"result": ..}`, `{"error": ..}` or `{}`).
    pub reply: Value,
    /// The last lines of the server's stderr in that case.
    pub stderr: String,
}

impl PropertyFailure {
    /// What its answers are called in a report: `minimal answer`, or, for a
    /// failure seen after earlier calls of a session ([`Self::earlier_calls`]),
    /// `answer (after N earlier calls of its server process, not shrunk)`.
    pub fn answers_title(&self) -> String {
        if self.earlier_calls == 0 {
            "minimal answer".to_owned()
        } else {
            format!(
                "answer (after {} of its server process, not shrunk)",
                crate::format::counted(self.earlier_calls, "earlier call")
            )
        }
    }
}

/// One property's line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct PropertyReport {
    /// 1 to 8.
    pub property: u8,
    /// What it states.
    pub statement: &'static str,
    /// Calls it applied to.
    pub cases: usize,
    /// Its verdict.
    pub verdict: PropertyVerdict,
    /// The calls planned to test it and how many could be judged (`judged
    /// on 2 of 27 planned cases`): the coverage and random cases aimed at
    /// properties 1 to 3 (judged: they reached the form), the two capability
    /// sessions of properties 4 and 7 (judged: they reached the tool); none
    /// when no planned call aims at it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planned: Option<PlannedCases>,
    /// Warnings (never failures unless `--strict`).
    pub warnings: Vec<String>,
    /// The minimal failure, when it fails.
    pub failure: Option<PropertyFailure>,
    /// Properties 1 and 2: every answer class the tool acted on, with how
    /// often and its smallest answer, in the order they were met.
    pub findings: Vec<ClassFinding>,
}

/// The result of a check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// This crate's version.
    pub elicit_check_version: &'static str,
    /// The server command (empty: a running server at `url`).
    pub server_command: Vec<String>,
    /// The Streamable HTTP endpoint, as given (`{port}` standing for the
    /// port of each server started); absent over stdio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The tool called.
    pub tool: String,
    /// The acted rule, as its option (`--acted /computed`).
    pub acted: String,
    /// The seed.
    pub seed: u64,
    /// Random cases run.
    pub cases: usize,
    /// Coverage cases run (the same for every seed).
    pub coverage_cases: usize,
    /// Per request and field, how many coverage answers were built on it, e.g.
    /// `nights: 10`.
    pub coverage_fields: Vec<String>,
    /// The fields the tool acts on at one value only, e.g.
    /// `/confirm is a consent field: acts only when true`.
    pub consent_fields: Vec<String>,
    /// `session` (cases one after another in a server process, failures re-run
    /// fresh) or `fresh-process`.
    pub mode: &'static str,
    /// The protocol era the server was driven in: `2025-11-25` or `2026-07-28`.
    pub protocol: &'static str,
    /// Whether `--strict` was on.
    pub strict: bool,
    /// The server's SDK, as the wire told it (the best guess over the
    /// check's eras).
    pub sdk: SdkGuess,
    /// Whether every property holds, and the era is not inconclusive.
    pub passed: bool,
    /// Each step's `requestedSchema`, as the probe saw it.
    pub requested_schemas: Vec<Value>,
    /// Warnings about the schemas (keywords outside the MCP subset).
    pub schema_warnings: Vec<String>,
    /// Generated invalid answers the judge called valid (reclassified, not misjudged).
    pub reclassified: usize,
    /// What the era's calls could learn: the planned cases that reached the
    /// form, the calls that never reached the tool, and why the era is
    /// inconclusive when it is.
    pub health: Health,
    /// The eight properties, in order.
    pub properties: Vec<PropertyReport>,
}

impl CheckReport {
    /// The property report numbered `number` (1 to 8).
    pub fn property(&self, number: u8) -> Option<&PropertyReport> {
        self.properties.iter().find(|p| p.property == number)
    }
}
