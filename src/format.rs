//! How messages write counts and durations: `1 case`, `3 cases`, `10 s`.
//!
//! The bottom of the module tree: every layer (harness, oracles, verdicts,
//! reports, errors) writes its messages with these, and this file imports
//! nothing of the crate.

use std::time::Duration;

/// `count` and `noun` as people say them: `1 case`, `0 cases`, `2 cases` (every
/// noun counted in this crate's messages makes its plural with an `s`).
pub fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// `d` in seconds as people write it: `10 s`, `0.3 s`.
pub fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{counted, seconds};

    #[test]
    fn one_of_a_thing_is_singular_and_any_other_count_plural() {
        assert_eq!(counted(1, "case"), "1 case");
        assert_eq!(counted(0, "case"), "0 cases");
        assert_eq!(counted(2, "tools/call request"), "2 tools/call requests");
    }

    #[test]
    fn durations_are_written_in_seconds_with_their_fraction() {
        assert_eq!(seconds(Duration::from_secs(10)), "10 s");
        assert_eq!(seconds(Duration::from_millis(300)), "0.3 s");
    }
}
