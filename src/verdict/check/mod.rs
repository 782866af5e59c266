//! A check's verdict: from the judged calls of one era to its
//! [`outcome::CheckReport`], one line per property (P1 to P8).
//!
//! In: what the job ([`mod@crate::check`]) ran and judged, call by call (each
//! call's violations and answer classes from [`crate::oracle::property`], the
//! planned cases, how each session ended). Out: the era's report, which
//! [`crate::report::check`] writes as a table, JSON, JUnit, SARIF or Markdown.
//!
//! Along the flow: [`tally`] counts each property's calls, the valid calls and
//! the answer classes acted on; [`health`] says whether the era's calls could
//! learn anything (an era whose planned cases mostly never reached the form is
//! inconclusive, never "holds"); [`assemble`] makes each property's verdict,
//! its warnings and its failure; [`reproduction`] writes the command lines
//! that repeat a failure and [`failure`] a failure from the call that showed
//! it; [`outcome`] holds the report's types;
//! [`case_record`] is one judged call as the evidence folder keeps it, and
//! [`journal`] the calls that ran and are not logged yet; [`session_notes`]
//! says what session mode showed that the judged runs do not.

pub mod assemble;
pub mod case_record;
pub mod failure;
pub mod health;
pub mod journal;
pub mod outcome;
pub mod reproduction;
pub mod session_notes;
pub mod tally;
