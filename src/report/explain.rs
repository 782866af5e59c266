//! A generated case's failure explained in its minimal form, for the
//! properties' failure messages and the closing lines of `run --cases N`.

use serde_json::Value;

use crate::strategy::GeneratedCase;

/// A generated case's failure in its minimal form, one item per line: reason,
/// capabilities, policy, answer, outcome and expected outcome. Used by the
/// properties and by `elicit-check run --cases N` alike.
pub fn explain(generated: &GeneratedCase, outcome: &Value) -> String {
    format!(
        "\n  reason:       {}\n  capabilities: {}\n  policy:       {}\n  answer:       {}\n  outcome:      {}\n  expected:     {}",
        generated.reason,
        generated.case.capabilities,
        generated.case.policy,
        serde_json::to_string(&generated.case.answer).unwrap_or_default(),
        outcome,
        generated.expected
    )
}
