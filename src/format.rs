//! How messages write counts, durations and the tail of a process's stderr:
//! `1 case`, `3 cases`, `10 s`.
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

/// The last `count` lines of `text` (a server's stderr under a message),
/// joined with `\n`; all of them when it has fewer.
pub fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{counted, last_lines, seconds};

    #[test]
    fn last_lines_keeps_the_tail_of_a_text() {
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc");
        assert_eq!(last_lines("a\nb", 5), "a\nb");
        assert_eq!(last_lines("", 3), "");
    }

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
