//! The `policy` argument of `calculate` (contract rule 3) and its strategies.

use std::fmt;

use proptest::prelude::*;

/// The `policy` argument of `calculate` (contract rule 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum Policy {
    /// `"validated"`: asks only when form is declared, validates accepted content.
    Validated,
    /// `"raw"`: asks only when form is declared, reports the answer as received.
    Raw,
    /// `"diagnostic_unchecked"`: always asks, reports the answer as received.
    DiagnosticUnchecked,
}

impl Policy {
    /// The string sent in the `tools/call` arguments.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Validated => "validated",
            Policy::Raw => "raw",
            Policy::DiagnosticUnchecked => "diagnostic_unchecked",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A policy that checks the client's capabilities before asking (contract rule 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardedPolicy {
    /// `"validated"`.
    Validated,
    /// `"raw"`.
    Raw,
}

impl GuardedPolicy {
    /// The string sent in the `tools/call` arguments.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardedPolicy::Validated => "validated",
            GuardedPolicy::Raw => "raw",
        }
    }
}

/// Any policy, `validated` weighted highest.
pub fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![
        6 => Just(Policy::Validated),
        2 => Just(Policy::Raw),
        2 => Just(Policy::DiagnosticUnchecked),
    ]
}

/// `validated` or `raw`, `validated` weighted higher.
pub fn guarded_policy() -> impl Strategy<Value = GuardedPolicy> {
    prop_oneof![
        2 => Just(GuardedPolicy::Validated),
        1 => Just(GuardedPolicy::Raw),
    ]
}
